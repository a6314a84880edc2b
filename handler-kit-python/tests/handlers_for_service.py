"""The Python handlers test/temporal/activities/python-handlers.test.ts runs against the real service (not a pytest module).

    /usr/bin/python3 handlers_for_service.py STATE_DIR

Serves on a free loopback port, written to ``STATE_DIR/url`` once it listens:

- ``POST /async`` and ``POST /sync``: ``http`` handlers in each mode, each verifying with the secret in
  ``STATE_DIR/secrets/<mode>`` (read on each call: the service shows it once the model exists);
- ``POST /lambda``: a Lambda runtime stand-in that invokes a ``lambda_handler`` with the body as the event and
  answers what it returned (or 500 and the error), as the Lambda service would run the function.

A job whose input has ``fail`` fails with that message; any other returns ``{"python": <handler>, "input": ...}``.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mos_handler_kit import HttpHandler, Job, JobFailed, lambda_handler, serve  # noqa: E402


def model(name: str) -> Callable[[Job], dict[str, Any]]:
    def run(job: Job) -> dict[str, Any]:
        if "fail" in job.input:
            raise JobFailed(str(job.input["fail"]), handler=name)
        return {"python": name, "input": job.input}

    return run


def main(state: Path) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    def secret(mode: str) -> Callable[[], str | None]:
        def read() -> str | None:
            path = state / "secrets" / mode
            return path.read_text().strip() if path.exists() else None

        return read

    routes = {
        "/async": HttpHandler(model("async"), secret=secret("async"), mode="async"),
        "/sync": HttpHandler(model("sync"), secret=secret("sync"), mode="sync"),
    }
    function = lambda_handler(model("lambda"))

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path in routes:
            return routes[path](environ, start_response)
        if path != "/lambda":
            start_response("404 Not Found", [("content-type", "application/json")])
            return [b'{"message": "POST /async, /sync or /lambda"}']
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        try:
            status, answer = "200 OK", function(json.loads(body), None)
        except Exception as err:  # what Lambda records as the invocation's error
            status, answer = "500 Internal Server Error", {"errorType": type(err).__name__, "errorMessage": str(err)}
        start_response(status, [("content-type", "application/json")])
        return [json.dumps(answer).encode()]

    server = serve(app, port=0)
    (state / "url").write_text(f"http://127.0.0.1:{server.server_address[1]}")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
