"""UNO Flip's `evaluate` (`Ruleset.capabilities`): fewer cards is better, and with a target
score the totals count. Reads hand sizes and scores only (public)."""

from __future__ import annotations

from typing import Any

from arena.rules.evaluation import pairwise


def evaluate_uno_flip(state: Any, me: int) -> list[float]:
    """Fewer cards is better (6 points a card); with a target the totals count (target = 60 cards)."""
    # hand sizes and totals are public: read off the state (what state.view(me) shows)
    values = [-6.0 * len(hand) for hand in state.table.hands]
    target = state.options.get("target_score", 0)
    if target:
        sign = -1.0 if state.options.get("scoring") == "lowest" else 1.0
        values = [v + sign * 360.0 * total / target for v, total in zip(values, state.scores)]
    return pairwise(values, 12.0)
