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

from arena.rules.card_slots import faces as deck_faces, places, put_hands
from arena.rules.encoding import Encoding, Layout

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

    at_turn, at_to_act, at_winner = places(turn, seats), places(to_act, seats), places(winner, seats)
    at_step = places(step, ("push", "pull", "answer", "cleanup", "over"))
    at_puller, at_pulled, at_pos = places(puller, seats), places(pulled, seats), places(pulled_pos, positions)
    tops = ((draw_top, "draw_pile", "up", "down"), (discard_top, "discard_pile", "up", "down"))
    width = len(faces)

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot = [me + seat]
        pull = view["pull"] or {}
        for at in (at_turn.get(view["turn"]), at_to_act.get(view["to_act"]), at_winner.get(view["winner"]),
                   at_step.get(view["step"]), at_puller.get(pull.get("seat")), at_pulled.get(pull.get("target")),
                   at_pos.get(pull.get("pos"))):
            if at is not None:
                hot.append(at)
        out[turns] = min(view["turn_number"] / view["max_turns"], 1.0)
        out[draw_size] = view["draw_pile"]["size"] / deck_cards
        out[discard_size] = view["discard_pile"]["size"] / deck_cards
        cards = [(at, view[pile]["top"], first, second) for at, pile, first, second in tops]
        cards += [(factions + s * slot, faction, "top", "bottom") for s, faction in enumerate(view["factions"])]
        for at, card, first, second in cards:
            if card is not None:
                hot += (at + faces.get(card[first], width - 1), at + width + faces.get(card[second], width - 1))
        hands_seen = view["hands"]
        for s, hand in enumerate(hands_seen):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        put_hands(hot, hands, hands_seen, cap, slot, faces)
        out.put(hot, 1.0)

    return Encoding("flip-hue", players, options, actions, layout, fill, hand_cap=cap,
                    action_seats={"give": 2, "flip": 2, "pull": 1})
