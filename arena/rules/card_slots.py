"""The built-in card games' observation layout (`arena.rules.encoding` documents it): where
each one-hot entry lies, and the card slots of piles and hands. A fill collects the entries
it sets to 1 in a list (``hot``) and sets them at once; these helpers append to it.

The same slots are also written straight from an engine's `TwoFacedTable` for one viewer
(`SlotCodes`, `put_table_hands`, `put_table_top`): what the view's `hands_view` and
`top_view` would show that viewer, read from the table's sides and seen bits, so an
environment's array needs no view.

Kept apart from `Encoding` so that the compiled install (docs/compiled.md) can compile
them with the games' fills while `Encoding`, which rulesets build and may subclass, stays a
Python class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.rules.cards import TwoFacedTable

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


class SlotCodes:
    """A card slot's two entries for every card of a table with sides `pairs`, as each viewer
    may know it: ``first[key]`` and ``second[key]`` (offsets in the slot) for
    ``key = card << 3 | side toward its holder (or up) << 2 | the sides the viewer has seen``
    (a bitmask: 1 side 0, 2 side 1). An unseen side is the slot's "not seen" entry, as in
    `put_card` of the view's ``None``."""

    def __init__(self, pairs: Sequence[tuple[str, str]], faces: dict[Any, int]):
        self.pairs = pairs
        """The table's ``faces`` these codes were made for (compared by identity)."""
        width = len(faces)
        unknown = width - 1
        self.first: list[int] = []
        self.second: list[int] = []
        for a, b in pairs:
            sides = (faces.get(a, unknown), faces.get(b, unknown))
            for toward in (0, 1):
                for known in range(4):
                    self.first.append(sides[toward] if known >> toward & 1 else unknown)
                    self.second.append(width + (sides[1 - toward] if known >> (1 - toward) & 1 else unknown))


def slot_codes(codes: SlotCodes | None, table: TwoFacedTable, faces: dict[Any, int]) -> SlotCodes:
    """`codes` if made for `table`'s cards, else new ones (a table of other cards: a new game's)."""
    if codes is not None and codes.pairs is table.faces:
        return codes
    return SlotCodes(table.faces, faces)


def put_table_hands(hot: list[int], at: int, table: TwoFacedTable, viewer: int, cap: int, slot: int,
                    codes: SlotCodes) -> None:
    """`put_hands` of every hand of `table` as `viewer` knows it, read from the table (the
    same entries as from ``table.hands_view(viewer)``)."""
    first, second = codes.first, codes.second
    side, seen = table.side, table.seen
    shift = 2 * viewer
    for hand in table.hands:
        base = at
        for card in hand if len(hand) <= cap else hand[:cap]:
            key = card << 3 | side[card] << 2 | (seen[card] >> shift & 3)
            hot.append(base + first[key])
            hot.append(base + second[key])
            base += slot
        at += cap * slot


def put_table_top(hot: list[int], at: int, table: TwoFacedTable, pile: str, viewer: int, codes: SlotCodes) -> None:
    """The slot of `pile`'s top card as `viewer` knows it, up side first (the entries of
    ``table.top_view(pile, viewer)``); nothing for an empty pile."""
    cards = table.piles[pile]
    if cards:
        card = cards[-1]
        key = card << 3 | table.side[card] << 2 | (table.seen[card] >> 2 * viewer & 3)
        hot.append(at + codes.first[key])
        hot.append(at + codes.second[key])
