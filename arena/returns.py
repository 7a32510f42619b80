"""Returns: what a finished game is worth to each seat, defined once for every consumer.

A seat's return is the share of the other seats it finished ahead of, minus the share
it finished behind; a tie with a seat counts zero. It lies in [-1, 1] (1: alone in
first place, -1: alone in last), the returns of a table sum to zero, and it depends
on the standing only, never on the scores (a ruleset's scores have no common scale).
`arena.play`, the PettingZoo and the OpenSpiel environments all use it.

>>> returns([1, 2, 3])
[1.0, 0.0, -1.0]
>>> returns([1, 1, 3, 4])
[0.6666666666666666, 0.6666666666666666, -0.3333333333333333, -1.0]
>>> returns([1])
[0.0]
"""

from __future__ import annotations

from typing import Sequence


def returns(standing: Sequence[int]) -> list[float]:
    """Each seat's return from `standing` (finishing positions, 1 = first, ties sharing
    a position): (seats behind it - seats ahead of it) / (players - 1); 0.0 alone."""
    players = len(standing)
    if players < 2:
        return [0.0] * players
    others = players - 1
    return [(sum(1 for other in standing if other > mine) - sum(1 for other in standing if other < mine)) / others
            for mine in standing]
