"""The ladder loses nothing and counts nothing twice (docs/ladder.md, "Fault tests"),
on SQLite and PostgreSQL: the server killed with -9 and restarted, a worker that
vanishes mid-batch, a result returned twice; and the HTTP API end to end. The server
runs as `arena ladder serve` in a process of its own; the worker is the in-process
stand-in of ladder_support speaking HTTP (tests/test_ladder_sandbox.py: real workers)."""

from __future__ import annotations

import time
import urllib.parse
from pathlib import Path

import pytest
import sqlalchemy as sa
from ladder_support import Server, fresh_database, inline_result, serve_in_thread

from arena.ladder.db import connect, database_url, games
from arena.ladder.worker import Client, WorkerError

pytest.importorskip("starlette")

CONFIG = """[ladder]
name = "faults"
lease_seconds = 5
heartbeat_seconds = 1
deals_per_table = 2
scheduler = "round-robin"
batch_games = 3
[quotas]
upload_bytes = 4096
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def db_arg(request):
    if request.param == "sqlite":
        return None
    return fresh_database(request.getfixturevalue("pg_server"))


@pytest.fixture
def server(tmp_path, db_arg):
    running = Server(tmp_path / "ladder", db_arg, CONFIG)
    yield running
    running.stop()


@pytest.fixture
def api_server(tmp_path, db_arg):
    """The API on a thread of this process: (url, admin token)."""
    import tomllib

    from arena.ladder.config import decode_config
    from arena.ladder.service import Ladder

    ladder = Ladder(connect(database_url(db_arg, tmp_path)), decode_config(tomllib.loads(CONFIG)))
    with serve_in_thread(ladder) as url:
        yield url, ladder.create_admin("boss")
    ladder.engine.dispose()


def upload(client: Client, bot: str, data: bytes, filename: str = "bot.whl"):
    return client.upload(f"/api/bots/{bot}/versions?{urllib.parse.urlencode({'filename': filename})}", data)


def drain(worker: Client, wait_for_expired: bool = True) -> int:
    """Lease and return work over HTTP until none is left (waiting out expired leases); tasks returned."""
    done = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        lease = worker.call("POST", "/api/work/lease", {})
        if lease["tasks"]:
            for task in lease["tasks"]:
                worker.call("POST", f"/api/work/{task['id']}/result", inline_result(task))
                done += 1
            continue
        if not (wait_for_expired and worker.call("GET", "/api/status").get("tasks_leased")):
            return done
        time.sleep(0.5)
    raise AssertionError("work never ran out")


def published_standings(client: Client) -> list[dict]:
    """The standings once the pages' snapshot shows every change stored (it lags them by at
    most about a second: docs/ladder.md)."""
    deadline = time.monotonic() + 30
    while True:
        status = client.call("GET", "/api/status")
        if status["published"] >= status["generation"] or time.monotonic() > deadline:
            return client.call("GET", "/api/standings")["flip-7"]
        time.sleep(0.1)


def stored_games(folder: Path, db: str | None) -> list[str]:
    engine = connect(database_url(db, folder))
    with engine.connect() as conn:
        keys = conn.execute(sa.select(games.c.key).where(games.c.gate.is_(None))).scalars().all()
    engine.dispose()
    return list(keys)


@pytest.mark.parametrize("db_arg", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)], indirect=True)
def test_server_killed_with_9_and_a_vanished_worker_lose_no_game_and_count_none_twice(server):
    admin = Client(server.url, server.admin())
    server.start()
    worker = Client(server.url, admin.call("POST", "/api/tokens", {"scope": "worker"})["token"])
    for bot in ("alpha", "beta", "gamma"):
        upload(admin, bot, f"{bot} wheel".encode())
    for _ in range(3):  # the gates
        task = worker.call("POST", "/api/work/lease", {})["tasks"][0]
        worker.call("POST", f"/api/work/{task['id']}/result", inline_result(task))
    vanished = worker.call("POST", "/api/work/lease", {})["tasks"]  # a worker that dies with its batch
    batch = worker.call("POST", "/api/work/lease", {})["tasks"]
    worker.call("POST", f"/api/work/{batch[0]['id']}/result", inline_result(batch[0]))
    server.kill()  # kill -9 with a batch half returned
    server.start()
    again = worker.call("POST", f"/api/work/{batch[0]['id']}/result", inline_result(batch[0]))
    assert again == {"task": batch[0]["id"], "stored": False, "note": "already stored"}
    late = worker.call("POST", f"/api/work/{batch[1]['id']}/result", inline_result(batch[1]))
    assert late["stored"] is True  # a result under a lease from before the restart still counts
    drain(worker)  # the rest, the vanished batch's games once their lease expired
    status = worker.call("GET", "/api/status")
    assert status["games"] == 12 + 6 and status.get("tasks_leased", 0) == 0 and status.get("tasks_queued", 0) == 0
    standings = published_standings(worker)
    assert sum(row["games"] for row in standings) == 2 * 12  # each game rated once
    keys = stored_games(server.folder, server.db)
    assert len(keys) == len(set(keys)) == 12  # 3 tables x 2 deals x 2 rotations
    assert len(vanished) == 3


def test_api_tokens_uploads_standings_records_and_replays(api_server):
    url, token = api_server
    admin = Client(url, token)
    with pytest.raises(WorkerError, match="HTTP 401 no token"):
        Client(url, "").call("POST", "/api/work/lease", {})
    from arena.ladder.worker import work

    with pytest.raises(WorkerError, match="HTTP 401 the token is unknown or revoked"):
        work(url, "worker_not-a-token", Path("unused"))  # a worker with a bad token stops, saying why
    code = admin.call("POST", "/api/invitations", {})["code"]
    author = Client(url, Client(url, "").call("POST", "/api/signup", {"name": "ann", "code": code})
                    ["token"])
    with pytest.raises(WorkerError, match="HTTP 413 the body is larger than 4,096 bytes"):
        upload(author, "alpha", b"x" * 5000)
    assert upload(author, "alpha", b"alpha wheel")["version"] == 1
    with pytest.raises(WorkerError, match="HTTP 409 this upload is identical to alpha version 1"):
        upload(author, "alpha", b"alpha wheel")
    upload(admin, "beta", b"beta wheel")
    worker = Client(url, admin.call("POST", "/api/tokens", {"scope": "worker"})["token"])
    with pytest.raises(WorkerError, match="HTTP 403 uploads are served to workers"):
        author.raw("/api/blobs/" + "0" * 64)
    drain(worker)
    log = author.call("GET", "/api/bots/alpha/versions/1/gate")
    assert log["state"] == "passed" and "gate passed" in log["log"]
    with pytest.raises(WorkerError, match="HTTP 403 the gate log of beta is its author's"):
        author.call("GET", "/api/bots/beta/versions/1/gate")
    page = Client(url, "").call("GET", "/api/bots/alpha")
    game = next(g for g in page["games"] if g["gate"] is None)
    record = Client(url, "").call("GET", f"/api/games/{game['game']}")
    assert record["seats"][0]["bot"] in ("alpha", "beta") and "logs" not in record
    script = Client(url, "").raw(f"/api/games/{game['game']}/replay.js").decode()
    assert script.startswith("window.") or "replay" in script[:200].lower()
    table = published_standings(Client(url, ""))
    assert sorted(row["bot"] for row in table) == ["alpha", "beta"] and all(row["games"] == 4 for row in table)
    with pytest.raises(WorkerError, match="HTTP 400 the body is not a JSON object"):
        Client(url, "").call("POST", "/api/signup", [1, 2])
    with pytest.raises(WorkerError, match="HTTP 404 no ruleset 'chess'"):
        Client(url, "").call("GET", "/api/standings/chess")


@pytest.mark.slow
@pytest.mark.parametrize("db_arg", ["sqlite", "postgresql"], indirect=True)
def test_server_killed_with_9_again_and_again_while_a_worker_plays(server):
    """Three kill -9s at moments drawn from a fixed seed, a worker playing throughout."""
    import random
    import threading

    admin = Client(server.url, server.admin())
    server.start()
    worker = Client(server.url, admin.call("POST", "/api/tokens", {"scope": "worker"})["token"], timeout=10)
    for bot in ("alpha", "beta", "gamma"):
        upload(admin, bot, f"{bot} wheel".encode())
    stop = threading.Event()

    def play() -> None:
        while not stop.is_set():
            try:
                lease = worker.call("POST", "/api/work/lease", {})
                for task in lease["tasks"]:
                    worker.call("POST", f"/api/work/{task['id']}/result", inline_result(task))
                if not lease["tasks"]:
                    time.sleep(0.3)
            except WorkerError:  # the server is down: ask again
                time.sleep(0.3)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    rng = random.Random(38)
    try:
        for _ in range(3):
            time.sleep(rng.uniform(0.5, 3.0))
            server.kill()
            server.start()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            status = worker.call("GET", "/api/status")
            if status["games"] == 12 + 6 and not status.get("tasks_leased") and not status.get("tasks_queued"):
                break
            time.sleep(0.5)
    finally:
        stop.set()
        thread.join()
    assert status["games"] == 12 + 6
    assert sum(row["games"] for row in published_standings(worker)) == 2 * 12
    keys = stored_games(server.folder, server.db)
    assert len(keys) == len(set(keys)) == 12


@pytest.mark.slow
def test_postgresql_restarted_under_a_running_ladder_loses_nothing(tmp_path):
    """The database server stopped hard (-m immediate) and started again between a lease and
    its results: the results then stored once, the rest played, none counted twice."""
    import tomllib

    from ladder_support import PG_BINARIES, PrivatePostgres

    from arena.ladder.config import decode_config
    from arena.ladder.service import Ladder

    if not PG_BINARIES:
        pytest.fail("no PostgreSQL binaries (see tests/ladder_support.py)")
    database = PrivatePostgres()
    try:
        url = fresh_database(database.start())
        ladder = Ladder(connect(database_url(url, tmp_path)), decode_config(tomllib.loads(CONFIG)))
        admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
        worker = ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}")
        for bot in ("alpha", "beta", "gamma"):
            ladder.submit(admin, bot, f"{bot}.whl", bot.encode())
        batches = [ladder.lease(worker)["tasks"] for _ in range(4)]  # three gates, then three games
        database.run(str(database.bin / "pg_ctl"), "-D", str(database.data), "-m", "immediate", "-w", "stop")
        database.run(str(database.bin / "pg_ctl"), "-D", str(database.data), "-w", "-l", str(database.folder / "log"),
                     "-o", f"-p {database.port} -k {database.folder} -c listen_addresses=''", "start")
        for batch in batches:
            for task in batch:
                assert ladder.complete(worker, task["id"], inline_result(task))["stored"] is True
        while (lease := ladder.lease(worker))["tasks"]:
            for task in lease["tasks"]:
                ladder.complete(worker, task["id"], inline_result(task))
        assert ladder.counts()["games"] == 12 + 6
        assert sum(row["games"] for row in ladder.standings_table("flip-7")) == 2 * 12
        ladder.engine.dispose()
    finally:
        database.stop()


@pytest.mark.parametrize("db_arg", ["sqlite"], indirect=True)
def test_a_result_is_sent_again_while_the_server_is_unreachable_but_not_when_refused(api_server):
    from ladder_support import _free_port

    from arena.ladder.worker import send_result

    url, token = api_server
    worker = Client(url, Client(url, token).call("POST", "/api/tokens", {"scope": "worker"})["token"])
    started = time.monotonic()
    with pytest.raises(WorkerError, match="HTTP 404 no task 999"):
        send_result(worker, 999, {"record": None})
    assert time.monotonic() - started < 1.0  # a refusal is not asked again
    away = Client(f"http://127.0.0.1:{_free_port()}", "worker_x", timeout=5)
    started = time.monotonic()
    with pytest.raises(WorkerError, match="cannot reach"):
        send_result(away, 1, {}, tries=3)
    assert time.monotonic() - started >= 2.0  # asked three times, a second apart
