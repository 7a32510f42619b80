"""Results stored together: stores that arrive while another is being committed share the
next transaction and its one commit (a group commit).

A commit waits for the disk (a WAL fsync on SQLite, a WAL flush on PostgreSQL): most of a
result's time under the write lock, and with results stored one transaction each, the
posting workers queue behind one another's fsyncs. `GroupCommit.run(work)` queues `work`,
then waits for the lock; the thread that gets it takes every work queued by then and runs
them all in one transaction (`Ladder.writing`), so one commit stores them all, and the
others find theirs done. If that transaction fails, each work is run again in a
transaction of its own, so a failing store fails only its own request.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, ContextManager

from sqlalchemy.engine import Connection

Work = Callable[[Connection], Any]


class _Job:
    __slots__ = ("work", "versions", "done", "value", "error")

    def __init__(self, work: Work, versions: bool):
        self.work, self.versions = work, versions
        self.done = False
        self.value: Any = None
        self.error: BaseException | None = None


class GroupCommit:
    """Runs writes in shared transactions (see the module docstring). `writing(changes_pages,
    versions)` opens a write transaction; `lock` is the one it takes (re-entrant)."""

    def __init__(self, writing: Callable[..., ContextManager[Connection]], lock: Any):
        self._writing, self._lock = writing, lock
        self._queue: list[_Job] = []
        self._mutex = threading.Lock()
        self.transactions = 0
        """How many transactions stored the works so far (fewer than the works: they were shared)."""

    def run(self, work: Work, versions: bool = False) -> Any:
        """`work(conn)`'s value once its transaction committed (its exception if it failed);
        `versions`: it changes more than games (`db.bump_generation`)."""
        job = _Job(work, versions)
        with self._mutex:
            self._queue.append(job)
        with self._lock:  # whoever holds it is storing a batch; ours may be in it
            if not job.done:
                with self._mutex:
                    batch, self._queue = self._queue, []
                self._store(batch)
        if job.error is not None:
            raise job.error
        return job.value

    def _store(self, batch: list[_Job]) -> None:
        try:
            with self._writing(changes_pages=True, versions=any(job.versions for job in batch)) as conn:
                values = [job.work(conn) for job in batch]
        except Exception as exc:
            if len(batch) > 1:
                for job in batch:
                    self._store([job])
                return
            batch[0].error, batch[0].done = exc, True
            return
        finally:
            self.transactions += 1
        for job, value in zip(batch, values):
            job.value, job.done = value, True
