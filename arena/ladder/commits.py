"""Results stored together: stores that arrive while another is being committed share the
next transaction and its one commit (a group commit), in a fixed number of statements.

A commit waits for the disk (a WAL fsync on SQLite, a WAL flush on PostgreSQL): most of a
result's time under the write lock, and with results stored one transaction each, the
posting workers queue behind one another's fsyncs. `GroupCommit.run(item)` queues `item`;
one thread at a time leads: it opens a write transaction (`Ladder.writing`: the process's
lock, then the database's write lock, for which it may wait on another process's
transaction), and only then takes every item queued by then and stores them all with one
call, `store(conn, items)`, so one commit stores them all, and items that arrived while it
waited for the write lock are in it too (taken before, they waited for the next
transaction). The others wait for their item to be done, not for the lock: each is
answered as soon as its transaction committed (they queued on the lock before, and one whose
item was done then waited behind the next batch's whole store); a waiter whose item is still
queued leads the next batch. Both were the slowest results' waits under the load benchmark
(docs/ladder.md, "Under load"). `store` issues the same statements for one item as for a
hundred (`Ladder.store_results`): the lock is held for a few statements, not a few per result,
and each statement is a point where a thread gives up the GIL and may wait for it. If that
transaction fails, each item is stored again in a transaction of its own, so a failing store
fails only its own request.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, ContextManager, Sequence

from sqlalchemy.engine import Connection

Store = Callable[[Connection, Sequence[Any]], Sequence[Any]]
"""Stores a batch of items in the transaction of `conn`; one value per item, in their order."""


class _Job:
    __slots__ = ("item", "done", "value", "error")

    def __init__(self, item: Any):
        self.item = item
        self.done = False
        self.value: Any = None
        self.error: BaseException | None = None


class GroupCommit:
    """Stores items in shared transactions (see the module docstring). `writing(changes_pages=True)`
    opens a write transaction (its connection, once the database's write lock is held); `lock`
    is the one it takes (re-entrant), which the thread calling `run` must not hold; `store`
    stores a batch in it."""

    def __init__(self, writing: Callable[..., ContextManager[Connection]], lock: Any, store: Store):
        self._writing, self._lock, self._store_batch = writing, lock, store
        self._queue: list[_Job] = []
        self._changed = threading.Condition(threading.Lock())
        """Guards `_queue` and `_leading`; notified when a batch is done."""
        self._leading = False
        """Whether a thread is storing a batch (or waiting for the locks to)."""
        self.transactions = 0
        """How many transactions stored the items so far (fewer than the items: they were shared)."""

    def run(self, item: Any) -> Any:
        """`item`'s value from `store` once its transaction committed (its exception if it failed)."""
        job = _Job(item)
        with self._changed:
            self._queue.append(job)
            while self._leading and not job.done:
                self._changed.wait()
            lead = not job.done  # no one is storing, and ours is not stored: ours leads the next batch
            if lead:
                self._leading = True
        if lead:
            try:
                with self._lock:
                    self._store()
            finally:
                with self._changed:
                    self._leading = False
                    self._changed.notify_all()
        if job.error is not None:
            raise job.error
        return job.value

    def _take(self) -> list[_Job]:
        with self._changed:
            batch, self._queue = self._queue, []
        return batch

    def _store(self, batch: list[_Job] | None = None) -> None:
        """`batch` stored in one transaction (None: every item queued, taken once its write lock
        is held); if it fails, each item stored alone, or failed with the error."""
        taken = batch
        try:
            with self._writing(changes_pages=True) as conn:
                taken = self._take() if taken is None else taken
                values = self._store_batch(conn, [job.item for job in taken])
        except Exception as exc:
            taken = self._take() if taken is None else taken  # the transaction failed before the take
            if len(taken) > 1:
                for job in taken:
                    self._store([job])
                return
            for job in taken:
                job.error, job.done = exc, True
            return
        finally:
            self.transactions += 1
        for job, value in zip(taken, values, strict=True):
            job.value, job.done = value, True
