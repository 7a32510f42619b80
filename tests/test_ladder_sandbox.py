"""The ladder with real workers: uploads built and probed in the sandbox, played in
sandboxes (arena.ladder.worker), from `arena ladder submit` to live standings. All
`slow` (each build takes seconds): a worker against the API in this process; `arena
ladder serve` with its local workers, on both databases; a worker killed with -9
mid-batch. The default suite's ladder tests use the in-process stand-in worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ladder_support import Server, fresh_database, serve_in_thread

from arena.ladder.config import decode_config
from arena.ladder.db import connect, database_url
from arena.ladder.service import Ladder
from arena.ladder.worker import Client, work

pytest.importorskip("starlette")
FIXTURE_BOT = Path(__file__).parent / "submissions" / "fixture-bot"
HOSTILE_BOT = Path(__file__).parent / "submissions" / "no-entry-point"


def needs_sandbox() -> None:
    from arena.sandbox import sandbox_unavailable

    if reason := sandbox_unavailable():
        pytest.skip(f"no sandbox here: {reason}")


def second_bot(folder: Path) -> Path:
    """A second bot package (the fixture bot under another name), made for the test."""
    folder.mkdir()
    source = (FIXTURE_BOT / "arena_fixture_bot.py").read_text()
    (folder / "pyproject.toml").write_text((FIXTURE_BOT / "pyproject.toml").read_text()
                                           .replace("arena-fixture-bot", "arena-other-bot")
                                           .replace("arena_fixture_bot", "arena_other_bot")
                                           .replace("fixture = ", "other = "))
    (folder / "arena_other_bot.py").write_text(source.replace('"fixture-bot"', '"other-bot"')
                                               .replace("FixtureBot", "OtherBot"))
    return folder


def submit(url: str, token: str, path: Path, bot: str) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "ladder", "submit", str(path), "--to", url, "--bot", bot],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, ARENA_LADDER_TOKEN=token))
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_a_worker_builds_gates_and_plays_an_upload_in_the_sandbox(tmp_path, db, request):
    needs_sandbox()
    from arena.ladder.versions import pack_folder

    config = decode_config({"ladder": {"deals_per_table": 1, "scheduler": "round-robin"}})
    url_db = None if db == "sqlite" else fresh_database(request.getfixturevalue("pg_server"))
    ladder = Ladder(connect(database_url(url_db, tmp_path)), config)
    admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
    worker_token = ladder.issue_token(admin, "worker")
    ladder.submit(admin, "fixture-bot", *pack_folder(FIXTURE_BOT))
    ladder.submit(admin, "no-entry-point", "no-entry-point.tar.gz", pack_folder(HOSTILE_BOT)[1])
    with serve_in_thread(ladder) as url:
        assert work(url, worker_token, tmp_path / "cache", threading.Event(), idle_exit=True) == 2
    passed = ladder.gate_log(admin, "fixture-bot", 1)
    assert passed["state"] == "passed", passed["log"]
    assert "fixture-bot v random" in passed["log"] and "built" in passed["log"]
    failed = ladder.gate_log(admin, "no-entry-point", 1)
    assert failed["state"] == "failed" and "registers no bot" in failed["log"]
    assert [g["gate"] for g in ladder.bot_page("fixture-bot")["games"]] == [1, 1]  # self and random, not rated
    assert list((tmp_path / "cache" / "builds").iterdir())  # the build is cached by content


@pytest.mark.slow
@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_serve_and_submit_take_new_bots_through_the_gate_to_standings(tmp_path, db, request):
    needs_sandbox()
    url_db = None if db == "sqlite" else fresh_database(request.getfixturevalue("pg_server"))
    server = Server(tmp_path / "ladder", url_db, '[ladder]\ndeals_per_table = 2\nscheduler = "round-robin"\n',
                    workers=2)
    token = server.admin()
    server.start()
    try:
        submit(server.url, token, FIXTURE_BOT, "fixture-bot")
        submit(server.url, token, second_bot(tmp_path / "other"), "other-bot")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            table = Client(server.url, "").call("GET", "/api/standings/flip-7")["flip-7"]
            if len(table) == 2 and all(row["games"] == 4 for row in table):
                break
            time.sleep(2)
        assert sorted(row["bot"] for row in table) == ["fixture-bot", "other-bot"]
        assert all(row["games"] == 4 for row in table), table
        game = next(g for g in Client(server.url, "").call("GET", "/api/bots/other-bot")["games"] if not g["gate"])
        assert Client(server.url, "").raw(f"/api/games/{game['game']}/replay.js")
    finally:
        server.stop()


@pytest.mark.slow
def test_a_worker_killed_with_9_mid_batch_loses_nothing(tmp_path):
    needs_sandbox()
    server = Server(tmp_path / "ladder", None, "[ladder]\ndeals_per_table = 4\nlease_seconds = 5\n"
                                               "heartbeat_seconds = 1\nbatch_games = 4\nscheduler = \"round-robin\"\n",
                    workers=0)
    token = server.admin()
    server.start()
    try:
        submit(server.url, token, FIXTURE_BOT, "fixture-bot")
        submit(server.url, token, second_bot(tmp_path / "other"), "other-bot")
        worker_token = Client(server.url, token).call("POST", "/api/tokens", {"scope": "worker"})["token"]
        env = dict(os.environ, ARENA_LADDER_TOKEN=worker_token)
        command = [sys.executable, "-m", "arena", "ladder", "worker", "--to", server.url, "--cache"]
        first = subprocess.Popen(command + [str(tmp_path / "w1")], env=env, stderr=subprocess.PIPE, text=True)
        while Client(server.url, "").call("GET", "/api/status")["games"] < 5:  # the gates, then one game
            time.sleep(0.5)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        second = subprocess.Popen(command + [str(tmp_path / "w2")], env=env)
        deadline = time.monotonic() + 600
        while Client(server.url, "").call("GET", "/api/status")["games"] < 4 + 8 and time.monotonic() < deadline:
            time.sleep(1)
        os.kill(second.pid, signal.SIGTERM)
        second.wait()
        status = Client(server.url, "").call("GET", "/api/status")
        assert status["games"] == 4 + 8  # the gates' and 2 x 4 deals, each once
        while status["published"] < status["generation"] and time.monotonic() < deadline:  # the pages' snapshot
            time.sleep(0.2)
            status = Client(server.url, "").call("GET", "/api/status")
        table = Client(server.url, "").call("GET", "/api/standings/flip-7")["flip-7"]
        assert [row["games"] for row in table] == [8, 8]
    finally:
        server.stop()
