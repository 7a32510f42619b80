"""Shared pieces of the games' `evaluate` capabilities (`Ruleset.capabilities`): per-seat
values turned into each seat's expected share of the seats it finishes ahead of."""

from __future__ import annotations

import math


def pairwise(values: list[float], scale: float) -> list[float]:
    """Per seat: the mean over other seats of sigmoid((v_seat - v_other) / scale)."""
    n = len(values)
    if n == 1:
        return [1.0]
    exp = math.exp
    result = []
    for s, mine in enumerate(values):
        total = 0.0
        for o, other in enumerate(values):
            if o != s:
                x = (mine - other) / scale
                total += 1.0 / (1.0 + exp(-x)) if x > -50 else 0.0
        result.append(total / (n - 1))
    return result
