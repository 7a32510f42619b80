"""Flip Hue's cards: the colors and Flip, the provisional deck, and option `deck` checked
(a faction card's fitness included)."""

from __future__ import annotations

from typing import Any, Sequence

from arena.errors import OptionError

COLORS = ("red", "orange", "yellow", "green", "blue", "purple")
FLIP = "flip"


def default_deck() -> list[list[str]]:
    """The provisional 63-card deck (rulings): 45 two-color, 6 one-color, 12 Flip."""
    deck: list[list[str]] = []
    for i, first in enumerate(COLORS):
        for second in COLORS[i + 1:]:
            deck.extend([first, second] for _ in range(3))
    deck.extend([color, color] for color in COLORS)
    for color in COLORS:
        deck.extend([FLIP, color] for _ in range(2))
    return deck


DEFAULT_DECK = default_deck()


def fit_for_faction(pair: Sequence[str]) -> bool:
    """A faction card needs two different colors and no Flip face."""
    return pair[0] != pair[1] and FLIP not in (pair[0], pair[1])


def check_deck(deck: Any, players: int) -> None:
    """Raise OptionError unless `deck` is a valid Flip Hue deck for `players` players."""
    if not isinstance(deck, (list, tuple)):
        raise OptionError(f"option 'deck' must be a list of [face, face] pairs, not {deck!r}")
    fit = 0
    for index, pair in enumerate(deck):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise OptionError(f"option 'deck': card {index} must be a pair [face, face], not {pair!r}")
        for face in pair:
            if not isinstance(face, str) or not face:
                raise OptionError(f"option 'deck': card {index} has a face that is not a non-empty string: {face!r}")
        if pair[0] == FLIP and pair[1] == FLIP:
            raise OptionError(f"option 'deck': card {index} is Flip on both faces")
        fit += fit_for_faction(pair)
    needed = 6 * players + 1
    if len(deck) < needed:
        raise OptionError(f"option 'deck' has {len(deck)} cards; {players} players need at least {needed} "
                          f"(a faction card and 5 cards each, plus one)")
    if fit < players:
        raise OptionError(f"option 'deck' has {fit} cards fit to be a faction card (two different colors, "
                          f"no Flip); {players} players need {players}")
