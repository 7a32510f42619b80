"""Ladder workers as Ray actors: ``arena ladder worker --to URL --ray ADDRESS --workers N``.

Each actor runs the pull loop of `arena.ladder.worker.work` against the ladder's URL,
exactly as ``arena ladder worker`` does on a machine of its own: Ray only places the
workers (one CPU each) and restarts one whose process or node dies (its lease then
expires on the server and the batch is played again, see docs/ladder.md). Nothing
about a game depends on where it was played, so a ladder gets the same games from
Ray workers as from local or remote ones.

Each actor keeps its uploads and builds in a cache folder of its own on its node:
``<cache>/ray-<n>`` (default cache: ``~/.cache/arena-ladder-worker`` on that node).
The nodes must reach the ladder's URL and have the ladder's rulesets installed at its
versions (each worker checks on its first contact and stops with a one-line error);
``$ARENA_RAY_RUNTIME_ENV`` (arena.ray_backend) gives the actors a Ray runtime_env.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.errors import ConfigError

DEFAULT_CACHE = "~/.cache/arena-ladder-worker"
FIRST_CONTACT_SECONDS = 60.0  # how long a new actor keeps trying to reach the server
RESTARTS = 3  # an actor whose process dies is restarted (and its loop run again) this many times


class LadderWorkerActor:
    """One ladder worker on a Ray node (made remote by `start_actors`); threaded, so `stop`
    runs while `run` plays."""

    def __init__(self, url: str, token: str, cache: str, number: int, idle_exit: bool = False):
        self.url, self.token, self.number, self.idle_exit = url, token, number, idle_exit
        self.cache = Path(os.path.expanduser(cache)) / f"ray-{number}"
        self.stopped = threading.Event()

    def where(self) -> dict[str, Any]:
        """The actor's node and process (for the organiser's log and the tests)."""
        return {"worker": self.number, "node": socket.gethostname(), "pid": os.getpid(), "cache": str(self.cache)}

    def run(self) -> int:
        """Pull and play until stopped (or, with `idle_exit`, until there is no work); tasks done."""
        from arena.ladder.worker import work

        def echo(line: str) -> None:
            print(f"[ray-{self.number}] {line}", flush=True)

        try:
            return work(self.url, self.token, self.cache, self.stopped, idle_exit=self.idle_exit,
                        wait=FIRST_CONTACT_SECONDS, echo=echo)
        except BaseException as exc:  # shown in the driver's log at once, not only when its result is read
            echo(f"worker stopped: {type(exc).__name__}: {exc}")
            raise

    def stop(self) -> None:
        self.stopped.set()


def connect(address: str | None) -> Any:
    """Ray, joined to the cluster at `address` (None: a local instance); one-line errors."""
    from arena.ray_backend import _import_ray, runtime_env_from_environment

    ray = _import_ray()
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"logging_level": "warning", "configure_logging": True}
    if (env := runtime_env_from_environment()) is not None:
        options["runtime_env"] = env
    if address is None:
        options["include_dashboard"] = False
    try:
        ray.init(address=address, **options)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {str(exc).splitlines()[0] if str(exc) else exc}"
                          ) from None
    return ray


def start_actors(ray: Any, url: str, token: str, count: int, cache: str = DEFAULT_CACHE,
                 idle_exit: bool = False) -> list[Any]:
    """`count` worker actors (one CPU each, restarted if they die), not yet running."""
    actor_class = ray.remote(LadderWorkerActor).options(
        num_cpus=1, max_concurrency=2, max_restarts=RESTARTS, max_task_retries=RESTARTS)
    return [actor_class.remote(url, token, cache, number, idle_exit) for number in range(count)]


def run_actors(ray: Any, actors: Sequence[Any], echo: Callable[[str], None] = lambda line: None) -> list[int]:
    """Run every actor's loop until each returns (Ctrl-C: each is asked to stop after its
    current task); tasks each did. A worker's error is raised as one line."""
    for place in ray.get([actor.where.remote() for actor in actors]):
        echo(f"ladder worker ray-{place['worker']} on {place['node']} (pid {place['pid']}), cache {place['cache']}")
    running = [actor.run.remote() for actor in actors]
    try:
        return _results(ray, running)
    except KeyboardInterrupt:
        ray.get([actor.stop.remote() for actor in actors])
        return _results(ray, running)


def _results(ray: Any, running: Sequence[Any]) -> list[int]:
    try:
        return [int(done) for done in ray.get(list(running))]
    except ray.exceptions.RayError as exc:
        from arena.ray_backend import _last_line

        raise ConfigError(f"a Ray ladder worker stopped: {_last_line(exc)}") from None


def work_on_ray(url: str, token: str, address: str | None, count: int, cache: str = DEFAULT_CACHE,
                echo: Callable[[str], None] = lambda line: None, idle_exit: bool = False) -> list[int]:
    """``arena ladder worker --ray``: `count` workers on the Ray cluster at `address`
    pulling from `url` until stopped; tasks each did."""
    ray = connect(address)
    actors = start_actors(ray, url, token, count, cache, idle_exit)
    try:
        return run_actors(ray, actors, echo)
    finally:
        for actor in actors:
            ray.kill(actor, no_restart=True)
