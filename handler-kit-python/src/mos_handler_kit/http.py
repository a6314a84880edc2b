"""The ``http`` handler kind: a WSGI app and an ASGI app over one core, in ``async`` or ``sync`` mode."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import Any, Literal
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from .handler import JobFunction, JobHandler, KitOptions, run_job
from .job import InvalidPayload, parse_job

Mode = Literal["async", "sync"]
StartResponse = Callable[[str, list[tuple[str, str]]], Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_REASONS = {200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 405: "Method Not Allowed",
            413: "Content Too Large", 422: "Unprocessable Content", 503: "Service Unavailable"}


def verify_signature(
    secret: str, headers: Mapping[str, str], body: bytes, tolerance_s: float = 300, now: float | None = None
) -> bool:
    """Standard Webhooks: ``v1,<base64 HMAC-SHA256 of id.timestamp.body>`` keyed with the base64 part of the secret.

    ``headers`` with lower-case names. False for a missing id, a timestamp more than ``tolerance_s`` either side of
    now (a replay of an old call), or no signature that matches.
    """
    call_id = headers.get("webhook-id", "")
    try:
        timestamp = int(headers.get("webhook-timestamp", ""))
    except ValueError:
        return False
    current = time.time() if now is None else now
    if not call_id or abs(current - timestamp) > tolerance_s:
        return False
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    except (binascii.Error, ValueError):
        return False
    digest = hmac.new(key, f"{call_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    expected = b"v1," + base64.b64encode(digest)
    return any(
        hmac.compare_digest(candidate.encode(), expected) for candidate in headers.get("webhook-signature", "").split(" ")
    )


@dataclass(frozen=True)
class Answer:
    status: int
    body: Mapping[str, object]
    headers: tuple[tuple[str, str], ...] = ()


class HttpHandler:
    """Serves one model function to the service's signed ``http`` calls.

    ``async`` mode answers 202 at once and runs the job on a worker thread, then reports it with its job token (the
    kit's JobHandler: claimed once, reported once). ``secret`` is the model's ``http_handler_secret``, or a function
    that reads it (from a file or a secret manager, on each call: the service shows the secret once, when the model
    is created, so a server started before that can pick it up); ``None`` turns verification off, for tests only.
    ``sync`` mode runs the job and answers its output; a raised error answers 422 with its message, which fails the
    job without a retry. Use it as a WSGI app
    (``serve(handler)``, gunicorn, Flask's ``DispatcherMiddleware``) or through ``handler.asgi`` (FastAPI's
    ``app.mount("/score", handler.asgi)``, uvicorn).
    """

    def __init__(
        self,
        fn: JobFunction,
        *,
        secret: str | Callable[[], str | None] | None,
        mode: Mode = "async",
        options: KitOptions | None = None,
        tolerance_s: float = 300,
        max_body_bytes: int = 1024 * 1024,
        max_workers: int = 4,
        remembered_answers: int = 1024,
    ) -> None:
        if mode not in ("async", "sync"):
            raise ValueError(f"mode must be async or sync, not {mode!r}")
        self.fn = fn
        self.secret = secret
        self.mode = mode
        self.options = options or KitOptions()
        self.tolerance_s = tolerance_s
        self.max_body_bytes = max_body_bytes
        self._jobs = JobHandler(fn, self.options)
        self._executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="mos-job")
        # sync mode: the answers of finished jobs, so the service's retry of a call whose answer it lost gets the
        # same answer instead of a second run
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._answers_lock = threading.Lock()
        self._remembered = remembered_answers

    def handle(self, method: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """The whole decision for one call; ``headers`` with lower-case names. Blocks for a sync job's run."""
        if method != "POST":
            return Answer(405, {"message": "POST a job"})
        if len(body) > self.max_body_bytes:
            return Answer(413, {"message": f"the body is larger than {self.max_body_bytes} bytes"})
        if self.secret is not None:
            secret = self.secret() if callable(self.secret) else self.secret
            if not secret:
                return Answer(401, {"message": "the handler has no secret yet: no call can be verified"})
            if not verify_signature(secret, headers, body, self.tolerance_s):
                return Answer(401, {"message": "the signature does not verify with the handler secret"})
        try:
            job = parse_job(body)
        except InvalidPayload as err:
            return Answer(400, {"message": str(err)})
        if self.mode == "async":
            self._executor.submit(self._run_async, body)
            return Answer(202, {"accepted": True})
        return self._run_sync(job.job_id, body)

    def _run_async(self, body: bytes) -> None:
        try:
            self._jobs(body)
        except Exception as err:  # nothing waits on this thread: the log is where it goes
            self.options.log("the job could not be reported", {"error": repr(err)})

    def _run_sync(self, job_id: str, body: bytes) -> Answer:
        store = self.options.store
        if not store.claim(job_id, self.options.lease_s):
            with self._answers_lock:
                remembered = self._answers.get(job_id)
            # Still running (the service's call timed out and it retries): ask it to come back.
            return remembered or Answer(503, {"message": f"job {job_id} is running"}, (("retry-after", "2"),))
        report = run_job(self.fn, parse_job(body))
        if report["status"] == "success":
            answer = Answer(200, report["output"])
        else:
            answer = Answer(422, report["error"])
        with self._answers_lock:
            self._answers[job_id] = answer
            while len(self._answers) > self._remembered:
                self._answers.popitem(last=False)
        store.complete(job_id)
        return answer

    def __call__(self, environ: Mapping[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """WSGI."""
        headers = {
            key[5:].replace("_", "-").lower(): str(value) for key, value in environ.items() if key.startswith("HTTP_")
        }
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > self.max_body_bytes:
            answer = Answer(413, {"message": f"the body is larger than {self.max_body_bytes} bytes"})
        else:
            body = environ["wsgi.input"].read(length) if length else b""
            answer = self.handle(str(environ.get("REQUEST_METHOD", "")), headers, body)
        payload = json.dumps(answer.body).encode()
        start_response(
            f"{answer.status} {_REASONS.get(answer.status, 'Status')}",
            [("content-type", "application/json"), ("content-length", str(len(payload))), *answer.headers],
        )
        return [payload]

    async def asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI: the same calls, the model run on a thread so the event loop keeps serving."""
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size <= self.max_body_bytes:
                chunks.append(chunk)
            more = bool(message.get("more_body", False))
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
        if size > self.max_body_bytes:
            answer = Answer(413, {"message": f"the body is larger than {self.max_body_bytes} bytes"})
        else:
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(None, self.handle, scope.get("method", ""), headers, b"".join(chunks))
        payload = json.dumps(answer.body).encode()
        raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        raw_headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers]
        await send({"type": "http.response.start", "status": answer.status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": payload})

    def close(self, wait: bool = True) -> None:
        """Lets async jobs in flight finish (``wait``) and stops taking more."""
        self._executor.shutdown(wait=wait)


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class names it)
        pass


WSGIApp = Callable[[Any, StartResponse], Iterable[bytes]]


def serve(app: WSGIApp, host: str = "127.0.0.1", port: int = 8000, quiet: bool = True) -> WSGIServer:
    """A standard-library server for a handler (or an app routing to several), one thread per call;
    ``serve_forever()`` it. Port 0: any free one (``server.server_address[1]``)."""
    handler_class = _QuietHandler if quiet else WSGIRequestHandler
    return make_server(host, port, app, server_class=_ThreadingWSGIServer, handler_class=handler_class)
