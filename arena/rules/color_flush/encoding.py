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

from arena.rules.encoding import Encoding, Layout, faces as deck_faces, one_hot, put_card, put_hands

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

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        one_hot(out, turn, view["turn"], seats)
        one_hot(out, winner, view["winner"], seats)
        one_hot(out, awaiting, view["awaiting"], ("action", "swap"))
        for action in view["actions_left"]:
            one_hot(out, left, action, ("give", "take", "flip"))
        out[turns] = view["turn_number"] / view["max_turns"]
        out[pile_size] = view["draw_pile"]["size"] / deck_cards
        put_card(hot, pile_top, view["draw_pile"]["top"], "up", "down", faces)
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = len(hand) / cap
        put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("color-flush", players, options, actions, layout, fill, hand_cap=cap,
                    action_seats={"give": 2, "take": 1, "swap": 1})
