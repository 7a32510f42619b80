"""Flip Hue's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``H`` = `HAND_CAP`): ``give:p:s`` per position and seat; ``flip:p:s``
likewise; ``pull:s:p`` per seat and position; ``allow``; ``block:p``; ``discard:p:face``,
``discard:p:back`` per position.

The array: one-hots of the observing seat, the seat whose turn it is, the seat to act and
the winner; the step; the turn number (over the turn limit, capped); hand sizes (over the
cap); the draw and discard piles' sizes and top cards; each seat's faction card as seen
(top and bottom); the pending pull (puller, target, position); every hand as card slots
(`arena.rules.encoding`).

The array is written either from a seat's view (`FlipHueArray.fill`) or straight from the
engine's state for that seat (`FlipHueArray.fill_state`, the environments' step: no view is
built); both write the same entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.rules.card_slots import (SlotCodes, faces as deck_faces, places, put_hands, put_table_hands, put_table_top,
                                    slot_codes)
from arena.rules.encoding import Encoding, Layout
from arena.rules.flip_hue.engine import ANSWER, DISCARD, DRAW, FlipHueState

if TYPE_CHECKING:
    import numpy as np

HAND_CAP = 8
"""Hand positions encoded (and in the action index): a Flip Hue hand holds at most 7 cards."""


def encoding(players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of a Flip Hue table of `players` with resolved `options`."""
    cap = HAND_CAP
    positions, seats = range(cap), list(range(players))
    actions = [f"give:{p}:{s}" for p in positions for s in seats]
    actions += [f"flip:{p}:{s}" for p in positions for s in seats]
    actions += [f"pull:{s}:{p}" for s in seats for p in positions]
    actions += ["allow"] + [f"block:{p}" for p in positions]
    actions += [f"discard:{p}:{side}" for p in positions for side in ("face", "back")]
    array = FlipHueArray(players, options)
    return Encoding("flip-hue", players, options, actions, array.layout, array.fill, hand_cap=cap,
                    action_seats={"give": 2, "flip": 2, "pull": 1}, state_fill=(FlipHueState, array.fill_state))


class FlipHueArray:
    """The array's layout for one table, and its two fills (the same entries)."""

    def __init__(self, players: int, options: Mapping[str, Any]):
        self.faces = faces = deck_faces(options)
        self.width = len(faces)
        self.slot = slot = 2 * len(faces)
        positions, seats = range(HAND_CAP), list(range(players))
        self.layout = layout = Layout()
        self.me, turn, to_act, winner = (layout.block(name, players, per_seat=True)
                                         for name in ("me", "turn", "to_act", "winner"))
        step = layout.block("step", 5)
        self.turns = layout.block("turn_number", 1)
        layout.block("hand_sizes", players, per_seat=True)  # then the piles' sizes: one run from turn_number
        layout.block("draw_size", 1), layout.block("discard_size", 1)
        self.draw_top, self.discard_top = layout.block("draw_top", slot), layout.block("discard_top", slot)
        self.factions = layout.block("factions", players * slot, per_seat=True)
        puller, pulled = (layout.block(name, players, per_seat=True) for name in ("pull_seat", "pull_target"))
        pulled_pos = layout.block("pull_position", HAND_CAP)
        self.hands = layout.block("hands", players * HAND_CAP * slot, per_seat=True)
        self.deck_cards = float(len(options["deck"]))
        self.at_turn, self.at_to_act, self.at_winner = places(turn, seats), places(to_act, seats), places(winner, seats)
        self.at_step = places(step, ("push", "pull", "answer", "cleanup", "over"))
        self.at_puller, self.at_pulled = places(puller, seats), places(pulled, seats)
        self.at_pos = places(pulled_pos, positions)
        self.codes: SlotCodes | None = None

    def fill(self, out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        """The array of `seat`'s `view` (into zeros)."""
        pull = view["pull"] or {}
        hot = self._heads(seat, view["turn"], view["to_act"], view["winner"], view["step"],
                          (pull.get("seat"), pull.get("target"), pull.get("pos")))
        draw, discard, hands = view["draw_pile"], view["discard_pile"], view["hands"]
        self._scalars(out, view["turn_number"] / view["max_turns"], [len(hand) for hand in hands], draw["size"],
                      discard["size"])
        faces, width = self.faces, self.width
        for at, card in ((self.draw_top, draw["top"]), (self.discard_top, discard["top"])):
            if card is not None:
                hot += (at + faces.get(card["up"], width - 1), at + width + faces.get(card["down"], width - 1))
        self._factions(hot, [(faction["top"], faction["bottom"]) for faction in view["factions"]])
        put_hands(hot, self.hands, hands, HAND_CAP, self.slot, faces)
        out.put(hot, 1.0)

    def fill_state(self, out: np.ndarray, seat: int, state: FlipHueState) -> None:
        """`fill` of ``state.view(seat)``, read from the state (what the view shows `seat`
        and nothing else: the card table and the factions as `seat` has seen them)."""
        pull = (state.active, state.pull_target, state.pull_pos) if state.step == ANSWER else (None, None, None)
        hot = self._heads(seat, state.active, state.to_act, state.winner, state.step, pull)
        table = state.table
        piles = table.piles
        self._scalars(out, state.turn / state.max_turns, [len(hand) for hand in table.hands], len(piles[DRAW]),
                      len(piles[DISCARD]))
        codes = self.codes = slot_codes(self.codes, table, self.faces)
        put_table_top(hot, self.draw_top, table, DRAW, seat, codes)
        put_table_top(hot, self.discard_top, table, DISCARD, seat, codes)
        self._factions(hot, state.factions_seen_by(seat))
        put_table_hands(hot, self.hands, table, seat, HAND_CAP, self.slot, codes)
        out.put(hot, 1.0)

    def _heads(self, seat: int, turn: int | None, to_act: int | None, winner: int | None, step: str,
               pull: tuple[int | None, int | None, int | None]) -> list[int]:
        """The one-hots of the seats, the step and the pending pull (seat, target, position)."""
        hot = [self.me + seat]
        for at in (self.at_turn.get(turn), self.at_to_act.get(to_act), self.at_winner.get(winner),
                   self.at_step.get(step), self.at_puller.get(pull[0]), self.at_pulled.get(pull[1]),
                   self.at_pos.get(pull[2])):
            if at is not None:
                hot.append(at)
        return hot

    def _factions(self, hot: list[int], factions: Sequence[tuple[str | None, str | None]]) -> None:
        """Every seat's faction card as seen: (top, bottom)."""
        faces, width, slot = self.faces, self.width, self.slot
        for s, (top, bottom) in enumerate(factions):
            at = self.factions + s * slot
            hot += (at + faces.get(top, width - 1), at + width + faces.get(bottom, width - 1))

    def _scalars(self, out: np.ndarray, turns: float, sizes: list[int], draw: int, discard: int) -> None:
        """The scaled counts, one run of the array: the turn, hand sizes, the piles' sizes."""
        deck_cards = self.deck_cards
        values = [min(turns, 1.0)] + [min(size / HAND_CAP, 1.0) for size in sizes]
        values += (draw / deck_cards, discard / deck_cards)
        out[self.turns:self.turns + len(values)] = values
