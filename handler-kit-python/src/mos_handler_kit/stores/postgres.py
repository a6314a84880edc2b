"""A DedupStore on a Postgres table shared by every instance, through psycopg 3 (or any DB-API connection).

Create the table once::

    CREATE TABLE handled_jobs (
      job_id text PRIMARY KEY,
      state text NOT NULL CHECK (state IN ('running', 'done')),
      expires_at timestamptz
    );

Takes a callable that opens a connection (``lambda: psycopg.connect(dsn)``, or a pool's ``connection``), so this
module imports no driver and the kit's core keeps no dependency.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any


# One statement each, so concurrent claims of one job are decided by the primary key: a new job inserts; a run whose
# lease ran out is taken over by the update; a running or done job answers no row.
CLAIM = """
INSERT INTO {table} (job_id, state, expires_at) VALUES (%s, 'running', now() + %s * interval '1 second')
ON CONFLICT (job_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
WHERE {table}.state = 'running' AND {table}.expires_at < now()
RETURNING job_id
"""
COMPLETE = "UPDATE {table} SET state = 'done', expires_at = NULL WHERE job_id = %s"
RELEASE = "DELETE FROM {table} WHERE job_id = %s AND state = 'running'"


class PostgresStore:
    def __init__(self, connect: Callable[[], AbstractContextManager[Any]], table: str = "handled_jobs") -> None:
        if not table.replace("_", "").replace(".", "").isalnum():
            raise ValueError(f"not a plain table name: {table!r}")
        self._connect = connect
        self._table = table

    def _run(self, statement: str, params: Sequence[Any]) -> Any:
        with self._connect() as connection:
            cursor = connection.cursor()
            cursor.execute(statement.format(table=self._table), params)
            return cursor.fetchone() if "RETURNING" in statement else None

    def claim(self, job_id: str, lease_s: float) -> bool:
        return self._run(CLAIM, (job_id, lease_s)) is not None

    def complete(self, job_id: str) -> None:
        self._run(COMPLETE, (job_id,))

    def release(self, job_id: str) -> None:
        self._run(RELEASE, (job_id,))
