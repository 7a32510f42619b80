"""Calibration and efficiency of `stop`, on real tournaments of fast inline Flip 7 bots
(issue 19 item 8; benchmarks/bench_stopping.py runs them, README.md has the figures).
Each run is `arena run` of a two-entry tournament, its verdict read from its last look.
The default suite runs a small sample; the full samples are marked slow."""

import importlib.util
import sys
from pathlib import Path

import pytest

from arena import pairwise

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_stopping.py"
_spec = importlib.util.spec_from_file_location("bench_stopping", _PATH)
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench  # dataclasses look the module up while it loads
_spec.loader.exec_module(bench)

SETTLED = 'stop = "settled"\nconfidence = 0.95\nmargin = 0.05'
# Measured with bench_stopping.py measure over 4,000 deals (seed 1): threshold 23 against 15
# scores 0.648 (95% 0.638-0.658), against 17 0.596 (0.586-0.607), deal-score sd 0.334.
STRONG, WEAK, NEAR = 23, 15, 17
RANDOM = 0  # two copies of a threshold bot tie every deal (each plays both seats of the same cards)


def separated_wrongly(outcomes):
    return sum(o.status in (pairwise.SEPARATED, pairwise.REVERSED) for o in outcomes)


# Each run costs seconds (the luck corrections of every deal), so the default sample is 4 runs;
# a stop that separates ties or misses a large gap fails in most runs, not one of them.
SMALL_SAMPLE = 4


def test_a_small_sample_two_copies_of_one_bot_are_not_separated():
    out = bench.many_runs(SMALL_SAMPLE, RANDOM, RANDOM, SETTLED, max_deals=24, look_every=4, same=True, echo=None)
    assert len(out) == SMALL_SAMPLE and separated_wrongly(out) <= 1 and all(o.deals <= 24 for o in out)


def test_a_small_sample_a_large_gap_is_separated_in_the_right_order():
    out = bench.many_runs(SMALL_SAMPLE, STRONG, 10, SETTLED, max_deals=200, look_every=4, echo=None)  # 0.87 (1,500 deals)
    assert len(out) == SMALL_SAMPLE and all(o.status == pairwise.SEPARATED and o.reason == "settled" for o in out)


@pytest.mark.slow
def test_two_copies_of_one_bot_are_wrongly_separated_in_at_most_15_of_200_runs():
    out = bench.many_runs(200, RANDOM, RANDOM, SETTLED, max_deals=100, look_every=4, same=True, echo=None)
    assert separated_wrongly(out) <= 15


@pytest.mark.slow
def test_a_known_gap_is_separated_in_the_right_order_in_at_least_95_percent_of_200_runs():
    out = bench.many_runs(200, STRONG, WEAK, SETTLED, max_deals=600, look_every=4, echo=None)
    assert sum(o.status == pairwise.SEPARATED for o in out) >= 190


@pytest.mark.slow
def test_the_sprt_at_a_true_paired_score_of_060_needs_fewer_deals_than_the_fixed_sample_test():
    stop = 'stop = { test = "sprt", bot = "first", baseline = "second", margin = 0.1, alpha = 0.05, beta = 0.05 }'
    out = bench.many_runs(200, STRONG, NEAR, stop, max_deals=400, look_every=1, echo=None)
    power = sum(o.reason == pairwise.ACCEPT_H1 for o in out) / len(out)
    assert power >= 0.9  # H1 is 0.60, the pair's true score 0.596: a little under the 0.95 asked
    mean_deals = sum(o.deals for o in out) / len(out)
    fixed = bench.fixed_sample_deals(0.596, 0.334, power=power, confidence=0.95)  # the same power, one look
    assert fixed / mean_deals >= 1.8  # measured 2.0x (README.md); Wald's bound allows any test at most 2.5x here
