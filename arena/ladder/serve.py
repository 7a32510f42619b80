"""`arena ladder serve`: the database, the HTTP API and local sandboxed workers, started together.

The folder holds ``ladder.db`` (unless ``--db`` names a PostgreSQL) and one cache folder
per local worker. Each start issues the local workers a fresh ``worker`` token (person
``local-workers``; the previous start's tokens are revoked) and hands it to them in their
environment, never on a command line. Workers exit when the server's process is gone.
"""

from __future__ import annotations

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
    return listener


def serve(ladder: Ladder, host: str, port: int, workers: int, folder: Path, echo: Any = print) -> None:
    """Serve `ladder`'s API on host:port with `workers` local workers until interrupted."""
    import uvicorn

    from arena.ladder.api import make_app

    for label in ladder.rulesets:  # the refit reads every stored game once, here rather than on a first visit
        ladder.standings_table(label)
    listener = tcp_listener(host, port)
    bound = listener.getsockname()[1]
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    direct = f"http://[{host}]:{bound}" if ":" in host else f"http://{host}:{bound}"
    server = uvicorn.Server(uvicorn.Config(make_app(ladder), access_log=False, log_level="warning"))
    running = start_workers(direct, local_worker_token(ladder), folder, workers) if workers else []
    echo(f"ladder {ladder.config.ladder.name!r} at http://{shown}:{bound}/ (its pages; the API under /api/) "
         f"with {workers} local worker{'' if workers == 1 else 's'} (Ctrl-C to stop)")
    try:
        server.run(sockets=[listener])
    finally:
        for process in running:
            process.terminate()
        for process in running:
            process.wait()
