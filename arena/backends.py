"""Backends: where the games of a run are played (the seam where a Ray backend plugs in).

A backend is anything with ``workers``, ``start(job)``, ``submit(batch) ->
concurrent.futures.Future`` (whose result is `arena.worker.play_batch`'s) and
``stop(abandon)``. `LocalPoolBackend` is a process pool; `InProcessBackend` plays in
this process (``--workers 1``); `arena.ray_backend.RayBackend` plays on a Ray
cluster. A backend only needs `play_batch` and a `Job`, both picklable.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING, Protocol

from arena import worker
from arena.worker import BatchResult, Job, play_batch, watch_parent

if TYPE_CHECKING:
    from arena.tournament import GameSpec


class Backend(Protocol):
    workers: int

    def start(self, job: Job) -> None: ...

    def submit(self, batch: list[GameSpec]) -> Future: ...

    def stop(self, abandon: bool = False) -> None: ...


class InProcessBackend:
    """Plays each batch in this process, at submit time."""

    workers = 1

    def start(self, job: Job) -> None:
        self.job = job

    def submit(self, batch: list[GameSpec]) -> Future:
        future: Future = Future()
        future.set_result(play_batch(self.job, batch))
        return future

    def stop(self, abandon: bool = False) -> None:
        pass


_worker_job: Job | None = None


def _init_worker(job: Job, parent: int) -> None:
    """Set up a pool worker process: its job, no host pool inherited, Ctrl-C ignored."""
    global _worker_job
    _worker_job = job
    worker.forget_host_pool()
    # Ctrl-C is the main process's to handle: it lets in-flight batches finish.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)


def _worker_play(batch: list[GameSpec]) -> BatchResult:
    assert _worker_job is not None
    return play_batch(_worker_job, batch)


class LocalPoolBackend:
    """A local process pool (the default: no server needed)."""

    def __init__(self, workers: int):
        self.workers = workers

    def start(self, job: Job) -> None:
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method),
                                        initializer=_init_worker, initargs=(job, os.getpid()))

    def submit(self, batch: list[GameSpec]) -> Future:
        return self.pool.submit(_worker_play, batch)

    def stop(self, abandon: bool = False) -> None:
        if not hasattr(self, "pool"):
            return
        if abandon:
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=not abandon, cancel_futures=True)


def make_backend(workers: int) -> Backend:
    """The local backend for `workers` processes (1: this process)."""
    return InProcessBackend() if workers == 1 else LocalPoolBackend(workers)


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
