"""The flip7-threshold bot: legal, beats random, and aims its action cards sensibly."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, play_game
from arena.rules.flip_7 import Flip7
from arena_bots.flip7_threshold import Flip7ThresholdBot
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation


def table(players, top):
    return Flip7.lay_out(players, deck_top=top)


def decide(state, bot=None, **params):
    bot = bot or Flip7ThresholdBot(**params)
    bot.rng = random.Random(0)
    seat = state.current_seat()
    observation = make_observation(Flip7, state, seat, [])
    return bot.act(observation)


def test_it_stays_once_its_number_sum_reaches_the_threshold():
    state = table(1, ["12", "11", "+10", "3"])
    state.apply("hit")
    assert decide(state) == "hit"                        # 23 and a +10: modifiers do not count
    state.apply("hit")
    assert decide(state, threshold=27) == "hit"
    state.apply("hit")                                    # 12 + 11 + 3 = 26
    assert decide(state, threshold=27) == "hit" and decide(state, threshold=26) == "stay"


def test_it_hits_while_holding_a_second_chance():
    state = table(1, ["12", "11", "second-chance", "10"])
    state.apply("hit")
    state.apply("hit")
    assert state.view(0)["rows"][0]["number_sum"] == 23
    assert decide(state, threshold=20) == "hit"


def test_it_freezes_the_opponent_with_the_small_row_rather_than_itself():
    state = table(3, ["12", "2", "freeze"])              # seat 0 is dealt a Freeze
    assert state.current_seat() == 0
    assert decide(state) == "freeze:2"


def test_it_freezes_itself_when_its_row_is_big_and_risky():
    # seat 0 holds 12, 11, 10, 9 (42, below the threshold of this test, so it would hit on)
    # and is dealt a Freeze; the opponent has a small row
    state = table(2, ["1", "12", "2", "11", "3", "10", "4", "9", "5", "freeze"])
    for _ in range(8):
        state.apply("hit")
    assert state.current_seat() == 0 and state.view(0)["decision"] == "freeze"
    assert decide(state, threshold=60) == "freeze:0"


def test_it_aims_a_flip_three_at_an_opponent_with_a_risky_row():
    state = table(2, ["12", "3", "11", "2", "10", "flip-three"])
    for _ in range(4):
        state.apply("hit")
    assert state.view(0)["decision"] == "flip-three"
    assert decide(state) == "flip-three:1"


def test_it_takes_a_flip_three_itself_when_that_is_low_risk():
    state = table(2, ["1", "3", "2", "flip-three"])
    for _ in range(2):
        state.apply("hit")
    assert decide(state) == "flip-three:0"


def test_it_gives_a_surplus_second_chance_to_the_least_threatening_player():
    state = table(3, ["second-chance", "1", "12", "second-chance"])
    state.totals = [0, 0, 150]
    state.apply("hit")
    assert state.legal_actions() == ["second-chance:0", "second-chance:2"]
    assert decide(state) == "second-chance:0"


def test_bad_threshold_is_rejected():
    with pytest.raises(ValueError):
        Flip7ThresholdBot(threshold="high")


def test_it_plays_only_legal_actions_even_when_asked_every_decision():
    for game in range(60):
        players = 1 + game % 6
        seats = [Entrant(Flip7ThresholdBot, {"threshold": 15 + game % 20})] + [Entrant(RandomBot)] * (players - 1)
        play_game(Flip7, seats, game, ask_forced=True)   # raises on an illegal answer


def test_it_beats_random_head_to_head():
    wins = 0
    for game in range(100):
        seats = [Entrant(Flip7ThresholdBot), Entrant(RandomBot)]
        me = game % 2
        if me:
            seats.reverse()
        wins += play_game(Flip7, seats, game).record["outcome"]["standing"][me] == 1
    assert wins >= 80
