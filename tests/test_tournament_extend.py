"""Extending a tournament (issue 19 item 6): adding entries, rulesets or deals to the file
plays only the new games; the extended store equals a fresh run of the final file (same
games, same standings); removing or changing anything is
refused with one line."""

import sqlite3

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.store import Store, store_path
from test_tournament_support import run, toy, toy_file, without_provenance  # noqa: F401 (toy: a fixture)

INLINE = 'isolation = "inline"\n'
NEWCOMER = '\n[[bots]]\nuse = "toy-cautious"\nas = "cautious-12"\nparams = { threshold = 12 }\n'
SECOND_RULESET = '\n[[rulesets]]\nuse = "toy-race"\nas = "toy-pairs"\nplayers = 2\n'


def stored(out):
    with sqlite3.connect(store_path(out)) as db:
        return db.execute("SELECT game_key, ruleset, table_entries, deal, rotation, result, transcript_hash, "
                          "result_hash FROM games ORDER BY game_key").fetchall()


def extended_file(path, original):
    """The original toy file with an entry added between the others, a ruleset and two deals more."""
    text = original.read_text().replace("deals = 2", "deals = 4")
    second = text.index("[[bots]]", text.index("[[bots]]") + 1)
    text = text[:second] + NEWCOMER.lstrip("\n") + "\n" + text[second:] + SECOND_RULESET
    path.write_text(text)
    return path


def test_adding_entries_rulesets_and_deals_plays_only_the_new_games_and_equals_a_fresh_run(toy):
    first = toy_file(toy / "t.toml", deals=2, players=3, extra=INLINE)
    summary = run(first, toy / "r", workers=1)
    before = summary.total
    final = extended_file(toy / "t.toml", first)
    echoed = []
    again = run(final, toy / "r", workers=2, echo=echoed.append)
    assert again.complete and again.stored_before == before and again.played == again.total - before
    assert any(line.startswith("extending ") and "'cautious-12'" in line and "'toy-pairs'" in line and
               "deals 2 -> 4" in line for line in echoed), echoed
    fresh = run(final, toy / "fresh", workers=1)
    assert fresh.total == again.total
    assert stored(toy / "r") == stored(toy / "fresh")
    assert without_provenance(toy / "r" / "standings.json") == without_provenance(toy / "fresh" / "standings.json")
    result = CliRunner().invoke(main, ["rank", str(toy / "r")])  # every result checked against its record
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace('as = "random-2"\n', 'as = "random-two"\n'), "entry 'random-2' was removed"),
    (lambda t: t.replace("threshold = 18", "threshold = 19"), "entry 'cautious-18' changed (params"),
    (lambda t: t.replace("deals = 2", "deals = 1"), "tournament.deals went down (2 -> 1)"),
    (lambda t: t.replace("deals = 2", "deals = 2\ntime_per_decision = 2.0"), "tournament.time_per_decision changed"),
    (lambda t: t.replace("seed = 7", "seed = 8"), "tournament.seed changed (7 -> 8)"),
    (lambda t: t.replace("players = 3", "players = 2"), "ruleset 'toy-race' changed (players: 3 -> 2)"),
])
def test_removing_or_changing_anything_is_refused_with_one_line(toy, change, message):
    path = toy_file(toy / "t.toml", deals=2, players=3, extra=INLINE)
    run(path, toy / "r", workers=1)
    path.write_text(change(path.read_text()))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert "Traceback" not in result.output and result.stderr.count("\n") == 1


def test_changing_stop_or_margin_is_refused(toy):
    path = toy_file(toy / "t.toml", deals=1, players=2, extra=INLINE + 'stop = "settled"\nmax_deals = 6\n')
    path.write_text(path.read_text().replace("deals = 1\n", ""))
    run(path, toy / "r", workers=1)
    path.write_text(path.read_text().replace('stop = "settled"', 'stop = "settled"\nmargin = 0.1'))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
    assert result.exit_code == 2 and "tournament.margin changed (None -> 0.1)" in result.stderr, result.output


def test_a_store_from_before_content_keyed_seeds_is_not_resumed(toy):
    import json

    path = toy_file(toy / "t.toml", deals=1, players=3, extra=INLINE)
    run(path, toy / "r", workers=1)
    with sqlite3.connect(store_path(toy / "r")) as db:
        plan = json.loads(db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()[0])
        del plan["seed_derivation"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(toy / "r")])
    assert result.exit_code == 2 and "seed derivation 1" in result.stderr and "--restart" in result.stderr
    assert result.stderr.count("\n") == 1


def test_extending_a_complete_secret_seed_tournament_deals_the_new_games_from_a_fresh_secret(toy):
    import json

    path = toy_file(toy / "t.toml", seed=None, deals=1, players=3, extra=INLINE)
    first = run(path, toy / "r", workers=1)
    revealed = json.loads((toy / "r" / "standings.json").read_text())["tournament"]
    assert revealed["complete"] and revealed["seed"] is not None
    before = {row[0]: row[6] for row in stored(toy / "r")}
    path.write_text(path.read_text().replace("deals = 1", "deals = 2"))
    echoed = []
    run(path, toy / "r", workers=1, echo=echoed.append, backend=_Interrupting(1), batch_size=2)
    fresh = [line for line in echoed if "fresh secret seed, commitment sha256:" in line]
    assert fresh, echoed
    commitment = fresh[0].rsplit("sha256:", 1)[1]
    middle = json.loads((toy / "r" / "standings.json").read_text())["tournament"]
    assert middle["seed_commitment"] == commitment != revealed["seed_commitment"] and middle["seed"] is None
    with Store.open(store_path(toy / "r")) as store:
        assert store.plan()["seed_history"][0]["seed"] == revealed["seed"]
    assert CliRunner().invoke(main, ["rank", str(toy / "r")]).exit_code == 0  # checked while the new seed is secret
    done = run(path, toy / "r", workers=2)
    assert done.complete and done.total == 2 * first.total
    after = json.loads((toy / "r" / "standings.json").read_text())["tournament"]
    assert after["seed"] not in (None, revealed["seed"]) and after["earlier_seeds"][0]["seed"] == revealed["seed"]
    kept = {row[6] for row in stored(toy / "r")}
    assert set(before.values()) <= kept  # the old games are still there, under their revealed seed
    result = CliRunner().invoke(main, ["rank", str(toy / "r")])
    assert result.exit_code == 0, result.output


class _Interrupting:
    """A backend that plays `batches` batches in this process, then Ctrl-C arrives."""

    workers = 1

    def __init__(self, batches):
        self.left = batches

    def start(self, job):
        from arena.backends import InProcessBackend

        self.inner = InProcessBackend()
        self.inner.start(job)

    def submit(self, batch):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return self.inner.submit(batch)

    def stop(self, abandon=False):
        pass
