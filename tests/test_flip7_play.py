"""Flip 7 random playouts: golden transcripts and invariants (determinism, replay and
clones: the conformance kit, tests/test_conformance.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.errors import IllegalActionError
from arena.match import Entrant, play_game
from arena.rules.flip_7 import BUSTED, FLIPPED_7, Flip7, deck_for
from arena_bots.random_bot import RandomBot

# (players, deal seed) -> transcript hash of a game between random bots. A change here
# means a rules change: bump Flip7.version and update the hashes on purpose. Version "2":
# these games have no Freeze before a deal card, so only the hash (it covers the version) moved.
GOLDEN = {
    (1, 11): "d06d03b492ccb961f99de2d6874c25037487f8af8e9328a801b2ab9a4dd6dc91",
    (2, 22): "a124a1c64979f9964bdadbd90e0cce8c4b7486829df0b08ea6f4a655e1322064",
    (4, 44): "b21c2d2a82591abb001df9ee33acb2be76097a3dee040a116bde86d154ba1a87",
    (4, 2024): "3a0df948401cb38d02aaa3dc322799680caefeccb0fc990810e963596ae365df",
}


def random_game(players, seed):
    return play_game(Flip7, [Entrant(RandomBot)] * players, seed)


@pytest.mark.parametrize("players, seed", sorted(GOLDEN))
def test_golden_transcripts(players, seed):
    assert random_game(players, seed).record["transcript_hash"] == GOLDEN[(players, seed)]


def check_invariants(state, composition):
    """What must hold after every step of any game."""
    assert Counter(state.all_cards()) == composition
    for seat in range(state.players):
        numbers = state.numbers[seat]
        if state.status[seat] == BUSTED:
            assert len(set(numbers)) == len(numbers) - 1 and numbers[-1] in numbers[:-1]
        else:
            assert len(set(numbers)) == len(numbers) <= 7
        assert (len(numbers) == 7) == (state.status[seat] == FLIPPED_7) or state.status[seat] == BUSTED
    if not state.is_terminal():
        legal = state.legal_actions()
        assert legal and len(legal) == len(set(legal))


def play_checked(players, seed):
    """A random game straight on the engine, checking invariants after every step."""
    state = Flip7.new_game(players, Flip7.resolve_options(), random.Random(seed))
    composition = Counter(deck_for(players))
    chooser = random.Random(seed ^ 0x5EED)
    totals = [0] * players
    steps = 0
    check_invariants(state, composition)
    while not state.is_terminal():
        legal = state.legal_actions()
        with pytest.raises(IllegalActionError):
            state.apply("not-an-action")
        state.apply(chooser.choice(legal))
        steps += 1
        assert steps < 100_000, "the game does not end"
        assert all(a <= b for a, b in zip(totals, state.totals))
        totals = list(state.totals)
        check_invariants(state, composition)
    out = state.outcome()
    assert out["reason"] == "target" and out["rounds"] == state.round
    top = max(out["scores"])
    assert top >= 200 and out["scores"].count(top) == 1
    assert out["standing"][out["scores"].index(top)] == 1
    return state


def test_random_games_keep_the_invariants_sample():
    for game in range(300):
        play_checked(1 + game % 8, game)


@pytest.mark.slow
def test_random_games_keep_the_invariants_10000():
    for game in range(10_000):
        play_checked(1 + game % 8, 1_000_000 + game)


def test_many_players_with_two_decks_play_to_the_end():
    for seed in range(3):
        play_checked(36, seed)
        play_checked(19, seed)
