"""toy-high-card's encoding: the action index ``play:p:face``, ``play:p:back`` for p < 3,
and one seat's array: who it is, whose turn, its hand (each card's two faces one-hot),
the hand sizes, the faces played this trick and the tricks taken."""

import numpy as np

from arena.rules.encoding import Encoding, Layout, one_hot

from .high_card import DECK

FACES = sorted({face for card in DECK for face in card})


def encoding(players):
    seats = list(range(players))
    actions = [f"play:{p}:{side}" for p in range(3) for side in ("face", "back")]
    layout = Layout()
    me, turn = layout.block("me", players), layout.block("turn", players)
    hand = layout.block("hand", 3 * 2 * len(FACES))
    sizes, played = layout.block("hand_sizes", players), layout.block("played", players * len(FACES))
    tricks = layout.block("tricks", players)

    def fill(out: np.ndarray, seat, view):
        out[me + seat] = 1.0
        one_hot(out, turn, view["turn"], seats)
        for p, card in enumerate(view["hand"]):
            one_hot(out, hand + 2 * p * len(FACES), card["face"], FACES)
            one_hot(out, hand + (2 * p + 1) * len(FACES), card["back"], FACES)
        for s in seats:
            out[sizes + s] = view["hand_sizes"][s] / 3
            one_hot(out, played + s * len(FACES), view["played"][s], FACES)
            out[tricks + s] = view["tricks"][s] / 3

    return Encoding("toy-high-card", players, {}, actions, layout, fill, hand_cap=3)
