"""Flip 7's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``P`` players): ``hit``, ``stay``, then ``freeze:s``, ``flip-three:s``,
``second-chance:s`` for each seat s.

The array: one-hots of the observing seat (``me``), the seat to move (``turn``) and the
dealer; per seat a row (``rows``: numbers held, modifiers held, Second Chance, status
one-hot, this round's score and the total, both over the target score, capped at 1); the
unseen cards' counts (over 12); the deck's size (over the cards in play); the decision,
the phase and the pending frames (one-hots). Counts and sizes are scaled into [0, 1].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from arena.rules.card_slots import places
from arena.rules.encoding import Encoding, Layout

if TYPE_CHECKING:
    import numpy as np

CARDS = [str(n) for n in range(13)] + ["+2", "+4", "+6", "+8", "+10", "x2", "freeze", "flip-three",
                                       "second-chance"]
STATUS = ("active", "stayed", "busted", "frozen", "flip7")


def encoding(players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of a Flip 7 table of `players` with resolved `options`."""
    actions = ["hit", "stay"] + [f"{kind}:{s}" for kind in ("freeze", "flip-three", "second-chance")
                                 for s in range(players)]
    seats = list(range(players))
    layout = Layout()
    me, turn, dealer = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "dealer"))
    per_row = 13 + 6 + 1 + len(STATUS) + 2  # numbers, modifiers, second chance, status, score, total
    rows = layout.block("rows", players * per_row, per_seat=True)
    unseen = layout.block("unseen", len(CARDS))
    deck = layout.block("deck_size", 1)
    decision = layout.block("decision", 4)
    phase = layout.block("phase", 3)
    pending = layout.block("pending", 3)
    target = float(options["target_score"])
    deck_cards = 94.0 * (2 if players > 18 else 1)
    card_at = {card: unseen + i for i, card in enumerate(CARDS)}
    at_turn, at_dealer = places(turn, seats), places(dealer, seats)
    at_decision = places(decision, ("hit-or-stay", "freeze", "flip-three", "second-chance"))
    at_phase, at_pending = places(phase, ("deal", "play", "over")), places(pending, ("deal", "flip-three", "hand-out"))
    modifier_at, status_at = places(13, ("+2", "+4", "+6", "+8", "+10", "x2")), places(20, STATUS)
    unseen_at: dict[tuple[str, ...], list[int]] = {}
    scaled = [min(count / 12.0, 1.0) for count in range(12)]  # an unseen count over 12, capped at 1

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot = [me + seat]
        for at in (at_turn.get(view["turn"]), at_dealer.get(view["dealer"]), at_decision.get(view["decision"]),
                   at_phase.get(view["phase"])):
            if at is not None:
                hot.append(at)
        for frame in view["pending"]:
            if frame["kind"] in at_pending:
                hot.append(at_pending[frame["kind"]])
        totals = view["totals"]
        for s, row in enumerate(view["rows"]):
            at = rows + s * per_row
            for number in row["numbers"]:
                hot.append(at + number)
            for modifier in row["modifiers"]:
                hot.append(at + modifier_at[modifier])
            if row["status"] in status_at:
                hot.append(at + status_at[row["status"]])
            out[at + 19] = float(row["second_chance"])
            out[at + 20 + len(STATUS)] = min(row["score"] / target, 1.0)
            out[at + 21 + len(STATUS)] = min(totals[s] / target, 1.0)
        counts = view["unseen"]
        names = tuple(counts)
        if names not in unseen_at:  # the entries of the counts' cards, once per order of cards (a few)
            if len(unseen_at) > 64:
                unseen_at.clear()
            unseen_at[names] = [card_at[card] for card in names]
        out.put(unseen_at[names], [scaled[count] if 0 <= count < 12 else min(count / 12.0, 1.0)
                                   for count in counts.values()])
        out[deck] = view["deck_size"] / deck_cards
        out.put(hot, 1.0)

    return Encoding("flip-7", players, options, actions, layout, fill,
                    action_seats={"freeze": 1, "flip-three": 1, "second-chance": 1})
