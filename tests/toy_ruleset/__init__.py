"""A toy ruleset as a third party would ship it: its package and its registration, nothing else."""

import arena

from .high_card import HighCard, HighCardState  # noqa: F401


@arena.hookimpl
def register_rulesets(register):
    register(HighCard)
