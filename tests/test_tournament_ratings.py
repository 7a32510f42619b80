"""Ratings and statistics: TrueSkill matching the trueskill package on a hand-made
sequence, schedule order (not storage order), ties, positions, Wilson intervals,
head-to-head."""

import random

import pytest
import trueskill

from arena.ratings import Rater, assemble, positions, rate_store, scope_plan, wilson_interval
from arena.store import GameRow, Store, StoredGame, encode

ENTRIES = [{"bot": name, "uses": "random", "package": "p", "version": "1", "params": {}}
           for name in ("ann", "bob", "cat", "dan")]
PLAN = {
    "name": "hand", "format": "round-robin", "deals": 1, "max_games": None, "total_games": 6,
    "entries": ENTRIES,
    "rulesets": [
        {"label": "four", "id": "x", "version": "1", "package": "p", "package_version": "1", "players": 4,
         "options": {}, "draw_probability": 0.3, "entries": [0, 1, 2, 3]},
        {"label": "pairs", "id": "y", "version": "1", "package": "p", "package_version": "1", "players": 2,
         "options": {}, "draw_probability": 0.05, "entries": [0, 1, 2, 3]},
    ],
}
# (ruleset, seats, standing, scores)
GAMES = [
    (0, [0, 1, 2, 3], [1, 2, 2, 2], [10, 0, 0, 0]),
    (0, [1, 2, 3, 0], [2, 1, 3, 4], [5, 9, 2, 1]),
    (1, [0, 3], [1, 2], [3, 1]),
    (1, [2, 1], [1, 1], [4, 4]),
    (0, [2, 3, 0, 1], [1, 1, 3, 3], [7, 7, 2, 2]),
    (1, [3, 0], [2, 1], [0, 6]),
]


def rows():
    return [GameRow(i, r, seats, standing, scores, [0] * len(seats))
            for i, (r, seats, standing, scores) in enumerate(GAMES)]


def test_trueskill_on_a_hand_made_sequence_matches_the_trueskill_package():
    rater = Rater(PLAN)
    for row in rows():
        rater.apply(row)
    standings = rater.standings()

    envs = [trueskill.TrueSkill(draw_probability=0.3), trueskill.TrueSkill(draw_probability=0.05)]
    per_ruleset = [{e: envs[0].create_rating() for e in range(4)}, {e: envs[1].create_rating() for e in range(4)}]
    overall = {e: trueskill.Rating() for e in range(4)}
    for ruleset, seats, standing, _ in GAMES:
        env = envs[ruleset]
        for table in (per_ruleset[ruleset], overall):
            new = env.rate([(table[e],) for e in seats], ranks=standing)
            for seat, entry in enumerate(seats):
                table[entry] = new[seat][0]

    def expected(table):
        return {ENTRIES[e]["bot"]: (round(r.mu, 6), round(r.sigma, 6)) for e, r in table.items()}

    def got(rows):
        return {r["bot"]: (r["mu"], r["sigma"]) for r in rows}

    assert got(standings["overall"]) == expected(overall)
    assert got(standings["rulesets"]["four"]) == expected(per_ruleset[0])
    assert got(standings["rulesets"]["pairs"]) == expected(per_ruleset[1])
    conservative = [r["conservative"] for r in standings["overall"]]
    assert conservative == sorted(conservative, reverse=True)
    assert [r["rank"] for r in standings["overall"]] == [1, 2, 3, 4]
    for r in standings["overall"]:
        assert r["conservative"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-5)


def test_counts_positions_scores_and_head_to_head():
    rater = Rater(PLAN)
    for row in rows():
        rater.apply(row)
    s = rater.standings()
    four = {r["bot"]: r for r in s["rulesets"]["four"]}
    # ann: 1st alone (1), 4th (4), tied 3rd-4th (3.5)
    assert four["ann"]["games"] == 3 and four["ann"]["wins"] == 1
    assert four["ann"]["avg_position"] == pytest.approx((1 + 4 + 3.5) / 3, abs=1e-6)
    assert four["ann"]["mean_score"] == pytest.approx((10 + 1 + 2) / 3, abs=1e-6)
    # bob: tied 2nd-4th (3), 2nd (2), tied 3rd-4th (3.5); cat and dan shared first in game 4
    assert four["bob"]["avg_position"] == pytest.approx((3 + 2 + 3.5) / 3, abs=1e-6)
    assert four["cat"]["wins"] == 2 and four["dan"]["wins"] == 1
    pairs = {r["bot"]: r for r in s["rulesets"]["pairs"]}
    assert pairs["cat"]["wins"] == 0 and pairs["bob"]["wins"] == 0  # everyone tied: nobody won
    overall = {r["bot"]: r for r in s["overall"]}
    assert overall["ann"]["games"] == 5 and overall["ann"]["wins"] == 3
    assert overall["ann"]["win_rate"] == pytest.approx(0.6)
    low, high = wilson_interval(3, 5)
    assert (overall["ann"]["win_rate_low"], overall["ann"]["win_rate_high"]) == (round(low, 6), round(high, 6))
    h2h = s["head_to_head"]
    assert h2h["four"]["ann"]["bob"] == pytest.approx(1 / 3, abs=1e-6)  # ahead in game 0 only
    assert h2h["four"]["cat"]["dan"] == pytest.approx(1 / 3, abs=1e-6)  # tied twice, ahead once
    assert h2h["pairs"]["ann"]["dan"] == 1.0 and h2h["pairs"]["bob"]["cat"] == 0.0
    assert "bob" not in h2h["pairs"]["ann"]  # they never met in pairs
    assert h2h["overall"]["ann"]["dan"] == pytest.approx(3 / 5, abs=1e-6)


def test_positions_share_the_mean_of_the_span_of_a_tie():
    assert positions([1, 2, 2, 2]) == [1, 3, 3, 3]
    assert positions([1, 1, 3]) == [1.5, 1.5, 3]
    assert positions([2, 1, 2, 4]) == [2.5, 1, 2.5, 4]
    assert positions([1, 1, 1]) == [2, 2, 2]


def test_wilson_interval_known_values():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == pytest.approx(0.0) and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)


def stored_games(rows, players):
    """`round_robin`'s rows as a worker hands them back (its rotation: the index modulo the players)."""
    return [StoredGame(row.index, row.ruleset, row.table, row.deal, row.index % players,
                       encode([row.seats, row.standing, row.scores, row.faults]), "h", b"{}") for row in rows]


def test_games_are_rated_in_schedule_order_whatever_order_they_were_stored_in(tmp_path):
    plan, rows = round_robin(["a", "b", "c", "d"], 2, 2, coin_flips(strong=(1,)),
                             rulesets=[("all", [0, 1, 2, 3]), ("three", [1, 2, 3])])
    games = stored_games(rows, 2)

    def stored(order, path):
        store = Store.create(path, {"plan": plan})
        for i in order:
            store.add([games[i]], run=1)
        return store

    everything = range(len(games))
    in_order = rate_store(stored(everything, tmp_path / "a.sqlite"))
    # The independent chains (overall, each ruleset) rated in parallel processes agree.
    assert rate_store(stored(everything, tmp_path / "p.sqlite"), workers=3, parallel_from=0) == in_order
    parts = [Rater(plan, [chain]) for chain in ("overall", 0, 1)]
    for rater in parts:
        rater.drain(Store.open(tmp_path / "p.sqlite"), stop_at_gap=False)
    assert assemble(plan, {k: v for r in parts for k, v in r.parts().items()}) == in_order
    shuffled = list(everything)
    random.Random(4).shuffle(shuffled)
    assert shuffled != list(everything)
    assert rate_store(stored(shuffled, tmp_path / "b.sqlite")) == in_order
    # A following rater stops at the first game not stored yet, and catches up later.
    store = stored([0, 1, 3], tmp_path / "c.sqlite")
    rater = Rater(plan)
    assert rater.drain(store) is False and rater.rated == 2
    store.add([games[i] for i in everything if i not in (0, 1, 3)], run=2)
    rater.drain(store)
    assert rater.standings() == in_order


def test_a_game_cannot_be_stored_twice(tmp_path):
    import sqlite3

    plan, rows = round_robin(["a", "b", "c", "d"], 4, 1, coin_flips())
    store = Store.create(tmp_path / "s.sqlite", {"plan": plan})
    game = stored_games(rows, 4)[0]
    store.add([game], run=1)
    with pytest.raises(sqlite3.IntegrityError):
        store.add([game], run=2)
    assert store.count() == 1


def test_with_one_ruleset_that_everyone_plays_the_overall_table_is_the_rulesets():
    plan = dict(PLAN, rulesets=PLAN["rulesets"][:1])
    assert scope_plan(plan) == [0] and scope_plan(PLAN) == ["overall", 0, 1]
    rater = Rater(plan)
    env = trueskill.TrueSkill(draw_probability=0.3)
    ratings = {e: env.create_rating() for e in range(4)}
    for row in rows():
        if row.ruleset == 0:
            rater.apply(row)
            new = env.rate([(ratings[e],) for e in row.seats], ranks=row.standing)
            for seat, entry in enumerate(row.seats):
                ratings[entry] = new[seat][0]
    s = rater.standings()
    assert s["overall"] == s["rulesets"]["four"]
    assert {r["bot"]: r["mu"] for r in s["overall"]} == {ENTRIES[e]["bot"]: round(r.mu, 6) for e, r in ratings.items()}


# -- pairwise results in the standings (issue 19) ---------------------------------------


def round_robin(names, players, deals, outcome, rulesets=None, fmt="round-robin", deal_major=False, stop=None,
                challengers=()):
    """A plan and its games in schedule order: each ruleset (label, entry numbers) plays every
    table of `players` of its entries, `deals` deals each in every rotation; `outcome(rng,
    seats, ruleset)` gives the standing by seat. Deal-major: deal 0 of every table first."""
    from itertools import combinations

    entries = [{"bot": name, "uses": "random", "package": "p", "version": "1", "params": {}} for name in names]
    rulesets = rulesets or [("only", list(range(len(names))))]
    plan = {"name": "t", "format": fmt, "deals": deals, "max_games": None, "entries": entries, "stop": stop,
            "challengers": list(challengers),
            "rulesets": [{"label": label, "id": "x", "version": "1", "package": "p", "package_version": "1",
                          "players": players, "options": {}, "draw_probability": 0.1, "entries": members}
                         for label, members in rulesets]}
    rng = random.Random(5)
    games = []
    for r, (_, members) in enumerate(rulesets):
        tables = [t for t in combinations(members, players)
                  if fmt != "gauntlet" or sum(e in challengers for e in t) == 1]
        slots = [(d, t) for d in range(deals) for t in range(len(tables))] if deal_major else \
            [(d, t) for t in range(len(tables)) for d in range(deals)]
        for deal, table in slots:
            for rotation in range(players):
                seats = [tables[table][(seat + rotation) % players] for seat in range(players)]
                games.append((r, table, deal, seats, outcome(rng, seats, r)))
    rows = [GameRow(i, r, seats, standing, [0] * players, [0] * players, table, deal)
            for i, (r, table, deal, seats, standing) in enumerate(games)]
    plan["total_games"] = len(rows)
    return plan, rows


def rated(plan, rows):
    rater = Rater(plan)
    for row in rows:
        rater.apply(row)
    return rater.standings()


def coin_flips(strong=()):
    """Standings at random, except that the entries in `strong` finish first (in that order)."""
    def outcome(rng, seats, ruleset):
        order = sorted(seats, key=lambda e: (e not in strong, strong.index(e) if e in strong else rng.random()))
        return [order.index(e) + 1 for e in seats]
    return outcome


def test_pairwise_numbers_in_the_standings_are_arena_pairwise_over_deals():
    from arena.pairwise import compare, paired_scores

    plan, rows = round_robin(["ann", "bob", "cat", "dan"], 3, 5, coin_flips(strong=(0,)))
    s = rated(plan, rows)
    names = [e["bot"] for e in plan["entries"]]
    # the unit is the deal number: its games at both tables holding a pair, every rotation
    expected_scores = paired_scores((row.deal, [names[e] for e in row.seats], row.standing) for row in rows)
    order = [r["bot"] for r in s["rulesets"]["only"]]
    expected = compare(order, expected_scores, confidence=0.95, margin=0.0, method="fixed")
    got = s["pairwise"]["rulesets"]["only"]
    assert got["pairs"] == 6 and got["alpha_per_pair"] == pytest.approx(0.05 / 6, abs=1e-6)
    assert [(r["a"], r["b"]) for r in got["results"]] == [(v.upper, v.lower) for v in expected.verdicts]
    for r, v in zip(got["results"], expected.verdicts):
        assert r["deals"] == v.deals == 5  # two tables hold each pair: six games a deal
        assert (r["mean"], r["low"], r["high"], r["los"]) == pytest.approx(
            (v.mean, v.interval.low, v.interval.high, v.los), abs=1e-6)
    assert s["pairwise"]["method"] == "fixed" and "fixed-sample 95%" in s["pairwise"]["interval"]


def test_a_separated_pair_is_marked_and_a_coin_flip_pair_is_not():
    plan, rows = round_robin(["strong", "flip-a", "flip-b"], 3, 40, coin_flips(strong=(0,)))
    s = rated(plan, rows)
    table = s["rulesets"]["only"]
    assert [r["bot"] for r in table][0] == "strong"
    assert [r["vs_next"] for r in table] == ["separated", "not separated", None]
    verdicts = {(r["a"], r["b"]): r["verdict"] for r in s["pairwise"]["rulesets"]["only"]["results"]}
    assert verdicts[("strong", "flip-a")] == verdicts[("strong", "flip-b")] == "separated"
    assert set(verdicts.values()) == {"separated", "not separated"}
    assert not s["pairwise"]["rulesets"]["only"]["settled"]


def test_the_overall_table_holds_only_the_bots_entered_in_every_ruleset():
    names = ["ann", "bob", "solo-0", "solo-1"]
    rulesets = [("r0", [0, 1, 2]), ("r1", [0, 1, 3])]
    # ann beats bob on both rulesets: separated overall
    plan, rows = round_robin(names, 2, 30, coin_flips(strong=(0,)), rulesets=rulesets)
    s = rated(plan, rows)
    assert [r["bot"] for r in s["overall"]] == ["ann", "bob"] and [r["rank"] for r in s["overall"]] == [1, 2]
    assert s["overall"][0]["vs_next"] == "separated"
    overall = s["pairwise"]["overall"]
    assert overall["bots"] == ["ann", "bob"] and overall["left_out"] == ["solo-0", "solo-1"]
    (pair,) = overall["results"]
    assert pair["rulesets"] == {"r0": 1.0, "r1": 1.0} and pair["mean"] == 1.0 and pair["deals"] == 60
    assert set(s["head_to_head"]["overall"]) == {"ann", "bob"}
    assert set(s["head_to_head"]["overall"]["ann"]) == {"bob"}
    # the other bots stay in their rulesets' tables
    assert {r["bot"] for r in s["rulesets"]["r0"]} == {"ann", "bob", "solo-0"}

    # ann beats everyone on r0 only, r1 is coin flips: not separated overall, though separated on r0
    def r0_only(rng, seats, ruleset):
        return coin_flips(strong=(0,) if ruleset == 0 else ())(rng, seats, ruleset)

    plan, rows = round_robin(names, 2, 30, r0_only, rulesets=rulesets)
    s = rated(plan, rows)
    by_ruleset = {label: {(r["a"], r["b"]): r["verdict"] for r in c["results"]}
                  for label, c in s["pairwise"]["rulesets"].items()}
    assert by_ruleset["r0"][("ann", "bob")] == "separated"
    assert "separated" not in {by_ruleset["r1"].get(("ann", "bob")), by_ruleset["r1"].get(("bob", "ann"))}
    assert s["pairwise"]["overall"]["results"][0]["verdict"] == "not separated"


def test_with_a_stop_the_intervals_are_the_confidence_sequence_over_deals_in_schedule_order():
    from arena.pairwise import confidence_sequence, paired_scores

    stop = {"kind": "settled", "confidence": 0.9, "margin": 0.1}
    plan, rows = round_robin(["ann", "bob", "cat"], 2, 12, coin_flips(strong=(0,)), deal_major=True, stop=stop)
    s = rated(plan, rows)
    assert s["pairwise"]["method"] == "sequence" and s["pairwise"]["margin"] == 0.1
    assert "anytime-valid 90%" in s["pairwise"]["interval"]
    got = s["pairwise"]["rulesets"]["only"]
    assert got["pairs"] == 3  # every pair the round-robin seats together, fixed in advance
    names = [e["bot"] for e in plan["entries"]]
    # the sequence runs over deal numbers, in schedule order (deal-major: deal 0 of every table first)
    scores = paired_scores((row.deal, [names[e] for e in row.seats], row.standing) for row in rows)
    for r in got["results"]:
        bound = confidence_sequence(scores[(r["a"], r["b"])], 0.1 / 3)
        assert (r["low"], r["high"]) == pytest.approx((bound.interval.low, bound.interval.high), abs=1e-6)


def test_a_gauntlet_compares_challengers_with_the_field_only():
    plan, rows = round_robin(["new", "f1", "f2", "f3"], 3, 4, coin_flips(), fmt="gauntlet", challengers=(0,))
    s = rated(plan, rows)
    pairs = {(r["a"], r["b"]) for r in s["pairwise"]["rulesets"]["only"]["results"]}
    assert all("new" in pair for pair in pairs) and len(pairs) == 3


def test_a_game_whose_deal_is_unknown_is_a_deal_of_its_own():
    plan, rows = round_robin(["ann", "bob"], 2, 3, coin_flips(strong=(0,)))
    s = rated(plan, [row._replace(table=None, deal=None) for row in rows])
    assert s["pairwise"]["rulesets"]["only"]["results"][0]["deals"] == len(rows)


def _field_order_permuted(plan, rows):
    """`rows` with the field entries' order among themselves reversed within each group that
    finished on the same side of the challenger (ahead of it, tied with it, behind it): what
    each field entry did against the challenger is kept, everything between field entries
    changes."""
    challengers = set(plan["challengers"])
    out = []
    for row in rows:
        (challenger,) = [s for s, e in enumerate(row.seats) if e in challengers]
        mine = row.standing[challenger]
        standing = list(row.standing)
        for side in (lambda v: v < mine, lambda v: v > mine):
            seats = [s for s, e in enumerate(row.seats) if e not in challengers and side(row.standing[s])]
            values = sorted(row.standing[s] for s in seats)
            for seat, value in zip(sorted(seats, key=lambda s: row.standing[s]), reversed(values)):
                standing[seat] = value
        out.append(row._replace(standing=standing))
    return out


def test_a_gauntlets_standings_ignore_the_field_entries_results_among_themselves():
    """Issue 19 item 3: results between field entries are neither reported nor rated. The
    ratings, ranks, verdicts, head-to-head and pairs of a gauntlet are the same when the
    field entries' mutual order in every game is permuted (each keeps its result against
    the challenger); rated as a round robin, the same permutation changes the ratings."""
    names = ["new", "old", "f1", "f2", "f3", "f4"]
    plan, rows = round_robin(names, 4, 6, coin_flips(), fmt="gauntlet", challengers=(0, 1))
    permuted = _field_order_permuted(plan, rows)
    assert [r.standing for r in permuted] != [r.standing for r in rows]

    def view(standings):
        tables = {"overall": standings["overall"], **standings["rulesets"]}
        return ({label: [(r["rank"], r["bot"], r["mu"], r["sigma"], r["vs_next"]) for r in table]
                 for label, table in tables.items()}, standings["head_to_head"], standings["pairwise"])

    assert view(rated(plan, permuted)) == view(rated(plan, rows))
    round_robin_plan = {**plan, "format": "round-robin", "challengers": []}
    assert view(rated(round_robin_plan, permuted))[0] != view(rated(round_robin_plan, rows))[0]


def test_in_a_gauntlet_a_field_entry_is_rated_by_its_game_against_the_challenger_alone():
    import trueskill as ts

    names = ["new", "f1", "f2", "f3"]
    plan, rows = round_robin(names, 3, 1, coin_flips(), fmt="gauntlet", challengers=(0,))
    row = rows[0]
    s = Rater(plan)
    s.apply(row)
    env = ts.TrueSkill(draw_probability=0.1)
    challenger = row.seats.index(0)
    for seat, entry in enumerate(row.seats):
        if entry == 0:
            continue
        expected = env.rate([(env.create_rating(),), (env.create_rating(),)],
                            ranks=[row.standing[challenger], row.standing[seat]])[1][0]
        got = s.scopes[0].ratings[entry]
        assert (got.mu, got.sigma) == pytest.approx((expected.mu, expected.sigma))
    # the challenger moved by both comparisons, and head to head lists no field-field pair
    assert s.scopes[0].ratings[0].sigma < min(s.scopes[0].ratings[e].sigma for e in row.seats if e)
    h2h = s.standings()["head_to_head"]["only"]
    seated = {names[e] for e in row.seats}
    assert all(set(against) == ({"new"} if bot in seated else set()) for bot, against in h2h.items() if bot != "new")


def test_a_gauntlet_table_marks_two_adjacent_field_entries_not_compared_and_can_be_settled():
    """Field entries are never compared, so two of them ranked next to each other are "not
    compared" (not "not separated", which would keep the table from ever being settled)."""
    names = ["new", "f1", "f2", "f3"]
    plan, rows = round_robin(names, 2, 40, coin_flips(strong=(0,)), fmt="gauntlet", challengers=(0,))
    s = rated(plan, rows)
    table = s["rulesets"]["only"]
    assert table[0]["bot"] == "new" and table[0]["vs_next"] == "separated"
    assert [r["vs_next"] for r in table[1:]] == ["not compared", "not compared", None]
    assert s["pairwise"]["rulesets"]["only"]["settled"]


# -- interval families and the overall table (issue 43) -----------------------------------


def test_a_plan_without_an_interval_family_keeps_the_classic_intervals_and_a_new_plan_records_betting():
    from arena.ratings import comparison_settings
    from arena.runner import make_plan
    from arena.tournament import parse_tournament
    from arena.plugins import load_registry

    plan, rows = round_robin(["ann", "bob", "cat"], 2, 12, coin_flips(strong=(0,)))
    assert comparison_settings(plan)["intervals"] == "classic"
    classic = rated(plan, rows)
    assert "Student t" in classic["pairwise"]["interval"] and "intervals" not in classic["pairwise"]
    betting = rated(dict(plan, intervals="betting"), rows)
    assert "betting" in betting["pairwise"]["interval"] and betting["pairwise"]["intervals"] == "betting"
    low = {(r["a"], r["b"]): r["low"] for r in betting["pairwise"]["rulesets"]["only"]["results"]}
    assert low != {(r["a"], r["b"]): r["low"] for r in classic["pairwise"]["rulesets"]["only"]["results"]}
    text = ('[tournament]\nname = "t"\nseed = 1\ndeals = 2\n\n[[bots]]\nuse = "random"\nas = "r1"\n\n'
            '[[bots]]\nuse = "random"\nas = "r2"\n\n'
            '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')
    assert make_plan(parse_tournament(text, load_registry(), "t.toml"), 1)["intervals"] == "betting"


def test_with_betting_intervals_a_bot_winning_clearly_in_every_ruleset_is_separated_overall():
    names = ["ann", "bob", "cat"]
    rulesets = [("r0", [0, 1, 2]), ("r1", [0, 1, 2]), ("r2", [0, 1, 2])]

    def mostly_ann(rng, seats, ruleset):  # ann first in 80% of games, the rest at random
        return coin_flips(strong=(0,) if rng.random() < 0.8 else ())(rng, seats, ruleset)

    plan, rows = round_robin(names, 2, 20, mostly_ann, rulesets=rulesets)
    s = rated(dict(plan, intervals="betting"), rows)
    for other in ("bob", "cat"):
        pair = next(r for r in s["pairwise"]["overall"]["results"] if {r["a"], r["b"]} == {"ann", other})
        assert pair["a"] == "ann" and pair["verdict"] == "separated" and pair["low"] > 0.5
        per_ruleset = [next(r for r in c["results"] if {r["a"], r["b"]} == {"ann", other})
                       for c in s["pairwise"]["rulesets"].values()]
        # at error rate 0.05 / 9 (3 pairs, 3 rulesets) per ruleset, not 0.05 / 3: a little wider
        assert pair["low"] < sum(r["low"] if r["a"] == "ann" else 1 - r["high"] for r in per_ruleset) / 3
    assert s["overall"][0]["bot"] == "ann" and s["overall"][0]["vs_next"] == "separated"
    classic = rated(plan, rows)  # the classic rule: separated on every ruleset, no interval of its own
    assert "low" not in classic["pairwise"]["overall"]["results"][0]

    # ann wins r0 and r1 but loses r2 as clearly: not separated overall
    def loses_r2(rng, seats, ruleset):
        return coin_flips(strong=(0,) if ruleset < 2 else (1, 2))(rng, seats, ruleset)

    plan, rows = round_robin(names, 2, 20, loses_r2, rulesets=rulesets)
    s = rated(dict(plan, intervals="betting"), rows)
    pair = next(r for r in s["pairwise"]["overall"]["results"] if {r["a"], r["b"]} == {"ann", "bob"})
    assert pair["verdict"] == "not separated" and pair["low"] < 0.5 < pair["high"]
