"""The fresh-deck Flip 7 solo optimum (benchmarks/flip7_solo_optimum.py): the vectorized DP
against a plain recursion over the cards on a tiny deck, the game's fixed point against value
iteration, and the model's single round against the engine's own rounds."""

from __future__ import annotations

import importlib.util
import random
import sys
from functools import lru_cache
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from arena.rules.flip_7 import Flip7  # noqa: E402

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "flip7_solo_optimum.py"
_spec = importlib.util.spec_from_file_location("flip7_solo_optimum", _PATH)
optimum = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = optimum      # dataclasses look the module up while it loads
_spec.loader.exec_module(optimum)
_spec = importlib.util.spec_from_file_location("flip7_solo_check", _PATH.with_name("flip7_solo_check.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

# values 0..3 with 1, 1, 2, 3 copies; three distinct numbers make a "Flip 7" here
TINY = optimum.Deck(copies=(1, 1, 2, 3), modifiers=("+2", "x2"), freezes=1, flip_threes=1,
                    second_chances=2, flip_n=3, flip_bonus=15)


def brute_round(deck, g, policy=None):
    """min (or, with `policy`, the policy's) E[g(S)] and P(S = 0) of one round of the model,
    by recursion over the cards drawn; `policy(numbers, mods, c, h)` -> hit?"""
    cards = ([("n", v) for v in range(len(deck.copies))] + [("m", j) for j in range(len(deck.modifiers))]
             + [("z", 0), ("f", 0), ("s", 0)])

    def count(card, numbers, mods, c):
        kind, value = card
        if kind == "n":
            return deck.copies[value] - (value in numbers)
        if kind == "m":
            return 0 if value in mods else 1
        return {"z": deck.freezes, "f": deck.flip_threes, "s": deck.second_chances - c}[kind]

    def score(numbers, mods, flip=False):
        total = sum(numbers) * (2 if any(deck.modifiers[j] == "x2" for j in mods) else 1)
        total += sum(int(deck.modifiers[j][1:]) for j in mods if deck.modifiers[j] != "x2")
        return total + (deck.flip_bonus if flip else 0)

    def outcome(s):
        return (g[s], 1.0 if s == 0 else 0.0)

    @lru_cache(maxsize=None)
    def decide(numbers, mods, c, h, first=False):
        stay = outcome(score(numbers, mods))
        go = draw(numbers, mods, c, h, 0)
        if first:
            return go
        if policy is None:
            return go if go[0] < stay[0] else stay
        return go if policy(numbers, mods, c, h) else stay

    @lru_cache(maxsize=None)
    def draw(numbers, mods, c, h, forced):
        """Draw a card (`forced` > 0: one of a Flip Three's, Freeze and Flip Three redrawn)."""
        weights = [(card, count(card, numbers, mods, c)) for card in cards
                   if not (forced and card[0] in "zf")]
        size = sum(k for _, k in weights)
        value = zero = 0.0
        for (kind, v), k in weights:
            if not k:
                continue
            if kind == "n" and v in numbers:
                res = then(numbers, mods, c, 0, forced) if h else outcome(0)
            elif kind == "n":
                grown = tuple(sorted(numbers + (v,)))
                if len(grown) == deck.flip_n:
                    res = outcome(score(grown, mods, flip=True))
                else:
                    res = then(grown, mods, c, h, forced)
            elif kind == "m":
                res = then(numbers, tuple(sorted(mods + (v,))), c, h, forced)
            elif kind == "s":
                res = then(numbers, mods, c + 1, 1, forced)
            elif kind == "z":
                res = outcome(score(numbers, mods))
            else:
                res = draw(numbers, mods, c, h, 3)
            value += k * res[0]
            zero += k * res[1]
        return value / size, zero / size

    def then(numbers, mods, c, h, forced):
        if forced > 1:
            return draw(numbers, mods, c, h, forced - 1)
        return decide(numbers, mods, c, h)

    return decide((), (), 0, 0, True)


def random_g(model, rng):
    return np.array([rng.uniform(0, 5) for _ in range(model.max_score + 1)])


def test_the_dp_equals_a_plain_recursion_on_a_tiny_deck():
    model = optimum.Model(TINY)
    rng = random.Random(3)
    for _ in range(4):
        g = random_g(model, rng)
        value, zero, _ = model.solve(g)
        want = brute_round(TINY, g)
        assert value == pytest.approx(want[0], abs=1e-12)
        assert zero == pytest.approx(want[1], abs=1e-12)


def test_a_fixed_policy_is_evaluated_like_the_plain_recursion():
    model = optimum.Model(TINY)
    g = np.arange(model.max_score + 1, dtype=float)    # E[round score]
    rule = (model.h[None, :] == 1) | (model.nsum[:, None] < 3)
    value, zero, _ = model.solve(g, hit_rule=rule)
    want = brute_round(TINY, g, policy=lambda numbers, mods, c, h: h == 1 or sum(numbers) < 3)
    assert value == pytest.approx(want[0], abs=1e-12)
    assert zero == pytest.approx(want[1], abs=1e-12)


def test_rounds_to_go_is_the_fixed_point_of_value_iteration():
    target = 8
    model = optimum.Model(TINY)
    v, _ = model.rounds_to_go(target)
    # value iteration over totals with the plain recursion: V(t) = 1 + min E[V(t + S)]
    w = [0.0] * (target + model.max_score + 1)
    for _ in range(30):
        w = [1.0 + brute_round(TINY, np.array([w[t + s] if t + s < target else 0.0
                                               for s in range(model.max_score + 1)]))[0]
             if t < target else 0.0 for t in range(len(w))]
    assert v == pytest.approx(w[:target], abs=1e-10)
    assert all(v[t] >= v[t + 1] for t in range(target - 1))



def check_against_the_engine(rounds):
    model = optimum.Model(optimum.FULL_DECK)
    rule = (model.h[None, :] == 1) | (model.nsum[:, None] < 23)
    mean_score, p_zero, _ = model.solve(np.arange(model.max_score + 1, dtype=float), hit_rule=rule)
    scores = [check.engine_round(seed, check.stay_at_23) for seed in range(rounds)]
    mean, half = check.summary(scores)
    assert abs(mean - mean_score) < 1.5 * half       # about 3 standard errors
    zero, zhalf = check.summary([float(s == 0) for s in scores])
    assert abs(zero - p_zero) < 1.5 * zhalf


def test_the_model_round_matches_the_engine_round_for_stay_at_23():
    check_against_the_engine(3_000)


@pytest.mark.slow
def test_the_model_round_matches_the_engine_round_for_stay_at_23_closely():
    check_against_the_engine(100_000)
