"""Flip Hue played out: golden transcripts and invariants over random games (determinism
and replay: the conformance kit, tests/test_conformance.py)."""

from __future__ import annotations

import random

import pytest

from arena.errors import IllegalActionError
from arena.match import Entrant, play_game
from arena.rules.flip_hue import DISCARD, DRAW, FLIP, HAND_SIZE, FlipHue, fit_for_faction
from arena_bots.random_bot import RandomBot

# (players, deal seed) -> transcript hash, with RandomBot in every seat.
GOLDEN = {
    (2, 1): "df424608e406a23740c27f4e1a2649d04bfbc0af8f4edfad2710b64a83e24eb2",
    (3, 2): "2de340c097e7bf889e4c078c86706f3257bdbd6bd0a2222bb28ba7bc7b9c93e5",
    (4, 2): "bda76f2c533c4f48858dfda8a986a9a2dc2df9a036fe595a1b4897c85897e5f4",
    (4, 5): "c9f4740616bef1bfe4a9d89ecba03d1075f4695ca5efabba06dedd999677479a",
    (6, 4): "622d3e878017cd84dcf4cb0edbcda34a7a448268714942322c6ff9b2dd6e02fc",
}


def _play(players, seed, options=None):
    return play_game(FlipHue, [Entrant(RandomBot)] * players, seed, options=options)


@pytest.mark.parametrize("players, seed", sorted(GOLDEN))
def test_golden_transcripts(players, seed):
    result = _play(players, seed)
    assert result.record["transcript_hash"] == GOLDEN[(players, seed)]


def test_golden_sample_has_wins_and_max_turns():
    reasons = {_play(p, s).record["outcome"]["reason"] for p, s in [(3, 2), (4, 2)]}
    assert reasons == {"win", "max_turns"}


# -- invariants over random games ------------------------------------------------------------------


def _check_locations(state, deck_size):
    table = state.table
    places = [c for hand in table.hands for c in hand]
    places += table.piles[DRAW] + table.piles[DISCARD] + list(state.faction)
    assert sorted(places) == list(range(deck_size)), "every card in exactly one place"


def run_random_game(players, seed, check_every=1):
    """Play one game with uniform random actions straight on the engine, checking the
    invariants; return the final state."""
    options = FlipHue.resolve_options({})
    state = FlipHue.new_game(players, options, random.Random(seed))
    rng = random.Random(seed ^ 0x5EED)
    table = state.table
    faces = table.faces
    original = tuple(faces)
    deck_size = len(options["deck"])
    assert deck_size == 63
    for seat in range(players):
        assert fit_for_faction(faces[state.faction[seat]])
    _check_locations(state, deck_size)
    decisions = 0
    last_turn = 0
    while not state.is_terminal():
        seat = state.current_seat()
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if state.turn != last_turn:
            # a new turn begins with every hand at 5 (cleanup refilled them)
            last_turn = state.turn
            assert state.step == "push" and seat == state.active
            assert [len(h) for h in table.hands] == [HAND_SIZE] * players
            assert state.turn <= state.options["max_turns"]
        if state.step == "answer":
            flips = [p for p, c in enumerate(table.hands[seat]) if table.face(c) == FLIP]
            assert legal == ["allow"] + [f"block:{p}" for p in flips]
        if decisions % 97 == 0:
            with pytest.raises(IllegalActionError):
                state.apply("give:99:0")
        action = rng.choice(legal)
        state.apply(action)
        decisions += 1
        assert all(4 <= len(h) <= 6 for h in table.hands)
        assert table.count() + players == deck_size  # conservation
        assert table.piles[DRAW] or not table.piles[DISCARD]  # refilled at once
        if decisions % check_every == 0:
            _check_locations(state, deck_size)
        assert decisions < 20 * state.options["max_turns"] * players, "game does not end"
    assert table.faces is faces and tuple(table.faces) == original  # faces never change
    _check_locations(state, deck_size)
    outcome = state.outcome()
    assert outcome["reason"] in ("win", "max_turns")
    if outcome["reason"] == "win":
        assert sorted(outcome["standing"]) == [1] + [2] * (players - 1)
        assert state.find_win() is not None
        assert [len(h) for h in table.hands] == [HAND_SIZE] * players
    else:
        assert outcome["standing"] == [1] * players and state.turn == state.options["max_turns"]
    return state


def test_random_games_keep_the_invariants():
    reasons = {"win": 0, "max_turns": 0}
    for index in range(100):  # 10 wins and 90 games to max_turns; the slow test plays 10,000
        players = 2 + index % 5
        state = run_random_game(players, 1000 + index, check_every=29)
        reasons[state.outcome()["reason"]] += 1
    assert reasons["win"] > 0 and reasons["max_turns"] > 0


@pytest.mark.slow
def test_ten_thousand_random_games_keep_the_invariants():
    for index in range(10_000):
        run_random_game(2 + index % 5, 50_000 + index, check_every=13)
