"""Pairwise statistics (arena/pairwise.py): paired scores by hand with ties and rotations,
the fixed-sample interval and LOS by hand, the confidence sequence against a direct
transcription of its formula and its coverage in seeded simulations, the SPRT's LLR by
hand and its error rates in seeded simulations, settled-ranking verdicts, determinism."""

import math
import random

import pytest

from arena.pairwise import (ACCEPT_H0, ACCEPT_H1, CONTINUE, EQUAL, REVERSED, SEPARATED, UNSETTLED,
                            DealScore, GameOutcome, Interval, PairTally, compare, confidence_sequence,
                            iter_confidence_sequence, iter_sprt, paired_scores, settle, split_alpha,
                            sprt, sprt_bounds, summarize, summarize_all)
from arena.pairwise import _t_quantile

# Deal 2: three rotations of one three-player deal. Deal 10: a three-player table and a
# two-player table on the same deal. Deal keys are ints, so 2 sorts before 10.
GAMES = [
    GameOutcome(2, ("a", "b", "c"), (1, 2, 2)),   # a > b = c
    GameOutcome(2, ("b", "c", "a"), (1, 2, 3)),   # b > c > a
    GameOutcome(2, ("c", "a", "b"), (2, 2, 1)),   # b > c = a
    GameOutcome(10, ("a", "b", "d"), (2, 1, 1)),  # b = d > a
    (10, ("d", "c"), (1, 2)),                     # a plain tuple will do
]


def scores_of(paired, a, b):
    return [(s.deal, s.score, s.games) for s in paired[(a, b)]]


def test_paired_scores_by_hand():
    paired = paired_scores(GAMES)
    assert list(paired) == sorted(paired)
    # a vs b: deal 2: ahead, behind, behind -> 1/3; deal 10: behind -> 0.
    assert scores_of(paired, "a", "b") == [(2, 1 / 3, 3), (10, 0.0, 1)]
    assert scores_of(paired, "b", "a") == [(2, 2 / 3, 3), (10, 1.0, 1)]
    # a vs c: ahead, behind, tied -> 1.5 / 3.
    assert scores_of(paired, "a", "c") == [(2, 0.5, 3)]
    # b vs c: tied, ahead, ahead -> 2.5 / 3.
    assert scores_of(paired, "b", "c") == [(2, 2.5 / 3, 3)]
    assert scores_of(paired, "b", "d") == [(10, 0.5, 1)]
    assert scores_of(paired, "d", "c") == [(10, 1.0, 1)]
    assert ("a", "a") not in paired and ("b", "b") not in paired
    assert set(paired) == {(x, y) for x, y in [("a", "b"), ("a", "c"), ("b", "c"), ("a", "d"),
                                                ("b", "d"), ("c", "d")] for x, y in [(x, y), (y, x)]}


def test_paired_scores_do_not_depend_on_game_order():
    rng = random.Random(3)
    games = []
    for deal in range(30):
        names = rng.sample("abcdef", 4)
        for shift in range(4):
            games.append(((deal // 10, deal), names[shift:] + names[:shift],
                          [rng.randint(1, 3) for _ in range(4)]))
    expected = paired_scores(games)
    for _ in range(5):
        rng.shuffle(games)
        assert paired_scores(games) == expected
        assert list(paired_scores(games)) == list(expected)
    for pair, scores in expected.items():
        assert [s.deal for s in scores] == sorted(s.deal for s in scores)
        mirror = expected[(pair[1], pair[0])]
        assert [s.score + m.score for s, m in zip(scores, mirror)] == [1.0] * len(scores)


def test_a_tally_fed_one_game_at_a_time_gives_the_paired_scores_at_every_point():
    tally = PairTally()
    for n, game in enumerate(GAMES, start=1):
        tally.add(*game)
        assert tally.scores() == paired_scores(GAMES[:n])


def test_paired_scores_reject_bad_tables():
    with pytest.raises(ValueError, match="two seats"):
        paired_scores([(0, ("a", "a"), (1, 2))])
    with pytest.raises(ValueError, match="standings"):
        paired_scores([(0, ("a", "b"), (1,))])


def test_t_quantiles_match_tables():
    for df, q in [(1, 12.7062047), (2, 4.3026527), (4, 2.7764451), (10, 2.2281389),
                  (30, 2.0422725), (100, 1.9839715)]:
        assert _t_quantile(0.975, df) == pytest.approx(q, abs=1e-6)
    assert _t_quantile(0.995, 3) == pytest.approx(5.8409093, abs=1e-6)


def test_summary_by_hand():
    s = summarize([1.0, 0.5, 0.75, 0.25, 1.0])
    # mean 0.7; squared deviations .09 .04 .0025 .2025 .09 = .425; sd^2 = .425 / 4
    se = math.sqrt(0.425 / 4 / 5)
    assert s.deals == 5 and s.mean == pytest.approx(0.7)
    assert s.interval.low == pytest.approx(0.7 - 2.7764451052 * se)
    assert s.interval.high == 1.0  # 0.7 + 0.405 clipped
    assert s.los == pytest.approx(0.9149665, abs=1e-6)  # Phi(0.2 / 0.14577)
    assert summarize([DealScore(0, 0.25, 4), DealScore(1, 0.75, 4)]) == summarize([0.25, 0.75])


def test_summary_degenerate_cases():
    one = summarize([0.75])
    assert (one.deals, one.mean, one.interval, one.los) == (1, 0.75, Interval(0.0, 1.0), 0.5)
    # all equal: sd^2 replaced by 1/(4 (n + 1)).
    ties = summarize([0.5] * 10)
    half = 2.2621571628 * math.sqrt(0.25 / 11 / 10)
    assert ties.interval.low == pytest.approx(0.5 - half) and ties.interval.high == pytest.approx(0.5 + half)
    assert ties.los == 0.5
    wins = summarize([1.0, 1.0])
    assert wins.interval == Interval(0.0, 1.0)  # t(1) is wide: 1 - 12.7 * 0.204 < 0
    assert wins.los == pytest.approx(0.9928471, abs=1e-6)  # Phi(0.5 / sqrt(1/24))
    with pytest.raises(ValueError):
        summarize([])
    with pytest.raises(ValueError):
        summarize([1.5, 0.5])


def reference_cs(xs, alpha):
    """The WSR predictable plug-in empirical-Bernstein CS, transcribed directly (lists, no
    running intersection, no clipping)."""
    out = []
    mus, s2s = [0.5], [0.25]
    lams = []
    for t in range(1, len(xs) + 1):
        lams.append(min(math.sqrt(2 * math.log(2 / alpha) / (s2s[t - 1] * t * math.log(1 + t))), 0.5))
        mus.append((0.5 + sum(xs[:t])) / (t + 1))
        s2s.append((0.25 + sum((xs[i] - mus[i + 1]) ** 2 for i in range(t))) / (t + 1))
        psi = [(-math.log(1 - l) - l) / 4 for l in lams]
        v = [4 * (xs[i] - mus[i]) ** 2 for i in range(t)]
        centre = sum(l * x for l, x in zip(lams, xs)) / sum(lams)
        radius = (math.log(2 / alpha) + sum(vi * p for vi, p in zip(v, psi))) / sum(lams)
        out.append((centre - radius, centre + radius))
    return out


def test_confidence_sequence_matches_its_formula():
    rng = random.Random(11)
    xs = [rng.choice([0, 0.25, 0.5, 0.75, 1.0, 1.0]) for _ in range(120)]
    low, high = -math.inf, math.inf
    for bound, (ref_low, ref_high) in zip(iter_confidence_sequence(xs, 0.05), reference_cs(xs, 0.05)):
        low, high = max(low, ref_low, 0.0), min(high, ref_high, 1.0)
        assert bound.interval.low == pytest.approx(low, abs=1e-12)
        assert bound.interval.high == pytest.approx(high, abs=1e-12)
    assert bound.deals == 120 and bound.mean == pytest.approx(sum(xs) / 120)
    assert 0.0 < bound.interval.low < bound.mean < bound.interval.high < 1.0
    assert confidence_sequence(xs, 0.05) == bound
    assert confidence_sequence([], 0.05).interval == Interval(0.0, 1.0)
    # mirrored scores give the mirrored sequence
    mirror = confidence_sequence([1 - x for x in xs], 0.05).interval
    assert mirror.low == pytest.approx(1 - bound.interval.high)
    assert mirror.high == pytest.approx(1 - bound.interval.low)


def deal_sampler(mean, rng, rotations=4, ties=0.1, concentration=4.0):
    """Deal scores with expectation `mean`: a per-deal win chance p ~ Beta, then each
    rotation a tie (1/2) with probability `ties`, else a win with probability p."""
    p_mean = (mean - ties / 2) / (1 - ties)
    a, b = concentration * p_mean, concentration * (1 - p_mean)

    def deal():
        p = rng.betavariate(a, b)
        halves = 0
        for _ in range(rotations):
            u = rng.random()
            halves += 1 if u < ties else 2 if u < ties + (1 - ties) * p else 0
        return halves / (2 * rotations)

    return deal


def cs_misses(draw, mean, runs, deals, alpha):
    """Runs in which the sequence ever excluded the true mean, looking after every deal."""
    misses = 0
    for _ in range(runs):
        for bound in iter_confidence_sequence((draw() for _ in range(deals)), alpha):
            if mean not in bound.interval:
                misses += 1
                break
    return misses


def allowed(rate, runs):
    return rate * runs + 3 * math.sqrt(rate * (1 - rate) * runs)


@pytest.mark.parametrize("name", ["bernoulli", "beta", "deals"])
def test_confidence_sequence_covers_at_every_look(name):
    rng = random.Random(2024)
    draw, mean = {
        "bernoulli": (lambda: float(rng.random() < 0.3), 0.3),
        "beta": (lambda: rng.betavariate(2, 5), 2 / 7),
        "deals": (deal_sampler(0.6, rng), 0.6),
    }[name]
    runs, alpha = 2000, 0.1
    assert cs_misses(draw, mean, runs, 100, alpha) <= allowed(alpha, runs)


@pytest.mark.slow
@pytest.mark.parametrize("mean", [0.5, 0.6, 0.9])
def test_confidence_sequence_covers_at_every_look_long(mean):
    rng = random.Random(7)
    runs = 2000
    misses = cs_misses(deal_sampler(mean, rng), mean, runs, 1000, 0.05)
    assert misses <= allowed(0.05, runs)


@pytest.mark.slow
def test_peeking_at_the_fixed_interval_is_not_valid():
    # Why the sequence exists: looking at the fixed 95% interval after every batch of 10
    # deals (30 looks) wrongly separates two equal bots far more often than 5%.
    rng = random.Random(5)
    draw = deal_sampler(0.5, rng)
    runs, misses = 300, 0
    for _ in range(runs):
        xs = []
        for _ in range(30):
            xs.extend(draw() for _ in range(10))
            if 0.5 not in summarize(xs).interval:
                misses += 1
                break
    assert misses > 0.12 * runs


def test_split_alpha():
    assert split_alpha(0.05, 10) == pytest.approx(0.005)
    with pytest.raises(ValueError):
        split_alpha(0.05, 0)


def test_sprt_by_hand():
    r = sprt([1, 0, 1, 1], margin=0.05)
    # mean .75, s2 = (1/4 + .75) / 5 = .2; LLR = 4/2 log((.2 + .0625) / (.2 + .04))
    assert r.llr == pytest.approx(2 * math.log(0.2625 / 0.24))
    assert (r.lower, r.upper) == (pytest.approx(math.log(0.05 / 0.95)), pytest.approx(math.log(19)))
    assert r.decision == CONTINUE and r.deals == 4
    assert sprt([1.0] * 40, margin=0.1).decision == ACCEPT_H1
    assert sprt([0.0] * 40, margin=0.1).decision == ACCEPT_H0
    assert sprt([]).decision == CONTINUE
    assert sprt_bounds(0.05, 0.1) == (pytest.approx(math.log(0.1 / 0.95)), pytest.approx(math.log(0.9 / 0.05)))
    with pytest.raises(ValueError):
        sprt([0.5], margin=0.0)


def sprt_decisions(draw, margin, runs, alpha=0.05, beta=0.05):
    counts = {ACCEPT_H0: 0, ACCEPT_H1: 0, CONTINUE: 0}
    for _ in range(runs):
        for result in iter_sprt((draw() for _ in range(5000)), margin, alpha, beta):
            if result.decision != CONTINUE:
                break
        counts[result.decision] += 1
    return counts


def test_sprt_error_rates():
    rng = random.Random(99)
    runs = 800
    under_h0 = sprt_decisions(deal_sampler(0.5, rng), 0.1, runs)
    under_h1 = sprt_decisions(deal_sampler(0.6, rng), 0.1, runs)
    assert under_h0[CONTINUE] == under_h1[CONTINUE] == 0
    assert under_h0[ACCEPT_H1] <= allowed(0.05, runs)
    assert under_h1[ACCEPT_H0] <= allowed(0.05, runs)
    # and not absurdly conservative: Wald's bounds are near the mark
    assert under_h0[ACCEPT_H1] >= 0.01 * runs and under_h1[ACCEPT_H0] >= 0.01 * runs


@pytest.mark.slow
@pytest.mark.parametrize("alpha, beta", [(0.05, 0.05), (0.05, 0.2)])
def test_sprt_error_rates_long(alpha, beta):
    rng = random.Random(100)
    runs = 2000
    under_h0 = sprt_decisions(deal_sampler(0.5, rng), 0.05, runs, alpha, beta)
    under_h1 = sprt_decisions(deal_sampler(0.55, rng), 0.05, runs, alpha, beta)
    assert under_h0[ACCEPT_H1] <= allowed(alpha, runs)
    assert under_h1[ACCEPT_H0] <= allowed(beta, runs)
    assert under_h0[ACCEPT_H1] >= 0.5 * alpha * runs and under_h1[ACCEPT_H0] >= 0.5 * beta * runs


def test_settle_verdicts():
    n = 600
    pairs = {
        ("a", "b"): [1.0, 0.75] * (n // 2),     # a well ahead of b
        ("c", "b"): [0.5] * n,                  # b and c: every deal a tie
        ("a", "c"): [0.75] * n,
        ("c", "d"): [0.5, 0.75] * 3,            # six deals: nothing shown
    }
    result = settle(["a", "b", "c", "d"], pairs, margin=0.05)
    assert [(v.upper, v.lower, v.status) for v in result.verdicts] == [
        ("a", "b", SEPARATED), ("b", "c", EQUAL), ("c", "d", UNSETTLED)]
    assert result.pairs == 4 and result.alpha_per_pair == pytest.approx(0.05 / 4)
    assert not result.settled and result.method == "sequence"
    assert result.verdicts[1].mean == 0.5 and result.verdicts[1].deals == n  # (c, b) mirrored
    # the whole ranking settles without its unsettled tail
    assert settle(["a", "b", "c"], pairs).settled
    # the wrong order is reported as such
    assert [v.status for v in settle(["b", "a", "c"], pairs).verdicts][0] == REVERSED
    # neighbours that never met are not settled
    assert settle(["a", "d"], pairs).verdicts[0].status == UNSETTLED
    # the fixed-sample variant, one look
    fixed = settle(["a", "b", "c"], pairs, method="fixed")
    assert [v.status for v in fixed.verdicts] == [SEPARATED, EQUAL] and fixed.method == "fixed"


def test_settle_splits_alpha_over_every_pair():
    xs = [0.75, 0.5, 0.75, 0.5, 0.75, 0.25] * 10
    alone = settle(["a", "b"], {("a", "b"): xs})
    crowded = settle(["a", "b"], {("a", "b"): xs}, pair_count=20)
    assert alone.alpha_per_pair == pytest.approx(0.05) and crowded.alpha_per_pair == pytest.approx(0.0025)
    assert crowded.verdicts[0].interval.low < alone.verdicts[0].interval.low


def test_everything_is_deterministic_in_input_order():
    rng = random.Random(8)
    games = []
    for deal in range(40):
        names = ["v1", "v2", "x", "y"]
        rng.shuffle(names)
        for shift in range(4):
            standing = [rng.randint(1, 4) for _ in range(4)]
            games.append((deal, names[shift:] + names[:shift], standing))
    first = paired_scores(games)
    rng.shuffle(games)
    second = paired_scores(games)
    assert summarize_all(first) == summarize_all(second)
    assert list(summarize_all(first)) == sorted(first)
    order = ["v2", "v1", "x", "y"]
    assert settle(order, first) == settle(order, dict(reversed(list(second.items()))))
    assert sprt(first[("v2", "v1")]) == sprt(second[("v2", "v1")])
    assert confidence_sequence(first[("x", "y")]) == confidence_sequence(second[("x", "y")])


def test_compare_judges_every_pair_at_the_split_error_rate_and_agrees_with_settle():
    n = 600
    pairs = {
        ("a", "b"): [1.0, 0.75] * (n // 2),
        ("c", "b"): [0.5] * n,
        ("a", "c"): [0.75] * n,
        ("c", "d"): [0.5, 0.75] * 3,
    }
    order = ["a", "b", "c", "d"]
    for method in ("sequence", "fixed"):
        result = compare(order, pairs, margin=0.05, method=method)
        # every pair that met, upper first, by the upper's then the lower's rank; (a, d) and (b, d) never met
        assert [(v.upper, v.lower) for v in result.verdicts] == [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d")]
        assert result.pairs == 4 and result.alpha_per_pair == pytest.approx(0.05 / 4)
        adjacent = {(v.upper, v.lower): v for v in settle(order, pairs, margin=0.05, method=method).verdicts}
        for v in result.verdicts:
            if (v.upper, v.lower) in adjacent:
                assert v == adjacent[(v.upper, v.lower)]
        ac = result.verdicts[1]
        assert ac.status == SEPARATED and ac.los == summarize(pairs[("a", "c")]).los
        if method == "fixed":
            assert ac.interval == summarize(pairs[("a", "c")], 1 - 0.05 / 4).interval
        else:
            assert ac.interval == confidence_sequence(pairs[("a", "c")], 0.05 / 4).interval
    # the order decides which side is upper: the same pair reversed
    flipped = compare(["b", "a"], pairs, method="fixed").verdicts[0]
    assert (flipped.upper, flipped.status) == ("b", REVERSED) and flipped.mean == pytest.approx(1 - 0.875)
    assert compare(order, pairs, pair_count=10).alpha_per_pair == pytest.approx(0.005)


# -- betting intervals and the betting SPRT (issue 43) -------------------------------------

from arena.pairwise import (BETTING, CLASSIC, betting_sprt, iter_betting_sprt, judge,  # noqa: E402
                            pair_status)


def _deal_scores(rng, p_win, p_split, n):
    """Deal scores of a two-player pair: won both games, split them, or lost both."""
    out = []
    for _ in range(n):
        u = rng.random()
        out.append(1.0 if u < p_win else 0.5 if u < p_win + p_split else 0.0)
    return out


def test_with_betting_intervals_settle_separates_a_clear_gap_that_the_classic_sequence_leaves_open():
    rng = random.Random(4)
    scores = {("a", "b"): _deal_scores(rng, 0.6, 0.3, 40)}  # mean 0.75 over 40 deals
    classic = settle(["a", "b"], scores, confidence=0.95, margin=0.05, pair_count=6)
    betting = settle(["a", "b"], scores, confidence=0.95, margin=0.05, pair_count=6, intervals=BETTING)
    assert classic.verdicts[0].status == UNSETTLED and classic.intervals == CLASSIC
    assert betting.verdicts[0].status == SEPARATED and betting.intervals == BETTING
    assert betting.verdicts[0].interval.low > 0.5 > classic.verdicts[0].interval.low


def test_a_betting_verdict_agrees_with_its_interval_and_with_pair_status():
    rng = random.Random(9)
    for mean_case in ((0.45, 0.3), (0.3, 0.4), (0.2, 0.3), (0.35, 0.3)):
        for method in ("sequence", "fixed"):
            values = _deal_scores(rng, *mean_case, 120)
            v = judge("a", "b", values, 0.05, 0.1, method, BETTING)
            assert v.status == pair_status(values, 0.05, 0.1, method, BETTING)
            if v.status == SEPARATED:
                assert v.interval.low >= 0.5 - 1e-9
            elif v.status == REVERSED:
                assert v.interval.high <= 0.5 + 1e-9
            elif v.status == UNSETTLED:
                assert v.interval.low <= 0.5 + 1e-9 or v.interval.high >= 0.6 - 1e-9
            assert v.mean == pytest.approx(sum(values) / len(values))


def test_two_equal_bots_are_shown_equal_by_betting_intervals_given_enough_deals():
    rng = random.Random(12)
    values = _deal_scores(rng, 0.3, 0.4, 3000)  # mean 1/2, sd 0.39
    assert judge("a", "b", values, 0.05, 0.05, "sequence", BETTING).status == EQUAL


def test_an_unknown_interval_family_is_refused():
    with pytest.raises(ValueError, match="intervals must be one of betting, classic"):
        settle(["a", "b"], {("a", "b"): [0.5]}, intervals="bayes")


def _betting_sprt_decision(values, margin=0.1):
    for result in iter_betting_sprt(values, margin, 0.05, 0.05):
        if result.decision != CONTINUE:
            return result.decision, result.deals
    return CONTINUE, len(values)


@pytest.mark.parametrize("p_win,p_split,wrong", [(0.3, 0.4, ACCEPT_H1), (0.4, 0.4, ACCEPT_H0)],
                         ids=["under H0 (0.5)", "under H1 (0.6)"])
def test_the_betting_sprt_errs_in_at_most_alpha_or_beta_of_runs(p_win, p_split, wrong):
    rng = random.Random(21)
    runs = 300
    errors = sum(_betting_sprt_decision(_deal_scores(rng, p_win, p_split, 2000))[0] == wrong for _ in range(runs))
    assert errors <= 0.05 * runs + 3.1 * math.sqrt(0.05 * 0.95 * runs)


def test_the_betting_sprt_reports_its_log_capitals_and_bounds():
    result = betting_sprt([1.0] * 30, margin=0.1, alpha=0.05, beta=0.1)
    assert result.decision == ACCEPT_H1 and result.against_h0 >= result.h0_bound == pytest.approx(math.log(20))
    assert result.h1_bound == pytest.approx(math.log(10)) and result.against_h1 == 0.0
    assert betting_sprt([], 0.1).decision == CONTINUE
