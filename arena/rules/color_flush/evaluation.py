"""Color Flush's `evaluate` (`Ruleset.capabilities`): each hand's distance to a flush, as
its holder knows it (the faces toward it, the backs it has seen), compared seat by seat.
`distance` is also how color-flush-heuristic scores hands."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from arena.rules.evaluation import pairwise

Face = Optional[str]
Card = tuple[Face, Face]   # (the face toward the holder, its back), None where unknown

WHITE = "white"
BLACK = "black"
GOOD_BACK, UNKNOWN_BACK, BAD_BACK, UNKNOWN_FACE = 1.0, 1.3, 1.6, 0.8
SHORT = 0.3  # per missing good face below 4
_NOT_COLORS: frozenset[Face] = frozenset((None, WHITE, BLACK))


def distance(hand: list[Card]) -> float:
    """How far a hand is from a flush (0: it wins)."""
    return tuple_distance(tuple(hand))


@lru_cache(maxsize=1 << 16)
def tuple_distance(hand: tuple[Card, ...]) -> float:
    """`distance` of a hand given as a tuple (memoized: search bots score the same hands
    over and over)."""
    colors: set[Face] = set()
    add = colors.add
    for face, back in hand:
        add(face)
        add(back)
    colors -= _NOT_COLORS   # min over the colors below: their order does not matter
    if not colors:
        unknown = sum(face is None for face, _ in hand)
        return UNKNOWN_FACE * unknown
    best = float("inf")
    for color in colors:
        cost = 0.0
        good = 0
        for face, back in hand:
            if face == color or face == WHITE:
                good += 1
            elif face is None:
                cost += UNKNOWN_FACE
            elif back == color or back == WHITE:
                cost += GOOD_BACK
            elif back is None:
                cost += UNKNOWN_BACK
            else:
                cost += BAD_BACK
        if good < 4:
            cost += SHORT * (4 - good)
        if cost < best:
            best = cost
    return best


def evaluate_color_flush(state: Any, me: int) -> list[float]:
    """Minus the distance to a flush (`distance`), on each hand as its holder knows it."""
    values = []
    for seat in range(state.players):
        hand = state.table.hand_view(seat, seat)   # == state.view(seat)["hands"][seat], cheaper
        values.append(-distance([(card["face"], card["back"]) for card in hand]))
    return pairwise(values, 1.0)
