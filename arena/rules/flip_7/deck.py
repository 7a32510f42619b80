"""Flip 7's cards: the card names, one deck's composition, the deck of a table, and cards
counted in the canonical order (as a view reports a pile)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

NUMBERS = tuple(str(n) for n in range(13))
MODIFIERS = ("+2", "+4", "+6", "+8", "+10", "x2")
ACTION_CARDS = ("freeze", "flip-three", "second-chance")
CARD_ORDER = NUMBERS + MODIFIERS + ACTION_CARDS

ONE_DECK: tuple[str, ...] = (
    ("0",) + tuple(str(n) for n in range(1, 13) for _ in range(n))
    + MODIFIERS + tuple(card for card in ACTION_CARDS for _ in range(3))
)
assert len(ONE_DECK) == 94

_LIMIT = Counter(ONE_DECK)
SECOND_DECK_ABOVE = 18   # players; the seed's recommendation


def deck_for(players: int, cards: Sequence[str] = ONE_DECK) -> list[str]:
    """The unshuffled deck for a table of `players`: `cards` (option ``deck``), twice above
    `SECOND_DECK_ABOVE` players."""
    return list(cards) * (2 if players > SECOND_DECK_ABOVE else 1)


def deck_problem(cards: Any) -> str | None:
    """Why `cards` cannot be option ``deck`` (a list of card names, each at most as often as
    in `ONE_DECK`, one number card at least), or None. Bounded by one standard deck, the
    encoding's counts, the chance bound and the sampler hold for every allowed deck."""
    if not isinstance(cards, (list, tuple)) or not cards:
        return f"must be a non-empty list of card names, not {cards!r}"
    counts: Counter[str] = Counter()
    for index, card in enumerate(cards):
        if card not in _LIMIT:
            return f"card {index} is {card!r}, not a Flip 7 card ({', '.join(CARD_ORDER)})"
        counts[card] += 1
        if counts[card] > _LIMIT[card]:
            return f"holds {counts[card]} {card!r} cards; one standard deck has {_LIMIT[card]}"
    if not any(card in NUMBERS for card in counts):
        return "holds no number card"
    return None


def card_counts(cards: list[str]) -> dict[str, int]:
    """{card: count} in the canonical card order, zero counts left out."""
    counts = Counter(cards)                   # counted in C
    return {card: counts[card] for card in CARD_ORDER if card in counts}
