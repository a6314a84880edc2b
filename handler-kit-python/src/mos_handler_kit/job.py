"""The job the service sends every handler (its OpenAPI document: ``components.schemas.DispatchPayload``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, cast
from urllib.parse import urlsplit


class InvalidPayload(ValueError):
    """The payload is not a job of the service: nothing to run and nowhere to report."""


@dataclass(frozen=True)
class Completion:
    """Where the job is reported: POST a CompleteJobRequest to ``url`` with ``Authorization: Bearer <token>``."""

    url: str
    path: str
    token: str | None = None


@dataclass(frozen=True)
class Job:
    job_id: str
    job_type: Literal["inference", "training"]
    model_id: str
    model_version: str
    input: dict[str, Any]
    completion: Completion
    trigger_output: dict[str, Any] | None = None
    traceparent: str | None = None
    #: The payload as received, for fields this kit does not name.
    payload: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def parse_job(payload: object) -> Job:
    """Checks the fields the kit relies on; raises InvalidPayload naming the first bad field.

    The messages are the TypeScript kit's, word for word: both kits are checked against one set of contract cases.
    """
    raw = _loads(payload) if isinstance(payload, (str, bytes, bytearray)) else payload
    if not isinstance(raw, dict):
        raise InvalidPayload("the payload must be a JSON object")
    for name in ("job_id", "model_id", "model_version"):
        if not isinstance(raw.get(name), str) or not raw[name]:
            raise InvalidPayload(f"{name} must be a non-empty string")
    job_type = raw.get("job_type")
    if job_type not in ("inference", "training"):
        raise InvalidPayload("job_type must be inference or training")
    if not isinstance(raw.get("input"), dict):
        raise InvalidPayload("input must be an object")
    if "trigger_output" in raw and not isinstance(raw["trigger_output"], dict):
        raise InvalidPayload("trigger_output must be an object")
    completion = raw.get("completion")
    if not isinstance(completion, dict) or not _absolute_url(completion.get("url")):
        raise InvalidPayload("completion.url must be an absolute URL")
    token = completion.get("token")
    if token is not None and not isinstance(token, str):
        raise InvalidPayload("completion.token must be a string")
    traceparent = raw.get("traceparent")
    if traceparent is not None and not isinstance(traceparent, str):
        raise InvalidPayload("traceparent must be a string")
    path = completion.get("path")
    return Job(
        job_id=raw["job_id"],
        job_type=cast(Literal["inference", "training"], job_type),
        model_id=raw["model_id"],
        model_version=raw["model_version"],
        input=raw["input"],
        completion=Completion(url=completion["url"], path=path if isinstance(path, str) else "", token=token),
        trigger_output=raw.get("trigger_output"),
        traceparent=traceparent,
        payload=raw,
    )


def _loads(text: str | bytes | bytearray) -> object:
    try:
        return cast(object, json.loads(text))
    except (ValueError, UnicodeDecodeError):
        raise InvalidPayload("the payload is not JSON") from None


def _absolute_url(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return bool(parts.scheme) and bool(parts.netloc) and " " not in value
