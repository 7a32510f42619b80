"""Flip 7's `evaluate` (`Ruleset.capabilities`): each seat's total plus this round's score,
compared seat by seat with a value fitted on self-play outcomes (data/value.json, made by
benchmarks/fit_flip7_value.py). Everything in Flip 7 but the deck's order is public, and
the evaluation reads only the rows and totals (what any seat's view shows)."""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
from typing import Any


@functools.cache
def flip7_value_model() -> tuple[tuple[float, float, float, float], float]:
    """The fitted round-end value's weights and cap on m (data/value.json)."""
    data = json.loads(importlib.resources.files("arena.rules.flip_7").joinpath("data/value.json").read_text())
    w0, w1, w2, w3 = (float(w) for w in data["weights"])
    return (w0, w1, w2, w3), float(data["m_cap"])


def flip7_ahead(values: list[float], target: float) -> list[float]:
    """Per seat: the mean over other seats of the fitted P(finishing ahead of it), from the
    two values: logit = d (w0 + w1 m + w2 m^2 + w3 m^3), d = the difference / target, m =
    the larger / target (capped). A lead weighs more as its holder nears the target."""
    (w0, w1, w2, w3), cap = flip7_value_model()
    exp = math.exp
    n = len(values)
    result = []
    for s, mine in enumerate(values):
        total = 0.0
        for o, other in enumerate(values):
            if o != s:
                m = min((mine if mine > other else other) / target, cap)
                x = (mine - other) / target * (w0 + m * (w1 + m * (w2 + m * w3)))
                total += 1.0 / (1.0 + exp(-x)) if x > -50 else 0.0
        result.append(total / (n - 1))
    return result


def evaluate_flip_7(state: Any, me: int) -> list[float]:
    """Total plus this round's score (an active row at 75 %: it may bust), compared seat
    by seat with the fitted value `flip7_ahead`; solo: progress. Read off the state (what
    `view` would show) for speed."""
    target = max(1, state.target_score)
    values = []
    for s, (total, status) in enumerate(zip(state.totals, state.status)):
        score = state.round_score(s)
        values.append(total + (0.75 * score if status == 0 else score))   # 0: ACTIVE
    if len(values) == 1:
        return [min(1.0, values[0] / target)]
    return flip7_ahead(values, target)
