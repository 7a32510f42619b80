"""The Ray backend (`arena run --backend ray`): the same games and standings as the
local backend, a worker killed mid-run costs nothing (every game stored exactly
once), and without Ray a one-line error saying how to install it.

The Ray tests are marked `ray` (run them with ``pytest -m ray``) and start a local
Ray instance with 2 CPUs; they are skipped where Ray is not installed."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.errors import ConfigError
from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_tournament_support import InterruptingBackend

RAY_MISSING = importlib.util.find_spec("ray") is None
needs_ray = pytest.mark.skipif(RAY_MISSING, reason="Ray is not installed (pip install 'flip-arena[ray]')")

SMALL = """
[tournament]
name = "ray-small"
seed = 4242
deals = {deals}
isolation = "{isolation}"

[[bots]]
use = "random"
as = "random-1"

[[bots]]
use = "random"
as = "random-2"

[[bots]]
use = "flip7-threshold"

[[bots]]
use = "flip7-threshold"
as = "threshold-23"
params = {{ threshold = 23 }}

[[bots]]
use = "uno-flip-heuristic"

[[rulesets]]
use = "flip-7"
players = 2

[[rulesets]]
use = "uno-flip"
players = 2
"""
GAMES_PER_DEAL = (6 + 3) * 2  # flip-7: 6 tables of 2 among 4 entries; uno-flip: 3 among 3; 2 rotations


def tournament_file(tmp_path: Path, deals: int = 3, isolation: str = "inline") -> Path:
    path = tmp_path / f"small-{deals}-{isolation}.toml"
    path.write_text(SMALL.format(deals=deals, isolation=isolation))
    return path


def run(path: Path, out: Path, **kwargs):
    tournament = load_tournament(path, load_registry())
    return run_and_publish(tournament, out, progress=False, echo=lambda line: None, **kwargs)


def without_provenance(out: Path) -> dict:
    doc = json.loads((out / "standings.json").read_text())
    doc.pop("tournament")
    return doc


def stored(out: Path) -> tuple[dict[str, str], int, int]:
    """(game key -> transcript hash, rows, distinct keys) of the store in `out`."""
    with sqlite3.connect(store_path(out)) as db:
        hashes = dict(db.execute("SELECT game_key, transcript_hash FROM games"))
        rows, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT game_key) FROM games").fetchone()
    return hashes, rows, distinct


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    yield ray
    ray.shutdown()


# -- without Ray (default suite) --------------------------------------------------------


def test_the_ray_backend_without_ray_installed_says_how_to_install_it_in_one_line(monkeypatch):
    from arena.ray_backend import make_ray_backend

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(ConfigError) as caught:
        make_ray_backend(2, None)
    message = str(caught.value)
    assert "pip install 'flip-arena[ray]'" in message and "\n" not in message


def test_the_store_refuses_a_game_stored_twice_so_a_replayed_batch_cannot_count_twice(tmp_path):
    """What the Ray backend's retries rely on, beyond storing only the attempt that returned."""
    from arena.runner import make_job, play_batch

    path = tournament_file(tmp_path, deals=1)
    tournament = load_tournament(path, load_registry())
    summary = run(path, tmp_path / "out", workers=1)
    again = play_batch(make_job(tournament), list(tournament.schedule(4242))[:3])
    with Store.open(store_path(tmp_path / "out")) as store:
        with pytest.raises(sqlite3.IntegrityError):
            store.add(again.games, run=2)
        assert store.count() == summary.total and store.max_run() == 1


def test_the_runtime_env_comes_from_arena_ray_runtime_env_as_json_or_a_json_file(tmp_path, monkeypatch):
    from arena.ray_backend import runtime_env_from_environment

    monkeypatch.delenv("ARENA_RAY_RUNTIME_ENV", raising=False)
    assert runtime_env_from_environment() is None
    monkeypatch.setenv("ARENA_RAY_RUNTIME_ENV", '{"pip": ["my-bots==1.2.0"]}')
    assert runtime_env_from_environment() == {"pip": ["my-bots==1.2.0"]}
    (tmp_path / "env.json").write_text('{"pip": ["flip-arena", "other-bots"]}')
    monkeypatch.setenv("ARENA_RAY_RUNTIME_ENV", str(tmp_path / "env.json"))
    assert runtime_env_from_environment() == {"pip": ["flip-arena", "other-bots"]}
    for bad in ('{"pip": [', str(tmp_path / "missing.json"), "[1, 2]"):
        monkeypatch.setenv("ARENA_RAY_RUNTIME_ENV", bad)
        with pytest.raises(ConfigError, match="ARENA_RAY_RUNTIME_ENV"):
            runtime_env_from_environment()


def _run_has_backend_option() -> bool:
    from arena.cli import run_command

    return any("--backend" in param.opts for param in run_command.params)


@pytest.mark.skipif(not _run_has_backend_option(), reason="arena run has no --backend option yet")
def test_arena_run_backend_ray_without_ray_prints_one_line_and_exits_2(tmp_path, monkeypatch):
    from arena.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    path = tournament_file(tmp_path)
    result = CliRunner().invoke(main, ["run", str(path), "--backend", "ray", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'flip-arena[ray]'" in lines[0], result.output
    assert not (tmp_path / "out" / "games.sqlite").exists()


# -- with a local Ray instance ----------------------------------------------------------


@pytest.mark.ray
@needs_ray
@pytest.mark.parametrize("isolation", ["inline", "process"])
@pytest.mark.usefixtures("local_ray")
def test_ray_and_local_backends_give_identical_games_and_standings(tmp_path, isolation):
    from arena.ray_backend import RayBackend

    path = tournament_file(tmp_path, deals=3, isolation=isolation)
    local = run(path, tmp_path / "local", workers=2)
    backend = RayBackend(2)
    remote = run(path, tmp_path / "ray", backend=backend, batch_size=5)
    assert local.complete and remote.complete and remote.played == local.total == GAMES_PER_DEAL * 3
    assert without_provenance(tmp_path / "ray") == without_provenance(tmp_path / "local")
    assert stored(tmp_path / "ray") == stored(tmp_path / "local")
    assert backend.retries == 0 and len(set(backend.pids())) == 2 and os.getpid() not in backend.pids()



def make_killing_backend(kill_at: int):
    """A RayBackend that SIGKILLs the worker process that was just sent batch
    number `kill_at`, while it plays it."""
    from arena.ray_backend import RayBackend

    class KillingBackend(RayBackend):
        def __init__(self):
            super().__init__(2)
            self.sent = 0
            self.killed: int | None = None

        def _pick(self):
            actor = super()._pick()
            self.sent += 1
            if self.sent == kill_at:
                self.victim = actor
            return actor

        def submit(self, batch):
            future = super().submit(batch)
            if self.sent >= kill_at and self.killed is None:
                self.killed = self.victim.info["pid"]
                os.kill(self.killed, signal.SIGKILL)
            return future

    return KillingBackend()


@pytest.mark.ray
@needs_ray
@pytest.mark.usefixtures("local_ray")
def test_a_worker_killed_mid_run_is_replaced_and_every_game_is_stored_exactly_once(tmp_path):
    path = tournament_file(tmp_path, deals=6)
    backend = make_killing_backend(kill_at=4)
    summary = run(path, tmp_path / "ray", backend=backend, batch_size=12)
    assert backend.killed is not None and backend.retries >= 1, backend.lost
    assert summary.complete and summary.played == summary.total == GAMES_PER_DEAL * 6
    hashes, rows, distinct = stored(tmp_path / "ray")
    assert rows == distinct == summary.total and sorted(hashes) == list(range(summary.total))
    assert run(path, tmp_path / "local", workers=1).complete
    assert stored(tmp_path / "local")[0] == hashes
    assert without_provenance(tmp_path / "ray") == without_provenance(tmp_path / "local")



@pytest.mark.ray
@needs_ray
@pytest.mark.usefixtures("local_ray")
def test_a_run_interrupted_locally_resumes_on_ray_without_replaying_a_game(tmp_path):
    from arena.ray_backend import RayBackend

    path = tournament_file(tmp_path, deals=2)
    first = run(path, tmp_path / "r", backend=InterruptingBackend(3), batch_size=4)
    assert first.interrupted and first.played == 12
    second = run(path, tmp_path / "r", backend=RayBackend(2), batch_size=4)
    assert second.complete and second.stored_before == 12 and second.played == first.total - 12
    with sqlite3.connect(store_path(tmp_path / "r")) as db:
        runs = dict(db.execute("SELECT run, COUNT(*) FROM games GROUP BY run"))
    assert runs == {1: 12, 2: first.total - 12}
    run(path, tmp_path / "ref", workers=1)
    assert without_provenance(tmp_path / "r") == without_provenance(tmp_path / "ref")
    assert stored(tmp_path / "r") == stored(tmp_path / "ref")



@pytest.mark.ray
@needs_ray
@pytest.mark.usefixtures("local_ray")
def test_a_worker_with_other_versions_is_refused(tmp_path, monkeypatch):
    """The driver compares every worker's loaded versions with its own (here the
    driver's are tampered with, so a real worker differs)."""
    import arena.ray_backend as ray_backend

    real = ray_backend.fingerprint
    monkeypatch.setattr(ray_backend, "fingerprint", lambda job: dict(real(job), arena="0.0.0-driver"))
    path = tournament_file(tmp_path, deals=1)
    with pytest.raises(ConfigError, match="other versions than this driver"):
        run(path, tmp_path / "v", backend=ray_backend.RayBackend(1))



@pytest.mark.ray
@needs_ray
@pytest.mark.usefixtures("local_ray")
def test_a_worker_that_cannot_load_a_bot_stops_the_run_with_one_line(tmp_path, monkeypatch):
    """A bot importable by the driver only (as on a node without its package)."""
    from arena.match import Entrant
    from arena.ray_backend import RayBackend
    from arena.runner import Job

    (tmp_path / "driver_only_bot.py").write_text(
        "import arena\n\n\nclass DriverOnly(arena.Bot):\n    name = 'driver-only'\n    rulesets = '*'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import driver_only_bot

    job = Job(((load_registry().rulesets["flip-7"].cls, {}),),
              (Entrant(driver_only_bot.DriverOnly, {}, "driver-only", "driver-only-bots", "1"),))
    backend = RayBackend(1, ready_timeout=60)
    with pytest.raises(ConfigError) as caught:
        backend.start(job)
    message = str(caught.value)
    assert "No module named 'driver_only_bot'" in message and "docs/ray.md" in message and "\n" not in message
    assert not backend.actors
