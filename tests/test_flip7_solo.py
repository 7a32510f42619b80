"""flip7-expectimax, the solo-challenge policy: legal, deterministic, sensible decisions,
fewer rounds to 200 than flip7-threshold on a fixed sample of deals, and its two value tables
(the fresh-deck optimum by default; the older histogram one kept, with its play pinned)."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, play_game
from arena.rules.flip_7 import Flip7
from arena_bots.flip7_expectimax import (FRESH_DECK_ROUNDS_TO_200, Flip7ExpectimaxBot,
                                         fresh_deck_rounds_to_go, rounds_to_go)
from arena_bots.flip7_threshold import Flip7ThresholdBot
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation

SEEDS = range(1, 241)


def rounds(entrant, seeds):
    return [play_game(Flip7, [entrant], seed).record["outcome"]["rounds"] for seed in seeds]


def solo(top):
    return Flip7.lay_out(1, deck_top=top)


def decide(state, **params):
    bot = Flip7ExpectimaxBot(**params)
    bot.rng = random.Random(0)
    observation = make_observation(Flip7, state, 0, [])
    return bot.act(observation)


def test_expected_rounds_to_go_fall_as_the_total_rises_and_vanish_at_the_target():
    v = rounds_to_go(200)
    assert v[200] == v[250] == 0.0
    assert all(v[t] >= v[t + 1] for t in range(0, 200))
    assert 8.0 < v[0] < 12.0


def test_the_fresh_deck_table_falls_to_zero_and_shifts_for_smaller_targets():
    v = fresh_deck_rounds_to_go(200)
    assert len(FRESH_DECK_ROUNDS_TO_200) == 200
    assert all(v[t] > v[t + 1] for t in range(199)) and v[200] == v[399] == 0.0
    assert 9.0 < v[0] < 11.0 and 1.0 < v[199] < 1.1
    assert fresh_deck_rounds_to_go(50)[:50] == list(FRESH_DECK_ROUNDS_TO_200[150:])
    with pytest.raises(ValueError):
        fresh_deck_rounds_to_go(201)


def test_the_histogram_values_play_as_the_bot_did_before_the_fresh_deck_table():
    # transcript hashes of the bot before issue 22 item 5 (its only table then), same seeds
    bot = Entrant(Flip7ExpectimaxBot, {"values": "histogram"})
    assert play_game(Flip7, [bot], 9).record["transcript_hash"] == (
        "085a7adbdc63fb7613f6b340c83745c31c401ea55c53ae0da35741a595a1fdd1")
    assert play_game(Flip7, [bot] * 3, 4).record["transcript_hash"] == (
        "de447588927f0035ecb983cc56c70731d514fb6129e9736c3c7ad494cd65ccf2")


def test_it_beats_flip7_threshold_on_a_fixed_sample_of_deals():
    mine = rounds(Entrant(Flip7ExpectimaxBot), SEEDS)
    theirs = rounds(Entrant(Flip7ThresholdBot, {"threshold": 23}), SEEDS)
    assert sum(mine) / len(mine) < sum(theirs) / len(theirs) - 0.15


def test_it_is_deterministic():
    first = play_game(Flip7, [Entrant(Flip7ExpectimaxBot)], 9)
    second = play_game(Flip7, [Entrant(Flip7ExpectimaxBot)], 9)
    assert first.record["transcript_hash"] == second.record["transcript_hash"]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_it_plays_only_legal_actions(players):
    # play_game raises on an illegal action
    for seed in range(6):
        entrants = [Entrant(Flip7ExpectimaxBot)] + [Entrant(RandomBot)] * (players - 1)
        assert play_game(Flip7, entrants, seed).state.is_terminal()


def test_it_stays_when_banking_reaches_the_target():
    state = solo(["5"])
    state.totals[0] = 196
    assert decide(state) == "stay"        # 196 + 5 finishes the challenge this round


def test_it_hits_a_small_safe_row_and_stays_on_a_big_risky_one():
    assert decide(solo(["3"])) == "hit"
    state = solo(["12", "11", "10", "9"])
    for _ in range(3):
        state.apply("hit")
    assert state.view(0)["rows"][0]["number_sum"] == 42
    assert decide(state) == "stay"


def test_a_second_chance_makes_it_push_on():
    state = solo(["12", "11", "second-chance", "9"])
    for _ in range(3):
        state.apply("hit")
    row = state.view(0)["rows"][0]
    assert row["second_chance"] and row["number_sum"] == 32
    assert decide(state) == "hit"


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        Flip7ExpectimaxBot(depth=0)
    with pytest.raises(ValueError, match="values must be one of optimum, histogram"):
        Flip7ExpectimaxBot(values="exact")
