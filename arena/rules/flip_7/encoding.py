"""Flip 7's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``P`` players): ``hit``, ``stay``, then ``freeze:s``, ``flip-three:s``,
``second-chance:s`` for each seat s.

The array: one-hots of the observing seat (``me``), the seat to move (``turn``) and the
dealer; per seat a row (``rows``: numbers held, modifiers held, Second Chance, status
one-hot, this round's score and the total, both over the target score, capped at 1); the
unseen cards' counts (over 12); the deck's size (over the cards in play); the decision,
the phase and the pending frames (one-hots). Counts and sizes are scaled into [0, 1].

The array is written either from a seat's view (`Flip7Array.fill`) or straight from the
engine's state (`Flip7Array.fill_state`, the environments' step: no view is built); both
write the same entries. Everything the array holds is public in Flip 7 (the one secret is
the deck's order, of which only the counts are read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arena.rules.card_slots import places
from arena.rules.encoding import Encoding, Layout
from arena.rules.flip_7.engine import F_DEAL, F_FLIP_THREE, HIT_STAY, STATUS_NAMES, Flip7State

if TYPE_CHECKING:
    import numpy as np

CARDS = [str(n) for n in range(13)] + ["+2", "+4", "+6", "+8", "+10", "x2", "freeze", "flip-three",
                                       "second-chance"]
STATUS = ("active", "stayed", "busted", "frozen", "flip7")
PER_ROW = 13 + 6 + 1 + len(STATUS) + 2
"""A row's entries: numbers, modifiers, second chance, status, score, total."""
FRAME_KINDS = {F_DEAL: "deal", F_FLIP_THREE: "flip-three"}
"""A pending frame's kind as the view names it ("hand-out" for any other)."""


def encoding(players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of a Flip 7 table of `players` with resolved `options`."""
    actions = ["hit", "stay"] + [f"{kind}:{s}" for kind in ("freeze", "flip-three", "second-chance")
                                 for s in range(players)]
    array = Flip7Array(players, options)
    return Encoding("flip-7", players, options, actions, array.layout, array.fill,
                    action_seats={"freeze": 1, "flip-three": 1, "second-chance": 1},
                    state_fill=(Flip7State, array.fill_state))


class Flip7Array:
    """The array's layout for one table, and its two fills (the same entries)."""

    def __init__(self, players: int, options: Mapping[str, Any]):
        seats = list(range(players))
        self.layout = layout = Layout()
        self.me, turn, dealer = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "dealer"))
        self.rows = layout.block("rows", players * PER_ROW, per_seat=True)
        unseen = layout.block("unseen", len(CARDS))
        self.deck = layout.block("deck_size", 1)
        decision = layout.block("decision", 4)
        phase = layout.block("phase", 3)
        pending = layout.block("pending", 3)
        self.target = float(options["target_score"])
        self.deck_cards = 94.0 * (2 if players > 18 else 1)
        self.card_at = {card: unseen + i for i, card in enumerate(CARDS)}
        self.at_turn, self.at_dealer = places(turn, seats), places(dealer, seats)
        self.at_decision = places(decision, ("hit-or-stay", "freeze", "flip-three", "second-chance"))
        self.at_phase = places(phase, ("deal", "play", "over"))
        self.at_pending = places(pending, ("deal", "flip-three", "hand-out"))
        self.modifier_at, self.status_at = places(13, ("+2", "+4", "+6", "+8", "+10", "x2")), places(20, STATUS)
        self.scaled = [min(count / 12.0, 1.0) for count in range(25)]  # an unseen count over 12, capped at 1

    def fill(self, out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        """The array of `seat`'s `view` (into zeros)."""
        hot = self._heads(seat, view["turn"], view["dealer"], view["decision"], view["phase"],
                          [frame["kind"] for frame in view["pending"]])
        totals, values = view["totals"], [1.0] * len(hot)
        for s, row in enumerate(view["rows"]):
            self._row(hot, values, s, row["numbers"], row["modifiers"], row["status"], row["second_chance"],
                      row["score"], totals[s])
        self._counts(hot, values, view["unseen"], view["deck_size"])
        out.put(hot, values)

    def fill_state(self, out: np.ndarray, seat: int, state: Flip7State) -> None:
        """`fill` of ``state.view(seat)``, read from the state."""
        if state.over:
            phase, decision = "over", None
        else:
            stack = state.stack   # a deal frame is always the bottom one
            phase = "deal" if stack and stack[0][0] == F_DEAL else "play"
            decision = state.decision[0] if state.decision is not None else HIT_STAY
        hot = self._heads(seat, state.current_seat(), state.dealer, decision, phase,
                          [FRAME_KINDS.get(frame[0], "hand-out") for frame in state.stack])
        totals, status, values = state.totals, state.status, [1.0] * len(hot)
        for s in range(state.players):
            self._row(hot, values, s, state.numbers[s], state.modifiers[s], STATUS_NAMES[status[s]],
                      state.second_chance[s], state.round_score(s), totals[s])
        self._counts(hot, values, state.unseen_counts(), len(state.deck))
        out.put(hot, values)

    def _heads(self, seat: int, turn: int | None, dealer: int, decision: str | None, phase: str,
               pending: list[str]) -> list[int]:
        """The one-hots of the seats, the decision, the phase and the pending frames."""
        hot = [self.me + seat]
        for at in (self.at_turn.get(turn), self.at_dealer.get(dealer), self.at_decision.get(decision),
                   self.at_phase.get(phase)):
            if at is not None:
                hot.append(at)
        at_pending = self.at_pending
        for kind in pending:
            if kind in at_pending:
                hot.append(at_pending[kind])
        return hot

    def _row(self, entries: list[int], values: list[float], s: int, numbers: Sequence[int],
             modifiers: Sequence[str], status: str, second_chance: bool, score: int, total: int) -> None:
        """Seat `s`'s row: its `entries` and their `values` appended."""
        at = self.rows + s * PER_ROW
        for number in numbers:
            entries.append(at + number)
        modifier_at = self.modifier_at
        for modifier in modifiers:
            entries.append(at + modifier_at[modifier])
        if status in self.status_at:
            entries.append(at + self.status_at[status])
        values += [1.0] * (len(entries) - len(values))
        target = self.target
        entries += (at + 19, at + 20 + len(STATUS), at + 21 + len(STATUS))
        values += (float(second_chance), min(score / target, 1.0), min(total / target, 1.0))

    def _counts(self, entries: list[int], values: list[float], counts: Mapping[str, int], deck_size: int) -> None:
        """The unseen cards' counts and the deck's size: entries and values appended."""
        card_at, scaled = self.card_at, self.scaled
        for card, count in counts.items():
            entries.append(card_at[card])
            values.append(scaled[count] if count < len(scaled) else min(count / 12.0, 1.0))
        entries.append(self.deck)
        values.append(deck_size / self.deck_cards)
