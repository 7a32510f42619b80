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

from arena.rules.encoding import Encoding, Layout, faces as deck_faces, one_hot, put_card, put_hands

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

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        one_hot(out, turn, view["turn"], seats)
        one_hot(out, dealer, view["dealer"], seats)
        out[side] = float(view["side"] == "dark")
        out[direction] = float(view["direction"] == -1)
        one_hot(out, color, view["color"], COLORS)
        one_hot(out, phase, view["phase"], ("play", "drawn", "challenge", "color", "over"))
        for s, score in enumerate(view["scores"]):
            out[scores + s] = min(score / target, 1.0)
        out[turns] = view["turns"] / view["max_turns"]
        out[draw_size] = view["draw_pile"]["size"] / deck_cards
        out[discard_size] = view["discard"]["size"] / deck_cards
        put_card(hot, draw_top, view["draw_pile"]["top"], "up", "down", faces)
        put_card(hot, discard_top, view["discard"]["top"], "up", "down", faces)
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("uno-flip", players, options, actions, layout, fill, hand_cap=cap)
