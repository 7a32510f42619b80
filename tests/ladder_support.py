"""Shared by the ladder's tests (tests/test_ladder*.py): a private PostgreSQL server, a
database per test on SQLite or PostgreSQL, and an in-process stand-in worker.

PostgreSQL: ``ARENA_TEST_POSTGRES=postgresql://...`` names a server to use (a fresh
database is made per test); else, where PostgreSQL's binaries are installed, a private
server is started (initdb + pg_ctl in a temp folder, a Unix socket, a free port) and
stopped after the tests; else the PostgreSQL tests FAIL saying so (CI installs the
server: .ci/run). ``ARENA_TEST_POSTGRES=skip`` skips them on a machine without it.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Iterator, NamedTuple

import pytest

from arena.ladder.games import Spec
from arena.ladder.versions import gate_specs
from arena.ladder.worker import Client, WorkerError

PG_BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivatePostgres:
    """A PostgreSQL server of our own in a temp folder (run as user postgres when we are root)."""

    def __init__(self) -> None:
        self.bin = Path(PG_BINARIES[-1])
        self.folder = Path(tempfile.mkdtemp(prefix="arena-ladder-pg-"))
        self.port = _free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.folder, "postgres")
        self.data = self.folder / "data"

    def run(self, *argv: str) -> None:
        subprocess.run([*self.as_user, *argv], check=True, capture_output=True, timeout=120)

    def start(self) -> str:
        user = "postgres" if self.as_user else os.environ.get("USER", "postgres")
        self.run(str(self.bin / "initdb"), "-D", str(self.data), "-U", user, "--auth=trust", "-E", "UTF8",
                 "--no-sync")
        settings = f"-p {self.port} -k {self.folder} -c listen_addresses='' -c fsync=off -c shared_buffers=16MB"
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-l", str(self.folder / "log"),
                 "-o", settings, "start")
        return f"postgresql://{user}@/postgres?host={self.folder}&port={self.port}"

    def stop(self) -> None:
        try:
            self.run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (see the module docstring)."""
    given = os.environ.get("ARENA_TEST_POSTGRES")
    if given == "skip":
        pytest.skip("ARENA_TEST_POSTGRES=skip")
    if given:
        yield given
        return
    if not PG_BINARIES:
        pytest.fail("no PostgreSQL: install it (Debian: postgresql) or set ARENA_TEST_POSTGRES=postgresql://... "
                    "(or =skip)")
    server = PrivatePostgres()
    try:
        yield server.start()
    finally:
        server.stop()


def fresh_database(server: str) -> str:
    """A new empty database on `server`; its URL."""
    import psycopg

    name = f"ladder_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.replace("postgresql://", "postgresql://", 1), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = server.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


# -- a worker in the test's process: the server's checks without sandboxes --------------------


@functools.lru_cache(maxsize=None)
def _registry() -> Any:
    from arena.plugins import load_registry

    return load_registry()


def _seat_class(seat: dict[str, Any]) -> Any:
    """An installed-bot class that plays for a seat: ``random``'s play under the seat's bot name."""
    random_bot = _registry().bots["random"].cls
    return random_bot if "builtin" in seat else type(f"Ladder_{seat['name']}", (random_bot,), {"name": seat["name"]})


def play_inline(spec: Spec) -> dict[str, Any]:
    """The record of `spec` played in this process (bots playing as ``random`` does)."""
    from arena.match import Entrant, FaultPolicy, play_game

    cls = _registry().rulesets[spec["ruleset"]["id"]].cls
    entrants = [Entrant(_seat_class(s), {}, s["entry"], s.get("package") or "pkg", s["label"]) for s in spec["seats"]]
    return play_game(cls, entrants, spec["deal_seed"], spec["ruleset"]["options"], bot_seeds=spec["bot_seeds"],
                     policy=FaultPolicy(on_fault="forfeit")).record


def inline_result(task: dict[str, Any], label: str = "1.0+test") -> dict[str, Any]:
    """What an honest worker returns for `task` (a gate passes, as version `label` of package "pkg")."""
    if task["kind"] == "game":
        return {"record": play_inline(task["spec"])}
    spec = task["spec"]
    seat = {"version": spec["version"], "name": spec["bot"], "content": spec["content"], "label": label,
            "package": "pkg", "blob": spec["blob"], "filename": spec["filename"]}
    records = [play_inline(game) for game in gate_specs(seat, spec["rulesets"], spec["random"], spec["seed"])]
    return {"passed": True, "label": label, "package": "pkg", "rulesets": [r["label"] for r in spec["rulesets"]],
            "records": records, "log": "gate passed (in-process test worker)"}


# -- servers ------------------------------------------------------------------------------


class Server:
    """`arena ladder serve` in a process of its own (no local workers)."""

    def __init__(self, folder: Path, db: str | None, config: str, workers: int = 0):
        self.folder, self.db, self.workers = folder, db, workers
        self.config = folder / "ladder.toml"
        folder.mkdir(exist_ok=True)
        self.config.write_text(config)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def args(self) -> list[str]:
        return ["--folder", str(self.folder), "--config", str(self.config)] + (["--db", self.db] if self.db else [])

    def admin(self) -> str:
        """`arena ladder admin create boss` (in this process: a command's start costs seconds here)."""
        from click.testing import CliRunner

        from arena.cli import main

        done = CliRunner().invoke(main, ["ladder", "admin", "create", "boss", *self.args()])
        assert done.exit_code == 0, done.output
        return done.output.strip()

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "arena", "ladder", "serve", *self.args(), "--port",
                                         str(self.port), "--workers", str(self.workers)],
                                        stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                Client(self.url, "", timeout=5).call("GET", "/api/status")
                return
            except WorkerError:
                assert self.process.poll() is None, "the ladder server exited"
                time.sleep(0.2)
        raise AssertionError("the ladder server did not answer")

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@contextlib.contextmanager
def serve_in_thread(ladder: Any) -> Iterator[str]:
    """`ladder`'s API served by uvicorn on a thread of this process; its URL."""
    import threading

    import uvicorn

    from arena.ladder.api import make_app

    from arena.ladder.serve import tcp_listener

    listener = tcp_listener("127.0.0.1", 0)
    served = uvicorn.Server(uvicorn.Config(make_app(ladder), access_log=False, log_level="warning"))
    thread = threading.Thread(target=served.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not served.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        served.should_exit = True
        thread.join(timeout=30)


@contextlib.contextmanager
def postgresql_messages(engine: Any) -> Iterator[list[list["Message"]]]:
    """What each connection checked out of `engine`'s pool meanwhile said to its PostgreSQL
    server and heard back, per checkout in the order they ended (libpq's trace). Nothing on SQLite."""
    import sqlalchemy as sa

    checkouts: list[list[Message]] = []
    if engine.dialect.name == "sqlite":
        yield checkouts
        return
    import psycopg

    def checked_out(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        trace = tempfile.TemporaryFile()
        record.info["trace"] = trace
        dbapi_connection.pgconn.trace(os.dup(trace.fileno()))
        dbapi_connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)

    def checked_in(dbapi_connection: Any, record: Any) -> None:
        trace = record.info.pop("trace", None)
        if trace is None:
            return
        dbapi_connection.pgconn.untrace()  # flushes it
        trace.seek(0)
        lines = [line.split("\t") for line in trace.read().decode(errors="replace").splitlines()]
        trace.close()
        checkouts.append([Message(fields[0], fields[2], fields[3].strip() if len(fields) > 3 else "")
                          for fields in lines if len(fields) > 2])

    sa.event.listen(engine.pool, "checkout", checked_out)
    sa.event.listen(engine.pool, "checkin", checked_in)
    try:
        yield checkouts
    finally:
        sa.event.remove(engine.pool, "checkout", checked_out)
        sa.event.remove(engine.pool, "checkin", checked_in)


class Message(NamedTuple):
    """A PostgreSQL protocol message in libpq's trace: `direction` ``F`` (sent) or ``B`` (received),
    `kind` (``Parse``, ``Query``, ``Sync``, ``ReadyForQuery``, ...: each ``ReadyForQuery`` ends one
    round trip) and the rest of its line (a ``Parse``'s or ``Query``'s SQL, quoted)."""

    direction: str
    kind: str
    detail: str

    @property
    def statement(self) -> str:
        """The first word of a sent ``Parse``'s or ``Query``'s SQL, upper case ("" for others)."""
        if self.direction != "F" or self.kind not in ("Parse", "Query"):
            return ""
        return self.detail.split('"')[-2 if self.kind == "Query" else 3].split()[0].upper()


def round_trips(messages: list[Message]) -> int:
    return sum(1 for message in messages if message.kind == "ReadyForQuery")
