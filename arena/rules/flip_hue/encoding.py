"""Flip Hue's `encoding` (`arena.rules.encoding`): the action index and observation array.

The action index (``H`` = `HAND_CAP`): ``give:p:s`` per position and seat; ``flip:p:s``
likewise; ``pull:s:p`` per seat and position; ``allow``; ``block:p``; ``discard:p:face``,
``discard:p:back`` per position.

The array: one-hots of the observing seat, the seat whose turn it is, the seat to act and
the winner; the step; the turn number (over the turn limit, capped); hand sizes (over the
cap); the draw and discard piles' sizes and top cards; each seat's faction card as seen
(top and bottom); the pending pull (puller, target, position); every hand as card slots
(`arena.rules.encoding`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from arena.rules.encoding import Encoding, Layout, faces as deck_faces, one_hot, put_card, put_hands

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
    faces = deck_faces(options)
    slot = 2 * len(faces)
    layout = Layout()
    me, turn, to_act, winner = (layout.block(name, players, per_seat=True)
                               for name in ("me", "turn", "to_act", "winner"))
    step = layout.block("step", 5)
    turns, sizes = layout.block("turn_number", 1), layout.block("hand_sizes", players, per_seat=True)
    draw_size, discard_size = layout.block("draw_size", 1), layout.block("discard_size", 1)
    draw_top, discard_top = layout.block("draw_top", slot), layout.block("discard_top", slot)
    factions = layout.block("factions", players * slot, per_seat=True)
    puller, pulled = (layout.block(name, players, per_seat=True) for name in ("pull_seat", "pull_target"))
    pulled_pos = layout.block("pull_position", cap)
    hands = layout.block("hands", players * cap * slot, per_seat=True)
    deck_cards = float(len(options["deck"]))

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        one_hot(out, turn, view["turn"], seats)
        one_hot(out, to_act, view["to_act"], seats)
        one_hot(out, winner, view["winner"], seats)
        one_hot(out, step, view["step"], ("push", "pull", "answer", "cleanup", "over"))
        out[turns] = min(view["turn_number"] / view["max_turns"], 1.0)
        out[draw_size] = view["draw_pile"]["size"] / deck_cards
        out[discard_size] = view["discard_pile"]["size"] / deck_cards
        put_card(hot, draw_top, view["draw_pile"]["top"], "up", "down", faces)
        put_card(hot, discard_top, view["discard_pile"]["top"], "up", "down", faces)
        for s, faction in enumerate(view["factions"]):
            put_card(hot, factions + s * slot, faction, "top", "bottom", faces)
        pull = view["pull"]
        if pull is not None:
            one_hot(out, puller, pull["seat"], seats)
            one_hot(out, pulled, pull["target"], seats)
            one_hot(out, pulled_pos, pull["pos"], list(positions))
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("flip-hue", players, options, actions, layout, fill, hand_cap=cap,
                    action_seats={"give": 2, "flip": 2, "pull": 1})
