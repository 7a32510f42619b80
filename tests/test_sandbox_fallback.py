"""Where no sandbox can be made: installed bots fall back to process isolation, the
store says so, and `arena match` warns; the quickstart still runs."""

import pytest
from click.testing import CliRunner

import arena.sandbox
from arena.cli import main
from arena.plugins import load_registry
from arena.runner import RunObserver, run_tournament
from arena.store import Store, store_path
from arena.tournament import load_tournament

FILE = """
[tournament]
name = "fallback"
seed = 5
deals = 1
workers = 1

[[bots]]
use = "random"
as = "r1"

[[bots]]
use = "random"
as = "r2"

[[rulesets]]
use = "flip-7"
players = 2
"""


@pytest.fixture
def no_sandbox(monkeypatch):
    monkeypatch.setattr(arena.sandbox, "sandbox_unavailable", lambda: "user namespaces are disabled (a test)")


def test_installed_bots_fall_back_to_process_isolation_and_the_store_records_why(no_sandbox, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(FILE)
    lines = []
    summary = run_tournament(load_tournament(path, load_registry()), tmp_path / "out",
                             observer=RunObserver(lines.append))
    assert summary.complete
    assert any(line.startswith("warning: no sandbox can be made here (user namespaces are disabled") for line in lines)
    with Store.open(store_path(tmp_path / "out")) as store:
        isolation = store.get("isolation")
    assert isolation["requested"] == "sandbox" and isolation["used"] == "process"
    assert "user namespaces are disabled" in isolation["fallback"]


def test_a_sandboxed_run_records_the_limits_in_force(tmp_path):
    if arena.sandbox.sandbox_unavailable():
        pytest.skip(f"no sandbox can be made here: {arena.sandbox.sandbox_unavailable()}")
    path = tmp_path / "t.toml"
    path.write_text(FILE)
    assert run_tournament(load_tournament(path, load_registry()), tmp_path / "out",
                          observer=RunObserver(lambda line: None)).complete
    with Store.open(store_path(tmp_path / "out")) as store:
        isolation = store.get("isolation")
    assert isolation["used"] == "sandbox" and isolation["fallback"] is None
    assert "MiB" in isolation["limits"]["memory"]


def test_arena_match_warns_and_plays_in_processes_without_a_sandbox(no_sandbox):
    result = CliRunner().invoke(main, ["match", "flip-7", "random", "random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "warning: no sandbox can be made here" in result.output
    assert "transcript" in result.output
