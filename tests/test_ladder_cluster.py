"""Ladder workers beyond the server's machine (docs/ladder.md, "Workers"): a remote worker's
first contact (a wrong URL, a wrong token, a server that is not a ladder or plays other
ruleset versions: one line, exit code 2), and Ray workers.

Default suite: the command's errors, in this process. Marked `ray` (a local Ray instance
with 2 CPUs, real sandboxed workers; skipped without Ray): Ray workers store the same
games as local workers, and one ladder played by local, remote and Ray workers at once.
"""

from __future__ import annotations

import http.server
import importlib.util
import sys
import threading
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from ladder_support import _free_port, serve_in_thread

from arena.errors import ConfigError
from arena.ladder.worker import WorkerError, check_server

pytest.importorskip("starlette")
RAY_MISSING = importlib.util.find_spec("ray") is None
needs_ray = pytest.mark.skipif(RAY_MISSING, reason="Ray is not installed (pip install 'flip-arena[ray]')")


def worker_cli(*args: str, token: str = "worker_x") -> Any:
    from arena.cli import main

    return CliRunner().invoke(main, ["ladder", "worker", *args], env={"ARENA_LADDER_TOKEN": token})


def assert_one_line(done: Any, message: str) -> None:
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1 and message in lines[0], done.output


@pytest.fixture
def sqlite_ladder(tmp_path) -> Iterator[Any]:
    from arena.ladder.config import decode_config
    from arena.ladder.db import connect, database_url
    from arena.ladder.service import Ladder

    ladder = Ladder(connect(database_url(None, tmp_path)), decode_config({"ladder": {"deals_per_table": 1}}))
    yield ladder
    ladder.engine.dispose()


@pytest.fixture
def not_a_ladder(tmp_path) -> Iterator[str]:
    """Some other web server (a static folder: /api/status is 404, / is HTML)."""
    (tmp_path / "index.html").write_text("<html>hello</html>")
    quiet: Any = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: quiet(*a, directory=str(tmp_path)))
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{served.server_address[1]}"
    served.shutdown()
    served.server_close()


# -- first contact: one-line errors -----------------------------------------------------------


def test_a_worker_given_an_unreachable_or_malformed_url_stops_in_one_line(tmp_path):
    away = f"http://127.0.0.1:{_free_port()}"
    assert_one_line(worker_cli("--to", away, "--wait", "0", "--cache", str(tmp_path / "c")), f"cannot reach {away}")
    assert_one_line(worker_cli("--to", "localhost:8100", "--cache", str(tmp_path / "c")),
                    "the ladder's URL must be http://HOST:PORT")
    assert not (tmp_path / "c").exists()


def test_a_worker_pointed_at_a_web_server_that_is_not_a_ladder_says_so(tmp_path, not_a_ladder):
    assert_one_line(worker_cli("--to", not_a_ladder, "--wait", "0", "--cache", str(tmp_path / "c")),
                    f"{not_a_ladder} is not a ladder: GET {not_a_ladder}/api/status: HTTP 404")
    assert_one_line(worker_cli("--to", not_a_ladder + "/index.html#", "--wait", "0", "--cache", str(tmp_path / "c")),
                    "is not a ladder")


def test_a_worker_with_a_wrong_or_revoked_token_stops_in_one_line(tmp_path, sqlite_ladder):
    admin = sqlite_ladder.caller(f"Bearer {sqlite_ladder.create_admin('boss')}")
    submit_only = sqlite_ladder.issue_token(admin, "submit")
    with serve_in_thread(sqlite_ladder) as url:
        assert_one_line(worker_cli("--to", url, "--cache", str(tmp_path / "c"), token="worker_wrong"),
                        f"POST {url}/api/work/lease: HTTP 401")
        assert_one_line(worker_cli("--to", url, "--cache", str(tmp_path / "c"), token=submit_only),
                        f"POST {url}/api/work/lease: HTTP 403 leasing work needs a worker token")


class FakeClient:
    url = "http://ladder.example:8100"

    def __init__(self, status: Any):
        self.status = status

    def call(self, method: str, path: str, body: Any = None) -> Any:
        assert (method, path) == ("GET", "/api/status")
        if isinstance(self.status, Exception):
            raise self.status
        return self.status


def test_a_worker_refuses_a_ladder_whose_ruleset_versions_it_does_not_have():
    from arena.plugins import load_registry

    version = load_registry().rulesets["flip-7"].cls.version
    same = {"ladder": "l", "rulesets": ["flip-7"], "ruleset_versions": {"flip-7": ["flip-7", version]}}
    assert check_server(FakeClient(same)) is same  # type: ignore[arg-type]
    other = dict(same, ruleset_versions={"quick": ["flip-7", "999"]})
    with pytest.raises(ConfigError, match=f"plays flip-7 version 999, this worker has version {version}: install"):
        check_server(FakeClient(other))  # type: ignore[arg-type]
    missing = dict(same, ruleset_versions={"x": ["no-such-game", "1"]})
    with pytest.raises(ConfigError, match=r"plays no-such-game \(as x\), which this worker does not have"):
        check_server(FakeClient(missing))  # type: ignore[arg-type]
    with pytest.raises(WorkerError, match="cannot reach"):  # unreachable stays retryable, not a ConfigError
        check_server(FakeClient(WorkerError("cannot reach it")))  # type: ignore[arg-type]


def test_the_servers_status_names_its_ruleset_versions_for_workers_to_check(sqlite_ladder):
    from arena.ladder.worker import Client

    with serve_in_thread(sqlite_ladder) as url:
        status = check_server(Client(url, ""))
    flip7 = sqlite_ladder.rulesets["flip-7"]["cls"]
    assert status["ruleset_versions"] == {"flip-7": ["flip-7", flip7.version]}


def test_a_task_that_raises_an_unexpected_error_is_logged_and_the_worker_keeps_going(tmp_path, sqlite_ladder,
                                                                                  monkeypatch):
    import arena.ladder.worker as worker

    admin = sqlite_ladder.caller(f"Bearer {sqlite_ladder.create_admin('boss')}")
    sqlite_ladder.submit(admin, "alpha", "alpha.whl", b"alpha wheel")
    token = sqlite_ladder.issue_token(admin, "worker")

    def broken(task: Any, cache: Any, policy: Any) -> Any:
        raise RuntimeError("the sandbox broke")

    monkeypatch.setattr(worker, "run_task", broken)
    said: list[str] = []
    with serve_in_thread(sqlite_ladder) as url:
        assert worker.work(url, token, tmp_path / "cache", echo=said.append, idle_exit=True) == 0
    assert said == ["worker: a task failed: RuntimeError: the sandbox broke"]
    assert sqlite_ladder.counts()["tasks_leased"] == 1  # its lease expires and the gate is run again


def test_worker_options_ray_and_workers_go_together_and_ray_missing_says_how_to_install(tmp_path, monkeypatch):
    away = f"http://127.0.0.1:{_free_port()}"
    assert_one_line(worker_cli("--to", away, "--workers", "3"), "--workers N starts Ray actors: pass --ray ADDRESS")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    assert_one_line(worker_cli("--to", away, "--ray", "local", "--workers", "2"), "pip install 'flip-arena[ray]'")


# -- Ray (marked `ray`: a local Ray instance, real sandboxed workers) -----------------------------

CONFIG = """[ladder]
name = "cluster"
seed = 7
scheduler = "round-robin"  # a finite schedule: the runs compare every game played to the end
deals_per_table = 2
batch_games = 1
lease_seconds = 120
heartbeat_seconds = 5
time_per_decision = 60.0
"""
GAMES = 2 * 2 + 2 * 2  # each upload's gate (itself, random), then 2 deals x 2 rotations at their table


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance whose workers run at niceness 0 (Ray's default, 15, starves their
    sandboxed builds on a machine busy with other work)."""
    import os

    import ray

    before = os.environ.get("RAY_worker_niceness")
    os.environ["RAY_worker_niceness"] = "0"
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    yield ray
    ray.shutdown()
    if before is None:
        os.environ.pop("RAY_worker_niceness", None)
    else:
        os.environ["RAY_worker_niceness"] = before


@pytest.fixture(scope="module")
def uploads(tmp_path_factory) -> list[tuple[str, str, bytes]]:
    """(bot, filename, bytes) of two bots: the same bytes in every ladder of this module."""
    from test_ladder_sandbox import FIXTURE_BOT, needs_sandbox, second_bot

    from arena.ladder.versions import pack_folder

    needs_sandbox()
    other = second_bot(tmp_path_factory.mktemp("bots") / "other")
    return [("fixture-bot", *pack_folder(FIXTURE_BOT)), ("other-bot", *pack_folder(other))]


def worker_token(url: str, admin_token: str) -> str:
    from arena.ladder.worker import Client

    return str(Client(url, admin_token).call("POST", "/api/tokens", {"scope": "worker"})["token"])


def submit_in_turn(url: str, admin_token: str, bots: list[tuple[str, str, bytes]], running: Any = ()) -> None:
    """Upload each bot through the API once the previous one's gate has passed (its two games
    stored): the field's order (the order versions passed their gates) is then the upload
    order, whichever worker runs which gate, so every ladder here plays the same tables."""
    import urllib.parse

    from arena.ladder.worker import Client

    for number, (bot, filename, data) in enumerate(bots, 1):
        Client(url, admin_token).upload(f"/api/bots/{bot}/versions?{urllib.parse.urlencode({'filename': filename})}",
                                        data)
        wait_for_games(url, 2 * number, running)


def wait_for_games(url: str, count: int, running: Any = (), seconds: float = 1200) -> None:
    """Until the ladder at `url` has stored `count` games; a Ray worker's loop (`running`: its
    ObjectRefs) that ends first has its error raised here."""
    import time

    from arena.ladder.worker import Client

    deadline = time.monotonic() + seconds
    while (status := Client(url, "").call("GET", "/api/status"))["games"] < count:
        assert time.monotonic() < deadline, f"the ladder stored {status['games']} of {count} games"
        assert not status.get("tasks_failed"), status
        if running:
            import ray

            ended, _ = ray.wait(list(running), timeout=0)
            assert not ended, f"a Ray worker stopped early: {ray.get(ended)}"
        time.sleep(1)


def stored(folder: Any) -> dict[str, dict[str, Any]]:
    """Every game the SQLite ladder in `folder` stored: identity key -> record (bots' logs left out)."""
    import json
    import zlib

    import sqlalchemy as sa

    from arena.ladder.db import connect, database_url, games

    engine = connect(database_url(None, folder))
    with engine.connect() as conn:
        rows = conn.execute(sa.select(games.c.key, games.c.record)).all()
    engine.dispose()
    records = {row.key: json.loads(zlib.decompress(row.record)) for row in rows}
    assert len(records) == len(rows)
    return {key: {k: v for k, v in record.items() if k != "logs"} for key, record in records.items()}


def differences(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> list[str]:
    """Where two ladders' stored games differ: missing or extra keys, then each differing field."""
    out = [f"{key[:12]}: only in one" for key in sorted(set(got) ^ set(want))]
    for key in sorted(set(got) & set(want)):
        out += [f"{key[:12]} {field}: {str(got[key].get(field))[:200]} != {str(want[key].get(field))[:200]}"
                for field in sorted(set(got[key]) | set(want[key])) if got[key].get(field) != want[key].get(field)]
    return out


def in_process_ladder(folder: Any) -> Any:
    import tomllib

    from arena.ladder.config import decode_config
    from arena.ladder.db import connect, database_url
    from arena.ladder.service import Ladder

    folder.mkdir()
    return Ladder(connect(database_url(None, folder)), decode_config(tomllib.loads(CONFIG)))


@pytest.fixture(scope="module")
def local_games(tmp_path_factory, uploads) -> dict[str, dict[str, Any]]:
    """The games one local worker (`arena.ladder.worker.work`, this process) stores."""
    from arena.ladder.worker import work

    folder = tmp_path_factory.mktemp("local") / "ladder"
    ladder = in_process_ladder(folder)
    stop = threading.Event()
    with serve_in_thread(ladder) as url:
        admin = ladder.create_admin("boss")
        worker = threading.Thread(target=work, args=(url, worker_token(url, admin), folder.parent / "cache", stop),
                                  daemon=True)
        worker.start()
        submit_in_turn(url, admin, uploads)
        wait_for_games(url, GAMES)
        stop.set()
        worker.join(timeout=300)
    ladder.engine.dispose()
    return stored(folder)


@pytest.mark.ray
@needs_ray
def test_ray_workers_store_the_same_games_as_a_local_worker(tmp_path, local_ray, local_games, uploads):
    from arena.ladder.ray_workers import start_actors

    ladder = in_process_ladder(tmp_path / "ladder")
    with serve_in_thread(ladder) as url:
        admin = ladder.create_admin("boss")
        actors = start_actors(local_ray, url, worker_token(url, admin), 2, str(tmp_path / "ray-cache"))
        places = local_ray.get([actor.where.remote() for actor in actors])
        running = [actor.run.remote() for actor in actors]
        submit_in_turn(url, admin, uploads, running)
        wait_for_games(url, GAMES, running)
        local_ray.get([actor.stop.remote() for actor in actors])
        done = local_ray.get(running)
    ladder.engine.dispose()
    assert len({place["pid"] for place in places}) == 2
    assert sum(done) == 2 + 4  # two gate tasks (each returns its 2 games), then 4 game tasks: each once
    assert differences(stored(tmp_path / "ladder"), local_games) == []  # same keys, same records


@pytest.mark.ray
@needs_ray
def test_one_ladder_played_by_local_remote_and_ray_workers_at_once(tmp_path, local_ray, local_games, uploads):
    import os
    import subprocess

    from ladder_support import Server

    from arena.ladder.ray_workers import start_actors

    server = Server(tmp_path / "ladder", None, CONFIG, workers=1)  # `arena ladder serve` with one local worker
    admin = server.admin()
    server.start()
    remote_home = tmp_path / "elsewhere"  # the remote worker shares nothing with the server but its URL
    remote_home.mkdir()
    remote: subprocess.Popen[Any] | None = None
    try:
        token = worker_token(server.url, admin)
        remote = subprocess.Popen([sys.executable, "-m", "arena", "ladder", "worker", "--to", server.url],
                                  cwd=remote_home, env=dict(os.environ, ARENA_LADDER_TOKEN=token),
                                  stderr=subprocess.DEVNULL)
        actors = start_actors(local_ray, server.url, token, 1, str(tmp_path / "ray-cache"))
        running = [actor.run.remote() for actor in actors]
        submit_in_turn(server.url, admin, uploads, running)
        wait_for_games(server.url, GAMES, running)
        local_ray.get([actor.stop.remote() for actor in actors])
        ray_done = sum(local_ray.get(running))
    finally:
        if remote is not None:  # the worker this test started, however the test ends
            remote.terminate()
            remote.wait(timeout=60)
        server.stop()
    assert differences(stored(tmp_path / "ladder"), local_games) == []  # every game once, the same games
    # each kind of worker played: it built what it played, in its own cache
    assert ray_done >= 1 and list((tmp_path / "ray-cache" / "ray-0" / "builds").iterdir())
    assert list((remote_home / "ladder-worker" / "builds").iterdir())
    assert list((tmp_path / "ladder" / "worker-0" / "builds").iterdir())
