"""The shared stores against stand-ins of their drivers (boto3 and psycopg are not needed to run these), each held
to the dedup contract cases. The stand-ins decide the stores' own conditions: DynamoDB's condition expressions by a
small evaluator, Postgres's statements by SQLite, which has the same ``ON CONFLICT … DO UPDATE … WHERE … RETURNING``.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mos_handler_kit import DedupStore, MemoryStore
from mos_handler_kit.stores import dynamodb
from mos_handler_kit.stores.dynamodb import DynamoDBStore
from mos_handler_kit.stores.postgres import PostgresStore

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "handler-kit" / "contract-cases.json").read_text()
)["dedup"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_796_300_000.0

    def time(self) -> float:
        return self.now


class ConditionalCheckFailed(Exception):
    response = {"Error": {"Code": "ConditionalCheckFailedException"}}


class FakeDynamoDB:
    """The three calls, with condition expressions of the forms the store writes."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, dict[str, str]]] = {}

    def _check(self, item: dict[str, dict[str, str]] | None, kwargs: dict[str, Any]) -> None:
        expression = kwargs.get("ConditionExpression")
        if expression and not self._holds(expression, item or {}, kwargs):
            raise ConditionalCheckFailed()

    def _holds(self, expression: str, item: dict[str, dict[str, str]], kwargs: dict[str, Any]) -> bool:
        names = kwargs.get("ExpressionAttributeNames", {})
        values = kwargs.get("ExpressionAttributeValues", {})

        def value(attribute: dict[str, str]) -> Any:
            return float(attribute["N"]) if "N" in attribute else attribute["S"]

        def term(text: str) -> bool:
            text = text.strip()
            if text.startswith("(") and text.endswith(")"):
                return disjunction(text[1:-1])
            if match := re.fullmatch(r"attribute_not_exists\((\w+)\)", text):
                return match[1] not in item
            match = re.fullmatch(r"([#\w]+) (=|<) (:\w+)", text)
            assert match, f"the fake does not read {text!r}"
            name = names.get(match[1], match[1])
            if name not in item:
                return False
            left, right = value(item[name]), value(values[match[3]])
            return bool(left == right if match[2] == "=" else left < right)

        def disjunction(text: str) -> bool:
            return any(all(term(t) for t in re.split(r" AND (?![^(]*\))", part)) for part in re.split(r" OR (?![^(]*\))", text))

        return disjunction(expression)

    def put_item(self, **kwargs: Any) -> Any:
        key = kwargs["Item"]["job_id"]["S"]
        self._check(self.items.get(key), kwargs)
        self.items[key] = dict(kwargs["Item"])

    def update_item(self, **kwargs: Any) -> Any:
        key = kwargs["Key"]["job_id"]["S"]
        assert kwargs["UpdateExpression"] == "SET #s = :done, expires_at = :keep"
        values = kwargs["ExpressionAttributeValues"]
        self.items[key] = {"job_id": {"S": key}, "state": values[":done"], "expires_at": values[":keep"]}

    def delete_item(self, **kwargs: Any) -> Any:
        key = kwargs["Key"]["job_id"]["S"]
        self._check(self.items.get(key), kwargs)
        self.items.pop(key, None)


def sqlite_connect(clock: Clock) -> Callable[[], Any]:
    """Connections that read the store's Postgres statements: ``%s`` parameters, ``now()`` and seconds intervals."""
    database = sqlite3.connect(":memory:", check_same_thread=False)
    database.create_function("now", 0, clock.time)
    database.execute("CREATE TABLE handled_jobs (job_id text PRIMARY KEY, state text NOT NULL, expires_at real)")

    class Cursor:
        def __init__(self) -> None:
            self.cursor = database.cursor()

        def execute(self, query: str, params: Any = ()) -> None:
            self.cursor.execute(query.replace("%s", "?").replace(" * interval '1 second'", ""), params)

        def fetchone(self) -> Any:
            return self.cursor.fetchone()

    class Connection:
        def cursor(self) -> Cursor:
            return Cursor()

    @contextmanager
    def connect() -> Iterator[Connection]:
        with database:  # commits, as psycopg's connection block does
            yield Connection()

    return connect


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(dynamodb, "time", clock)
    return clock


STORES: dict[str, Callable[[Clock], DedupStore]] = {
    "memory": lambda clock: MemoryStore(),
    "dynamodb": lambda clock: DynamoDBStore(FakeDynamoDB(), "handled-jobs"),
    "postgres": lambda clock: PostgresStore(sqlite_connect(clock)),
}


@pytest.mark.parametrize("make", STORES.values(), ids=STORES.keys())
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_dedup_contract(case: dict[str, Any], make: Callable[[Clock], DedupStore], clock: Clock) -> None:
    store = make(clock)
    for step in case["steps"]:
        if step[0] == "claim":
            assert store.claim("job-1", step[1]) is step[2], step
        else:
            getattr(store, step[0])("job-1")
        clock.now += 1  # a lease of 0 s has run out by the next step
        if isinstance(store, MemoryStore):
            time.sleep(0.002)


def test_the_dynamodb_store_raises_other_errors() -> None:
    class Throttled(Exception):
        response = {"Error": {"Code": "ProvisionedThroughputExceededException"}}

    class Failing(FakeDynamoDB):
        def put_item(self, **kwargs: Any) -> Any:
            raise Throttled()

    with pytest.raises(Throttled):
        DynamoDBStore(Failing(), "t").claim("job-1", 60)


def test_the_postgres_store_refuses_a_table_name_that_is_not_plain() -> None:
    with pytest.raises(ValueError, match="not a plain table name"):
        PostgresStore(lambda: None, "jobs; drop table x")  # type: ignore[arg-type, return-value]
