"""Shared pieces of the games' `evaluate` and `pairwise_value` capabilities
(`Ruleset.capabilities`): per-seat values turned into each seat's expected share of the seats
it finishes ahead of, and distances to a win turned into a winner-takes-all pairwise value."""

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


def distance_win_chances(distances: list[int], scale: float, nobody: float) -> list[float]:
    """Per seat, its chance of winning: ``exp(-scale x distance)`` normed among the seats and
    a "nobody wins" outcome (a turn limit) weighing as the distance `nobody`."""
    weights = [math.exp(-scale * d) for d in distances]
    total = sum(weights) + math.exp(-scale * nobody)
    return [w / total for w in weights]


def winner_takes_all(win: list[float]) -> list[list[float]]:
    """``V[a][b] = P(a wins) + 1/2 P(neither a nor b wins)`` for a game whose winner is first
    and every other seat tied second; ``V[a][a] == 0.5``."""
    n = len(win)
    return [[0.5 if a == b else win[a] + 0.5 * (1.0 - win[a] - win[b]) for b in range(n)] for a in range(n)]
