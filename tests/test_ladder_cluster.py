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


def test_worker_options_ray_and_workers_go_together_and_ray_missing_says_how_to_install(tmp_path, monkeypatch):
    away = f"http://127.0.0.1:{_free_port()}"
    assert_one_line(worker_cli("--to", away, "--workers", "3"), "--workers N starts Ray actors: pass --ray ADDRESS")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    assert_one_line(worker_cli("--to", away, "--ray", "local", "--workers", "2"), "pip install 'flip-arena[ray]'")
