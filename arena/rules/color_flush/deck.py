"""Color Flush's cards: the colors, white and black, the default deck, and option `deck`
checked."""

from __future__ import annotations

import re
from typing import Any

from arena.errors import OptionError

COLORS = ("red", "yellow", "green", "blue", "purple")
WHITE = "white"
BLACK = "black"
DECK_MIN = 14
DECK_MAX = 1000
FACE_PATTERN = re.compile(r"^[a-z][a-z0-9-]*$")


def _default_deck() -> list[list[str]]:
    deck: list[list[str]] = []
    for i, first in enumerate(COLORS):
        for second in COLORS[i + 1:]:
            deck.extend([first, second] for _ in range(4))
    deck.extend([WHITE, color] for color in COLORS)
    deck.extend([BLACK, color] for color in COLORS)
    return deck


DEFAULT_DECK = _default_deck()


def check_deck(deck: Any) -> None:
    """Raise OptionError unless `deck` (option `deck`) holds `DECK_MIN` to `DECK_MAX` pairs of
    faces, each a lowercase word, none black on both faces."""
    if not DECK_MIN <= len(deck) <= DECK_MAX:
        raise OptionError(f"option 'deck' must hold {DECK_MIN} to {DECK_MAX} cards, not {len(deck)}")
    for index, card in enumerate(deck):
        if not isinstance(card, (list, tuple)) or len(card) != 2:
            raise OptionError(f"option 'deck': card {index} must be a pair of faces, not {card!r}")
        for face in card:
            if not isinstance(face, str) or not FACE_PATTERN.match(face):
                raise OptionError(f"option 'deck': card {index} has a bad face {face!r} "
                                  f"(a lowercase word such as 'red', 'white' or 'black')")
        if card[0] == BLACK and card[1] == BLACK:
            raise OptionError(f"option 'deck': card {index} is black on both faces")
