"""UNO Flip's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``H`` = `HAND_CAP`, ``C`` = the 8 colors of both sides, light then
dark): for each position p < H: ``play:p``, ``play:p:uno``, then ``play:p:c``,
``play:p:c:uno`` per color; then ``draw``, ``play-drawn``, ``play-drawn:uno``,
``play-drawn:c``, ``play-drawn:c:uno`` per color, ``keep``, ``accept``, ``challenge``,
``color:c`` per color. A hand position past the cap is not encoded and its actions are not
in the index.

The array: one-hots of the observing seat, the seat to move and the dealer; the side in
play and the direction; the color (one-hot); the phase; scores (over the target) and hand
sizes (over the cap); turns, draw and discard pile sizes; the draw pile's and discard's top
cards and every hand as card slots (`arena.rules.encoding`).

The array is written either from a seat's view (`UnoFlipArray.fill`) or straight from the
engine's state for that seat (`UnoFlipArray.fill_state`, the environments' step: no view is
built); both write the same entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from arena.rules.card_slots import (SlotCodes, faces as deck_faces, places, put_hands, put_table_hands, put_table_top,
                                    slot_codes)
from arena.rules.encoding import Encoding, Layout
from arena.rules.uno_flip.engine import DARK, OVER, UnoFlipState

if TYPE_CHECKING:
    import numpy as np

HAND_CAP = 40
"""Hand positions encoded (and in the action index): a hand past 40 cards is rare."""

COLORS = ("blue", "green", "red", "yellow", "pink", "teal", "orange", "purple")


def encoding(players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of an UNO Flip table of `players` with resolved `options`."""
    cap = HAND_CAP
    actions: list[str] = []
    for p in range(cap):
        actions += [f"play:{p}", f"play:{p}:uno"]
        for c in COLORS:
            actions += [f"play:{p}:{c}", f"play:{p}:{c}:uno"]
    actions += ["draw", "play-drawn", "play-drawn:uno"]
    for c in COLORS:
        actions += [f"play-drawn:{c}", f"play-drawn:{c}:uno"]
    actions += ["keep", "accept", "challenge"] + [f"color:{c}" for c in COLORS]
    array = UnoFlipArray(players, options)
    return Encoding("uno-flip", players, options, actions, array.layout, array.fill, hand_cap=cap,
                    state_fill=(UnoFlipState, array.fill_state))


class UnoFlipArray:
    """The array's layout for one table, and its two fills (the same entries)."""

    def __init__(self, players: int, options: Mapping[str, Any]):
        self.faces = faces = deck_faces(options)
        self.width = len(faces)
        self.slot = slot = 2 * len(faces)
        seats = list(range(players))
        self.layout = layout = Layout()
        self.me, turn, dealer = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "dealer"))
        self.side, self.direction = layout.block("side_dark", 1), layout.block("direction_reversed", 1)
        color = layout.block("color", len(COLORS))
        phase = layout.block("phase", 5)
        self.scores, self.sizes = (layout.block(name, players, per_seat=True) for name in ("scores", "hand_sizes"))
        layout.block("turns", 1), layout.block("draw_size", 1), layout.block("discard_size", 1)  # after hand_sizes
        self.draw_top, self.discard_top = layout.block("draw_top", slot), layout.block("discard_top", slot)
        self.hands = layout.block("hands", players * HAND_CAP * slot, per_seat=True)
        self.deck_cards = float(len(options["deck"]))
        self.target = float(options["target_score"] or 500)
        self.at_turn, self.at_dealer = places(turn, seats), places(dealer, seats)
        self.at_color = places(color, COLORS)
        self.at_phase = places(phase, ("play", "drawn", "challenge", "color", "over"))
        self.codes: SlotCodes | None = None

    def fill(self, out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        """The array of `seat`'s `view` (into zeros)."""
        hot = [self.me + seat]
        for at in (self.at_turn.get(view["turn"]), self.at_dealer.get(view["dealer"]),
                   self.at_color.get(view["color"]), self.at_phase.get(view["phase"])):
            if at is not None:
                hot.append(at)
        if view["side"] == "dark":
            hot.append(self.side)
        if view["direction"] == -1:
            hot.append(self.direction)
        self._scalars(out, view["scores"], view["turns"] / view["max_turns"], view["draw_pile"]["size"],
                      view["discard"]["size"], [len(hand) for hand in view["hands"]])
        faces, width = self.faces, self.width
        for at, card in ((self.draw_top, view["draw_pile"]["top"]), (self.discard_top, view["discard"]["top"])):
            if card is not None:
                hot += (at + faces.get(card["up"], width - 1), at + width + faces.get(card["down"], width - 1))
        put_hands(hot, self.hands, view["hands"], HAND_CAP, self.slot, faces)
        out.put(hot, 1.0)

    def fill_state(self, out: np.ndarray, seat: int, state: UnoFlipState) -> None:
        """`fill` of ``state.view(seat)``, read from the state (what the view shows `seat`
        and nothing else: the card table as `seat` has seen it)."""
        hot = [self.me + seat]
        phase = state.phase
        for at in (None if phase == OVER else self.at_turn.get(state.seat), self.at_dealer.get(state.dealer),
                   self.at_color.get(state.color), self.at_phase.get(phase)):
            if at is not None:
                hot.append(at)
        if state.active == DARK:
            hot.append(self.side)
        if state.direction == -1:
            hot.append(self.direction)
        table = state.table
        piles = table.piles
        self._scalars(out, state.scores, state.turns / state.max_turns, len(piles["draw"]), len(piles["discard"]),
                      [len(hand) for hand in table.hands])
        codes = self.codes = slot_codes(self.codes, table, self.faces)
        put_table_top(hot, self.draw_top, table, "draw", seat, codes)
        put_table_top(hot, self.discard_top, table, "discard", seat, codes)
        put_table_hands(hot, self.hands, table, seat, HAND_CAP, self.slot, codes)
        out.put(hot, 1.0)

    def _scalars(self, out: np.ndarray, scores: list[int], turns: float, draw: int, discard: int,
                 sizes: list[int]) -> None:
        """The scaled counts, one run of the array: scores, hand sizes, turns, pile sizes."""
        target, deck_cards = self.target, self.deck_cards
        values = [min(score / target, 1.0) for score in scores]
        values += [min(size / HAND_CAP, 1.0) for size in sizes]
        values += (turns, draw / deck_cards, discard / deck_cards)
        out[self.scores:self.scores + len(values)] = values
