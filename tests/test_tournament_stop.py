"""Stopping early (issue 19 items 4, 5): a ruleset stops when its ranking is settled or at
an SPRT's decision, looking only at batch boundaries; the looks are recorded, so the same
file and seed give the same games and the same stopping point on 1 or 2 workers and after
kill -9 and resume; games in flight at a stop are kept out of the standings."""

import json
import signal
import sqlite3

import pytest

from arena.store import Store, read_looks, store_path
from test_tournament_support import arena_subprocess, kill_9_once_stored, run, toy, toy_file, without_provenance  # noqa: F401

TWO_BOTS = """
[[bots]]
use = "random"
as = "random-1"

[[bots]]
use = "toy-cautious"
as = "cautious-15"
"""

SETTLED = 'isolation = "inline"\nstop = "settled"\nmax_deals = 400\nlook_every = 2\n'


def toy_stop_file(path, extra=SETTLED, bots=TWO_BOTS, players=2):
    text = toy_file(path, deals=1, players=players, bots=bots, extra=extra).read_text()
    path.write_text(text.replace("deals = 1\n", ""))
    return path


def games(out):
    """The counted games (not past a stop) in schedule order: index, ruleset, deal, transcript hash."""
    with Store.open(store_path(out)) as store:
        return [(row.index, row.ruleset, row.deal, row.transcript_hash) for row in store.stored_rows()]


def looks(out):
    with Store.open(store_path(out)) as store:
        return read_looks(store)


def test_a_settled_stop_ends_when_the_pair_is_separated_and_records_its_looks(toy):
    summary = run(toy_stop_file(toy / "t.toml"), toy / "r", workers=1)
    assert summary.complete
    recorded = looks(toy / "r")
    last = recorded[-1]
    assert last.stopped and last.detail["reason"] == "settled" and last.deals < 400
    assert [look.deals for look in recorded] == list(range(2, last.deals + 1, 2))  # every 2 deals, in order
    assert not any(look.stopped for look in recorded[:-1])
    assert last.detail["verdicts"][0][:3] == ["cautious-15", "random-1", "separated"]
    stored = games(toy / "r")
    assert len(stored) == summary.total == last.deals * 2 and max(g[2] for g in stored) == last.deals - 1
    doc = json.loads((toy / "r" / "standings.json").read_text())
    assert doc["tournament"]["complete"] and doc["tournament"]["games_total"] == last.deals * 2
    assert sum(row["games"] for row in doc["rulesets"]["toy-race"]) == last.deals * 2 * 2


def test_one_and_two_workers_stop_at_the_same_deal_with_the_same_games_and_standings(toy):
    path = toy_stop_file(toy / "t.toml", bots=TWO_BOTS + '\n[[bots]]\nuse = "toy-cautious"\nas = "cautious-18"\n'
                         'params = { threshold = 18 }\n', extra=SETTLED.replace("400", "40"), players=2)
    one = run(path, toy / "one", workers=1)
    two = run(path, toy / "two", workers=2, batch_size=5)
    assert one.complete and two.complete and one.total == two.total
    assert games(toy / "one") == games(toy / "two")
    assert looks(toy / "one") == looks(toy / "two")
    assert without_provenance(toy / "one" / "standings.json") == without_provenance(toy / "two" / "standings.json")


def test_games_in_flight_at_a_stop_stay_stored_and_are_left_out(toy):
    from arena.store import after_stop_count

    path = toy_stop_file(toy / "t.toml", extra=SETTLED.replace("look_every = 2", "look_every = 1"))
    two = run(path, toy / "two", workers=2, batch_size=1)
    with Store.open(store_path(toy / "two")) as store:
        late = after_stop_count(store)
        cut = read_looks(store)[-1].deals
        counted = store.count()
    assert counted == cut * 2 == two.total
    with sqlite3.connect(store_path(toy / "two")) as db:   # kept where they were stored: no row moves
        past, first = db.execute("SELECT COUNT(*), MIN(deal) FROM games WHERE deal >= ?", (cut,)).fetchone()
    assert past == late and first in (None, cut, cut + 1)
    assert late >= 0  # how many were in flight depends on the workers; none of them counts
    one = run(path, toy / "one", workers=1)
    assert games(toy / "one") == games(toy / "two")


def test_an_sprt_plays_only_tables_holding_both_bots_and_stops_at_its_decision(toy):
    bots = TWO_BOTS + '\n[[bots]]\nuse = "random"\nas = "random-2"\n\n[[bots]]\nuse = "random"\nas = "random-3"\n'
    extra = ('isolation = "inline"\nmax_deals = 300\nlook_every = 2\n'
             'stop = { test = "sprt", bot = "cautious-15", baseline = "random-1", margin = 0.1 }\n')
    summary = run(toy_stop_file(toy / "t.toml", extra=extra, bots=bots, players=3), toy / "r", workers=1)
    assert summary.complete
    last = looks(toy / "r")[-1]
    assert last.stopped and last.detail["decision"] == "accept H1"
    assert last.detail["intervals"] == "betting" and last.detail["against_h0"] >= last.detail["h0_bound"]
    with Store.open(store_path(toy / "r")) as store:
        seatings = [row.seats for row in store.iter_rows()]
    assert seatings and all(0 in seats and 1 in seats for seats in seatings)  # random-1 and cautious-15
    assert {frozenset(s) for s in seatings} == {frozenset({0, 1, 2}), frozenset({0, 1, 3})}


SLEEPY_PAIR = """
[[bots]]
use = "toy-sleepy"
as = "sleepy-1"

[[bots]]
use = "toy-cautious"
as = "cautious-15"

[[bots]]
use = "toy-cautious"
as = "cautious-18"
params = { threshold = 18 }
"""


def test_kill_9_and_resume_stop_at_the_same_deal_as_an_uninterrupted_run(toy, plugin_dir):
    path = toy_stop_file(toy / "t.toml", bots=SLEEPY_PAIR, players=2,
                         extra='isolation = "inline"\nstop = "settled"\nmax_deals = 30\nlook_every = 3\n')
    args = ["run", str(path), "--workers", "2", "--out", str(toy / "killed")]
    proc = arena_subprocess(args, plugin_dir, toy)
    store = store_path(toy / "killed")
    kill_9_once_stored(proc, store, "SELECT COUNT(*) FROM looks", 2)
    assert proc.returncode == -signal.SIGKILL
    rerun = arena_subprocess(args, plugin_dir, toy)
    _, err = rerun.communicate(timeout=180)
    assert rerun.returncode == 0, err
    assert "resuming: " in err
    reference = run(path, toy / "reference", workers=1)
    assert reference.complete
    assert looks(toy / "killed") == looks(toy / "reference")
    assert games(toy / "killed") == games(toy / "reference")
    assert without_provenance(toy / "killed" / "standings.json") == \
        without_provenance(toy / "reference" / "standings.json")


@pytest.mark.parametrize("extra, bots, players", [
    (SETTLED, TWO_BOTS, 2),
    ('isolation = "inline"\nmax_deals = 60\nlook_every = 2\nstop = { test = "sprt", bot = "cautious-15", '
     'baseline = "random-1", margin = 0.1 }\n', TWO_BOTS + '\n[[bots]]\nuse = "random"\nas = "random-2"\n', 3),
    ('isolation = "inline"\nmax_deals = 40\nlook_every = 4\nstop = "settled"\nformat = "gauntlet"\n'
     'challengers = ["cautious-15"]\n', TWO_BOTS + '\n[[bots]]\nuse = "random"\nas = "random-2"\n', 2),
], ids=["settled", "sprt", "gauntlet"])
def test_arena_rank_checks_a_stopped_store_against_its_records(toy, extra, bots, players):
    from click.testing import CliRunner

    from arena.cli import main

    run(toy_stop_file(toy / "t.toml", extra=extra, bots=bots, players=players), toy / "r", workers=2, batch_size=3)
    result = CliRunner().invoke(main, ["rank", str(toy / "r")])
    assert result.exit_code == 0, result.output
    assert "replayed exactly" in result.stderr


FOUR_BOTS = TWO_BOTS + """
[[bots]]
use = "random"
as = "random-2"

[[bots]]
use = "toy-cautious"
as = "cautious-18"
params = { threshold = 18 }
"""


def test_a_settled_two_player_run_deals_no_more_to_settled_pairs_and_reports_the_games_saved(toy):
    """Issue 37 item 3: a pair settled at a look is dealt no game from the block after the next
    on; the same games on one and two workers; the stop reports the games saved against the
    full schedule, and the counted games are exactly the schedule's less those."""
    path = toy_stop_file(toy / "t.toml", bots=FOUR_BOTS, extra=SETTLED.replace("400", "60"), players=2)
    one = run(path, toy / "one", workers=1)
    two = run(path, toy / "two", workers=2, batch_size=3)
    assert one.complete and two.complete and games(toy / "one") == games(toy / "two")
    recorded = looks(toy / "one")
    closing = [look for look in recorded if look.detail.get("closed")]
    assert closing, [look.detail for look in recorded]
    names = ["random-1", "cautious-15", "random-2", "cautious-18"]
    closed = {tuple(sorted(names.index(n) for n in pair)): look.detail["closed_from"]
              for look in closing for pair in look.detail["closed"]}
    with Store.open(store_path(toy / "one")) as store:
        rows = list(store.iter_rows())
    assert rows and not any(row.deal >= closed.get(tuple(sorted(row.seats)), 10**9) for row in rows)
    last = recorded[-1]
    full = last.deals * 6 * 2   # six pairs, two rotations a deal
    assert last.stopped and last.detail["saved"] == full - len(rows) > 0
    assert one.total == len(rows)
    doc = json.loads((toy / "one" / "standings.json").read_text())
    assert doc["tournament"]["games_total"] == len(rows)
    assert doc["pairwise"]["rulesets"]["toy-race"]["stop"]["games_saved"] == last.detail["saved"]
    assert f"{last.detail['saved']:,} games saved" in (toy / "one" / "standings.md").read_text()


def test_a_settled_three_player_run_deals_to_every_table(toy):
    path = toy_stop_file(toy / "t.toml", bots=FOUR_BOTS, extra=SETTLED.replace("400", "8"), players=3)
    run(path, toy / "r", workers=1)
    assert not any(look.detail.get("closed") for look in looks(toy / "r"))
