"""Reporting a job's outcome to the service's completion route, once, through outages."""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .job import Job

#: The completion route's body (CompleteJobRequest): ``{"status": "success", "output": {...}}`` or
#: ``{"status": "failure", "error": {"message": ...}}``.
Report = dict[str, Any]
Log = Callable[[str, Mapping[str, object]], None]

#: Answers worth waiting out: the service, its database or Temporal away, or the caller throttled.
RETRYABLE = frozenset({408, 425, 429, 500, 502, 503, 504})


class CompletionRefused(Exception):
    """The service refused the report for a reason retrying cannot change (400, 401, 403, 404, 422)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class CompletionNotTaken(Exception):
    """The service did not take the report before the retry deadline (it was away, or kept answering 503)."""


@dataclass(frozen=True)
class ReportOutcome:
    """The service's final answer. ``conflict``: the job was already final (cancelled, timed out, reported otherwise)."""

    kind: Literal["recorded", "conflict"]
    status: int
    body: object = None
    message: str = ""


@dataclass(frozen=True)
class ReportOptions:
    #: A bearer token for jobs whose payload carries no job token (an identity-provider token with scope complete_job).
    token: Callable[[], str] | None = None
    #: How long to keep retrying through outages before giving up (default 15 minutes).
    max_elapsed_s: float = 15 * 60
    #: First wait between attempts when the service names none, doubling up to ``max_delay_s``.
    initial_delay_s: float = 0.5
    max_delay_s: float = 30.0
    #: Longest wait for one answer.
    attempt_timeout_s: float = 60.0
    log: Log | None = None


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: object


def retry_after_s(header: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds or as an HTTP date, in seconds from now; None when absent or unreadable."""
    if not header:
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))


def report_completion(job: Job, report: Report, options: ReportOptions | None = None) -> ReportOutcome:
    """POSTs the report to the job's completion URL with its job token, retrying until ``max_elapsed_s``.

    Connection errors, time-outs and 408/425/429/5xx are retried, waiting what Retry-After says, else backing off
    with jitter. A repeated report is answered like the first (the service is idempotent), so a retry after a lost
    answer is safe; 409 means the job was already final and is an answer too. Other 4xx raise CompletionRefused.
    """
    options = options or ReportOptions()
    token = job.completion.token or (options.token() if options.token else None)
    if not token:
        raise ValueError(f"job {job.job_id} carries no job token and no token option was given")
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    if job.traceparent:
        headers["traceparent"] = job.traceparent
    data = json.dumps(report).encode()
    started = time.monotonic()
    delay = options.initial_delay_s
    attempt = 0
    while True:
        attempt += 1
        remaining = options.max_elapsed_s - (time.monotonic() - started)
        try:
            answer = _post(job.completion.url, data, headers, max(0.1, min(options.attempt_timeout_s, remaining)))
        except (urllib.error.URLError, OSError, ValueError) as err:
            why = str(getattr(err, "reason", err)) or type(err).__name__
            wait = delay * (0.5 + random.random())
        else:
            message = _message(answer.body) or f"status {answer.status}"
            if 200 <= answer.status < 300:
                return ReportOutcome("recorded", answer.status, answer.body)
            if answer.status == 409:
                return ReportOutcome("conflict", 409, answer.body, message)
            if answer.status not in RETRYABLE:
                raise CompletionRefused(
                    f"the completion of job {job.job_id} was refused ({answer.status}): {message}", answer.status
                )
            why = f"{answer.status} {message}"
            named = retry_after_s(_header(answer.headers, "retry-after"))
            wait = named if named is not None else delay * (0.5 + random.random())
        delay = min(delay * 2, options.max_delay_s)
        if time.monotonic() - started + wait > options.max_elapsed_s:
            raise CompletionNotTaken(
                f"the completion of job {job.job_id} was not taken within {options.max_elapsed_s} s (last: {why})"
            )
        if options.log:
            options.log(
                "completion not taken yet; retrying",
                {"job_id": job.job_id, "attempt": attempt, "why": why, "wait_s": round(wait, 3)},
            )
        time.sleep(wait)


def _post(url: str, data: bytes, headers: Mapping[str, str], timeout: float) -> _Answer:
    request = urllib.request.Request(url, data=data, headers=dict(headers), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (the service's own URL)
            return _Answer(response.status, dict(response.headers.items()), _read(response.read()))
    except urllib.error.HTTPError as err:
        # An answer, not a network failure: urllib raises for every status outside 2xx.
        with err:
            return _Answer(err.code, dict(err.headers.items()), _read(err.read()))
    except (socket.timeout, TimeoutError) as err:
        raise OSError(f"no answer within {timeout:.1f} s") from err


def _read(raw: bytes) -> object:
    text = raw.decode("utf-8", "replace")
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _message(body: object) -> str:
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str):
            return message
    return ""


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None
