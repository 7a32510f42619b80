"""Running tournaments: identical standings whatever the workers and interruptions
(kill -9 in a real subprocess included), resume without replaying a stored game,
refusal of changed files and versions, secret seeds, publish and rank."""

import csv
import hashlib
import json
import os
import signal
import sqlite3
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plugins import load_registry
from arena.runner import play_batch
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_tournament_support import InterruptingBackend, arena_subprocess, kill_9_once_stored, run, toy, toy_file, without_provenance  # noqa: F401 (toy: a fixture)

INLINE = 'isolation = "inline"\n'
"""For the tests whose point is not how bots are isolated: the default sandbox starts processes
for every bot (about 0.5 s a bot and 70 ms a game), most of these tests' time. The kill -9 test
and the breaking bot play in the default sandbox; test_sandbox.py checks that a sandboxed
tournament gives the standings of an in-process one."""

SLEEPY_BOTS = """
[[bots]]
use = "toy-sleepy"
as = "sleepy-1"

[[bots]]
use = "toy-sleepy"
as = "sleepy-2"

[[bots]]
use = "random"

[[bots]]
use = "toy-cautious"
"""


def hashes(out):
    with sqlite3.connect(store_path(out)) as db:
        return dict(db.execute("SELECT game_key, transcript_hash FROM games"))


def test_one_and_two_workers_give_identical_standings_and_games(toy):
    path = toy_file(toy / "t.toml", deals=5, players=3, extra=INLINE)
    one = run(path, toy / "one", workers=1)
    two = run(path, toy / "two", workers=2, batch_size=7)
    assert one.complete and two.complete and one.total == two.total == 4 * 5 * 3
    assert without_provenance(toy / "one" / "standings.json") == without_provenance(toy / "two" / "standings.json")
    assert hashes(toy / "one") == hashes(toy / "two")
    doc = json.loads((toy / "one" / "standings.json").read_text())
    assert sum(r["games"] for r in doc["overall"]) == 60 * 3
    assert doc["tournament"]["complete"] and doc["tournament"]["seed"] == 7


def test_ctrl_c_stops_cleanly_and_the_rerun_resumes_without_replaying(toy):
    path = toy_file(toy / "t.toml", deals=4, players=3, extra=INLINE)
    first = run(path, toy / "r", backend=InterruptingBackend(3), batch_size=4)
    assert first.interrupted and not first.complete and first.played == 12
    second = run(path, toy / "r", workers=2)
    assert second.complete and second.stored_before == 12 and second.played == first.total - 12
    with sqlite3.connect(store_path(toy / "r")) as db:
        runs = dict(db.execute("SELECT run, COUNT(*) FROM games GROUP BY run"))
    assert runs == {1: 12, 2: first.total - 12}
    reference = run(path, toy / "ref", workers=1)
    assert reference.complete
    assert without_provenance(toy / "r" / "standings.json") == without_provenance(toy / "ref" / "standings.json")
    assert hashes(toy / "r") == hashes(toy / "ref")


def test_kill_9_of_a_running_arena_run_loses_nothing_and_the_rerun_matches_an_uninterrupted_run(toy, plugin_dir):
    path = toy_file(toy / "t.toml", deals=10, players=3, bots=SLEEPY_BOTS)  # killed at 20 of 120 games
    args = ["run", str(path), "--workers", "2", "--out", str(toy / "killed")]
    proc = arena_subprocess(args, plugin_dir, toy)
    store = store_path(toy / "killed")
    stored_at_kill = kill_9_once_stored(proc, store, "SELECT COUNT(*) FROM games", 20)
    assert proc.returncode == -signal.SIGKILL
    assert workers_gone(proc.pid), "workers outlived the killed run"
    with sqlite3.connect(store) as db:
        kept = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    total = 4 * 10 * 3
    assert stored_at_kill <= kept < total

    rerun = arena_subprocess(args, plugin_dir, toy)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    assert f"resuming: {kept:,} games already stored, {total - kept:,} to play" in err
    with sqlite3.connect(store) as db:
        runs = dict(db.execute("SELECT run, COUNT(*) FROM games GROUP BY run"))
        count, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT game_key) FROM games").fetchone()
    assert runs == {1: kept, 2: total - kept} and count == distinct == total

    reference = run(path, toy / "reference", workers=2)
    assert reference.complete
    assert without_provenance(toy / "killed" / "standings.json") == \
        without_provenance(toy / "reference" / "standings.json")
    assert hashes(toy / "killed") == hashes(toy / "reference")


def workers_gone(group, wait=10.0):
    """True once no process of the killed run's process group is left (orphaned workers
    notice that their parent is gone and exit)."""
    deadline = time.time() + wait
    while time.time() < deadline:
        members = []
        for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if pid.isdigit() and int(fields[2]) == group and fields[0] != "Z":
                members.append(pid)
        if not members:
            return True
        time.sleep(0.1)
    os.killpg(group, signal.SIGKILL)
    return False


def test_a_changed_file_is_refused_unless_restart(toy):
    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    assert run(path, toy / "r").complete
    path.write_text(path.read_text().replace("deals = 1", "deals = 1\ntime_per_decision = 2.0"))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
    assert result.exit_code == 2  # (a file that only adds entries, rulesets or deals extends: test_tournament_extend)
    assert "tournament.time_per_decision changed" in result.stderr and "--restart" in result.stderr
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r"), "--restart"])
    assert result.exit_code == 0, result.output
    with Store.open(store_path(toy / "r")) as store:
        assert store.get("tournament_sha256") == hashlib.sha256(path.read_bytes()).hexdigest()
        assert store.max_run() == 1


def test_a_changed_bot_version_is_refused_unless_restart(toy):
    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    assert run(path, toy / "r").complete
    with Store.open(store_path(toy / "r")) as store:
        plan = store.get("plan")
        plan["entries"][2]["version"] = "0.9.0"  # as if toy-cautious had been upgraded since
        store.set("plan", plan)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
    assert result.exit_code == 2
    assert "bot 'toy-cautious' was arena-toy 0.9.0, is now arena-toy 1.0.0" in result.stderr
    assert CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r"), "--restart"]).exit_code == 0


def test_a_secret_seed_is_committed_to_at_the_start_and_revealed_when_complete(toy):
    path = toy_file(toy / "t.toml", seed=None, deals=2, extra=INLINE)
    lines = []
    first = run(path, toy / "s", backend=InterruptingBackend(2), batch_size=3, echo=lines.append)
    assert first.interrupted
    store_file = store_path(toy / "s")
    assert stat.S_IMODE(store_file.stat().st_mode) == 0o600
    early = json.loads((toy / "s" / "standings.json").read_text())["tournament"]
    commitment = early["seed_commitment"]
    assert early["seed"] is None and early["seed_salt"] is None and len(commitment) == 64
    assert any(commitment in line for line in lines)
    assert str(Store.open(store_file).get("seed")) not in (toy / "s" / "standings.md").read_text()

    assert run(path, toy / "s").complete
    final = json.loads((toy / "s" / "standings.json").read_text())["tournament"]
    seed, salt = final["seed"], final["seed_salt"]
    assert final["seed_commitment"] == commitment
    assert hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest() == commitment

    # Anyone can now replay every deal: the same file with the revealed seed plays the same games.
    public = toy_file(toy / "public.toml", seed=seed, deals=2, extra=INLINE)
    assert run(public, toy / "p").complete
    assert hashes(toy / "p") == hashes(toy / "s")
    assert without_provenance(toy / "p" / "standings.json") == without_provenance(toy / "s" / "standings.json")


def test_a_bot_that_breaks_is_penalised_and_the_tournament_still_completes(toy):
    bots = '\n[[bots]]\nuse = "random"\nas = "r1"\n\n[[bots]]\nuse = "random"\nas = "r2"\n' \
           '\n[[bots]]\nuse = "toy-broken"\n'
    path = toy_file(toy / "t.toml", deals=1, players=2, bots=bots)
    result = CliRunner().invoke(main, ["run", str(path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    doc = json.loads((toy / "results" / "toy" / "standings.json").read_text())
    faults = {row["bot"]: row["faults"] for row in doc["overall"]}
    assert faults["r1"] == faults["r2"] == 0 and faults["toy-broken"] > 0
    with Store.open(store_path(toy / "results" / "toy")) as store:
        assert store.count() == 6
        record = store.record(2)
    assert {f["kind"] for f in record["faults"]} == {"error"}
    assert "toy-broken always breaks" in record["faults"][0]["detail"]


def test_publish_writes_the_three_files_and_rank_recomputes_them(toy):
    path = toy_file(toy / "t.toml", deals=2, extra=INLINE)
    result = CliRunner().invoke(main, ["run", str(path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    out = toy / "results" / "toy"
    assert "cautious-15" in result.stdout and "overall" in result.stdout
    assert result.stderr.startswith("toy: 24 games (round-robin, seed 7)\n")  # said before it starts
    before = {name: (out / name).read_text() for name in ("standings.md", "standings.csv", "standings.json")}
    for name in before:
        (out / name).unlink()
    published = CliRunner().invoke(main, ["publish", str(out)])
    assert published.exit_code == 0, published.output
    assert {name: (out / name).read_text() for name in before} == before

    doc = json.loads(before["standings.json"])
    assert set(doc) == {"tournament", "overall", "rulesets", "head_to_head", "pairwise"}
    assert set(doc["head_to_head"]) == {"overall", "toy-race"}
    assert list(doc["overall"][0]) == ["rank", "bot", "uses", "package", "version", "mu", "sigma", "conservative",
                                       "games", "wins", "win_rate", "win_rate_low", "win_rate_high",
                                       "avg_position", "mean_score", "faults", "disqualified", "vs_next"]
    rows = list(csv.DictReader(before["standings.csv"].splitlines()))
    assert [r["ruleset"] for r in rows] == ["overall"] * 4 + ["toy-race"] * 4
    assert [r["bot"] for r in rows[:4]] == [r["bot"] for r in doc["overall"]]
    md = before["standings.md"]
    assert md.startswith("# Standings: toy") and "## Overall" in md and "## toy-race" in md
    headers = [line for line in md.splitlines() if line.startswith("|") and "conservative" in line]
    assert len(headers) == 2 and all(h.split("|")[1].strip() == "rank" for h in headers)

    ranked = CliRunner().invoke(main, ["rank", str(out), "--json"])
    assert ranked.exit_code == 0
    assert {k: v for k, v in json.loads(ranked.stdout).items() if k != "tournament"} == \
        {k: v for k, v in doc.items() if k != "tournament"}
    text = CliRunner().invoke(main, ["rank", str(out)])
    assert text.exit_code == 0 and "toy-race" in text.stdout and "cautious-18" in text.stdout
    missing = CliRunner().invoke(main, ["rank", str(toy / "nowhere")])
    assert missing.exit_code == 2 and "no results store here" in missing.stderr


def test_a_finished_tournament_run_again_plays_nothing(toy):
    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    assert run(path, toy / "r").complete
    again = run(path, toy / "r", workers=2)
    assert again.complete and again.played == 0 and again.stored_before == again.total


def test_play_batch_stores_the_full_record_that_replays(toy):
    from arena.match import replay
    from arena.runner import make_job
    from arena.store import decode

    tournament = load_tournament(toy_file(toy / "t.toml", deals=1), load_registry())
    specs = list(tournament.schedule(5))[:3]
    result = play_batch(make_job(tournament), specs)
    assert result.failure is None and [g.index for g in result.games] == [0, 1, 2]
    record = decode(result.games[1].record)
    assert record["deal_seed"] == specs[1].deal_seed and record["bot_seeds"] == list(specs[1].bot_seeds)
    assert [s["display"] for s in record["seats"]] == [tournament.bots[e].display for e in specs[1].seats]
    replay(record, tournament.rulesets[0].cls)


def test_a_sampled_tournament_runs_its_schedule(toy):
    path = toy_file(toy / "t.toml", deals=2, players=2, extra=INLINE + 'format = "sampled"\nmax_games = 21\n')
    summary = run(path, toy / "r", workers=2)
    assert summary.complete and summary.total == summary.played == 20  # whole tables of 2 deals x 2 rotations
    doc = json.loads((toy / "r" / "standings.json").read_text())
    assert sum(r["games"] for r in doc["overall"]) == 40


def test_two_runs_cannot_share_a_results_folder(toy):
    from arena.runner import _lock

    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    held = _lock(toy / "r")
    try:
        result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
        assert result.exit_code == 2 and "is in use by another `arena run`" in result.stderr
    finally:
        held.close()
    assert run(path, toy / "r").complete


def test_faults_are_counted_per_seat_from_the_record():
    from arena.runner import faults_per_seat

    record = {"faults": [{"seat": 2, "decision": 4, "kind": "timeout", "detail": ""},
                         {"seat": 0, "decision": None, "kind": "crash", "detail": ""},
                         {"seat": 2, "decision": 9, "kind": "illegal", "detail": ""}]}
    assert faults_per_seat(record, 3) == [1, 0, 2]
    assert faults_per_seat({"faults": []}, 2) == [0, 0] == faults_per_seat({}, 2)
