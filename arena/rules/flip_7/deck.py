"""Flip 7's cards: the card names, one deck's composition, the deck of a table, and cards
counted in the canonical order (as a view reports a pile)."""

from __future__ import annotations

from collections import Counter

NUMBERS = tuple(str(n) for n in range(13))
MODIFIERS = ("+2", "+4", "+6", "+8", "+10", "x2")
ACTION_CARDS = ("freeze", "flip-three", "second-chance")
CARD_ORDER = NUMBERS + MODIFIERS + ACTION_CARDS

ONE_DECK: tuple[str, ...] = (
    ("0",) + tuple(str(n) for n in range(1, 13) for _ in range(n))
    + MODIFIERS + tuple(card for card in ACTION_CARDS for _ in range(3))
)
assert len(ONE_DECK) == 94

SECOND_DECK_ABOVE = 18   # players; the seed's recommendation


def deck_for(players: int) -> list[str]:
    """The unshuffled deck for a table of `players`."""
    return list(ONE_DECK) * (2 if players > SECOND_DECK_ABOVE else 1)


def card_counts(cards: list[str]) -> dict[str, int]:
    """{card: count} in the canonical card order, zero counts left out."""
    counts = Counter(cards)                   # counted in C
    return {card: counts[card] for card in CARD_ORDER if card in counts}
