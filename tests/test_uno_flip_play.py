"""UNO Flip: golden transcripts and invariants over random games (determinism, replay
and clones: the conformance kit, tests/test_conformance.py)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from arena.match import Entrant, play_game
from arena.rules.uno_flip import UnoFlip, load_deck
from arena_bots.random_bot import RandomBot

DECK_PAIRS = Counter(load_deck().faces)

# (deal seed, players, options) -> transcript hash, recorded from this engine (version "2"; the
# decisions and outcomes are those of version "1", the hash covers the version, the deck
# option and the outcome's "hands").
GOLDEN = [
    (11, 2, {"target_score": 100}, "74f07f5ce6860f4d09fbc8231899d48742adc0ba5560754f2bfac5529a2dc346"),
    (22, 4, {"target_score": 0}, "ea9c888657cb7dbab3357f9fd462b8676ee89af4e2cfdd7e28bec76c437f7414"),
    (34, 6, {"scoring": "lowest", "opening_action": "redraw", "target_score": 300},
     "be143e018ace8746579893d7e4960e9b1821cffa9c5298d4c91458e9baba18f4"),
    (44, 10, {"target_score": 0, "two_player_reverse_skips": False, "uno_penalty": 4},
     "5b11c477ac9b7f3cd7019c3d5bf7c6c29e2103f1130ea6327dd90ddf981ede18"),
    (55, 4, {}, "67f37277236d8aae263c60b6b3fc6bded168e57ce0de2ab7348729191f198ac6"),
]


def play(seed, players, options=None):
    return play_game(UnoFlip, [Entrant(RandomBot)] * players, seed, options)


@pytest.mark.parametrize("seed, players, options, expected", GOLDEN)
def test_golden_transcripts(seed, players, options, expected):
    record = play(seed, players, options).record
    assert record["transcript_hash"] == expected


# -- invariants -------------------------------------------------------------------------


def check_table(state):
    """Every card accounted for, each in its right orientation."""
    table = state.table
    everything = [c for hand in table.hands for c in hand] + table.piles["draw"] + table.piles["discard"]
    assert len(everything) == 112 and len(set(everything)) == 112
    assert table.faces == load_deck().faces  # the two faces of each card never change
    active = state.active
    assert all(table.side[c] == active for hand in table.hands for c in hand)
    assert all(table.side[c] == 1 - active for c in table.piles["draw"])
    assert all(table.side[c] == active for c in table.piles["discard"])
    assert table.piles["discard"]  # a discard pile always shows a card
    assert state.turns <= state.max_turns


def check_observation(state, seat, events):
    view = state.view(seat)
    json.dumps(view)
    for holder, cards in enumerate(view["hands"]):
        assert len(cards) == len(state.table.hands[holder])
        for card in cards:
            if holder == seat:
                assert card["face"] is not None and card["back"] is not None
            else:
                assert card["back"] is not None  # everyone sees the inactive side
            if card["face"] is not None and card["back"] is not None:
                pair = (card["face"], card["back"]) if view["side"] == "light" else (card["back"], card["face"])
                assert pair in DECK_PAIRS
    for event in events:
        if event["type"] == "play":  # a played card's two faces are a pair of the deck
            pair = (event["card"], event["back"])
            assert pair in DECK_PAIRS or pair[::-1] in DECK_PAIRS


def run_checked(seed, players, options, rng_actions):
    """Play a game with uniformly random legal actions, checking invariants each step."""
    state = UnoFlip.new_game(players, UnoFlip.resolve_options(options), random.Random(seed))
    decisions = 0
    while (seat := state.current_seat()) is not None:
        if decisions % 3 == 0:
            check_table(state)
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if decisions % 7 == 0:
            check_observation(state, seat, state.take_events(seat))
        state.apply(rng_actions.choice(legal))
        decisions += 1
        assert decisions < 200_000
    check_table(state)
    out = state.outcome()
    assert sorted(out) == ["hands", "points", "reason", "round_turns", "rounds", "scores", "standing"]
    if out["reason"] != "max_turns":   # the last round ended: its hands, as shown to all
        assert out["hands"] == [[state.table.face(c) for c in hand] for hand in state.table.hands]
    assert len(out["standing"]) == players and min(out["standing"]) == 1
    assert all(t <= state.max_turns for t in out["round_turns"])
    if out["reason"] == "target":
        assert max(out["scores"]) >= state.target
    return out


OPTION_MIX = [
    {"target_score": 0},
    {"target_score": 0, "opening_action": "redraw"},
    {"target_score": 0, "scoring": "lowest", "uno_penalty": 0},
    {"target_score": 150, "two_player_reverse_skips": False, "max_turns": 300},
    {"target_score": 0, "max_turns": 50},
]


def test_random_games_keep_every_invariant_sample():
    rng = random.Random(2024)
    reasons = Counter()
    for game in range(200):
        players = 2 + game % 9
        out = run_checked(game, players, OPTION_MIX[game % len(OPTION_MIX)], rng)
        reasons[out["reason"]] += 1
    assert reasons["win"] > 0 and reasons["target"] > 0 and reasons["max_turns"] > 0


@pytest.mark.slow
def test_ten_thousand_random_games_keep_every_invariant():
    rng = random.Random(7)
    for game in range(10_000):
        players = 2 + game % 9
        options = OPTION_MIX[game % len(OPTION_MIX)] if game % 10 else {}
        run_checked(10_000 + game, players, options, rng)
