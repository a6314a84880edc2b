"""Run a model as a Model Orchestration Service handler: AWS Lambda or an ``http`` server.

Each job is checked, claimed by ``job_id`` in a dedup store, run, and reported once to ``completion.url`` with its
job token, through 503/``Retry-After``, 429 and network errors.
"""

from .aws_lambda import lambda_handler
from .handler import HandleResult, JobFailed, JobFunction, JobHandler, KitOptions, run_job
from .http import Answer, HttpHandler, serve, verify_signature
from .job import Completion, InvalidPayload, Job, parse_job
from .report import (
    CompletionNotTaken,
    CompletionRefused,
    Report,
    ReportOptions,
    ReportOutcome,
    report_completion,
    retry_after_s,
)
from .store import DedupStore, MemoryStore

__all__ = [
    "Answer",
    "Completion",
    "CompletionNotTaken",
    "CompletionRefused",
    "DedupStore",
    "HandleResult",
    "HttpHandler",
    "InvalidPayload",
    "Job",
    "JobFailed",
    "JobFunction",
    "JobHandler",
    "KitOptions",
    "MemoryStore",
    "Report",
    "ReportOptions",
    "ReportOutcome",
    "lambda_handler",
    "parse_job",
    "report_completion",
    "retry_after_s",
    "run_job",
    "serve",
    "verify_signature",
]
