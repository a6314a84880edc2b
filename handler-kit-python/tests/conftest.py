"""A completion route stand-in on loopback that answers each report with the next scripted answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Received:
    headers: dict[str, str]
    body: Any


@dataclass
class CompletionRoute:
    """``status`` 0 drops the connection without an answer; the last answer repeats."""

    script: list[dict[str, Any]]
    received: list[Received] = field(default_factory=list)
    url: str = ""

    def next_answer(self) -> dict[str, Any]:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]


@pytest.fixture
def completion_route() -> Iterator[CompletionRoute]:
    route = CompletionRoute([{"status": 200}])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            route.received.append(Received({k.lower(): v for k, v in self.headers.items()}, json.loads(raw)))
            answer = route.next_answer()
            if answer["status"] == 0:
                self.close_connection = True
                self.connection.close()
                return
            payload = json.dumps(answer.get("body", {"ok": True})).encode()
            self.send_response(answer["status"])
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for name, value in answer.get("headers", {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    route.url = f"http://127.0.0.1:{server.server_address[1]}/complete"
    yield route
    server.shutdown()
    server.server_close()
