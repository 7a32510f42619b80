"""Color Flush's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``H`` = `HAND_CAP`): per position p < H: ``place:p``, ``give:p:s`` per
seat; ``take:s:p`` per seat and position; ``take:pile``; ``flip:p`` per position;
``swap:s`` per seat; ``no-swap``.

The array: one-hots of the observing seat, the seat to move and the winner; what is
awaited and the actions left this turn; the turn number (over the turn limit); hand sizes
(over the cap) and the pile's size; the pile's top card and every hand as card slots
(`arena.rules.encoding`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from arena.rules.card_slots import faces as deck_faces, places, put_hands
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
    faces = deck_faces(options)
    slot = 2 * len(faces)
    layout = Layout()
    me, turn, winner = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "winner"))
    awaiting, left = layout.block("awaiting", 2), layout.block("actions_left", 3)
    turns, sizes = layout.block("turn_number", 1), layout.block("hand_sizes", players, per_seat=True)
    pile_size = layout.block("pile_size", 1)
    pile_top = layout.block("pile_top", slot)
    hands = layout.block("hands", players * cap * slot, per_seat=True)
    deck_cards = float(len(options["deck"]))

    at_turn, at_winner = places(turn, seats), places(winner, seats)
    at_awaiting, at_left = places(awaiting, ("action", "swap")), places(left, ("give", "take", "flip"))
    width = len(faces)

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot = [me + seat]
        for at in (at_turn.get(view["turn"]), at_winner.get(view["winner"]), at_awaiting.get(view["awaiting"]),
                   *map(at_left.get, view["actions_left"])):
            if at is not None:
                hot.append(at)
        out[turns] = view["turn_number"] / view["max_turns"]
        pile = view["draw_pile"]
        out[pile_size] = pile["size"] / deck_cards
        card = pile["top"]
        if card is not None:
            hot += (pile_top + faces.get(card["up"], width - 1), pile_top + width + faces.get(card["down"], width - 1))
        hands_seen = view["hands"]
        for s, hand in enumerate(hands_seen):
            out[sizes + s] = len(hand) / cap
        put_hands(hot, hands, hands_seen, cap, slot, faces)
        out.put(hot, 1.0)

    return Encoding("color-flush", players, options, actions, layout, fill, hand_cap=cap,
                    action_seats={"give": 2, "take": 1, "swap": 1})
