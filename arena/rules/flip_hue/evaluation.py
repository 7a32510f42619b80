"""Flip Hue's `evaluate` (`Ruleset.capabilities`): each seat's longest line toward five of
its faction colors, compared seat by seat. It reads what the seats see: each seat's own
faction as it knows it, its own faces, the backs of the other hands as `me` sees them."""

from __future__ import annotations

from typing import Any

from arena.rules.evaluation import pairwise


def evaluate_flip_hue(state: Any, me: int) -> list[float]:
    """The longest line toward five of a seat's faction colors (own faces, or another hand's
    backs: both win); a line of k counts (k / 5) ** 2 * 5."""
    # the parts of state.view(seat) this reads, without building whole views
    table = state.table
    hands = table.hands_view(me)
    values = []
    for seat in range(state.players):
        colors = [color for color in state.factions_seen_by(seat)[seat] if color is not None]
        own_hand = hands[seat] if seat == me else table.hand_view(seat, seat)
        best = 0
        for color in colors:
            best = max(best, sum(1 for card in own_hand if card["face"] == color))
            for other, hand in enumerate(hands):
                if other != seat:
                    best = max(best, sum(1 for card in hand if card["back"] == color))
        values.append(best * best / 5.0)
    return pairwise(values, 1.0)
