"""A Ray backend for `arena run`: the same schedule, played on a Ray cluster.

    arena run FILE --backend ray                         # a local Ray instance (or $RAY_ADDRESS)
    arena run FILE --backend ray --address HOST:6379     # an existing cluster

`RayBackend` plugs into the backend seam of arena.backends (``workers``, ``start(job)``,
``submit(batch) -> Future``, ``stop(abandon)``): the driver (the ``arena run``
process) still cuts the schedule into batches, writes each finished batch to the
store as it arrives and rates the stored games in schedule order, so resume,
ratings and publication are exactly those of the local backend, and the same
file gives the same standings.json (provenance aside).

On the cluster, one actor per worker (one CPU each) receives the `Job` once, in
its constructor (inlined when small, else through the object store; bots and
rulesets travel by reference: every node loads them from its own installed
packages, see docs/ray.md) and plays batches with `arena.worker.play_batch`,
keeping its bot hosts across batches like a local worker process. Each batch's
result streams back through ``ObjectRef.future()``.

A batch whose actor dies (process killed, node lost) is sent again, to the
restarted actor or another one, up to `MAX_ATTEMPTS` times. Nothing is stored
twice: a batch is stored only from the one attempt that returned, a lost attempt
returns nothing, and the store refuses a game index it already has (primary key).
Games are deterministic given their seeds, so a replayed batch is the same games.

Before the first batch, every actor reports the versions of arena, the rulesets and
the bot packages it loaded; a worker whose versions differ from the driver's stops
the run (ConfigError): its games would not be the games the store's plan names.

Ray is an optional extra (``pip install 'flip-arena[ray]'``): this module imports
it only when a backend is made, and `make_ray_backend` says how to install it.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import threading
import time
from concurrent.futures import Future, InvalidStateError
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.backends import cpu_count
from arena.worker import BatchResult, GameFailedError, Job, play_batch
from arena.tournament import GameSpec

INSTALL_HINT = "the Ray backend needs Ray: pip install 'flip-arena[ray]'"
MAX_ATTEMPTS = 4  # a batch whose worker dies this many times stops the run
READY_TIMEOUT = 300.0  # seconds to wait for the first worker (cluster nodes may be starting)
INLINE_JOB_BYTES = 64 * 1024  # a larger Job goes through the object store (ray.put)
RUNTIME_ENV_VARIABLE = "ARENA_RAY_RUNTIME_ENV"  # JSON, or the path of a JSON file


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:  # also a `sys.modules["ray"] = None`
        raise ConfigError(INSTALL_HINT) from None
    return ray


def make_ray_backend(workers: int | None = None, address: str | None = None) -> "RayBackend":
    """The backend for ``arena run --backend ray [--address ADDRESS] [--workers N]``.

    `workers`: actors (one CPU each); None or 0 = every CPU of the cluster (of this
    machine for a local instance). `address`: a running cluster (``HOST:6379``,
    ``ray://HOST:10001`` or ``auto``); None = ``$RAY_ADDRESS`` if set, else a local
    Ray instance for the run. Raises ConfigError (one line) if Ray is not installed.
    """
    _import_ray()
    return RayBackend(workers, address)


def runtime_env_from_environment() -> dict[str, Any] | None:
    """The runtime_env of ``$ARENA_RAY_RUNTIME_ENV``: inline JSON or a JSON file's path."""
    text = os.environ.get(RUNTIME_ENV_VARIABLE, "").strip()
    if not text:
        return None
    try:
        if not text.startswith("{"):
            text = Path(text).read_text()
        env = json.loads(text)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"${RUNTIME_ENV_VARIABLE} must be a JSON object or the path of a JSON file: {exc}") from None
    if not isinstance(env, dict):
        raise ConfigError(f"${RUNTIME_ENV_VARIABLE} must be a JSON object (a Ray runtime_env)")
    return env


def fingerprint(job: Job) -> dict[str, Any]:
    """What a process has loaded for `job`: arena's version, each ruleset's version and
    each bot package's installed version (compared between the driver and every worker)."""
    import arena

    def installed(package: str) -> str | None:
        try:
            return metadata.version(package)
        except (metadata.PackageNotFoundError, ValueError):
            return None

    return {
        "arena": arena.__version__,
        "rulesets": [f"{cls.id} {cls.version}" for cls, _ in job.rulesets],
        "bots": sorted({f"{e.package} {installed(e.package)}" for e, command in
                        zip(job.entrants, job.commands or (None,) * len(job.entrants))
                        if command is None and e.package not in ("?", "command")}),
    }


def _last_line(exc: BaseException) -> str:
    """The gist of a (remote, multi-line) error: its last non-empty line, e.g. the
    ``ModuleNotFoundError: No module named 'my_bots'`` at the end of a traceback."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[-1] if lines else type(exc).__name__)[:300]


class ArenaWorker:
    """A Ray actor (made with ``ray.remote``): holds the Job, plays batches."""

    def __init__(self, job: Job):
        self.job = job

    def ready(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": socket.gethostname(), "fingerprint": fingerprint(self.job)}

    def play(self, batch: list[GameSpec]) -> BatchResult:
        return play_batch(self.job, batch)


class _Actor:
    def __init__(self, handle: Any, ready: Any):
        self.handle = handle
        self.ready_ref = ready
        self.info: dict[str, Any] | None = None
        self.outstanding = 0


class RayBackend:
    """Plays batches on Ray actors; see the module docstring."""

    def __init__(self, workers: int | None = None, address: str | None = None, *,
                 runtime_env: dict[str, Any] | None = None, cpus_per_worker: float = 1.0,
                 max_attempts: int = MAX_ATTEMPTS, ready_timeout: float = READY_TIMEOUT,
                 init_options: dict[str, Any] | None = None):
        self.ray = _import_ray()
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.runtime_env = runtime_env if runtime_env is not None else runtime_env_from_environment()
        self.cpus_per_worker = cpus_per_worker
        self.max_attempts = max_attempts
        self.ready_timeout = ready_timeout
        self.init_options = dict(init_options or {})
        self._workers = workers or None
        self._owns_ray = False
        self.actors: list[_Actor] = []
        self.retries = 0  # batches sent again after their worker died
        self.lost: list[str] = []  # why (one line per lost attempt)
        self.reports: list[dict[str, Any]] = []  # each worker's ready() report: pid, node, versions
        self._lock = threading.Lock()
        self._retry_queue: queue.Queue = queue.Queue()
        self._stopping = False

    # -- the backend seam ------------------------------------------------------

    @property
    def workers(self) -> int:
        if self._workers is None:
            if self.address is None and not self.ray.is_initialized():
                self._workers = cpu_count()  # the local instance start() makes will have them
            else:
                self.connect()
                cpus = self.ray.cluster_resources().get("CPU", 1)
                self._workers = max(1, int(cpus // self.cpus_per_worker))
        return self._workers

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = value

    def connect(self) -> None:
        """Join the cluster at `address` (or start a local instance), once."""
        ray = self.ray
        if ray.is_initialized():
            return
        options: dict[str, Any] = {"logging_level": "warning", "configure_logging": True}
        if self.runtime_env:
            options["runtime_env"] = self.runtime_env
        if self.address is None:  # a local instance sized for the workers asked for
            options.update(num_cpus=max(cpu_count(), int(self.workers * self.cpus_per_worker + 0.999)),
                           include_dashboard=False)
        options.update(self.init_options)
        try:
            ray.init(address=self.address, **options)
        except ConnectionError as exc:
            raise ConfigError(f"cannot reach the Ray cluster at {self.address}: {exc}") from None
        self._owns_ray = True

    def start(self, job: Job) -> None:
        ray = self.ray
        count = self.workers
        self.connect()
        self.job = job
        # Each actor receives the Job once, in its constructor. A small one (the usual: bots and
        # rulesets travel by reference) is inlined in the actor's creation task, so a restarted
        # actor never depends on the object store; a large one goes through it (ray.put) once.
        size = len(ray.cloudpickle.dumps(job))
        self._job_arg = job if size <= INLINE_JOB_BYTES else ray.put(job)
        actor_class = ray.remote(ArenaWorker).options(
            num_cpus=self.cpus_per_worker, max_restarts=-1, max_task_retries=0)
        for _ in range(count):
            handle = actor_class.remote(self._job_arg)
            self.actors.append(_Actor(handle, handle.ready.remote()))
        self._expected = fingerprint(job)
        try:
            self._await_ready()
        except BaseException:
            self.stop(abandon=True)
            raise
        self._retrier = threading.Thread(target=self._resend_loop, name="arena-ray-retry", daemon=True)
        self._retrier.start()

    def submit(self, batch: list[GameSpec]) -> Future:
        future: Future = Future()
        future.set_running_or_notify_cancel()  # in flight: Ctrl-C lets it finish
        self._send(batch, future, 1)
        return future

    def stop(self, abandon: bool = False) -> None:
        self._stopping = True
        self._retry_queue.put(None)
        for actor in self.actors:
            try:
                self.ray.kill(actor.handle, no_restart=True)
            except Exception:  # already gone
                pass
        self.actors.clear()
        if self._owns_ray:
            self.ray.shutdown()
            self._owns_ray = False

    # -- workers ---------------------------------------------------------------

    def _await_ready(self) -> None:
        """Wait for every worker that the cluster can start now (at least one), and
        check that each has the driver's versions; the others join when they start."""
        ray = self.ray
        refs = {actor.ready_ref: actor for actor in self.actors}
        deadline = time.monotonic() + self.ready_timeout
        pending = list(refs)
        while pending:
            wait_for = 1 if not any(a.info for a in self.actors) else len(pending)
            timeout = max(0.0, deadline - time.monotonic()) if wait_for == 1 else 10.0
            done, pending = ray.wait(pending, num_returns=wait_for, timeout=timeout)
            for ref in done:
                try:
                    info = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise ConfigError(f"a Ray worker could not load the tournament: {_last_line(exc)} (every node "
                                      "needs the same packages as this driver: see docs/ray.md)") from None
                self._check(refs[ref], info)
            if not done:
                if not any(a.info for a in self.actors):
                    raise ConfigError(f"no Ray worker started within {self.ready_timeout:.0f} s "
                                      f"(cluster resources: {ray.cluster_resources()})")
                break  # the rest start later (autoscaling) and join then
        for ref in pending:
            ref.future().add_done_callback(lambda f, actor=refs[ref]: self._late_ready(actor, f))

    def _check(self, actor: _Actor, info: dict[str, Any]) -> None:
        if info["fingerprint"] != self._expected:
            raise ConfigError(f"Ray worker on {info['node']} has other versions than this driver: "
                              f"{info['fingerprint']} != {self._expected}; install the same packages on every "
                              "node (see docs/ray.md: runtime_env)")
        actor.info = info
        self.reports.append(info)

    def _late_ready(self, actor: _Actor, future: Future) -> None:
        try:
            info = future.result()
        except Exception:
            return
        if info["fingerprint"] == self._expected:
            with self._lock:
                actor.info = info
                self.reports.append(info)
        else:
            self.lost.append(f"worker on {info['node']} ignored: other versions {info['fingerprint']}")

    def pids(self) -> list[int]:
        """The process ids of the workers that started (for tests and tools)."""
        return [info["pid"] for info in self.reports]

    def _pick(self) -> _Actor:
        with self._lock:
            ready = [a for a in self.actors if a.info] or self.actors
            actor = min(ready, key=lambda a: a.outstanding)
            actor.outstanding += 1
        return actor

    def _send(self, batch: list[GameSpec], future: Future, attempt: int) -> None:
        actor = self._pick()
        ref = actor.handle.play.remote(batch)
        ref.future().add_done_callback(lambda done: self._finished(actor, done, batch, future, attempt))

    def _finished(self, actor: _Actor, done: Future, batch: list[GameSpec], future: Future, attempt: int) -> None:
        ray_exceptions = self.ray.exceptions
        with self._lock:
            actor.outstanding -= 1
        try:
            result = done.result()
        except (ray_exceptions.RayActorError, ray_exceptions.WorkerCrashedError, ray_exceptions.NodeDiedError,
                ray_exceptions.ObjectLostError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self.lost.append(f"games {batch[0].index}-{batch[-1].index}, attempt {attempt}: {reason}")
            if attempt >= self.max_attempts or self._stopping:
                self._settle(future, exception=GameFailedError(
                    f"games {batch[0].index}-{batch[-1].index} lost their Ray worker {attempt} times "
                    f"(last: {type(exc).__name__}: {reason[:200]})"))
            else:
                self.retries += 1
                self._retry_queue.put((batch, future, attempt + 1))  # sent from our own thread, not Ray's
            return
        except BaseException as exc:  # an error in play_batch itself: the run stops with it
            self._settle(future, exception=exc)
            return
        self._settle(future, result=result)

    @staticmethod
    def _settle(future: Future, result: Any = None, exception: BaseException | None = None) -> None:
        try:
            if exception is not None:
                future.set_exception(exception)
            else:
                future.set_result(result)
        except InvalidStateError:  # settled already: never twice
            pass

    def _resend_loop(self) -> None:
        while True:
            item = self._retry_queue.get()
            if item is None:
                return
            batch, future, attempt = item
            if self._stopping:
                self._settle(future, exception=GameFailedError("stopped before a lost batch could be sent again"))
                continue
            try:
                self._send(batch, future, attempt)
            except Exception as exc:  # Ray gone: the run stops with the reason
                self._settle(future, exception=exc)
