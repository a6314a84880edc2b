from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import CompletionRoute

from mos_handler_kit import (
    CompletionRefused,
    HttpHandler,
    InvalidPayload,
    Job,
    JobFailed,
    JobHandler,
    KitOptions,
    MemoryStore,
    ReportOptions,
    lambda_handler,
    serve,
)

SECRET = "whsec_" + base64.b64encode(bytes([3] * 32)).decode()
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def job(url: str, job_id: str = "019a0000-0000-7000-8000-000000000001", **extra: Any) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "job_type": "inference",
        "model_id": "m",
        "model_version": "1",
        "input": {"x": 2},
        "completion": {"method": "POST", "path": "/complete", "url": url, "token": "job-token"},
        "traceparent": TRACEPARENT,
        **extra,
    }


def signed(body: bytes, secret: str = SECRET, at: int | None = None, call_id: str = "id-1") -> dict[str, str]:
    timestamp = int(time.time()) if at is None else at
    key = base64.b64decode(secret[len("whsec_"):])
    digest = hmac.new(key, f"{call_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return {
        "webhook-id": call_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": "v1," + base64.b64encode(digest).decode(),
    }


class Counter:
    """A model that counts its runs."""

    def __init__(self) -> None:
        self.jobs: list[str] = []

    def __call__(self, j: Job) -> dict[str, Any]:
        self.jobs.append(j.job_id)
        return {"run": len(self.jobs)}


def wait_for(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class TestLambda:
    def test_runs_once_and_reports_with_the_job_token_and_traceparent(self, completion_route: CompletionRoute) -> None:
        runs: list[str] = []

        def double(j: Job) -> dict[str, Any]:
            runs.append(j.job_id)
            return {"doubled": j.input["x"] * 2, "run": len(runs)}

        handler = lambda_handler(double)
        event = job(completion_route.url)
        first = handler(event, None)
        second = handler(event, None)
        assert (first["outcome"], second["outcome"]) == ("reported", "duplicate")
        assert runs == [event["job_id"]]
        assert len(completion_route.received) == 1
        received = completion_route.received[0]
        assert received.body == {"status": "success", "output": {"doubled": 4, "run": 1}}
        assert received.headers["authorization"] == "Bearer job-token"
        assert received.headers["traceparent"] == TRACEPARENT

    def test_concurrent_deliveries_run_once(self, completion_route: CompletionRoute) -> None:
        handler = lambda_handler(Counter())
        results: list[dict[str, object]] = []
        threads = [threading.Thread(target=lambda: results.append(handler(job(completion_route.url), None))) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(str(r["outcome"]) for r in results) == ["duplicate"] * 3 + ["reported"]
        assert len(completion_route.received) == 1

    def test_a_raised_error_is_reported_as_failure_with_its_message(self, completion_route: CompletionRoute) -> None:
        def broken(_: Job) -> dict[str, Any]:
            raise RuntimeError("model weights missing")

        result = lambda_handler(broken)(job(completion_route.url), None)
        assert result["report"] == "failure"
        assert completion_route.received[0].body == {"status": "failure", "error": {"message": "model weights missing"}}

    def test_job_failed_reports_a_structured_error(self, completion_route: CompletionRoute) -> None:
        def picky(_: Job) -> dict[str, Any]:
            raise JobFailed("too few rows to train", rows=3, needed=10)

        lambda_handler(picky)(job(completion_route.url), None)
        assert completion_route.received[0].body == {
            "status": "failure",
            "error": {"message": "too few rows to train", "rows": 3, "needed": 10},
        }

    def test_an_output_that_is_not_an_object_fails_the_job(self, completion_route: CompletionRoute) -> None:
        lambda_handler(lambda _: [1, 2])(job(completion_route.url), None)  # type: ignore[arg-type, return-value]
        assert completion_route.received[0].body == {"status": "failure", "error": {"message": "the handler returned list, not an object"}}

    def test_a_malformed_event_raises_and_reports_nothing(self, completion_route: CompletionRoute) -> None:
        with pytest.raises(InvalidPayload, match="job_type must be inference or training"):
            lambda_handler(lambda _: {})(job(completion_route.url, job_type="batch"), None)
        assert completion_route.received == []

    def test_a_refused_report_frees_the_job_for_a_redelivery(self, completion_route: CompletionRoute) -> None:
        completion_route.script = [{"status": 401, "body": {"success": False, "message": "the job token has expired"}}]
        store = MemoryStore()
        handler = lambda_handler(lambda _: {}, KitOptions(store=store))
        with pytest.raises(CompletionRefused, match="the job token has expired"):
            handler(job(completion_route.url), None)
        assert len(completion_route.received) == 1
        assert store.claim("019a0000-0000-7000-8000-000000000001", 60)

    def test_a_job_without_a_token_uses_the_token_option(self, completion_route: CompletionRoute) -> None:
        event = job(completion_route.url)
        del event["completion"]["token"]
        JobHandler(lambda _: {}, KitOptions(report=ReportOptions(token=lambda: "idp-token")))(event)
        assert completion_route.received[0].headers["authorization"] == "Bearer idp-token"


@pytest.fixture
def served() -> Iterator[Any]:
    """Serves HttpHandlers on loopback with the standard-library server; yields a function making one."""
    servers: list[Any] = []

    def start(handler: HttpHandler) -> str:
        server = serve(handler, port=0)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append((server, handler))
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server, handler in servers:
        server.shutdown()
        server.server_close()
        handler.close()


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), dict(response.headers.items())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read()), dict(err.headers.items())


class TestHttpAsync:
    def test_answers_202_then_reports_a_signed_job(self, served: Any, completion_route: CompletionRoute) -> None:
        url = served(HttpHandler(lambda j: {"served": True}, secret=SECRET))
        body = json.dumps(job(completion_route.url)).encode()
        status, answer, _ = post(url, body, signed(body))
        assert (status, answer) == (202, {"accepted": True})
        wait_for(lambda: completion_route.received)
        assert completion_route.received[0].body == {"status": "success", "output": {"served": True}}

    def test_answers_before_the_model_finishes(self, served: Any, completion_route: CompletionRoute) -> None:
        release = threading.Event()
        url = served(HttpHandler(lambda j: {"waited": release.wait(5)}, secret=SECRET))
        body = json.dumps(job(completion_route.url)).encode()
        assert post(url, body, signed(body))[0] == 202
        assert completion_route.received == []
        release.set()
        wait_for(lambda: completion_route.received)

    @pytest.mark.parametrize(
        "headers",
        [
            pytest.param(lambda body: signed(body, secret="whsec_" + base64.b64encode(bytes([4] * 32)).decode()), id="another secret"),
            pytest.param(lambda body: {}, id="unsigned"),
            pytest.param(lambda body: signed(body, at=int(time.time()) - 600), id="stale (a replay)"),
            pytest.param(lambda body: signed(body + b" "), id="a tampered body"),
        ],
    )
    def test_refuses_a_call_whose_signature_does_not_verify(self, served: Any, completion_route: CompletionRoute, headers: Any) -> None:
        runs = Counter()
        url = served(HttpHandler(runs, secret=SECRET))
        body = json.dumps(job(completion_route.url)).encode()
        status, answer, _ = post(url, body, headers(body))
        assert (status, answer) == (401, {"message": "the signature does not verify with the handler secret"})
        time.sleep(0.05)
        assert runs.jobs == [] and completion_route.received == []

    def test_a_replayed_call_runs_and_reports_once(self, served: Any, completion_route: CompletionRoute) -> None:
        url = served(HttpHandler(lambda j: {"ok": True}, secret=SECRET))
        body = json.dumps(job(completion_route.url)).encode()
        headers = signed(body)
        assert post(url, body, headers)[0] == 202
        wait_for(lambda: completion_route.received)
        assert post(url, body, headers)[0] == 202
        time.sleep(0.1)
        assert len(completion_route.received) == 1

    def test_reads_a_secret_given_as_a_function_on_each_call(self, served: Any, completion_route: CompletionRoute) -> None:
        current: list[str | None] = [None]
        url = served(HttpHandler(lambda j: {}, secret=lambda: current[0]))
        body = json.dumps(job(completion_route.url)).encode()
        assert post(url, body, signed(body))[0:2] == (401, {"message": "the handler has no secret yet: no call can be verified"})
        current[0] = SECRET
        assert post(url, body, signed(body))[0] == 202
        wait_for(lambda: completion_route.received)

    def test_refuses_a_body_that_is_not_a_job(self, served: Any) -> None:
        url = served(HttpHandler(lambda j: {}, secret=SECRET))
        body = b'{"job_id": "x"}'
        assert post(url, body, signed(body)) [0:2] == (400, {"message": "model_id must be a non-empty string"})

    def test_refuses_a_body_over_the_limit(self, served: Any) -> None:
        url = served(HttpHandler(lambda j: {}, secret=SECRET, max_body_bytes=10))
        body = b'{"job_id": "0123456789"}'
        assert post(url, body, signed(body))[0] == 413


class TestHttpSync:
    def test_answers_the_output(self, served: Any) -> None:
        url = served(HttpHandler(lambda j: {"doubled": j.input["x"] * 2}, secret=SECRET, mode="sync"))
        body = json.dumps(job("http://127.0.0.1:9/unused")).encode()
        assert post(url, body, signed(body))[0:2] == (200, {"doubled": 4})

    def test_a_raised_error_answers_422_with_its_message(self, served: Any) -> None:
        def broken(_: Job) -> dict[str, Any]:
            raise ValueError("features out of range")

        url = served(HttpHandler(broken, secret=SECRET, mode="sync"))
        body = json.dumps(job("http://127.0.0.1:9/unused")).encode()
        assert post(url, body, signed(body))[0:2] == (422, {"message": "features out of range"})

    def test_a_retried_call_gets_the_first_answer_without_a_second_run(self, served: Any) -> None:
        runs = Counter()
        url = served(HttpHandler(runs, secret=SECRET, mode="sync"))
        body = json.dumps(job("http://127.0.0.1:9/unused")).encode()
        assert post(url, body, signed(body))[0:2] == (200, {"run": 1})
        assert post(url, body, signed(body))[0:2] == (200, {"run": 1})
        assert len(runs.jobs) == 1

    def test_a_call_while_the_job_runs_is_asked_to_come_back(self, served: Any) -> None:
        release = threading.Event()
        url = served(HttpHandler(lambda j: {"waited": release.wait(5)}, secret=SECRET, mode="sync"))
        body = json.dumps(job("http://127.0.0.1:9/unused")).encode()
        first: list[Any] = []
        thread = threading.Thread(target=lambda: first.append(post(url, body, signed(body))))
        thread.start()
        time.sleep(0.2)
        status, _, headers = post(url, body, signed(body))
        assert (status, headers.get("retry-after")) == (503, "2")
        release.set()
        thread.join()
        assert first[0][0:2] == (200, {"waited": True})


class TestAsgi:
    def call(self, handler: HttpHandler, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        sent: list[dict[str, Any]] = []
        messages: list[dict[str, Any]] = [{"type": "http.request", "body": body[:5], "more_body": True}, {"type": "http.request", "body": body[5:]}]

        async def receive() -> dict[str, Any]:
            return messages.pop(0)

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
        asyncio.run(handler.asgi(scope, receive, send))
        return sent[0]["status"], json.loads(sent[1]["body"])

    def test_sync_answers_the_output(self) -> None:
        handler = HttpHandler(lambda j: {"doubled": j.input["x"] * 2}, secret=SECRET, mode="sync")
        body = json.dumps(job("http://127.0.0.1:9/unused")).encode()
        assert self.call(handler, body, {k.title(): v for k, v in signed(body).items()}) == (200, {"doubled": 4})

    def test_async_answers_202_and_reports(self, completion_route: CompletionRoute) -> None:
        handler = HttpHandler(lambda j: {"asgi": True}, secret=SECRET)
        body = json.dumps(job(completion_route.url)).encode()
        assert self.call(handler, body, signed(body)) == (202, {"accepted": True})
        wait_for(lambda: completion_route.received)
        assert completion_route.received[0].body == {"status": "success", "output": {"asgi": True}}
        assert self.call(handler, body, {}) == (401, {"message": "the signature does not verify with the handler secret"})
