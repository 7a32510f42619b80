"""Flip 7 determinization: `Flip7.sample_state(observation, rng, events)`.

Only the deck order is hidden, so a sample must rebuild the public table exactly (rows,
statuses, pending frames, the decision) and put the unseen cards in a random order.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.rules.base import copy_rng
from arena.rules.flip_7 import Flip7, deck_for
from arena.rules.observation import make_observation

OPTIONS = Flip7.resolve_options({"target_score": 100})


def observation(state, events=None):
    """What the match loop hands the seat whose decision it is."""
    seat = state.current_seat()
    return make_observation(Flip7, state, seat, events or [])


def random_points(games=120, seed=0, chance=0.2, players=range(1, 9)):
    """(state, observation, rng) at random decision points of random games."""
    rng = random.Random(seed)
    counts = list(players)
    for game in range(games):
        state = Flip7.new_game(counts[game % len(counts)], OPTIONS, random.Random(seed * 1000 + game))
        while not state.is_terminal():
            if rng.random() < chance:
                yield state, observation(state), rng
            state.apply(rng.choice(state.legal_actions()))


def test_a_sample_shows_the_seat_exactly_its_observation():
    checked = decisions = pending = 0
    for state, obs, _ in random_points():
        sample = Flip7.sample_state(obs, random.Random(checked))
        seat = obs["seat"]
        assert sample.current_seat() == seat
        assert sample.legal_actions() == obs["legal_actions"]
        assert sample.view(seat) == obs["view"]
        for other in range(state.players):   # everything is public: every seat's view too
            assert sample.view(other) == state.view(other)
        checked += 1
        decisions += obs["view"]["decision"] != "hit-or-stay"
        pending += bool(obs["view"]["pending"])
    assert checked > 1000 and decisions > 50 and pending > 50


def test_a_sample_holds_the_whole_deck_and_plays_to_the_end():
    for n, (state, obs, rng) in enumerate(random_points(games=60, seed=1)):
        sample = Flip7.sample_state(obs, random.Random(n))
        everything = Counter(sample.all_cards())
        assert everything == Counter(deck_for(state.players)) == Counter(state.all_cards())
        while not sample.is_terminal():
            sample.apply(rng.choice(sample.legal_actions()))
            assert Counter(sample.all_cards()) == everything
        assert sample.outcome()["reason"] in ("target", "max_rounds")


def test_a_sample_given_the_real_deck_order_and_rng_replays_the_real_game():
    """The hidden engine details (the deal's position, a hit's pending turn change, a
    seat frozen before its deal card) are rebuilt exactly: with the real deck order
    and rng, the sample and the real game produce the same events and views."""
    compared = 0
    for n, (state, obs, rng) in enumerate(random_points(games=120, seed=2)):
        sample = Flip7.sample_state(obs, random.Random(n))
        sample.deck = list(state.deck)
        sample.set_aside = list(state.set_aside)
        sample.rng = copy_rng(state.rng)
        real = state.clone()
        for _ in range(40):
            if real.is_terminal():
                break
            action = rng.choice(real.legal_actions())
            real.apply(action)
            sample.apply(action)
            assert sample.take_events(0) == real.take_events(0)
            assert sample.legal_actions() == real.legal_actions()
        assert sample.view(0) == real.view(0)
        compared += 1
    assert compared > 900


def test_a_seat_frozen_before_its_deal_card_keeps_its_banked_row_in_the_sample():
    # Seat 1 deals to 2 first: a Freeze goes to seat 0 (still undealt), who banks its row.
    state = Flip7.lay_out(3, OPTIONS, deck_top=["freeze", "5", "7", "9"], dealer=1)
    state.apply("freeze:0")
    state.numbers[0].append(4)   # as if a Flip Three had dealt it a 4 before the Freeze
    state.masks[0] |= 1 << 4
    state._scores[0] = None
    obs = observation(state)
    assert obs["view"]["rows"][0]["status"] == "frozen" and obs["view"]["rows"][0]["score"] == 4
    sample = Flip7.sample_state(obs, random.Random(1))
    assert sample.view(0) == obs["view"]


def small_deck_position(cards_top_first):
    """Three players, a deck of exactly `cards_top_first`, dealt: the deal takes the
    first three (all numbers here), the rest are the unseen deck."""
    return Flip7.lay_out(3, OPTIONS, deck_top=cards_top_first, exact=True)


@pytest.mark.parametrize("cards", [
    ["1", "2", "3", "4", "4", "second-chance", "x2", "12"],
    ["5", "6", "7", "8", "9", "freeze", "flip-three", "12", "12", "+10"],
])
def test_every_unseen_card_turns_up_at_every_deck_position_as_often_as_its_count_says(cards):
    state = small_deck_position(cards)
    obs = observation(state)
    unseen = obs["view"]["unseen"]
    size = obs["view"]["deck_size"]
    assert Counter(unseen) == Counter(cards[3:]) and size == len(cards) - 3
    rng = random.Random(0)
    samples = 4000
    at = [Counter() for _ in range(size)]
    for _ in range(samples):
        deck = Flip7.sample_state(obs, rng).deck
        assert Counter(deck) == Counter(unseen)
        for position, card in enumerate(deck):
            at[position][card] += 1
    for position in range(size):
        assert set(at[position]) == set(unseen)
        for card, count in unseen.items():
            assert abs(at[position][card] / samples - count / size) < 0.03, (position, card)


def test_samples_depend_only_on_the_observation_and_the_rng():
    """Two games that differ only in the deck order give the same observation, hence
    the very same samples for the same rng; another rng gives other deck orders."""
    differ = 0
    for n, (state, obs, rng) in enumerate(random_points(games=40, seed=4)):
        twin = state.clone()
        rng.shuffle(twin.deck)
        twin_obs = observation(twin)
        assert twin_obs == obs
        a = Flip7.sample_state(obs, random.Random(n))
        b = Flip7.sample_state(twin_obs, random.Random(n))
        assert (a.deck, a.set_aside, a.view(obs["seat"])) == (b.deck, b.set_aside, b.view(obs["seat"]))
        assert a.rng.getstate() == b.rng.getstate()
        c = Flip7.sample_state(obs, random.Random(n + 10_000))
        differ += c.deck != a.deck or c.rng.getstate() != a.rng.getstate()
    assert differ > 100


def test_the_sampler_reads_neither_the_events_nor_the_real_game():
    state, obs, _ = next(random_points(games=1, seed=6, chance=0.5, players=[3]))
    with_events = Flip7.sample_state(obs, random.Random(1), events=[{"type": "round-start"}])
    without = Flip7.sample_state(obs, random.Random(1))
    assert with_events.deck == without.deck
    with_events.apply(with_events.legal_actions()[0])   # the real game is not touched
    assert state.view(obs["seat"]) == obs["view"]


def test_a_finished_game_cannot_be_sampled():
    state = Flip7.new_game(2, OPTIONS, random.Random(0))
    obs = observation(state)
    obs["view"] = dict(obs["view"], phase="over", turn=None)
    with pytest.raises(ValueError):
        Flip7.sample_state(obs, random.Random(0))


@pytest.mark.slow
def test_many_samples_show_their_observation_and_play_to_the_end():
    checked = 0
    for state, obs, rng in random_points(games=500, seed=7, chance=0.3, players=range(1, 37)):
        sample = Flip7.sample_state(obs, random.Random(checked))
        assert sample.view(obs["seat"]) == obs["view"]
        assert sample.legal_actions() == obs["legal_actions"]
        everything = Counter(sample.all_cards())
        for _ in range(60):
            if sample.is_terminal():
                break
            sample.apply(rng.choice(sample.legal_actions()))
        assert Counter(sample.all_cards()) == everything
        checked += 1
    assert checked > 20_000
