"""Pairwise statistics: comparing two entries over deals.

The unit is the *deal*, never the game: the rotations of one deal are correlated, so
every statistic here is over deal-level *paired scores* (issue 19). The paired score of
A against B on a deal is the share of that deal's games at tables holding both in which
A finished ahead of B, a tie counting a half; it lies in [0, 1], and A's and B's scores
on a deal sum to 1.

What is here, all pure functions of their arguments and small frozen values:

- `paired_scores`: games (deal key, entries by seat, standing by seat) -> per ordered
  pair, its deal scores in deal-key order; `PairTally` builds the same a game at a time.
- `summarize`: the fixed-sample summary of one pair: mean, Student-t 95% interval, LOS
  (likelihood of superiority), number of deals.
- `confidence_sequence` / `iter_confidence_sequence`: an anytime-valid confidence
  sequence for the mean (the predictable plug-in empirical-Bernstein CS of
  Waudby-Smith & Ramdas), valid however often one looks and whenever one stops;
  `split_alpha` spreads an error rate over K pairs (Bonferroni).
- `sprt` / `iter_sprt`: the two-bot question, H0 mean 1/2 against H1 1/2 + margin, as a
  normal-approximation (generalised) SPRT on deal scores, as chess testers run it.
- `settle`: for entries in a ranked order, whether each adjacent pair is separated,
  shown equal within a margin, or not settled, and whether the whole ranking is;
  `compare`: the same verdict for every pair of the order, with the same error control.
- Two families of intervals (`INTERVALS`), chosen per run and recorded in its plan:
  "betting" (issue 43; `arena.confidence`: the hedged-capital betting confidence
  sequence with `stop`, the fixed-n betting interval without), and "classic" (the
  empirical-Bernstein sequence and the Student-t interval above), which a plan without
  a recorded method keeps, so that stores made before issue 43 rank as they did.
- A third family, "asymptotic" (`ASYMPTOTIC`), for scores with no usable bound (the
  luck-adjusted scores of `arena.luck`): the asymptotic confidence sequence
  (`arena.confidence.asymptotic_cs`) with `stop`, a Student-t interval without (neither
  clipped to [0, 1]); its verdicts wait for `ASYMPTOTIC_MIN_DEALS` deals (its
  calibration: docs/statistics.md).
- `iter_betting_sprt`: the SPRT's question answered by two betting e-processes;
  `iter_asymptotic_sprt`: the same question answered by the asymptotic CS.

Order matters for the sequential methods (the CS's bets and the SPRT's looks depend on
which deals came first), so deal keys must sort in schedule order (a deal index, or a
tuple starting with one). Nothing here iterates a hash-ordered collection where that
could change a result: same games in any order, same output. Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any, Hashable, Iterable, Iterator, Mapping, NamedTuple, Sequence, Union

from arena.confidence import BettingCS, asymptotic_cs, normal_mixture_radius, optimal_rho2

SEPARATED = "separated"   # the interval excludes 1/2 on the side the ranking says
REVERSED = "reversed"     # the interval excludes 1/2 on the other side: the order is wrong
EQUAL = "equal"           # the interval lies within 1/2 +- margin
UNSETTLED = "unsettled"   # none of these (or the two never shared a table)
SETTLED_STATES = (SEPARATED, REVERSED, EQUAL)

BETTING = "betting"   # intervals: arena.confidence's betting CS / fixed-n interval (issue 43)
CLASSIC = "classic"   # intervals: empirical-Bernstein CS / Student t (a plan with no recorded method)
ASYMPTOTIC = "asymptotic"  # intervals: asymptotic CS / Student t on unbounded (luck-adjusted) scores
INTERVALS = (BETTING, CLASSIC, ASYMPTOTIC)

ASYMPTOTIC_T_STAR = 100
"""The deals at which the asymptotic CS is tightest (`arena.confidence.optimal_rho2`): about
where adjusted stops end (docs/statistics.md)."""
ASYMPTOTIC_MIN_DEALS = 20
"""Deals an "asymptotic" pair needs before its interval may give a verdict (fewer: not
settled). The CS is a large-sample approximation whose spread is estimated: read from the
first looks it misses far more often than alpha (12-13% at alpha 0.05 from deal 4 on, on
raw-like and on recorded Flip 7 scores); from 20 deals on it held on recorded adjusted Flip 7
scores (3.1-3.4%) and on symmetric nulls (docs/luck.md, which also says where it does not:
strongly skewed scores)."""

ACCEPT_H0 = "accept H0"
ACCEPT_H1 = "accept H1"
CONTINUE = "continue"

_NORMAL = NormalDist()
_CS_TRUNCATION = 0.5  # the bets' cap c of Waudby-Smith & Ramdas (they suggest 1/2 or 3/4)


# ---------------------------------------------------------------- values


class GameOutcome(NamedTuple):
    """One finished game: its deal key, the entry at each seat, the standing at each seat
    (finishing position, 1 = first, ties sharing a position). Plain 3-tuples work too."""

    deal: Hashable
    entries: Sequence[str]
    standing: Sequence[int]


@dataclass(frozen=True)
class DealScore:
    """A's paired score against B on one deal, over `games` games of that deal."""

    deal: Hashable
    score: float
    games: int


@dataclass(frozen=True)
class Interval:
    """A closed interval [low, high] for a mean paired score."""

    low: float
    high: float

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class PairSummary:
    """Fixed-sample summary of one ordered pair over `deals` deals."""

    deals: int
    mean: float
    interval: Interval
    los: float


@dataclass(frozen=True)
class SequenceBound:
    """The confidence sequence after `deals` deals: plain mean and anytime-valid interval."""

    deals: int
    mean: float
    interval: Interval


@dataclass(frozen=True)
class SprtResult:
    """SPRT state after `deals` deals: `decision` is ACCEPT_H0, ACCEPT_H1 or CONTINUE;
    `llr` the log-likelihood ratio, stopping when it leaves (lower, upper)."""

    decision: str
    llr: float
    lower: float
    upper: float
    deals: int
    mean: float


@dataclass(frozen=True)
class PairVerdict:
    """A pair of a ranking, `upper` ranked above `lower`: `status` is one of SEPARATED,
    REVERSED, EQUAL, UNSETTLED; `interval` is for upper's mean paired score against
    lower, at the per-pair confidence; `los` upper's likelihood of superiority (the
    fixed-sample normal approximation of `summarize`, 1/2 without two deals)."""

    upper: str
    lower: str
    status: str
    deals: int
    mean: float
    interval: Interval
    los: float = 0.5


AdjacentVerdict = PairVerdict  # the pairs `settle` judges are those at ranks i, i+1


@dataclass(frozen=True)
class Comparison:
    """Verdicts for every pair of one ruleset's ranking: (order[i], order[j]) for i < j,
    by i then j; the error rate 1 - confidence is split over `pairs` pairs."""

    verdicts: tuple[PairVerdict, ...]
    pairs: int
    alpha_per_pair: float
    method: str
    confidence: float
    margin: float
    intervals: str = CLASSIC


@dataclass(frozen=True)
class Settlement:
    """Verdicts for every adjacent pair of one ruleset's ranking, best first."""

    verdicts: tuple[AdjacentVerdict, ...]
    settled: bool        # every adjacent pair is separated, reversed or equal
    pairs: int           # K, the number of pairs the error rate was split over
    alpha_per_pair: float
    method: str          # "sequence" (anytime-valid) or "fixed"
    intervals: str = CLASSIC  # "betting" or "classic" (INTERVALS)


Scores = Sequence[Union[float, DealScore]]


# ---------------------------------------------------------------- paired scores


def paired_scores(games: Iterable[Sequence[Any]]) -> dict[tuple[str, str], tuple[DealScore, ...]]:
    """Per ordered pair (A, B) of entries that shared a table: A's paired score against B
    on each deal, sorted by deal key.

    `games` are (deal, entries by seat, standing by seat) of ONE ruleset (`GameOutcome`
    or plain tuples). A deal's score is over all of that deal's games holding both A and
    B (its rotations): (games A ahead + half the games tied) / games. Both orders of a
    pair are returned (B's scores are 1 - A's), keys sorted. An entry seated twice at one
    table, or a standing whose length differs from the table's, is a ValueError; deal keys
    must be mutually orderable."""
    tally = PairTally()
    for deal, entries, standing in games:
        tally.add(deal, entries, standing)
    return tally.scores()


class PairTally:
    """`paired_scores`, fed one game at a time (`add`) and read at any point (`scores`).
    Entries may be any orderable values (names, entry numbers)."""

    def __init__(self) -> None:
        # (a, b) -> deal -> [half-points of a over b, games]; integer counts, so the result
        # does not depend on the order of the games.
        self._tally: dict[tuple[Any, Any], dict[Any, list[int]]] = {}  # deal keys: hashable and orderable

    def add(self, deal: Hashable, entries: Sequence[Any], standing: Sequence[int]) -> None:
        """Count one game of deal `deal` (see `paired_scores`)."""
        if len(entries) != len(standing):
            raise ValueError(f"deal {deal!r}: {len(entries)} entries but {len(standing)} standings")
        if len(set(entries)) != len(entries):
            raise ValueError(f"deal {deal!r}: an entry holds two seats at one table: {list(entries)}")
        tally = self._tally
        for i, a in enumerate(entries):
            for j, b in enumerate(entries):
                if i == j:
                    continue
                halves = 2 if standing[i] < standing[j] else 1 if standing[i] == standing[j] else 0
                cell = tally.setdefault((a, b), {}).setdefault(deal, [0, 0])
                cell[0] += halves
                cell[1] += 1

    def scores(self) -> dict[tuple[Any, Any], tuple[DealScore, ...]]:
        """The `paired_scores` of the games added so far."""
        tally = self._tally
        return {
            pair: tuple(DealScore(deal, tally[pair][deal][0] / (2 * tally[pair][deal][1]), tally[pair][deal][1])
                        for deal in sorted(tally[pair]))
            for pair in sorted(tally)
        }


def _values(scores: Scores, bounded: bool = True) -> list[float]:
    return list(_iter_values(scores, bounded))


def _iter_values(scores: Iterable[Union[float, DealScore]], bounded: bool = True) -> Iterator[float]:
    # Lazy, so that a sequential procedure fed a generator reads only what it uses.
    for s in scores:
        v = s.score if isinstance(s, DealScore) else float(s)
        if bounded and not 0.0 <= v <= 1.0:
            raise ValueError(f"a deal score must lie in [0, 1], got {v!r}")
        if not math.isfinite(v):
            raise ValueError(f"a deal score must be finite, got {v!r}")
        yield v


# ---------------------------------------------------------------- fixed sample


def _t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with df degrees of freedom (p > 1/2)."""
    return _t_quantile_cached(round(p, 15), int(df))


@lru_cache(maxsize=256)
def _t_quantile_cached(p: float, df: int) -> float:
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2
    for _ in range(200):  # bisection to float precision
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _t_cdf(t: float, df: int) -> float:
    tail = 0.5 * _regularized_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), by the continued fraction (Numerical Recipes, `betai`/`betacf`)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def summarize(scores: Scores, confidence: float = 0.95, bounded: bool = True) -> PairSummary:
    """Fixed-sample summary of one pair's deal scores (floats or `DealScore`s).

    mean = the plain mean over deals; interval = mean +- t(n-1) * sd / sqrt(n) (Student
    t, sd with divisor n-1), clipped to [0, 1]; LOS = Phi((mean - 1/2) / (sd / sqrt(n))),
    the normal approximation chess tools use. If every deal scored the same (sd = 0, for
    instance 2 deals both won), sd^2 is replaced by 1/(4(n+1)), the variance of the
    prior WSR's betting CS uses (one pseudo-deal of the largest possible variance 1/4),
    so a few identical deals never give a zero-width interval. With one deal there is no
    spread to measure: the interval is [0, 1] and LOS 1/2. No deals is a ValueError.
    Valid only when looked at once (fixed sample): for repeated looks use
    `confidence_sequence`. `bounded` False: scores on any scale (luck-adjusted), not
    checked against [0, 1] and the interval not clipped (the "asymptotic" family's
    fixed-sample interval; with one deal, the real line)."""
    values = _values(scores, bounded)
    n = len(values)
    if n == 0:
        raise ValueError("no deals to summarise")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    mean = math.fsum(values) / n
    if n == 1:
        return PairSummary(1, mean, Interval(0.0, 1.0) if bounded else Interval(-math.inf, math.inf), 0.5)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    if var == 0:
        var = 0.25 / (n + 1)
    se = math.sqrt(var / n)
    half = _t_quantile(1 - (1 - confidence) / 2, n - 1) * se
    interval = Interval(max(0.0, mean - half), min(1.0, mean + half)) if bounded else \
        Interval(mean - half, mean + half)
    return PairSummary(n, mean, interval, _NORMAL.cdf((mean - 0.5) / se))


def summarize_all(paired: Mapping[tuple[str, str], Scores],
                  confidence: float = 0.95) -> dict[tuple[str, str], PairSummary]:
    """`summarize` for every pair of a `paired_scores` result, keys sorted."""
    return {pair: summarize(paired[pair], confidence) for pair in sorted(paired)}


# ---------------------------------------------------------------- confidence sequence


def split_alpha(alpha: float, pairs: int) -> float:
    """Bonferroni: the error rate per pair that keeps the chance of ANY of `pairs`
    anytime-valid sequences (or tests) ever missing at most `alpha`."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if pairs < 1:
        raise ValueError(f"need at least one pair, got {pairs!r}")
    return alpha / pairs


def iter_confidence_sequence(scores: Scores, alpha: float = 0.05) -> Iterator[SequenceBound]:
    """After each deal, in order, the anytime-valid (1 - alpha) confidence sequence for the
    mean of deal scores in [0, 1] whose conditional mean is constant (independent deals).

    Method: the predictable plug-in empirical-Bernstein CS, Waudby-Smith & Ramdas,
    "Estimating means of bounded random variables by betting", JRSS-B 86(1), 2024
    (arXiv:2010.09686), Theorem 2 with their bets: for t = 1, 2, ...
        mu_t = (1/2 + sum_{i<=t} x_i) / (t + 1),   s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1)
        lam_t = min(sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))), 1/2)
        v_t = 4 (x_t - mu_{t-1})^2,   psi(l) = (-log(1 - l) - l) / 4
        C_t = sum lam_i x_i / sum lam_i  +-  (log(2/alpha) + sum v_i psi(lam_i)) / sum lam_i
    with mu_0 = 1/2, s2_0 = 1/4. P(the true mean lies in every C_t, t >= 1) >= 1 - alpha
    (Ville's inequality on two nonnegative supermartingales), so one may look after
    every deal and stop whenever one likes. The yielded interval is the running
    intersection of the C_t, clipped to [0, 1] (still valid); should the intersection be
    empty, which happens only on the error event, the current C_t replaces it."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    log_term = math.log(2 / alpha)
    mu_prev, s2_prev = 0.5, 0.25
    total = sq_dev = 0.0
    sum_lam = sum_lam_x = sum_penalty = 0.0
    low, high = 0.0, 1.0
    for t, x in enumerate(_iter_values(scores), start=1):
        lam = min(math.sqrt(2 * log_term / (s2_prev * t * math.log1p(t))), _CS_TRUNCATION)
        sum_lam += lam
        sum_lam_x += lam * x
        sum_penalty += (x - mu_prev) ** 2 * (-math.log1p(-lam) - lam)  # v_t * psi(lam_t)
        center = sum_lam_x / sum_lam
        radius = (log_term + sum_penalty) / sum_lam
        step_low, step_high = max(0.0, center - radius), min(1.0, center + radius)
        new_low, new_high = max(low, step_low), min(high, step_high)
        low, high = (new_low, new_high) if new_low <= new_high else (step_low, step_high)
        total += x
        mu_prev = (0.5 + total) / (t + 1)
        sq_dev += (x - mu_prev) ** 2
        s2_prev = (0.25 + sq_dev) / (t + 1)
        yield SequenceBound(t, total / t, Interval(low, high))


def confidence_sequence(scores: Scores, alpha: float = 0.05) -> SequenceBound:
    """The confidence sequence of `iter_confidence_sequence` after the last deal; with no
    deals, the whole range [0, 1] (mean 1/2)."""
    bound = SequenceBound(0, 0.5, Interval(0.0, 1.0))
    for bound in iter_confidence_sequence(scores, alpha):
        pass
    return bound


# ---------------------------------------------------------------- SPRT


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: (log(beta/(1-alpha)), log((1-beta)/alpha))."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, got {alpha!r}, {beta!r}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def iter_sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05,
              beta: float = 0.05) -> Iterator[SprtResult]:
    """After each deal, in order, the SPRT of H0: mean paired score 1/2 against H1: 1/2 +
    margin (alpha = P(accept H1 | H0), beta = P(accept H0 | H1)).

    Model: a generalised SPRT on a normal model of the deal scores with unknown variance,
    the form fishtest's `LLRcalc.LLR_alt` (M. Van den Bergh) applies to pentanomial game
    pairs (the GSPRT chess testers run). Each hypothesis's variance is its
    maximum-likelihood value, so
        LLR_n = n/2 * log(r0 / r1),   r_k = s2_n + (mean_n - mu_k)^2,   mu_0 = 1/2, mu_1 = 1/2 + margin
    with s2_n = (1/4 + sum (x_i - mean_n)^2) / (n + 1), the sample variance regularised by
    one pseudo-deal of the largest possible variance 1/4 (as in WSR's bets), so that a few
    identical deals cannot give an unbounded LLR. To first order this is the plug-in
    n * margin * (2 mean - 1 - margin) / (2 s2) (`LLR_alt2`), which in our simulations let
    too many false H1 through with few deals (7% for alpha 5% at margin 0.1); this form
    held 5%. Stop at Wald's bounds (`sprt_bounds`); error rates are Wald's approximate
    ones, measured in the tests. Decisions are meant for the first crossing: stop there."""
    if not 0 < margin < 0.5:
        raise ValueError(f"margin must lie in (0, 1/2), got {margin!r}")
    lower, upper = sprt_bounds(alpha, beta)
    n = 0
    total = total_sq = 0.0
    for x in _iter_values(scores):
        n += 1
        total += x
        total_sq += x * x
        mean = total / n
        sq_dev = max(0.0, total_sq - n * mean * mean)
        s2 = (0.25 + sq_dev) / (n + 1)
        llr = n / 2 * math.log((s2 + (mean - 0.5) ** 2) / (s2 + (mean - 0.5 - margin) ** 2))
        decision = ACCEPT_H1 if llr >= upper else ACCEPT_H0 if llr <= lower else CONTINUE
        yield SprtResult(decision, llr, lower, upper, n, mean)


def sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """The SPRT of `iter_sprt` after the last deal (LLR 0, CONTINUE with no deals). A run
    that looks at batch boundaries calls this on the scores so far and stops at the first
    decision that is not CONTINUE."""
    lower, upper = sprt_bounds(alpha, beta)
    result = SprtResult(CONTINUE, 0.0, lower, upper, 0, 0.5)
    for result in iter_sprt(scores, margin, alpha, beta):
        pass
    return result


@dataclass(frozen=True)
class BettingSprtResult:
    """The betting SPRT's state after `deals` deals: `decision` is ACCEPT_H0, ACCEPT_H1 or
    CONTINUE; `against_h0` and `against_h1` the log e-values (the gamblers' largest log
    capital so far) against H0 and against H1, stopping when the first reaches
    `h0_bound` = log(1/alpha) (accept H1) or the second `h1_bound` = log(1/beta)."""

    decision: str
    against_h0: float
    against_h1: float
    h0_bound: float
    h1_bound: float
    deals: int
    mean: float


def iter_betting_sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05,
                      beta: float = 0.05) -> Iterator[BettingSprtResult]:
    """After each deal, in order, the SPRT's question (H0: mean paired score 1/2, H1: 1/2 +
    margin) answered by two betting e-processes (Waudby-Smith & Ramdas 2024, sec. 3):

        E0_t = prod (1 + l_i (x_i - 1/2)),       l_i = margin / v0_{i-1}, at most 1
        E1_t = prod (1 - g_i (x_i - mu_1)),      g_i = margin / v1_{i-1}, at most 1/2 / (1 - mu_1)
        v_k,t = (1/4 + sum_{i<=t} (x_i - mu_k)^2) / (t + 1),  mu_0 = 1/2, mu_1 = 1/2 + margin

    (each bet the growth-optimal one at the other hypothesis, to second order, with the
    second moment estimated from the past deals). Accept H1 when E0 reaches 1/alpha,
    H0 when E1 reaches 1/beta. Under H0 (any mean <= 1/2, any distribution on [0, 1]),
    E0 is a nonnegative supermartingale, so P(accept H1) <= alpha exactly, whenever one
    looks (Ville's inequality), and likewise P(accept H0 | mean >= 1/2 + margin) <= beta:
    no normal approximation, unlike `iter_sprt` whose rates are Wald's approximate ones."""
    if not 0 < margin < 0.5:
        raise ValueError(f"margin must lie in (0, 1/2), got {margin!r}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"need 0 < alpha, beta < 1, got {alpha!r}, {beta!r}")
    mu0, mu1 = 0.5, 0.5 + margin
    h0_bound, h1_bound = math.log(1 / alpha), math.log(1 / beta)
    cap0, cap1 = _CS_TRUNCATION / mu0, _CS_TRUNCATION / (1 - mu1)
    log0 = log1 = peak0 = peak1 = 0.0
    sq0 = sq1 = total = 0.0
    for n, x in enumerate(_iter_values(scores), start=1):
        log0 += math.log1p(min(margin * n / (0.25 + sq0), cap0) * (x - mu0))
        log1 += math.log1p(min(margin * n / (0.25 + sq1), cap1) * (mu1 - x))
        peak0, peak1 = max(peak0, log0), max(peak1, log1)
        sq0 += (x - mu0) ** 2
        sq1 += (x - mu1) ** 2
        total += x
        decision = ACCEPT_H1 if peak0 >= h0_bound else ACCEPT_H0 if peak1 >= h1_bound else CONTINUE
        yield BettingSprtResult(decision, peak0, peak1, h0_bound, h1_bound, n, total / n)


def betting_sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05,
                 beta: float = 0.05) -> BettingSprtResult:
    """`iter_betting_sprt` after the last deal (CONTINUE with no deals)."""
    result = BettingSprtResult(CONTINUE, 0.0, 0.0, math.log(1 / alpha), math.log(1 / beta), 0, 0.5)
    for result in iter_betting_sprt(scores, margin, alpha, beta):
        pass
    return result


@dataclass(frozen=True)
class AsymptoticSprtResult:
    """The asymptotic SPRT's state after `deals` deals: `decision` is ACCEPT_H0, ACCEPT_H1
    or CONTINUE; `low` the lower end of the CS read against H0 (accept H1 once above
    1/2), `high` the upper end read against H1 (accept H0 once below 1/2 + margin)."""

    decision: str
    low: float
    high: float
    deals: int
    mean: float


def iter_asymptotic_sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
                         t_star: int = ASYMPTOTIC_T_STAR,
                         min_deals: int = ASYMPTOTIC_MIN_DEALS) -> Iterator[AsymptoticSprtResult]:
    """After each deal, in order, the SPRT's question (H0: mean 1/2, H1: 1/2 + margin) for
    scores with no usable bound (luck-adjusted), answered by the asymptotic CS
    (`arena.confidence.iter_asymptotic_cs`): its lower end at two-sided level 1 - 2 alpha
    (one side misses with probability alpha) and its upper end at 1 - 2 beta. Accept H1
    when the lower end passes 1/2, H0 when the upper end falls below 1/2 + margin; not
    before `min_deals` deals. Error rates are the CS's: alpha and beta as the deals grow
    (a large-sample approximation, measured in tests/test_luck_intervals.py)."""
    if not 0 < margin < 0.5:
        raise ValueError(f"margin must lie in (0, 1/2), got {margin!r}")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError(f"need 0 < alpha, beta < 1/2, got {alpha!r}, {beta!r}")
    rho_a, rho_b = optimal_rho2(2 * alpha, t_star), optimal_rho2(2 * beta, t_star)
    n = 0
    mean = m2 = 0.0
    for x in _iter_values(scores, bounded=False):
        n += 1
        delta = x - mean
        mean += delta / n
        m2 += delta * (x - mean)
        if n < 2:
            yield AsymptoticSprtResult(CONTINUE, -math.inf, math.inf, n, mean)
            continue
        sd = math.sqrt(m2 / n)
        low = mean - sd * normal_mixture_radius(n, 2 * alpha, rho_a)
        high = mean + sd * normal_mixture_radius(n, 2 * beta, rho_b)
        decision = CONTINUE if n < min_deals else ACCEPT_H1 if low > 0.5 else \
            ACCEPT_H0 if high < 0.5 + margin else CONTINUE
        yield AsymptoticSprtResult(decision, low, high, n, mean)


def asymptotic_sprt(scores: Scores, margin: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
                    t_star: int = ASYMPTOTIC_T_STAR, min_deals: int = ASYMPTOTIC_MIN_DEALS) -> AsymptoticSprtResult:
    """`iter_asymptotic_sprt` after the last deal (CONTINUE with no deals)."""
    result = AsymptoticSprtResult(CONTINUE, -math.inf, math.inf, 0, 0.5)
    for result in iter_asymptotic_sprt(scores, margin, alpha, beta, t_star, min_deals):
        pass
    return result


# ---------------------------------------------------------------- settled ranking


def settle(order: Sequence[str], pairs: Mapping[tuple[str, str], Scores], *,
           confidence: float = 0.95, margin: float = 0.05, method: str = "sequence",
           pair_count: int | None = None, intervals: str = CLASSIC, t_star: int = ASYMPTOTIC_T_STAR) -> Settlement:
    """For a ruleset's entries ranked best first (`order`) and per-pair deal scores
    (`pairs`, e.g. from `paired_scores`; (a, b) or (b, a) will do), a verdict for each
    adjacent pair, and whether the whole ranking is settled.

    The error rate 1 - confidence is split (Bonferroni, `split_alpha`) over K pairs, by
    default every unordered pair of entries in `order` with at least one deal: adjacency
    is chosen from the data, so every pair must be covered. Each adjacent pair's interval
    for upper against lower is the anytime-valid CS (method "sequence", valid at every
    look) or the fixed-sample interval ("fixed", one look only) at 1 - alpha/K, of the
    family `intervals`: "betting" (`arena.confidence.betting_cs` / `betting_interval`; its
    status is decided exactly by the betting capital at 1/2 and 1/2 +- margin) or
    "classic" (`confidence_sequence` / `summarize`'s Student t) or "asymptotic" (scores on
    any scale: `arena.confidence.asymptotic_cs` tightest at `t_star` deals / an unclipped
    Student t, and no verdict before `ASYMPTOTIC_MIN_DEALS` deals). Status: SEPARATED if it lies above 1/2; REVERSED if below (the data contradict the
    order); else EQUAL if it lies within [1/2 - margin, 1/2 + margin]; else UNSETTLED
    (also when the two never shared a table). The ranking is settled when no adjacent
    pair is UNSETTLED. A run that stops on this must keep K and the deal order fixed over
    its looks: pass `pair_count` = the pairs its schedule will ever have, as the default
    grows while pairs first meet, and a Bonferroni split must not change between looks."""
    alpha = _check_ranking(order, pairs, confidence, margin, method, pair_count, intervals)
    bounded = intervals != ASYMPTOTIC
    verdicts = tuple(judge(upper, lower, _oriented(pairs, upper, lower, bounded), alpha, margin, method, intervals,
                           t_star)
                     for upper, lower in zip(order, order[1:]))
    settled = all(v.status in SETTLED_STATES for v in verdicts)
    return Settlement(verdicts, settled, _pair_count(order, pairs, pair_count), alpha, method, intervals)


def compare(order: Sequence[str], pairs: Mapping[tuple[str, str], Scores], *,
            confidence: float = 0.95, margin: float = 0.05, method: str = "sequence",
            pair_count: int | None = None, intervals: str = CLASSIC, t_star: int = ASYMPTOTIC_T_STAR) -> Comparison:
    """`settle`'s verdict for EVERY pair (order[i], order[j]), i < j, not only adjacent
    ones, at the same per-pair error rate: the intervals hold all together with
    probability at least `confidence` (Bonferroni over the K pairs), so every verdict
    may be read at once. Pairs that never shared a table are left out."""
    alpha = _check_ranking(order, pairs, confidence, margin, method, pair_count, intervals)
    verdicts = []
    for i, upper in enumerate(order):
        for lower in order[i + 1:]:
            values = _oriented(pairs, upper, lower, intervals != ASYMPTOTIC)
            if values:
                verdicts.append(judge(upper, lower, values, alpha, margin, method, intervals, t_star))
    return Comparison(tuple(verdicts), _pair_count(order, pairs, pair_count), alpha, method, confidence, margin,
                      intervals)


def _oriented(pairs: Mapping[tuple[str, str], Scores], a: str, b: str, bounded: bool = True) -> list[float] | None:
    """a's deal scores against b, from either orientation of the pair (None: never met);
    a's and b's scores on a deal sum to 1, adjusted ones too (their corrections are
    antisymmetric)."""
    if (a, b) in pairs:
        return _values(pairs[(a, b)], bounded)
    if (b, a) in pairs:
        return [1.0 - v for v in _values(pairs[(b, a)], bounded)]
    return None


def _pair_count(order: Sequence[str], pairs: Mapping[tuple[str, str], Scores], pair_count: int | None) -> int:
    if pair_count is not None:
        return pair_count
    return sum(1 for i, a in enumerate(order) for b in order[i + 1:] if pairs.get((a, b)) or pairs.get((b, a)))


def _check_ranking(order: Sequence[str], pairs: Mapping[tuple[str, str], Scores], confidence: float,
                   margin: float, method: str, pair_count: int | None, intervals: str = CLASSIC) -> float:
    """The per-pair error rate, once the arguments are checked."""
    if method not in ("sequence", "fixed"):
        raise ValueError(f"method must be 'sequence' or 'fixed', got {method!r}")
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVALS)}, got {intervals!r}")
    if not 0 <= margin < 0.5:
        raise ValueError(f"margin must lie in [0, 1/2), got {margin!r}")
    if len(set(order)) != len(order):
        raise ValueError(f"an entry appears twice in the order: {list(order)}")
    return split_alpha(1 - confidence, max(1, _pair_count(order, pairs, pair_count)))


def judge(upper: str, lower: str, values: Sequence[float] | None, alpha: float, margin: float,
          method: str = "sequence", intervals: str = CLASSIC, t_star: int = ASYMPTOTIC_T_STAR) -> PairVerdict:
    """The verdict on `upper` against `lower` from upper's deal scores `values` (None or
    empty: never met, UNSETTLED), at error rate `alpha` for this pair: `settle`'s rules."""
    if not values:
        return PairVerdict(upper, lower, UNSETTLED, 0, 0.5, Interval(0.0, 1.0))
    if intervals == ASYMPTOTIC:
        return _asymptotic_verdict(upper, lower, values, alpha, margin, method, t_star)
    summary = summarize(values, 1 - alpha)
    if intervals == BETTING:
        cs = BettingCS(values, alpha, fixed_n=len(values) if method == "fixed" else None)
        bound = cs.bound()
        return PairVerdict(upper, lower, _betting_status(cs, margin), len(values), bound.mean,
                           Interval(bound.low, bound.high), summary.los)
    if method == "sequence":
        sequence = confidence_sequence(values, alpha)
        mean, interval = sequence.mean, sequence.interval
    else:
        mean, interval = summary.mean, summary.interval
    return PairVerdict(upper, lower, _classic_status(interval, margin), len(values), mean, interval, summary.los)


def _asymptotic_verdict(upper: str, lower: str, values: Sequence[float], alpha: float, margin: float,
                        method: str, t_star: int) -> PairVerdict:
    """`judge` for the "asymptotic" family: scores on their own scale, no clipping."""
    summary = summarize(values, 1 - alpha, bounded=False)
    if method == "sequence":
        bound = asymptotic_cs(values, alpha, t_star)
        mean, interval = bound.mean, Interval(bound.low, bound.high)
    else:
        mean, interval = summary.mean, summary.interval
    status = _classic_status(interval, margin) if len(values) >= ASYMPTOTIC_MIN_DEALS else UNSETTLED
    return PairVerdict(upper, lower, status, len(values), mean, interval, summary.los)


def pair_status(values: Sequence[float], alpha: float, margin: float, method: str = "sequence",
                intervals: str = CLASSIC) -> str:
    """The status `judge` gives a pair with deal scores `values` (not empty), without
    the rest of its verdict: for a betting interval, no bisection for the interval's ends."""
    if intervals == BETTING:
        return _betting_status(BettingCS(values, alpha, fixed_n=len(values) if method == "fixed" else None), margin)
    if method == "sequence" and intervals == CLASSIC:  # `judge`'s rule, without its LOS
        return _classic_status(confidence_sequence(values, alpha).interval, margin)
    return judge("a", "b", values, alpha, margin, method, intervals).status


def _classic_status(interval: Interval, margin: float) -> str:
    """A pair's status from a classic interval (`settle`'s rules)."""
    if interval.low > 0.5:
        return SEPARATED
    if interval.high < 0.5:
        return REVERSED
    if 0.5 - margin <= interval.low and interval.high <= 0.5 + margin:
        return EQUAL
    return UNSETTLED


def _betting_status(cs: BettingCS, margin: float) -> str:
    """A pair's status from its betting CS, decided exactly by the capital at 1/2 and
    1/2 +- margin (the interval's ends are bisected, and only for showing)."""
    if cs.excludes_below(0.5):
        return SEPARATED
    if cs.excludes_above(0.5):
        return REVERSED
    if margin > 0 and cs.excludes_below(0.5 - margin) and cs.excludes_above(0.5 + margin):
        return EQUAL
    return UNSETTLED
