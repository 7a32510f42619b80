"""A toy ruleset as a third party would ship it: its package and its registrations, nothing else
(the ruleset, and the playout policy a search bot may use for it)."""

import arena

from .high_card import HighCard, HighCardState  # noqa: F401
from .playout import FaceUpBot, face_up_move


@arena.hookimpl
def register_rulesets(register):
    register(HighCard)


@arena.hookimpl
def register_playouts(register):
    register("toy-high-card", FaceUpBot, fast_move=face_up_move)
