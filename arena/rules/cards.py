"""Two-faced cards, hands and piles, with each seat's perfect-recall knowledge of faces.

The physical model shared by UNO Flip, Color Flush and Flip Hue
(../shared/rules/README.md):

- A card has two sides, ``faces[card] = (side0, side1)``, that never change.
- A card in a hand has one side toward its holder (its *face*) and the other toward
  everyone else (its *back*). A card on a pile has one side *up*. ``side[card]`` is
  the index of the side toward the holder, or up.
- A card moved between players without flipping keeps its physical orientation, so
  face and back swap relative to the new holder. Flipping a card swaps them too.
- A pile is a stack (a list, bottom first, top last); everyone sees the up side of
  its top card. A hand is ordered by arrival; positions point at cards.
- ``seen[card]`` is a bitmask: bit ``2*seat + side`` is set once `seat` has seen
  that side. Every move marks what the table shows; a shuffle forgets the cards'
  history. Views built from it give each seat exactly the faces it has seen.

Cards are engine-internal ints (indices into `faces`). They never appear in a
view: a card is described only by the faces the viewer has seen and its position.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Mapping, Sequence

from arena.rules.chance import Chance


# Per card, per side toward its holder, per bitmask of sides seen: a card view (see `_views_for`).
_ViewTable = tuple[tuple[tuple[dict[str, str | None], ...], ...], ...]


class TwoFacedTable:
    """The cards of one game: which side of each is toward its holder or up, the
    hands, the piles, and who has seen which side of which card."""

    def __init__(self, faces: Sequence[tuple[str, str]], players: int, fresh: bool = True):
        """`faces[card]`: the card's two sides. With ``fresh=False`` no field is set: the
        caller (`clone`) sets them all."""
        if not fresh:
            return
        self.faces: tuple[tuple[str, str], ...] = tuple((a, b) for a, b in faces)
        self.players = players
        self.side: list[int] = [0] * len(self.faces)
        self.seen: list[int] = [0] * len(self.faces)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.piles: dict[str, list[int]] = {}
        # Bits of `seen` meaning "every seat has seen side 0 / side 1".
        self._everyone = tuple(sum(1 << (2 * s + side) for s in range(players)) for side in (0, 1))
        # Bits of `seen` that a held card shows, per holder and side toward it: that side
        # to the holder, the other side to every other seat.
        self._held_bits = tuple(tuple((1 << (2 * holder + toward))
                                 | (self._everyone[1 - toward] & ~(1 << (2 * holder + 1 - toward)))
                                 for toward in (0, 1))
                           for holder in range(players))
        self._view_faces: tuple[tuple[str, str], ...] | None = None  # what _view_table was built for
        self._view_table: _ViewTable = ()

    def clone(self) -> TwoFacedTable:
        """An independent copy (faces are immutable and shared)."""
        # every field by name: a compiled table (docs/compiled.md) has no __dict__ to copy
        twin = TwoFacedTable((), 0, fresh=False)
        twin.faces = self.faces
        twin.players = self.players
        twin.side = self.side.copy()
        twin.seen = self.seen.copy()
        twin.hands = [hand.copy() for hand in self.hands]
        twin.piles = {name: pile.copy() for name, pile in self.piles.items()}
        twin._everyone, twin._held_bits = self._everyone, self._held_bits
        twin._view_faces, twin._view_table = self._view_faces, self._view_table
        return twin

    # -- reading ---------------------------------------------------------------

    def face(self, card: int) -> str:
        """The side toward the card's holder (or up, on a pile)."""
        return self.faces[card][self.side[card]]

    def back(self, card: int) -> str:
        """The side away from the card's holder (or down, on a pile)."""
        return self.faces[card][1 - self.side[card]]

    def card_name(self, card: int) -> str:
        """`card` named by its sides as it lies: "face/back" (or "up/down" on a pile),
        e.g. a draw's chance outcome (`GameState.chance_pile`)."""
        side = self.side[card]
        pair = self.faces[card]
        return f"{pair[side]}/{pair[1 - side]}"

    def reveal_all(self) -> None:
        """Every seat has now seen every side of every card (a god view's table)."""
        everything = (1 << (2 * self.players)) - 1
        self.seen = [everything] * len(self.seen)

    def has_seen(self, seat: int, card: int, side: int) -> bool:
        return bool(self.seen[card] >> (2 * seat + side) & 1)

    def top(self, pile: str) -> int | None:
        cards = self.piles[pile]
        return cards[-1] if cards else None

    def card_view(self, card: int, viewer: int) -> dict[str, str | None]:
        """``{"face", "back"}`` of a held card as `viewer` knows it (None: not seen)."""
        toward = self.side[card]
        known = self.seen[card] >> (2 * viewer)
        a, b = self.faces[card]
        sides = (a if known & 1 else None, b if known & 2 else None)
        return {"face": sides[toward], "back": sides[1 - toward]}

    def hand_view(self, holder: int, viewer: int) -> list[dict[str, str | None]]:
        """The cards of `holder`'s hand in order, as `viewer` knows them."""
        return self._known_hands((self.hands[holder],), viewer)[0]

    def hands_view(self, viewer: int) -> list[list[dict[str, str | None]]]:
        """Every hand, seats in order, as `viewer` knows it (`hand_view` of each)."""
        return self._known_hands(self.hands, viewer)

    def _known_hands(self, hands: Sequence[list[int]], viewer: int) -> list[list[dict[str, str | None]]]:
        """`card_view` of every card of `hands`, as one list per hand."""
        if TwoFacedTable.card_view is not _CARD_VIEW:  # a replaced card_view is the definition
            return [[self.card_view(card, viewer) for card in hand] for hand in hands]
        # The hot path of every observation: the same dicts as `card_view`, copied from
        # a per-card table of its 8 possible answers (side toward x sides seen).
        views = self._view_table if self._view_faces is self.faces else self._build_views()
        side, seen, sides_seen = self.side, self.seen, _sides_seen(self.players, viewer)
        known = []
        for hand in hands:
            row = []
            for card in hand:
                row.append(views[card][side[card]][sides_seen[seen[card]]].copy())
            known.append(row)
        return known

    def views_by_seat(self, card: int, pile: bool = False) -> tuple[list[dict[str, str | None]], dict[str, str]]:
        """`card` as each seat knows it, seats in order, as fresh dicts: ``{"face",
        "back"}`` relative to its holder, or ``{"up", "down"}`` on a pile (`pile`);
        and the same with both sides shown (the god view)."""
        toward = self.side[card]
        face, back = self.faces[card][toward], self.faces[card][1 - toward]
        keys = ("up", "down") if pile else ("face", "back")
        known = self.seen[card]
        views = []
        # hot path: `card_view` inlined (bit 2*viewer + side of `seen`: viewer saw that side)
        for viewer in range(self.players):
            bits = known >> (2 * viewer)
            views.append({keys[0]: face if bits >> toward & 1 else None,
                          keys[1]: back if bits >> (1 - toward) & 1 else None})
        return views, {keys[0]: face, keys[1]: back}

    def top_view(self, pile: str, viewer: int) -> dict[str, str | None] | None:
        """``{"up", "down"}`` of a pile's top card as `viewer` knows it, or None."""
        cards = self.piles[pile]
        if not cards:
            return None
        card = cards[-1]
        if TwoFacedTable.card_view is not _CARD_VIEW:
            view = self.card_view(card, viewer)
            return {"up": view["face"], "down": view["back"]}
        views = self._view_table if self._view_faces is self.faces else self._build_views()
        face, back = views[card][self.side[card]][self.seen[card] >> 2 * viewer & 3].values()
        return {"up": face, "down": back}

    def share_views(self) -> None:
        """Build the view table now, so that every clone of this table shares it (a sampler
        calls this once per sample, before a search clones the sampled state)."""
        self._build_views()

    def _build_views(self) -> _ViewTable:
        """Make `_view_table` (shared by clones; its entries shared by every table that
        holds the same card pairs)."""
        self._view_table = _views_for(self.faces)
        self._view_faces = self.faces
        return self._view_table

    # -- marking what the table shows -------------------------------------------

    def see(self, card: int, side: int, seats: Sequence[int]) -> None:
        """Mark that each of `seats` has seen side `side` of `card`."""
        for seat in seats:
            self.seen[card] |= 1 << (2 * seat + side)

    def see_both(self, card: int, seat: int) -> None:
        """Mark that `seat` has looked at both sides of `card`."""
        self.seen[card] |= 3 << (2 * seat)

    def show_held(self, holder: int, card: int) -> None:
        """Mark what the table shows of a held card: its face to the holder, its back
        to everyone else. (The moves below call it; a test laying out a position by
        hand calls it too.)"""
        self._show_held(holder, card)

    def show_top(self, pile: str) -> None:
        """Mark the up side of `pile`'s top card as seen by everyone."""
        self._show_top(pile)

    def _show_held(self, holder: int, card: int) -> None:
        # The holder sees the face; every other seat sees the back.
        self.seen[card] |= self._held_bits[holder][self.side[card]]

    def _show_top(self, pile: str) -> None:
        cards = self.piles[pile]
        if cards:
            card = cards[-1]
            self.seen[card] |= self._everyone[self.side[card]]

    # -- moving cards ----------------------------------------------------------

    def new_pile(self, name: str, cards: Sequence[int], up_sides: Sequence[int] | None = None) -> None:
        """Lay `cards` (bottom first) as pile `name`, with the given sides up
        (default: keep each card's current `side`)."""
        self.piles[name] = list(cards)
        if up_sides is not None:
            for card, up in zip(cards, up_sides):
                self.side[card] = up
        self._show_top(name)

    def take_top(self, pile: str) -> int:
        """Remove and return the top card of `pile` (to lay it outside any hand);
        the card below is shown."""
        card = self.piles[pile].pop()
        self._show_top(pile)
        return card

    def deal(self, pile: str, seat: int, toward: str) -> int:
        """Take the top card of `pile` into `seat`'s hand and return it.

        `toward` says which side ends up toward the taker: "up" (the side that
        showed on the pile) or "down".
        """
        card = self.piles[pile].pop()
        if toward == "down":
            self.side[card] ^= 1
        elif toward != "up":
            raise ValueError(f"toward must be 'up' or 'down', not {toward!r}")
        self.hands[seat].append(card)
        self._show_held(seat, card)
        self._show_top(pile)
        return card

    def remove(self, seat: int, position: int) -> int:
        """Take the card at `position` out of `seat`'s hand (the gap closes)."""
        return self.hands[seat].pop(position)

    def add(self, seat: int, card: int, *, transferred: bool) -> None:
        """Put `card` at the end of `seat`'s hand. `transferred=True` means it came
        from another player without flipping, so face and back swap."""
        if transferred:
            self.side[card] ^= 1
        self.hands[seat].append(card)
        self._show_held(seat, card)

    def give(self, giver: int, position: int, receiver: int) -> int:
        """Move a card between players without flipping; return it."""
        card = self.hands[giver].pop(position)
        self.add(receiver, card, transferred=True)
        return card

    def place(self, seat: int, position: int, pile: str, up: str = "face") -> int:
        """Put a hand card on top of `pile` with its face (toward the holder) or its
        back up; return it."""
        card = self.hands[seat].pop(position)
        if up == "back":
            self.side[card] ^= 1
        elif up != "face":
            raise ValueError(f"up must be 'face' or 'back', not {up!r}")
        self.piles[pile].append(card)
        self._show_top(pile)
        return card

    def flip_card(self, seat: int, position: int) -> int:
        """Turn one hand card around in place; return it."""
        card = self.hands[seat][position]
        self.side[card] ^= 1
        self._show_held(seat, card)
        return card

    def flip_hand(self, seat: int) -> None:
        """Turn every card of `seat`'s hand around."""
        for card in self.hands[seat]:
            self.side[card] ^= 1
            self._show_held(seat, card)

    def swap_hands(self, a: int, b: int) -> None:
        """Exchange two whole hands without flipping (face and back swap)."""
        hand_a, hand_b = self.hands[a], self.hands[b]
        self.hands[a], self.hands[b] = [], []
        for card in hand_b:
            self.add(a, card, transferred=True)
        for card in hand_a:
            self.add(b, card, transferred=True)

    def turn_over(self, pile: str) -> None:
        """Turn a whole pile over: its order reverses and every card's other side is up."""
        cards = self.piles[pile]
        cards.reverse()
        for card in cards:
            self.side[card] ^= 1
        self._show_top(pile)

    def shuffle(self, pile: str, chance: Chance | random.Random, up_sides: Sequence[int] | None = None) -> None:
        """Shuffle `pile` by `chance` (one chance point); the cards' history is forgotten. Orientation
        is kept unless `up_sides` (per card id, e.g. a list over all cards) says
        which side of each card goes up."""
        cards = self.piles[pile]
        chance.shuffle(cards)
        for card in cards:
            self.seen[card] = 0
            if up_sides is not None:
                self.side[card] = up_sides[card]
        self._show_top(pile)

    def move_pile(self, source: str, target: str, keep_top: bool = False) -> None:
        """Put every card of `source` (but its top card if `keep_top`) on `target`,
        keeping order and orientation."""
        cards = self.piles[source]
        moving = cards[:-1] if keep_top else cards[:]
        self.piles[source] = cards[-1:] if keep_top else []
        self.piles[target].extend(moving)
        self._show_top(target)

    def count(self) -> int:
        """How many cards are in hands and piles (for conservation checks)."""
        return sum(map(len, self.hands)) + sum(map(len, self.piles.values()))

    def __reduce__(self) -> tuple[Any, ...]:
        # pickles and deep copies rebuild through `_rebuilt_table`: compiled (docs/compiled.md),
        # a table has no __dict__ for their defaults to copy
        return _rebuilt_table, (self.faces, self.players, self.side, self.seen, self.hands, self.piles)


def seen_toward(table: TwoFacedTable, cards: Sequence[int]) -> list[int]:
    """The `seen` bits of `cards`, each re-based so that side 0 is its side toward its holder
    (or up): bit ``2*seat`` for that side, ``2*seat + 1`` for the other."""
    seen, side = table.seen, table.side
    side_0 = int("01" * table.players, 2)   # the bit of side 0, for every seat
    out = []
    for card in cards:
        bits = seen[card]
        if side[card]:
            bits = ((bits >> 1) & side_0) | ((bits & side_0) << 1)
        out.append(bits)
    return out


def unseen_places(table: TwoFacedTable, pile: str) -> list[int]:
    """Positions in `pile` (bottom first) of the cards no seat has seen a side of."""
    seen = table.seen
    return [i for i, card in enumerate(table.piles[pile]) if not seen[card]]


def shuffle_unseen(table: TwoFacedTable, pile: str, rng: random.Random) -> list[tuple[int, int]]:
    """Reorder uniformly from `rng`, among their places, the cards of `pile` no seat has seen
    a side of (what a game whose shuffles forget the cards' history leaves unrevealed there;
    sides unchanged). Returns ``(place, card)`` as they now lie, bottom first."""
    cards = table.piles[pile]
    places = unseen_places(table, pile)
    moved = [cards[i] for i in places]
    rng.shuffle(moved)
    for place, card in zip(places, moved):
        cards[place] = card
    return list(zip(places, moved))


def _rebuilt_table(faces: tuple[tuple[str, str], ...], players: int, side: list[int], seen: list[int],
                   hands: list[list[int]], piles: dict[str, list[int]]) -> TwoFacedTable:
    """The table `TwoFacedTable.__reduce__` describes (its view table built when next needed)."""
    table = TwoFacedTable(faces, players)
    table.side, table.seen, table.hands, table.piles = side, seen, hands, piles
    return table


_CARD_VIEW = TwoFacedTable.card_view


def _views_for(faces: tuple[tuple[str, str], ...]) -> _ViewTable:
    """``[card][side][known]``: `card_view`'s answer for `card` with `side` toward its
    holder, to a viewer who has seen the sides in bitmask `known` (8 per card).
    Assembled from per-pair entries, so a sampler's freshly dealt deck costs a lookup per
    card; callers copy the dicts they hand out."""
    return tuple(map(_pair_views, faces))


@functools.lru_cache(maxsize=4096)
def _pair_views(pair: tuple[str, str]) -> tuple[tuple[dict[str, str | None], ...], ...]:
    """`_views_for`'s entry for one card with sides `pair`."""
    a, b = pair
    return tuple(tuple({"face": sides[toward], "back": sides[1 - toward]}
                       for known in range(4)
                       for sides in [(a if known & 1 else None, b if known & 2 else None)])
                 for toward in (0, 1))


_SIDES_SEEN_TABLE_PLAYERS = 8  # up to here a full table (4 ** 8 entries); beyond, a lazy dict


class _LazySidesSeen(dict):
    """`_sides_seen` for big tables: filled as bitmasks come up."""

    def __init__(self, shift: int):
        super().__init__()
        self.shift = shift

    def __missing__(self, bits: int) -> int:
        known = self[bits] = bits >> self.shift & 3
        return known


@functools.lru_cache(maxsize=64)
def _sides_seen(players: int, viewer: int) -> Sequence[int] | Mapping[int, int]:
    """``[seen] == seen >> 2 * viewer & 3``: which sides `viewer` has seen, for any `seen`
    bitmask of `players` seats. Hot path: one lookup is cheaper than two shifts."""
    if players > _SIDES_SEEN_TABLE_PLAYERS:
        return _LazySidesSeen(2 * viewer)
    return tuple(bits >> 2 * viewer & 3 for bits in range(4 ** players))
