"""Flip 7 cut-off values judged on the strength benchmark (`bench_strength.py --params
'{"evaluation": "flip7_value_variants:NAME"}'`, run from benchmarks/ so that this module
is importable) and not declared by the ruleset; results in strength_notes.md."""

from __future__ import annotations

from typing import Any

from arena.rules.flip_7.evaluation import evaluate_flip_7, flip7_ahead


def evaluate_flip_7_totals(state: Any, me: int) -> list[float]:
    """The fitted value of the totals alone. A playout stops when it sees the round end,
    after the engine has dealt the next round's opening cards, which the declared value
    adds at 75%; the fit was made on round-end totals. Solo: the declared value."""
    if state.players == 1:
        return evaluate_flip_7(state, me)
    return flip7_ahead([float(total) for total in state.totals], max(1, state.target_score))
