"""Where the kit remembers which jobs it ran, so a job delivered twice runs once.

Lambda's asynchronous invocation is at least once, and the service retries an ``http`` call whose answer it did not
get. Each method must be ONE conditional write, atomic against concurrent callers: ``stores/dynamodb.py`` and
``stores/postgres.py`` show it for a table shared by every instance.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class DedupStore(Protocol):
    def claim(self, job_id: str, lease_s: float) -> bool:
        """True for the one caller that may run the job now; False while another runs it (its lease) or once done."""
        ...

    def complete(self, job_id: str) -> None:
        """The job's completion was reported: every later claim is False."""
        ...

    def release(self, job_id: str) -> None:
        """The run failed before its report: a redelivery may run the job again."""
        ...


class MemoryStore:
    """The default store: one process's memory.

    Enough for one Lambda execution environment or one server; duplicates that reach another instance are not seen,
    so use a shared store there.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # job_id -> lease end (monotonic seconds), or None once done
        self._jobs: dict[str, float | None] = {}

    def claim(self, job_id: str, lease_s: float) -> bool:
        now = time.monotonic()
        with self._lock:
            if job_id in self._jobs:
                until = self._jobs[job_id]
                if until is None or until > now:
                    return False
            self._jobs[job_id] = now + lease_s
            return True

    def complete(self, job_id: str) -> None:
        with self._lock:
            self._jobs[job_id] = None

    def release(self, job_id: str) -> None:
        with self._lock:
            if self._jobs.get(job_id, 0.0) is not None:
                self._jobs.pop(job_id, None)
