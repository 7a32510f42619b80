"""`arena ladder serve`: the database, the HTTP API and local sandboxed workers, started together.

The folder holds ``ladder.db`` (unless ``--db`` names a PostgreSQL) and one cache folder
per local worker. Each start issues the local workers a fresh ``worker`` token (person
``local-workers``; the previous start's tokens are revoked) and hands it to them in their
environment, never on a command line. Workers exit when the server's process is gone.
With ``--processes N`` the first process forks N - 1 more that serve the same listening
socket (`fork_server`); the database is the only state they share. With ``--worker-port``
it forks ``--worker-processes`` more that serve the worker API alone on that port
(`api.make_worker_app`: no pages, no snapshots), the address workers are given, so that a
result never waits behind the page requests' event loop and GIL (docs/ladder.md, "Under load").
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from arena.ladder import accounts
from arena.ladder.config import LadderConfig
from arena.ladder.db import connect, database_url, people, tokens
from arena.ladder.service import Ladder

TOKEN_ENV = "ARENA_LADDER_TOKEN"
LOCAL_WORKERS = "local-workers"


def open_ladder(folder: Path, db: str | None, config: LadderConfig) -> Ladder:
    """The ladder in `folder` (made if missing) on `db` (None: SQLite in the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    return Ladder(connect(database_url(db, folder)), config)


def local_worker_token(ladder: Ladder) -> str:
    """A fresh worker token for this start's local workers (earlier starts' revoked)."""
    import time

    with ladder.lock, ladder.engine.begin() as conn:
        person = conn.execute(sa.select(people.c.id).where(people.c.name == LOCAL_WORKERS)).scalar()
        if person is None:
            person = accounts.create_person(conn, LOCAL_WORKERS)
        conn.execute(tokens.update().where(tokens.c.person == person, tokens.c.revoked.is_(None))
                     .values(revoked=time.time()))
        return accounts.issue_token(conn, person, "worker")


def start_workers(url: str, token: str, folder: Path, count: int) -> list[subprocess.Popen[Any]]:
    """`count` local workers (`arena ladder worker`) pulling from `url`, each with its own cache."""
    env = dict(os.environ, **{TOKEN_ENV: token})
    started = []
    for number in range(count):
        cache = folder / f"worker-{number}"
        started.append(subprocess.Popen(
            [sys.executable, "-m", "arena", "ladder", "worker", "--to", url, "--cache", str(cache),
             "--parent", str(os.getpid())], env=env, stdin=subprocess.DEVNULL))
    return started


def tcp_listener(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (0: any free port) whose connections send small answers at once."""
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so (accepted ones copy
    # the listener's), and without it every small answer waited ~40 ms on Nagle and delayed ACKs.
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM,
                             socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(2048)  # uvicorn's backlog; from now on a connection waits for the process that will serve it
    return listener


def http_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(ladder: Ladder, host: str, port: int, workers: int, folder: Path, echo: Any = print,
          processes: int = 1, worker_port: int | None = None, pages_nice: int = 0, worker_processes: int = 1,
          server_timing: bool = False) -> None:
    """Serve `ladder`'s pages and API on host:port with `workers` local workers until
    interrupted; `processes` server processes share the listening socket (`fork_server`);
    `worker_port` (0: any free port): `worker_processes` more processes serve the worker API
    alone there, and the local workers use it; `pages_nice`: the processes serving pages run
    that much nicer (lower CPU priority) than the worker listeners and the local workers, so a
    flood of page requests does not queue the workers' results; `server_timing`: every response
    says the server's time on it (`arena.ladder.server_timing`)."""
    import uvicorn

    from arena.ladder.api import make_app, make_worker_app

    app = make_app(ladder, server_timing=server_timing)
    ladder.snapshots.build()  # the first snapshot (the refit reads every stored game once) before listening
    app.state.pages.warm_bot_pages()  # and the ranked bots' pages: every process starts with them
    warm_requests()
    gc.collect()
    gc.freeze()  # what the start read (every game, its rating) lives on: no full collection walks it again
    listener = tcp_listener(host, port)
    bound = listener.getsockname()[1]
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    direct = http_url(host, bound)
    children = [fork_server(ladder, app, listener, nice=pages_nice) for _ in range(processes - 1)]
    if worker_port is not None:  # forked, as the others, before this process starts any thread
        worker_listener = tcp_listener(host, worker_port)
        direct = http_url(host, worker_listener.getsockname()[1])
        worker_app = make_worker_app(ladder, server_timing=server_timing)
        children += [fork_server(ladder, worker_app, worker_listener, pages=False) for _ in range(worker_processes)]
    running = start_workers(direct, local_worker_token(ladder), folder, workers) if workers else []
    os.nice(pages_nice)  # after the workers started; on Linux it holds for this thread and those it starts
    ladder.snapshots.start()
    server = uvicorn.Server(uvicorn.Config(app, access_log=False, log_level="warning"))
    echo(f"ladder {ladder.config.ladder.name!r} at http://{shown}:{bound}/ (its pages; the API under /api/) "
         f"with {workers} local worker{'' if workers == 1 else 's'}"
         f"{f', {processes} server processes' if processes > 1 else ''}"
         f"{f'; workers return results to {direct}' if worker_port is not None else ''} (Ctrl-C to stop)")
    try:
        server.run(sockets=[listener])
    finally:
        for process in running:
            process.terminate()
        for process in running:
            process.wait()
        stop_children(children)
        ladder.snapshots.stop()


def warm_requests() -> None:
    """Import what a server process's first request would (anyio's asyncio backend, which runs
    the thread pool; the IDNA codec): ~20 ms that a burst of requests at a fresh process shared.
    Done before forking, so every process has them."""
    import anyio

    anyio.run(anyio.sleep, 0)  # starts no thread: the processes are forked after this
    "localhost".encode("idna")


def fork_server(ladder: Ladder, app: Any, listener: socket.socket, pages: bool = True,
                nice: int = 0) -> tuple[int, int]:
    """A child process serving `app` on `listener`, with its own database connections and,
    if it serves `pages`, its own snapshot builder (the ladder's state so far inherited),
    `nice` steps nicer than this process; (its pid, the pipe that ends it).

    The database is the only state the processes share: every write takes its write lock
    (`db.take_write_lock`) and each process's snapshot follows `db.generation`. Local workers
    run from the first process only. A child ends when the first process does (its pipe closes)."""
    import threading

    import uvicorn

    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(read)
        return pid, write
    status = 0
    try:
        os.close(write)
        os.nice(nice)  # before any thread starts: they inherit it
        ladder.engine.dispose(close=False)  # the first process's connections stay its own
        if pages:
            ladder.snapshots.start()
        else:
            ladder.warm_results()
        server = uvicorn.Server(uvicorn.Config(app, access_log=False, log_level="warning"))

        def end_with_parent() -> None:
            os.read(read, 1)  # returns when the first process closed the pipe or died
            server.should_exit = True

        threading.Thread(target=end_with_parent, daemon=True).start()
        server.run(sockets=[listener])
    except BaseException:  # noqa: B036 - a child never returns into the parent's code
        status = 1
    finally:
        os._exit(status)


def stop_children(children: list[tuple[int, int]]) -> None:
    """End the processes `fork_server` made and wait for them."""
    import signal

    for pid, pipe in children:
        os.close(pipe)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid, _ in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
