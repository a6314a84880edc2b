"""A DedupStore on a DynamoDB table (partition key ``job_id``, a string), shared by every Lambda instance.

Takes a boto3 DynamoDB *client* (``boto3.client("dynamodb")``), so this module imports nothing from boto3 and the
kit's core keeps no dependency. Set the table's TTL attribute to ``expires_at`` to let DynamoDB drop old items.
"""

from __future__ import annotations

import time
from typing import Any, Protocol


class DynamoDBClient(Protocol):
    """The three calls of botocore's DynamoDB client this store makes."""

    def put_item(self, **kwargs: Any) -> Any: ...

    def update_item(self, **kwargs: Any) -> Any: ...

    def delete_item(self, **kwargs: Any) -> Any: ...


#: How long a done item is kept before the table's TTL may drop it: longer than any redelivery of the job.
DONE_RETENTION_S = 7 * 24 * 3600


class DynamoDBStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def claim(self, job_id: str, lease_s: float) -> bool:
        now = int(time.time())
        try:
            self._client.put_item(
                TableName=self._table,
                Item={"job_id": {"S": job_id}, "state": {"S": "running"}, "expires_at": {"N": str(now + int(lease_s))}},
                # One conditional write: a new job, or a run whose lease ran out (its Lambda died mid-job).
                ConditionExpression="attribute_not_exists(job_id) OR (#s = :running AND expires_at < :now)",
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues={":running": {"S": "running"}, ":now": {"N": str(now)}},
            )
        except Exception as err:  # botocore's exception classes live on the client; match by code
            if _code(err) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def complete(self, job_id: str) -> None:
        self._client.update_item(
            TableName=self._table,
            Key={"job_id": {"S": job_id}},
            UpdateExpression="SET #s = :done, expires_at = :keep",
            ExpressionAttributeNames={"#s": "state"},
            ExpressionAttributeValues={":done": {"S": "done"}, ":keep": {"N": str(int(time.time()) + DONE_RETENTION_S)}},
        )

    def release(self, job_id: str) -> None:
        try:
            self._client.delete_item(
                TableName=self._table,
                Key={"job_id": {"S": job_id}},
                ConditionExpression="#s = :running",
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues={":running": {"S": "running"}},
            )
        except Exception as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise


def _code(err: Exception) -> str:
    response = getattr(err, "response", None)
    if isinstance(response, dict):
        error = response.get("Error")
        if isinstance(error, dict):
            return str(error.get("Code", ""))
    return ""
