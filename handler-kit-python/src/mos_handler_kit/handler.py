"""The core both wrappers share: validate, claim, run, report once, remember."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .job import Job, parse_job
from .report import Log, Report, ReportOptions, ReportOutcome, report_completion
from .store import DedupStore, MemoryStore

#: Your model: the job in, its output (a JSON object) out. A raised error is reported as the job's failure.
JobFunction = Callable[[Job], "Mapping[str, Any] | None"]

_logger = logging.getLogger("mos_handler_kit")


def default_log(message: str, fields: Mapping[str, object]) -> None:
    _logger.info("%s %s", message, dict(fields))


class JobFailed(Exception):
    """Raise it to fail the job with a structured error: ``{"message": message, **details}``."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class HandleResult:
    job_id: str
    outcome: Literal["duplicate", "reported"]
    report: Literal["success", "failure"] | None = None
    answer: ReportOutcome | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready, for a Lambda's return value."""
        result: dict[str, object] = {"job_id": self.job_id, "outcome": self.outcome}
        if self.report:
            result["report"] = self.report
        if self.answer:
            result["answer"] = {"kind": self.answer.kind, "status": self.answer.status}
        return result


@dataclass(frozen=True)
class KitOptions:
    #: Remembers handled jobs (default: this process's memory; stores/ has DynamoDB and Postgres).
    store: DedupStore = field(default_factory=MemoryStore)
    #: How long a claim holds off a duplicate while the job runs (default 15 minutes): longer than your model takes.
    lease_s: float = 15 * 60
    report: ReportOptions = field(default_factory=ReportOptions)
    log: Log = default_log


def run_job(fn: JobFunction, job: Job) -> Report:
    """Runs the model and turns what it returned or raised into the completion route's body."""
    try:
        output = fn(job)
    except JobFailed as err:
        return {"status": "failure", "error": {**err.details, "message": str(err)}}
    except Exception as err:  # the model's own bug is still the job's failure, reported with its message
        return {"status": "failure", "error": {"message": str(err) or type(err).__name__}}
    if output is None:
        return {"status": "success", "output": {}}
    if not isinstance(output, Mapping):
        return {"status": "failure", "error": {"message": f"the handler returned {type(output).__name__}, not an object"}}
    return {"status": "success", "output": dict(output)}


class JobHandler:
    """Validates a payload, claims its job, runs ``fn`` and reports the outcome exactly once."""

    def __init__(self, fn: JobFunction, options: KitOptions | None = None) -> None:
        self.fn = fn
        self.options = options or KitOptions()
        # The report's retries are logged where the rest of the kit logs, unless its options name another place.
        self._report = self.options.report
        if self._report.log is None:
            self._report = replace(self._report, log=self.options.log)

    def __call__(self, payload: object) -> HandleResult:
        options = self.options
        job = parse_job(payload)
        if not options.store.claim(job.job_id, options.lease_s):
            options.log("duplicate delivery; already handled or running", {"job_id": job.job_id})
            return HandleResult(job.job_id, "duplicate")
        options.log("job claimed; running it", {"job_id": job.job_id, "job_type": job.job_type})
        report = run_job(self.fn, job)
        try:
            answer = report_completion(job, report, self._report)
        except BaseException:
            # Not reported: let a redelivery (Lambda's retry of a raised error) run the job again.
            options.store.release(job.job_id)
            raise
        options.store.complete(job.job_id)
        options.log("job reported", {"job_id": job.job_id, "report": report["status"], "answer": answer.kind})
        return HandleResult(job.job_id, "reported", report["status"], answer)
