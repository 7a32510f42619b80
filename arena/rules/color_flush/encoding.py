"""Color Flush's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``H`` = `HAND_CAP`): per position p < H: ``place:p``, ``give:p:s`` per
seat; ``take:s:p`` per seat and position; ``take:pile``; ``flip:p`` per position;
``swap:s`` per seat; ``no-swap``.

The array: one-hots of the observing seat, the seat to move and the winner; what is
awaited and the actions left this turn; the turn number (over the turn limit); hand sizes
(over the cap) and the pile's size; the pile's top card and every hand as card slots
(`arena.rules.encoding`).

The array is written either from a seat's view (`ColorFlushArray.fill`) or straight from the
engine's state for that seat (`ColorFlushArray.fill_state`, the environments' step: no view
is built); both write the same entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.rules.card_slots import (SlotCodes, faces as deck_faces, places, put_hands, put_table_hands, put_table_top,
                                    slot_codes)
from arena.rules.color_flush.engine import ACTION_NAMES, PILE, ColorFlushState
from arena.rules.encoding import Encoding, Layout

if TYPE_CHECKING:
    import numpy as np

HAND_CAP = 10
"""Hand positions encoded (and in the action index): Color Flush's hand limit."""


def encoding(players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of a Color Flush table of `players` with resolved `options`."""
    cap = HAND_CAP
    positions, seats = range(cap), list(range(players))
    actions: list[str] = []
    for p in positions:
        actions += [f"place:{p}"] + [f"give:{p}:{s}" for s in seats]
    actions += [f"take:{s}:{p}" for s in seats for p in positions] + ["take:pile"]
    actions += [f"flip:{p}" for p in positions] + [f"swap:{s}" for s in seats] + ["no-swap"]
    array = ColorFlushArray(players, options)
    return Encoding("color-flush", players, options, actions, array.layout, array.fill, hand_cap=cap,
                    action_seats={"give": 2, "take": 1, "swap": 1}, state_fill=(ColorFlushState, array.fill_state))


class ColorFlushArray:
    """The array's layout for one table, and its two fills (the same entries)."""

    def __init__(self, players: int, options: Mapping[str, Any]):
        self.faces = faces = deck_faces(options)
        self.width = len(faces)
        self.slot = slot = 2 * len(faces)
        seats = list(range(players))
        self.layout = layout = Layout()
        self.me, turn, winner = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "winner"))
        awaiting, left = layout.block("awaiting", 2), layout.block("actions_left", 3)
        self.turns = layout.block("turn_number", 1)
        layout.block("hand_sizes", players, per_seat=True), layout.block("pile_size", 1)  # after turn_number
        self.pile_top = layout.block("pile_top", slot)
        self.hands = layout.block("hands", players * HAND_CAP * slot, per_seat=True)
        self.deck_cards = float(len(options["deck"]))
        self.at_turn, self.at_winner = places(turn, seats), places(winner, seats)
        self.at_awaiting, self.at_left = places(awaiting, ("action", "swap")), places(left, ("give", "take", "flip"))
        self.codes: SlotCodes | None = None

    def fill(self, out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        """The array of `seat`'s `view` (into zeros)."""
        hot = self._heads(seat, view["turn"], view["winner"], view["awaiting"], view["actions_left"])
        pile = view["draw_pile"]
        hands = view["hands"]
        self._scalars(out, view["turn_number"] / view["max_turns"], [len(hand) for hand in hands], pile["size"])
        card = pile["top"]
        if card is not None:
            faces, width = self.faces, self.width
            hot += (self.pile_top + faces.get(card["up"], width - 1),
                    self.pile_top + width + faces.get(card["down"], width - 1))
        put_hands(hot, self.hands, hands, HAND_CAP, self.slot, self.faces)
        out.put(hot, 1.0)

    def fill_state(self, out: np.ndarray, seat: int, state: ColorFlushState) -> None:
        """`fill` of ``state.view(seat)``, read from the state (what the view shows `seat`
        and nothing else: the card table as `seat` has seen it)."""
        if state.over:
            hot = self._heads(seat, None, state.winner, None, [])
        else:
            left = state.left
            hot = self._heads(seat, state.active, state.winner, "swap" if state.awaiting_swap else "action",
                              [name for bit, name in ACTION_NAMES if left & bit])
        table = state.table
        self._scalars(out, state.turns / state.max_turns, [len(hand) for hand in table.hands], len(table.piles[PILE]))
        codes = self.codes = slot_codes(self.codes, table, self.faces)
        put_table_top(hot, self.pile_top, table, PILE, seat, codes)
        put_table_hands(hot, self.hands, table, seat, HAND_CAP, self.slot, codes)
        out.put(hot, 1.0)

    def _heads(self, seat: int, turn: int | None, winner: int | None, awaiting: str | None,
               left: Sequence[str]) -> list[int]:
        """The one-hots of the seats, what is awaited and the actions left."""
        hot = [self.me + seat]
        at_left = self.at_left
        for at in (self.at_turn.get(turn), self.at_winner.get(winner), self.at_awaiting.get(awaiting),
                   *map(at_left.get, left)):
            if at is not None:
                hot.append(at)
        return hot

    def _scalars(self, out: np.ndarray, turns: float, sizes: list[int], pile: int) -> None:
        """The scaled counts, one run of the array: the turn, hand sizes, the pile's size."""
        values = [turns] + [size / HAND_CAP for size in sizes]
        values.append(pile / self.deck_cards)
        out[self.turns:self.turns + len(values)] = values
