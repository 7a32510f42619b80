"""Tournaments in process isolation: misbehaving bots are penalised by the fault
policy and listed by `arena faults`, everyone else's games count, command bots play,
max_faults disqualifies in schedule order, and no bot process outlives the run."""

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.ratings import Rater
from arena.store import GameRow, Store, store_path
from test_isolation import HERE, session_processes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process isolation tests need Linux")

FIELD = """
[tournament]
name = "rough"
seed = 3
deals = 1
isolation = "process"
time_per_decision = 0.3
time_bank = 0.2
memory_mb = 400

[[bots]]
use = "random"

[[bots]]
use = "hang"

[[bots]]
use = "exiter"

[[bots]]
use = "illegal"

[[bots]]
use = "chatty"

[[bots]]
command = ["./first_legal.sh"]
as = "shell-bot"

[[rulesets]]
use = "flip-7"
players = 2
options = { target_score = 60 }
"""


def _install_field(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tournament file beside the shell bot in `root`, and the misbehaving bots as a plugin."""
    site = root / "site"
    site.mkdir()
    shutil.copy(HERE / "misbehaving_bots.py", site / "misbehaving_bots.py")
    info = site / "misbehaving_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: misbehaving-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena]\nmisbehaving = misbehaving_bots\n")
    monkeypatch.syspath_prepend(str(site))
    shutil.copy(HERE / "first_legal.sh", root / "first_legal.sh")
    path = root / "rough.toml"
    path.write_text(FIELD)
    return path


@pytest.fixture
def field(tmp_path, monkeypatch):
    """The tournament file beside the shell bot, and the misbehaving bots as a plugin."""
    return _install_field(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def rough(tmp_path_factory):
    """The results folder of one run of the rough field with one worker and `on_fault =
    "forfeit"` (the default, stated), and its output: the hang bot waits out its time limits
    in its games, so the tests that read what the run recorded share this one run."""
    root = tmp_path_factory.mktemp("rough")
    with pytest.MonkeyPatch.context() as monkeypatch:
        field = _install_field(root, monkeypatch)
        field.write_text(FIELD.replace('memory_mb = 400', 'memory_mb = 400\non_fault = "forfeit"'))
        out = root / "out"
        result = CliRunner().invoke(main, ["run", str(field), "--workers", "1", "--out", str(out)])
        yield out, result


def test_a_rough_field_completes_with_faults_recorded_and_everyone_elses_games_counted(rough):
    out, result = rough
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "standings.json").read_text())
    rows = {row["bot"]: row for row in doc["overall"]}
    assert all(row["games"] == 10 for row in rows.values())  # C(6,2) tables x 2 rotations / 6 * 2
    assert rows["random"]["faults"] == rows["chatty"]["faults"] == rows["shell-bot"]["faults"] == 0
    assert rows["hang"]["faults"] > 0 and rows["exiter"]["faults"] > 0 and rows["illegal"]["faults"] > 0

    listed = CliRunner().invoke(main, ["faults", str(out), "--json"])
    assert listed.exit_code == 0, listed.output
    kinds = {(f["bot"], f["kind"]) for f in json.loads(listed.stdout)}
    assert kinds == {("hang", "timeout"), ("exiter", "crash"), ("illegal", "illegal")}
    table = CliRunner().invoke(main, ["faults", str(out)])
    assert "timeout" in table.stdout and "hang:" in table.stdout

    with Store.open(store_path(out)) as store:
        chatty_logs = [store.record(i).get("logs", {}) for i in range(store.count())]
    assert any("junk {not json" in text for logs in chatty_logs for text in logs.values())


@pytest.mark.parametrize("isolation", ["process", "sandbox"])
def test_no_bot_process_outlives_a_tournament(field, tmp_path, isolation):
    """Counts only this test's bot processes: those whose command line or environment
    names its temporary folder (the shell bot's path, the plugin folder on PYTHONPATH),
    so another arena run on the machine cannot make it fail."""
    if isolation == "sandbox":
        from arena.sandbox import sandbox_unavailable

        if sandbox_unavailable():
            pytest.skip(f"no sandbox can be made here: {sandbox_unavailable()}")
    field.write_text(FIELD.replace('isolation = "process"', f'isolation = "{isolation}"'))
    mark = str(tmp_path).encode()
    assert not list(_processes_naming(mark))
    result = CliRunner().invoke(main, ["run", str(field), "--workers", "2", "--out", str(tmp_path / "o2")])
    assert result.exit_code == 0, result.output
    import time
    deadline = time.monotonic() + 10
    while (left := list(_processes_naming(mark))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left


def _processes_naming(mark: bytes):
    """Live processes (not this one) whose command line or environment contains `mark`."""
    import os

    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state in ("Z", "X"):
                    continue
                if mark in (entry / "cmdline").read_bytes() or mark in (entry / "environ").read_bytes():
                    yield int(entry.name)
            except (OSError, IndexError):
                continue


def test_forfeit_policy_ranks_the_offender_last_in_its_games(rough):
    out, result = rough
    assert result.exit_code == 0, result.output
    with Store.open(store_path(out)) as store:
        plan = store.get("plan")
        illegal = [e["bot"] for e in plan["entries"]].index("illegal")
        checked = 0
        for row in store.iter_rows():
            if illegal in row.seats and row.faults[row.seats.index(illegal)]:
                mine = row.standing[row.seats.index(illegal)]
                clean = [s for seat, s in enumerate(row.standing) if not row.faults[seat]]
                assert all(s < mine for s in clean)     # behind everyone who did not fault
                checked += 1
    assert checked >= 4


def plan(max_faults):
    return {"max_faults": max_faults,
            "entries": [{"bot": b, "uses": b, "package": "p", "version": "1"} for b in ("a", "b")],
            "rulesets": [{"label": "x", "draw_probability": 0.0, "entries": [0, 1], "games": 4}]}


def test_max_faults_disqualifies_in_schedule_order_and_the_bot_finishes_last_after():
    rows = [GameRow(0, 0, [0, 1], [1, 2], [5, 0], [1, 0]),   # a wins, with a fault
            GameRow(1, 0, [0, 1], [1, 2], [5, 0], [1, 0]),   # a wins, second fault: over max_faults=1
            GameRow(2, 0, [1, 0], [2, 1], [0, 5], [0, 0]),   # a "wins", but is disqualified: last
            GameRow(3, 0, [0, 1], [1, 2], [5, 0], [0, 0])]
    strict, lenient = Rater(plan(1)), Rater(plan(0))
    for row in rows:
        strict.apply(row)
        lenient.apply(row)
    a_strict = next(r for r in strict.standings()["overall"] if r["bot"] == "a")
    a_lenient = next(r for r in lenient.standings()["overall"] if r["bot"] == "a")
    assert a_strict["disqualified"] and not a_lenient["disqualified"]
    assert a_strict["wins"] == 2 and a_lenient["wins"] == 4
    assert a_strict["faults"] == 2
