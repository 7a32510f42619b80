"""Flip 7 information hiding: only the deck order is hidden, and nothing leaks it."""

from __future__ import annotations

import json
import random

from arena.rules.base import plain_copy
from arena.rules.flip_7 import CARD_ORDER, STATUS_NAMES, Flip7


def dump(value):
    # json text keeps dict order, so a count dict listed in deck order would differ
    return json.dumps(value, separators=(",", ":"))


def with_deck_permuted(state, rng, keep_top=0):
    """A copy of `state` whose deck below its top `keep_top` cards is shuffled, with the
    same pending events (what each seat has witnessed so far)."""
    twin = state.clone()
    twin._pending = [plain_copy(events) for events in state._pending]
    hidden = twin.deck[:len(twin.deck) - keep_top]
    rng.shuffle(hidden)
    twin.deck[:len(hidden)] = hidden
    return twin


def random_points(games=60, seed=0):
    """(state, rng) at random decision points of random games of 1-8 players."""
    rng = random.Random(seed)
    for game in range(games):
        state = Flip7.new_game(1 + game % 8, Flip7.resolve_options({"target_score": 80}), random.Random(game))
        while not state.is_terminal():
            if rng.random() < 0.15:
                yield state, rng            # the caller may apply an action
                if state.is_terminal():
                    break
            state.apply(rng.choice(state.legal_actions()))


def test_the_next_events_reveal_only_the_cards_drawn():
    """Permute the deck below the top 30 cards and take the same action in both games:
    while fewer than 30 cards were drawn, every seat sees the very same thing."""
    compared = 0
    for state, rng in random_points(seed=1):
        if len(state.deck) < 40:
            continue
        twin = with_deck_permuted(state, rng, keep_top=30)
        action = rng.choice(state.legal_actions())
        before = len(state.deck)
        for game in (state, twin):
            game.apply(action)
        if before - len(state.deck) >= 30 or len(state.deck) > before:
            continue
        for seat in range(state.players):
            assert dump(twin.take_events(seat)) == dump(state.take_events(seat))
            assert dump(twin.view(seat)) == dump(state.view(seat))
        assert twin.legal_actions() == state.legal_actions()
        compared += 1
    assert compared > 200


def test_every_seat_sees_the_same_public_table():
    for state, _ in random_points(games=20, seed=2):
        views = {dump(state.view(seat)) for seat in range(state.players)}
        assert len(views) == 1


def test_the_view_holds_no_card_ids_only_faces_and_public_numbers():
    """Every string is a card face or a documented word; every count dict is keyed by
    faces in the canonical order; every int is a seat, a score, a count or a value."""
    words = set(CARD_ORDER) | set(STATUS_NAMES) | {
        "deal", "play", "over", "hit-or-stay", "freeze", "flip-three", "second-chance", "hand-out"}
    for state, _ in random_points(games=30, seed=3):
        view = state.view(0)
        for name in ("set_aside", "unseen"):
            keys = list(view[name])
            assert keys == [c for c in CARD_ORDER if c in view[name]]
        stack = [view]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, str):
                assert item in words, item
            elif isinstance(item, bool) or item is None:
                pass
            else:
                assert isinstance(item, int) and 0 <= item < 10_000
