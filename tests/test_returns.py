"""arena.returns: a seat's return is the share of others it beat minus the share that beat it."""

import doctest
import random

import arena.returns
from arena.returns import returns


def test_doctests_hold():
    assert doctest.testmod(arena.returns).failed == 0


def test_a_winner_alone_gets_one_a_loser_alone_minus_one_and_ties_count_zero():
    assert returns([1, 2]) == [1.0, -1.0]
    assert returns([1, 1]) == [0.0, 0.0]
    assert returns([2, 1, 2, 2]) == [-1 / 3, 1.0, -1 / 3, -1 / 3]


def test_returns_lie_in_the_unit_interval_and_sum_to_zero_on_random_standings():
    rng = random.Random(5)
    for _ in range(300):
        players = rng.randint(1, 8)
        scores = [rng.randint(0, 3) for _ in range(players)]
        standing = [1 + sum(1 for other in scores if other > mine) for mine in scores]
        values = returns(standing)
        assert all(-1.0 <= v <= 1.0 for v in values)
        assert abs(sum(values)) < 1e-9
