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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from arena.rules.card_slots import faces as deck_faces, places, put_hands
from arena.rules.encoding import Encoding, Layout

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
    faces = deck_faces(options)
    slot = 2 * len(faces)
    seats = list(range(players))
    layout = Layout()
    me, turn, dealer = (layout.block(name, players, per_seat=True) for name in ("me", "turn", "dealer"))
    side, direction = layout.block("side_dark", 1), layout.block("direction_reversed", 1)
    color = layout.block("color", len(COLORS))
    phase = layout.block("phase", 5)
    scores, sizes = (layout.block(name, players, per_seat=True) for name in ("scores", "hand_sizes"))
    turns, draw_size = layout.block("turns", 1), layout.block("draw_size", 1)
    discard_size = layout.block("discard_size", 1)
    draw_top, discard_top = layout.block("draw_top", slot), layout.block("discard_top", slot)
    hands = layout.block("hands", players * cap * slot, per_seat=True)
    deck_cards = float(len(options["deck"]))
    target = float(options["target_score"] or 500)

    at_turn, at_dealer = places(turn, seats), places(dealer, seats)
    at_color, at_phase = places(color, COLORS), places(phase, ("play", "drawn", "challenge", "color", "over"))
    width = len(faces)

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot = [me + seat]
        for at in (at_turn.get(view["turn"]), at_dealer.get(view["dealer"]), at_color.get(view["color"]),
                   at_phase.get(view["phase"])):
            if at is not None:
                hot.append(at)
        if view["side"] == "dark":
            hot.append(side)
        if view["direction"] == -1:
            hot.append(direction)
        for s, score in enumerate(view["scores"]):
            out[scores + s] = min(score / target, 1.0)
        out[turns] = view["turns"] / view["max_turns"]
        draw, discard = view["draw_pile"], view["discard"]
        out[draw_size] = draw["size"] / deck_cards
        out[discard_size] = discard["size"] / deck_cards
        for at, card in ((draw_top, draw["top"]), (discard_top, discard["top"])):
            if card is not None:
                hot += (at + faces.get(card["up"], width - 1), at + width + faces.get(card["down"], width - 1))
        hands_seen = view["hands"]
        for s, hand in enumerate(hands_seen):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        put_hands(hot, hands, hands_seen, cap, slot, faces)
        out.put(hot, 1.0)

    return Encoding("uno-flip", players, options, actions, layout, fill, hand_cap=cap)
