"""AWS Lambda: the service invokes the function asynchronously (``Event``) with the job as the event."""

from __future__ import annotations

from collections.abc import Callable

from .handler import JobFunction, JobHandler, KitOptions

LambdaFunction = Callable[[object, object], "dict[str, object]"]


def lambda_handler(fn: JobFunction, options: KitOptions | None = None) -> LambdaFunction:
    """``handler = lambda_handler(predict)``: a duplicate delivery returns at once; a report that could not be made
    raises, so Lambda retries the event. Keep the returned handler at module level: its MemoryStore then lasts as
    long as the execution environment does.
    """
    handle = JobHandler(fn, options)

    def handler(event: object, context: object = None) -> dict[str, object]:
        return handle(event).as_dict()

    return handler
