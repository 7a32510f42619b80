"""The built-in card games' observation layout (`arena.rules.encoding` documents it): where
each one-hot entry lies, and the card slots of piles and hands. A fill collects the entries
it sets to 1 in a list (``hot``) and sets them at once; these helpers append to it.

Kept apart from `Encoding` so that the compiled install (docs/compiled.md) can compile
them with the games' fills while `Encoding`, which rulesets build and may subclass, stays a
Python class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    import numpy as np


def faces(options: Mapping[str, Any]) -> dict[Any, int]:
    """Face -> one-hot position: the deck's faces sorted; None (not seen) is last."""
    names = sorted({face for pair in options["deck"] for face in pair})
    table: dict[Any, int] = {face: i for i, face in enumerate(names)}
    table[None] = len(names)
    return table


def put_card(hot: list[int], at: int, card: Mapping[str, Any] | None, first: str, second: str,
             faces: dict[Any, int]) -> None:
    """A card slot at `at`: one-hot of its `first` side, then of its `second` side (the
    positions to set are appended to `hot`, set at once by the caller)."""
    if card is None:
        return
    width = len(faces)
    hot.append(at + faces.get(card[first], width - 1))
    hot.append(at + width + faces.get(card[second], width - 1))


def put_hands(hot: list[int], at: int, hands: Sequence[Sequence[Mapping[str, Any]]], cap: int, slot: int,
              faces: dict[Any, int]) -> None:
    """Every seat's hand, `cap` positions of `slot` entries per seat (`put_card`'s layout
    for ``face`` and ``back``): the hot loop of the card games' encodings."""
    unknown = len(faces) - 1
    width = len(faces)
    get = faces.get
    append = hot.append
    for hand in hands:
        base = at
        for card in hand[:cap]:
            append(base + get(card["face"], unknown))
            append(base + width + get(card["back"], unknown))
            base += slot
        at += cap * slot


def places(at: int, choices: Sequence[Any]) -> dict[Any, int]:
    """Choice -> its entry of a one-hot block at `at` (``at + k`` for ``choices[k]``): a
    fill looks a value up here (a value that is no choice sets nothing), the same entry
    `one_hot` sets."""
    table: dict[Any, int] = {}
    for k, choice in enumerate(choices):
        table.setdefault(choice, at + k)
    return table


def one_hot(out: np.ndarray, at: int, value: Any, choices: Sequence[Any]) -> None:
    """Set ``out[at + k]`` where ``choices[k] == value`` (nothing if `value` is not one)."""
    if value in choices:
        out[at + choices.index(value)] = 1.0
