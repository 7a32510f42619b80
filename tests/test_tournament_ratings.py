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


def test_games_are_rated_in_schedule_order_whatever_order_they_were_stored_in(tmp_path):
    def stored(order, path):
        store = Store.create(path, {"plan": PLAN})
        for i in order:
            r, seats, standing, scores = GAMES[i]
            store.add([StoredGame(i, r, 0, 0, 0, encode([seats, standing, scores, [0] * len(seats)]), "h", b"{}")],
                      run=1)
        return store

    in_order = rate_store(stored(range(6), tmp_path / "a.sqlite"))
    # The independent chains (overall, each ruleset) rated in parallel processes agree.
    assert rate_store(stored(range(6), tmp_path / "p.sqlite"), workers=3, parallel_from=0) == in_order
    parts = [Rater(PLAN, [chain]) for chain in ("overall", 0, 1)]
    for rater in parts:
        rater.drain(Store.open(tmp_path / "p.sqlite"), stop_at_gap=False)
    assert assemble(PLAN, {k: v for r in parts for k, v in r.parts().items()}) == in_order
    shuffled = list(range(6))
    random.Random(4).shuffle(shuffled)
    assert shuffled != list(range(6))
    assert rate_store(stored(shuffled, tmp_path / "b.sqlite")) == in_order
    # A following rater stops at the first game not stored yet, and catches up later.
    store = stored([0, 1, 3], tmp_path / "c.sqlite")
    rater = Rater(PLAN)
    assert rater.drain(store) is False and rater.rated == 2
    store.add([StoredGame(i, GAMES[i][0], 0, 0, 0, encode([GAMES[i][1], GAMES[i][2], GAMES[i][3],
                                                             [0] * len(GAMES[i][1])]), "h", b"{}")
               for i in (2, 4, 5)], run=2)
    rater.drain(store)
    assert rater.standings() == in_order


def test_a_game_cannot_be_stored_twice(tmp_path):
    import sqlite3

    store = Store.create(tmp_path / "s.sqlite", {"plan": PLAN})
    game = StoredGame(0, 0, 0, 0, 0, encode([[0, 1, 2, 3], [1, 2, 3, 4], [0, 0, 0, 0], [0] * 4]), "h", b"{}")
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
