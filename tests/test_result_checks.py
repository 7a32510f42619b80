"""Results are cross-checked: `arena rank` and `arena publish` replay every stored game and
refuse a store whose rows disagree with their records (naming the game), report records of
a ruleset version not installed as unverifiable, check the seed against its commitment;
one `arena run` per results folder; a bot whose files changed is noticed on resume; a
damaged store or a killed worker is a one-line error."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plugins import load_registry
from arena.store import Store, decode, encode, pack_record, record_result_hash, store_path
from conftest import write_plugin
from test_tournament_support import run, toy, toy_file  # noqa: F401 (toy: a fixture)


INLINE = 'isolation = "inline"\n'  # fast; isolation is not what these tests are about


def played(toy, out="r", **file_options):
    """A complete toy tournament of 24 games in `toy/out`."""
    file_options.setdefault("deals", 2)
    file_options.setdefault("extra", INLINE)
    assert run(toy_file(toy / f"{out}.toml", **file_options), toy / out, workers=1).complete
    return toy / out


def one_line_error(result, code=2):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and result.stderr.count("\n") == 1, result.output
    return result.stderr


def key(out, index):
    """The identity key of the game at schedule index `index`."""
    with Store.open(store_path(out)) as store:
        return store.key(index)


def edit_row(out, index, column, value):
    game = key(out, index)
    with sqlite3.connect(store_path(out)) as db:
        db.execute(f"UPDATE games SET {column} = ? WHERE game_key = ?", (value, game))


def edit_record(out, index, change):
    """Rewrite game `index`'s record with `change(record)` applied, packed as the store packs it."""
    with Store.open(store_path(out)) as store:
        record = store.record(index)
        change(record)
        blob = pack_record(encode(record), store._zdict)
    edit_row(out, index, "record", blob)


def row(out, index):
    game = key(out, index)
    with sqlite3.connect(store_path(out)) as db:
        return db.execute("SELECT result, result_hash FROM games WHERE game_key = ?", (game,)).fetchone()


def test_an_untouched_store_is_verified_by_replaying_every_game(toy):
    out = played(toy)
    ranked = CliRunner().invoke(main, ["rank", str(out)])
    assert ranked.exit_code == 0, ranked.output
    assert "verified 24 stored games against their records: 24 replayed exactly" in ranked.stderr
    assert "unverifiable" not in ranked.stderr
    published = CliRunner().invoke(main, ["publish", str(out)])
    assert published.exit_code == 0 and "24 replayed exactly" in published.stderr


def test_a_tampered_standing_is_refused_with_its_game_id(toy):
    out = played(toy)
    seats, standing, scores, faults = decode(row(out, 5)[0])
    edit_row(out, 5, "result", encode([seats, [len(seats)] * len(seats), scores, faults]).decode())
    for command in ("rank", "publish"):
        error = one_line_error(CliRunner().invoke(main, [command, str(out)]))
        assert f"{store_path(out)}: game 5: its standing" in error and "refused" in error
    assert json.loads((out / "standings.json").read_text())["tournament"]["complete"]  # publish wrote nothing


def test_a_tampered_result_hash_is_refused(toy):
    out = played(toy)
    edit_row(out, 7, "result_hash", "0" * 64)
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "game 7: its result hash does not match" in error


def test_rewritten_seating_is_refused_even_with_a_recomputed_result_hash(toy):
    out = played(toy)
    seats, standing, scores, faults = decode(row(out, 2)[0])
    seats = seats[1:] + seats[:1]
    edit_row(out, 2, "result", encode([seats, standing, scores, faults]).decode())
    with Store.open(store_path(out)) as store:
        forged = record_result_hash(store.key(2), seats, store.record(2), faults)
    edit_row(out, 2, "result_hash", forged)
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "game 2: its seating" in error


def test_a_tampered_record_is_refused_even_when_row_and_hashes_agree_with_it(toy):
    """A forger who rewrites a game's outcome in its record, its row, its transcript hash
    and its result hash alike is caught by the replay."""
    from arena.match import transcript_hash

    out = played(toy)

    def new_winner(record):
        record["outcome"]["standing"] = [1] * record["players"]  # everyone shares the win
        record["outcome"]["scores"] = [max(record["outcome"]["scores"])] * record["players"]
        record["transcript_hash"] = transcript_hash(record)

    edit_record(out, 9, new_winner)
    with Store.open(store_path(out)) as store:
        record = store.record(9)
        seats, _, _, faults = decode(row(out, 9)[0])
    outcome = record["outcome"]
    edit_row(out, 9, "result", encode([seats, outcome["standing"], outcome["scores"], faults]).decode())
    edit_row(out, 9, "transcript_hash", record["transcript_hash"])
    edit_row(out, 9, "result_hash", record_result_hash(key(out, 9), seats, record, faults))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "game 9: its record does not replay" in error


def test_a_record_with_a_changed_decision_is_refused(toy):
    out = played(toy)

    def other_action(record):
        seat, action = record["decisions"][0]
        record["decisions"][0] = [seat, "stop" if action == "take" else "take"]

    edit_record(out, 4, other_action)
    error = one_line_error(CliRunner().invoke(main, ["publish", str(out)]))
    assert "game 4: its record does not replay" in error


def test_a_record_of_a_ruleset_version_not_installed_is_reported_unverifiable_not_refused(toy, monkeypatch):
    out = played(toy)
    monkeypatch.setattr(load_registry().ruleset("toy-race").cls, "version", "2")  # as if upgraded since
    ranked = CliRunner().invoke(main, ["rank", str(out)])
    assert ranked.exit_code == 0, ranked.output
    assert "0 replayed exactly; 24 unverifiable" in ranked.stderr
    assert "toy-race version 1 (installed: 2): 24" in ranked.stderr
    # Not replayed, but still checked against its record.
    seats, standing, scores, faults = decode(row(out, 5)[0])
    edit_row(out, 5, "result", encode([seats, standing, [s + 1 for s in scores], faults]).decode())
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "game 5: its scores" in error


def test_a_seed_that_does_not_match_its_commitment_is_refused(toy):
    out = played(toy, seed=None)
    with Store.open(store_path(out)) as store:
        store.set("seed", store.get("seed") + 1)
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "do not hash to its seed commitment" in error and str(store_path(out)) in error


def test_a_store_whose_commitment_is_not_the_published_one_is_refused(toy):
    out = played(toy, seed=None)
    published = json.loads((out / "standings.json").read_text())
    published["tournament"]["seed_commitment"] = "f" * 64
    (out / "standings.json").write_text(json.dumps(published))
    error = one_line_error(CliRunner().invoke(main, ["publish", str(out)]))
    assert "is not the published one" in error


def test_games_dealt_from_another_seed_are_refused_under_a_new_commitment(toy):
    """A forger who swaps in a new secret seed, salt and commitment (and no published
    file) still cannot keep the games: their deal seeds come from the old seed."""
    from arena.runner import seed_commitment

    out = played(toy, seed=None)
    (out / "standings.json").unlink()
    with Store.open(store_path(out)) as store:
        store.set("seed", 12345)
        store.set("seed_commitment", seed_commitment(12345, store.get("seed_salt")))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "game 0: its record's deal seed" in error


def test_a_public_seed_other_than_the_files_is_refused(toy):
    out = played(toy, seed=7)
    (out / "standings.json").unlink()
    with Store.open(store_path(out)) as store:
        store.set("seed", 8)
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "its seed 8 is not the tournament file's seed 7" in error


def test_a_second_run_on_a_results_folder_in_use_fails_at_once_naming_it(toy):
    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from arena.runner import _lock; "
                               "held = _lock(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)", str(toy / "r")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        error = one_line_error(CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")]))
        assert time.monotonic() - started < 5
        assert f"{toy / 'r'} is in use by another `arena run` (pid {holder.pid})" in error
    finally:
        holder.kill()
        holder.wait()
    assert run(path, toy / "r").complete
    assert (toy / "r" / ".lock").exists()  # never deleted, so no two runs can each hold their own


def test_a_bot_whose_files_changed_without_a_new_version_is_detected_on_resume(toy, plugin_dir):
    info = plugin_dir / "arena_toy-1.0.0.dist-info"  # as pip writes it: the files it installed
    (info / "RECORD").write_text(f"arena_toy_plugin.py,,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
    path = toy_file(toy / "t.toml", deals=1, extra=INLINE)
    assert run(path, toy / "r").complete
    with Store.open(store_path(toy / "r")) as store:
        before = store.get("plan")["entries"][2]["files_sha256"]
    assert before and len(before) == 64
    module = plugin_dir / "arena_toy_plugin.py"
    module.write_text(module.read_text() + "\n# changed, same version\n")
    error = one_line_error(CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")]))
    assert f"bot 'toy-cautious' (arena-toy 1.0.0) has changed files (files sha256 {before[:12]} -> " in error
    assert "--restart" in error


@pytest.mark.parametrize("damage, message", [
    (("record", b"\x78\x9cnot a record"), "game 3: its record blob is corrupt"),
    (("result", "[[0, 1, 2], [1, 2"), "game 3: its result row is malformed"),
])
def test_a_damaged_game_is_a_one_line_error_in_every_command_that_reads_it(toy, damage, message):
    out = played(toy)
    edit_row(out, 3, *damage)
    for args in (["rank", str(out)], ["publish", str(out)], ["faults", str(out)], ["replay", str(out), "3"],
                 ["serve", str(out), "--port", "0"]):
        if args[0] == "replay" and damage[0] == "result":
            continue  # replay reads the record only
        if args[0] == "faults" and damage[0] == "record":
            continue  # faults reads records of games with faults only (none here)
        if args[0] == "serve":
            for name in ("site",):  # serve writes the site first when there is none
                import shutil
                shutil.rmtree(out / name, ignore_errors=True)
        error = one_line_error(CliRunner().invoke(main, args))
        assert f"{store_path(out)}: {message}" in error, args


def test_a_bad_plan_is_a_one_line_error_naming_the_store(toy):
    out = played(toy)
    with sqlite3.connect(store_path(out)) as db:
        db.execute("UPDATE meta SET value = '{\"entries\": 3' WHERE key = 'plan'")
    for command in ("rank", "publish", "faults", "serve"):
        error = one_line_error(CliRunner().invoke(main, [command, str(out), *(["--port", "0"] if command == "serve"
                                                                              else [])]))
        assert f"{store_path(out)}: meta 'plan' is not JSON" in error, command


KILLER = '''
import os
import signal

import arena


class WorkerKiller(arena.Bot):
    """Plays "stop"; kills the process it runs in at its third game there if ./kill-worker exists."""

    name = "toy-worker-killer"
    rulesets = ("toy-race",)
    games = 0

    def start(self, info):
        type(self).games += 1
        if type(self).games == 3 and os.path.exists("kill-worker"):
            os.kill(os.getpid(), signal.SIGKILL)

    def act(self, observation):
        return "stop"


@arena.hookimpl
def register_bots(register):
    register(WorkerKiller)
'''


def test_a_killed_worker_is_a_one_line_error_that_keeps_every_finished_game(toy, plugin_dir):
    write_plugin(plugin_dir, "arena-killer", "arena_killer_plugin", KILLER)
    bots = '\n[[bots]]\nuse = "random"\n\n[[bots]]\nuse = "toy-worker-killer"\n'
    path = toy_file(toy / "t.toml", deals=4, players=2, bots=bots, extra=INLINE)
    (toy / "kill-worker").write_text("")
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r"), "--workers", "2"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    error = result.stderr.splitlines()[-1]  # after the lines that say what it plays
    assert error.startswith("Error: ")
    assert "a worker process died" in error and "rerun the same command to resume" in error
    with Store.open(store_path(toy / "r")) as store:
        stored = store.count()
    assert 0 < stored < 8 and f"{stored:,} of 8 games are stored" in error
    (toy / "kill-worker").unlink()
    assert run(path, toy / "r", workers=2, batch_size=1).complete
    with Store.open(store_path(toy / "r")) as store:
        assert store.max_run() == 2
        assert [g.index for g in store.iter_rows()] == list(range(8))


def test_checking_in_other_processes_finds_the_same_and_reports_the_first_disagreement(toy, monkeypatch):
    import arena.verify
    from arena.store import StoreError
    from arena.verify import start_verification, verify_store

    out = played(toy)
    with Store.open(store_path(out)) as store:
        here = verify_store(store)
        monkeypatch.setattr(arena.verify, "PARALLEL_FROM", 1)
        assert start_verification(store, processes=3).result() == here
        assert here.games == here.replayed == 24
    for index in (20, 3):  # one disagreement in the last range, one in the first
        edit_row(out, index, "result_hash", "0" * 64)
    with Store.open(store_path(out)) as store, pytest.raises(StoreError, match="game 3: its result hash"):
        start_verification(store, processes=3).result()


def test_a_game_deleted_from_a_finished_store_is_refused(toy):
    out = played(toy)
    game = key(out, 11)
    with sqlite3.connect(store_path(out)) as db:
        db.execute("DELETE FROM games WHERE game_key = ?", (game,))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert "with 24 games, but 23 are stored: games were deleted" in error


def test_a_game_stored_outside_the_schedule_is_refused(toy):
    out = played(toy)
    game = key(out, 0)
    with sqlite3.connect(store_path(out)) as db:
        db.execute("UPDATE games SET deal = 99 WHERE game_key = ?", (game,))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert f"game {game[:12]} (toy-race, table" in error and "has no place in its plan's schedule" in error


def test_a_game_moved_to_another_place_is_refused_by_its_key(toy):
    out = played(toy)
    first, second = key(out, 0), key(out, 1)
    with sqlite3.connect(store_path(out)) as db:   # the two rotations of a deal swap their places
        db.execute("UPDATE games SET rotation = 1 WHERE game_key = ?", (first,))
        db.execute("UPDATE games SET rotation = 0 WHERE game_key = ?", (second,))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert f"game 0: its key {second[:12]} is not its identity's" in error


def test_a_corrupt_record_served_on_demand_is_an_error_replay_file_not_a_crash(toy):
    import threading
    import urllib.request

    from arena.site.server import make_server

    out = played(toy)
    edit_row(out, 3, "record", b"\x78\x9cnot a record")
    (out / "site" / "replays" / "3.js").unlink(missing_ok=True)
    server = make_server(out, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/replays/3.js"
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    assert "game 3: its record blob is corrupt" in text and '"error"' in text


def test_a_fault_and_forfeit_written_into_a_record_afterwards_are_refused(toy):
    """A forger who charges a rival a fault and a forfeit, and rewrites the outcome, the
    transcript hash, the row and the result hash to match, is caught: the rival's moves
    from then on are not the replacement actions a forfeit plays."""
    from arena.match import transcript_hash
    from arena.rules.base import forfeit_standing

    out = played(toy)
    index = 7  # a game in which the forged seat moves again after decision 0
    with Store.open(store_path(out)) as store:
        record = store.record(index)
    seat = record["decisions"][0][0]
    record["faults"] = [{"seat": seat, "decision": 0, "kind": "timeout", "detail": "forged"}]
    record["forfeited"] = [seat]
    record["outcome"]["standing"] = forfeit_standing(record["outcome"]["standing"], [seat])
    record["transcript_hash"] = transcript_hash(record)
    with Store.open(store_path(out)) as store:
        blob = pack_record(encode(record), store._zdict)
    seats = decode(row(out, index)[0])[0]
    faults = [1 if s == seat else 0 for s in range(len(seats))]
    outcome = record["outcome"]
    edit_row(out, index, "record", blob)
    edit_row(out, index, "result", encode([seats, outcome["standing"], outcome["scores"], faults]).decode())
    edit_row(out, index, "transcript_hash", record["transcript_hash"])
    edit_row(out, index, "result_hash", record_result_hash(key(out, index), seats, record, faults))
    error = one_line_error(CliRunner().invoke(main, ["rank", str(out)]))
    assert f"game {index}: its record's faults are not what was played: seat {seat} played" in error


def test_real_faults_and_forfeits_pass_the_check(toy):
    bots = '\n[[bots]]\nuse = "random"\nas = "r1"\n\n[[bots]]\nuse = "random"\nas = "r2"\n' \
           '\n[[bots]]\nuse = "toy-broken"\n'
    for policy in ("forfeit", "random"):
        out = played(toy, out=policy, deals=2, players=2, bots=bots, extra=INLINE + f'on_fault = "{policy}"\n')
        ranked = CliRunner().invoke(main, ["rank", str(out)])
        assert ranked.exit_code == 0, ranked.output
        assert "12 replayed exactly" in ranked.stderr
        with Store.open(store_path(out)) as store:
            assert sum(len(store.record(i)["faults"]) for i in range(12)) > 0
