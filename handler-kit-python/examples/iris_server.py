"""A real model behind the service: a scikit-learn iris classifier, trained and served by Python http handlers.

One standard-library server, three handlers (docs/handlers.md, "A real model in Python", runs it):

- ``POST /train``   (``async``): trains a classifier on the iris data set scikit-learn ships (no download),
  writes it to ``<state>/models/<model_id>-<version>.pickle`` and reports its path and held-out metrics.
- ``POST /predict`` (``sync``): answers the predicted class and the class probabilities for the four measurements.
- ``POST /review``  (``sync``): a second model, fed by a cascade the classifier's output: flags low-confidence
  predictions for a person to check.

Each model's ``http_handler_secret`` is read from ``<state>/secrets/<model_id>`` on every call, so the server can
start before the models exist. Its URL goes to ``<state>/url`` and its pid to ``<state>/pid`` once it listens.

    /usr/bin/python3 handler-kit-python/examples/iris_server.py --state /tmp/iris [--port 0]
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mos_handler_kit import HttpHandler, Job, JobFailed, serve  # noqa: E402

FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")
#: Below this probability a prediction goes to a person (the review model's one rule).
REVIEW_BELOW = 0.9


def train(state: Path, job: Job) -> dict[str, Any]:
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    test_size = float(job.input.get("test_size", 0.3))
    seed = int(job.input.get("seed", 0))
    if not 0.05 <= test_size <= 0.5:
        raise JobFailed("test_size must be between 0.05 and 0.5", test_size=test_size)
    started = time.monotonic()
    data = load_iris()
    x_train, x_test, y_train, y_test = train_test_split(
        data.data, data.target, test_size=test_size, random_state=seed, stratify=data.target
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x_train, y_train)
    classes = [str(name) for name in data.target_names]
    path = state / "models" / f"{job.model_id}-{job.model_version}.pickle"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as file:
        pickle.dump({"model": model, "features": FEATURES, "classes": classes}, file)
    # A rename is atomic: a prediction never loads half a file.
    os.replace(partial, path)
    return {
        "model_path": str(path),
        "algorithm": "StandardScaler + LogisticRegression",
        "accuracy": round(float(model.score(x_test, y_test)), 4),
        "n_train": len(x_train),
        "n_test": len(x_test),
        "classes": classes,
        "features": list(FEATURES),
        "train_seconds": round(time.monotonic() - started, 3),
    }


@lru_cache(maxsize=8)
def load(path: str) -> dict[str, Any]:
    with open(path, "rb") as file:
        loaded: dict[str, Any] = pickle.load(file)  # our own file, written by train()
    return loaded


def predict(state: Path, job: Job) -> dict[str, Any]:
    path = state / "models" / f"{job.model_id}-{job.model_version}.pickle"
    if not path.exists():
        raise JobFailed(f"version {job.model_version} of {job.model_id} is not trained yet", model_path=str(path))
    saved = load(str(path))
    # A service's job carries its resolved features; a direct inference may send the measurements as they are.
    measurements = job.input.get("features", job.input)
    missing = [name for name in saved["features"] if not isinstance(measurements.get(name), (int, float))]
    if missing:
        raise JobFailed(f"missing measurements: {', '.join(missing)}", missing=missing)
    row = [[float(measurements[name]) for name in saved["features"]]]
    probabilities = saved["model"].predict_proba(row)[0]
    best = int(probabilities.argmax())
    return {
        "label": saved["classes"][best],
        "probabilities": {name: round(float(p), 4) for name, p in zip(saved["classes"], probabilities)},
        "model_path": str(path),
    }


def review(job: Job) -> dict[str, Any]:
    prediction = job.trigger_output or job.input
    probabilities = prediction.get("probabilities")
    if not isinstance(probabilities, dict) or not probabilities:
        raise JobFailed("no probabilities to review: feed this model the classifier's output")
    confidence = max(float(p) for p in probabilities.values())
    return {"label": prediction.get("label"), "confidence": confidence, "needs_review": confidence < REVIEW_BELOW}


def secret_file(state: Path, model_id: str) -> Callable[[], str | None]:
    def read() -> str | None:
        try:
            return (state / "secrets" / model_id).read_text().strip() or None
        except FileNotFoundError:
            return None

    return read


def app(state: Path, classifier: str, reviewer: str) -> Callable[[Mapping[str, Any], Any], Iterable[bytes]]:
    routes = {
        "/train": HttpHandler(lambda job: train(state, job), secret=secret_file(state, classifier), mode="async"),
        "/predict": HttpHandler(lambda job: predict(state, job), secret=secret_file(state, classifier), mode="sync"),
        "/review": HttpHandler(review, secret=secret_file(state, reviewer), mode="sync"),
    }

    def route(environ: Mapping[str, Any], start_response: Any) -> Iterable[bytes]:
        handler = routes.get(str(environ.get("PATH_INFO", "")))
        if handler is None:
            start_response("404 Not Found", [("content-type", "application/json")])
            return [b'{"message": "POST /train, /predict or /review"}']
        return handler(environ, start_response)

    return route


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, required=True, help="models/, secrets/, url and pid go here")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (written to <state>/url)")
    parser.add_argument("--classifier", default="iris", help="the classifier's model id (its secret's file name)")
    parser.add_argument("--reviewer", default="iris-review", help="the review model's id")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    state: Path = args.state
    (state / "secrets").mkdir(parents=True, exist_ok=True)
    import sklearn  # noqa: F401 (loaded before the first job, so it does not count against the first call)

    server = serve(app(state, args.classifier, args.reviewer), host=args.host, port=args.port)
    (state / "pid").write_text(str(os.getpid()))
    (state / "url").write_text(f"http://{args.host}:{server.server_address[1]}")
    print(f"iris handlers on http://{args.host}:{server.server_address[1]} (state in {state})", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
