"""Color Flush in play: golden transcripts and random-game invariants (determinism and
replay: the conformance kit, tests/test_conformance.py)."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, play_game
from arena.rules.color_flush import HAND_MAX, HAND_MIN, ColorFlush
from arena_bots.random_bot import RandomBot

# (deal seed, players, options) -> transcript hash of a game of random bots.
GOLDEN = [  # wins with 3, 4, 6 and 2 players ("may" swaps); the last one reaches max_turns
    (1, 3, {}, "743906fd98282217c728b35ff86db40d08f8ca97e303b9beae39701f002c9709"),
    (2, 4, {}, "9127ac9e080ea966fcd1e9b166d7a77e5590bc91ef4ceb0a4796e90b906a05c3"),
    (3, 6, {}, "d76690f1da5db4053e969ec835cf07e57a3f9f0d451e3fca832b7c5e12f32a57"),
    (4, 2, {"white_swap": "may"}, "ca9251059d5e959c806cf274f8ca4afaef68880c5cddf1bbd95541ca06f5dd23"),
    (6, 5, {"max_turns": 12}, "a4743f8c6776a7436df0fd893b817c1a2977e966eee4a67a3e0fac7898898f2c"),
]


def random_game(seed, players, options=None):
    return play_game(ColorFlush, [Entrant(RandomBot)] * players, seed, options)


@pytest.mark.parametrize("seed, players, options, expected", GOLDEN)
def test_golden_transcripts(seed, players, options, expected):
    record = random_game(seed, players, options).record
    assert record["transcript_hash"] == expected


# -- invariants over random games ---------------------------------------------------------

def check_invariants(state, deck_faces, total):
    table = state.table
    assert table.faces == deck_faces  # the faces of every card never change
    assert table.count() == total  # conservation
    held = [card for hand in table.hands for card in hand] + table.piles["draw"]
    assert sorted(held) == list(range(total))
    for seat, hand in enumerate(table.hands):
        assert HAND_MIN <= len(hand) <= HAND_MAX
        assert all(table.face(card) != "black" for card in hand)  # forced flips resolved
    assert all(table.face(card) != "black" for card in table.piles["draw"])
    if not state.is_terminal():
        # the win is checked after every change: nobody may hold a winning hand unnoticed
        assert not any(state.hand_wins(seat) for seat in range(state.players))


def run_random_game(seed, players, options=None):
    resolved = ColorFlush.resolve_options(options)
    state = ColorFlush.new_game(players, resolved, random.Random(seed))
    deck_faces = tuple(tuple(card) for card in resolved["deck"])
    total = len(deck_faces)
    rng = random.Random(seed ^ 0x5EED)
    check_invariants(state, deck_faces, total)
    decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        state.apply(rng.choice(legal))
        decisions += 1
        check_invariants(state, deck_faces, total)
        assert decisions < 40 * resolved["max_turns"] + 10
        if decisions % 64 == 0:
            for seat in range(players):
                state.take_events(seat)
    outcome = state.outcome()
    assert outcome["reason"] in ("win", "max_turns")
    if outcome["reason"] == "win":
        winner = state.winner
        assert state.hand_wins(winner)
        assert outcome["standing"] == [1 if s == winner else 2 for s in range(players)]
    else:
        assert state.turns == resolved["max_turns"]
        assert outcome["standing"] == [1] * players
    return outcome


def test_random_games_keep_every_invariant_sample():
    reasons = {"win": 0, "max_turns": 0}
    for seed in range(240):
        players = 2 + seed % 5
        options = {"white_swap": "may"} if seed % 7 == 0 else None
        reasons[run_random_game(seed, players, options)["reason"]] += 1
    assert reasons["win"] > 0


@pytest.mark.slow
def test_random_games_keep_every_invariant_10000():
    reasons = {"win": 0, "max_turns": 0}
    for seed in range(10_000):
        players = 3 + seed % 4
        options = {"white_swap": "may"} if seed % 5 == 0 else None
        reasons[run_random_game(1_000_000 + seed, players, options)["reason"]] += 1
    assert sum(reasons.values()) == 10_000 and reasons["win"] > 0
