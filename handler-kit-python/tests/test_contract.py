"""The cases the TypeScript kit's tests read too (handler-kit/contract-cases.json)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from conftest import CompletionRoute

from mos_handler_kit import (
    CompletionNotTaken,
    CompletionRefused,
    InvalidPayload,
    MemoryStore,
    ReportOptions,
    parse_job,
    report_completion,
    verify_signature,
)

CASES: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "handler-kit" / "contract-cases.json").read_text()
)
SIGNATURES = CASES["signatures"]
Test = TypeVar("Test", bound=Callable[..., None])


def named(cases: list[dict[str, Any]]) -> Callable[[Test], Test]:
    decorate: Callable[[Test], Test] = pytest.mark.parametrize("case", cases, ids=[c["name"] for c in cases])
    return decorate


@named(CASES["payloads"])
def test_payload(case: dict[str, Any]) -> None:
    payload = case["text"] if "text" in case else case["payload"]
    if case["error"] is None:
        assert parse_job(payload).job_id == case["payload"]["job_id"]
        assert parse_job(json.dumps(payload)).payload == payload
    else:
        with pytest.raises(InvalidPayload) as raised:
            parse_job(payload)
        assert str(raised.value) == case["error"]


@named(SIGNATURES["cases"])
def test_signature(case: dict[str, Any]) -> None:
    body = case.get("body", SIGNATURES["body"]).encode()
    valid = verify_signature(SIGNATURES["secret"], case["headers"], body, SIGNATURES["tolerance_s"], SIGNATURES["now"])
    assert valid is case["valid"]


@named(CASES["completion"])
def test_completion(case: dict[str, Any], completion_route: CompletionRoute) -> None:
    completion_route.script = [dict(answer) for answer in case["answers"]]
    job = parse_job(
        {**CASES["payloads"][0]["payload"], "completion": {"method": "POST", "path": "/complete", "url": completion_route.url, "token": "job-token"}}
    )
    options = ReportOptions(initial_delay_s=0.01, max_elapsed_s=case.get("max_elapsed_ms", 60_000) / 1000)
    report = {"status": "success", "output": {"label": "setosa"}}
    expected = case["outcome"]
    if expected["kind"] in ("recorded", "conflict"):
        outcome = report_completion(job, report, options)
        assert (outcome.kind, outcome.status) == (expected["kind"], expected["status"])
        assert outcome.message == expected.get("message", "")
    elif expected["kind"] == "refused":
        with pytest.raises(CompletionRefused) as refused:
            report_completion(job, report, options)
        assert refused.value.status == expected["status"]
        assert expected["message"] in str(refused.value)
    else:
        with pytest.raises(CompletionNotTaken, match=expected["message"]):
            report_completion(job, report, options)
    if "attempts" in case:
        assert len(completion_route.received) == case["attempts"]
    assert all(r.body == report and r.headers["authorization"] == "Bearer job-token" for r in completion_route.received)


@named(CASES["dedup"])
def test_dedup(case: dict[str, Any]) -> None:
    store = MemoryStore()
    for step in case["steps"]:
        if step[0] == "claim":
            assert store.claim("job-1", step[1]) is step[2], step
            time.sleep(0.002)  # a lease of 0 s has run out by the next step
        else:
            getattr(store, step[0])("job-1")
