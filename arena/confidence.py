"""Confidence sequences and intervals for a mean, by betting (issue 43).

A *confidence sequence* (CS) at level 1 - alpha is a sequence of intervals C_1, C_2, ...
that ALL hold at once with probability at least 1 - alpha: one may look after every
observation and stop whenever one likes. A *confidence interval* holds at one fixed n.

What is here, pure functions of their arguments (standard library only; results are
the same floats on every machine):

- `betting_cs`: the hedged-capital betting CS of Waudby-Smith & Ramdas, "Estimating means
  of bounded random variables by betting", JRSS-B 86(1), 2024 (arXiv:2010.09686),
  Theorem 3, its capital split between their predictable plug-in bets (eq. 26-27) and
  growth-rate plug-in bets (below), for observations in any known range [lo, hi] with a
  constant conditional mean. `BettingCS` is the same CS kept open: its interval, and the
  exact test of whether one value m is excluded; `BettingMonitor` keeps that test at a
  few fixed values up to date one observation at a time.
- `betting_interval`: the fixed-n version (bets tuned to n; still valid at every t <= n).
- `betting_e_value` / `BettingCS.log_capital`: the betting e-process itself (the
  evidence against "the mean is m", log scale); `arena.pairwise`'s verdicts read it at
  1/2 and 1/2 +- margin.
- `asymptotic_cs`: the asymptotic CS of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas,
  "Time-uniform central limit theory and asymptotic confidence sequences" (2021,
  arXiv:2103.06476), Theorem 2.2 with Robbins' normal-mixture boundary, for scores
  with no usable bound (finite variance; valid as n grows, see its docstring).

Why not a library: `confseq` (the paper's reference code) ships only a source archive
that needs a C++ build, and depends on matplotlib, pandas, scipy and multiprocess at run
time; `expectation` needs Python >= 3.12. The formulas are short, and the tests check
this code against an independent grid implementation of confseq's `betting_mart` /
`diversified_betting_mart` (two betting strategies, weights 1/2).

How the betting CS works, for a reader new to it. Put the observations on [0, 1]
(y = (x - lo) / (hi - lo)). For each candidate mean m, a gambler starts with capital 1
and before each observation bets a fraction lambda_t (chosen from the past only) that
y_t lands above m: capital K+_t(m) = prod (1 + lambda_i (y_i - m)). If the mean really
is m, the capital is a nonnegative martingale, and by Ville's inequality it ever
reaches 2/alpha with probability at most alpha/2. A second gambler bets on y_t below m
(K-_t(m)). The CS at time t is every m at which neither has ever reached 2/alpha
(`max(K+/2, K-/2) < 1/alpha`, the paper's hedged capital with theta = 1/2; here taken
over all times so far, the running intersection). Bets (the same for every m but for a
cap that keeps capital positive):

    mu_t = (1/2 + sum_{i<=t} y_i) / (t + 1),  s2_t = (1/4 + sum_{i<=t} (y_i - mu_i)^2) / (t + 1)
    lambda_t = sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t)))     (fixed n: ... / (s2_{t-1} n))
    lambda+_t(m) = min(lambda_t, c/m),   lambda-_t(m) = min(lambda_t, c/(1 - m)),   c = 1/2

with mu_0 = 1/2, s2_0 = 1/4. These bets (the paper's "PrPl") make the interval narrow
at every n, but they are cautious where a verdict needs boldness, so each gambler splits
its capital in two halves (a mixture of two betting strategies, the paper's
"diversified" betting; the mean of two nonnegative martingales is one): the half above
and a half betting `focus_bets`, the growth-rate plug-in (aGRAPA) tuned to tell the mean
from the focus f (1/2 for paired scores), the same bet for every m:

    lambda_t = |mu_{t-1} - f| / (s2_{t-1} + (mu_{t-1} - f)^2),   capped at 3/4 / m (3/4 / (1 - m))

Measured on Flip 7 deal scores (benchmarks/bench_stopping.py simulate; docs/statistics.md),
the mixture settles 23 vs 31 (0.55) in 495 deals on average (200 runs) where the PrPl
bets alone need 690 (60 runs), and it separates 8 of the reference tournament's 9
bot-vs-random pairs at 20 deals where PrPl alone separates 6. Every part's K+_t(m) is
non-increasing in m and K-_t(m) non-decreasing, so the CS is an interval and its ends
are found by bisection; the question "is m excluded" is answered exactly, without
bisection, by the capital at m.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

TRUNCATION = 0.5     # c: the cap on the bets (Waudby-Smith & Ramdas suggest 1/2 or 3/4)
FOCUS_WEIGHT = 0.5  # the share of each gambler's capital on the focused bets
FOCUS_TRUNCATION = 0.75  # c of the focused bets (they are small unless the data are far from the focus)
_TOLERANCE = 2.0 ** -32  # bisection stops when the bracket (on the [0, 1] scale) is this narrow


@dataclass(frozen=True)
class Bound:
    """A mean's interval after `n` observations: the plain mean and [low, high]."""

    n: int
    mean: float
    low: float
    high: float

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high


def _check(alpha: float, lo: float, hi: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"the range must be finite with lo < hi, got [{lo!r}, {hi!r}]")


def _unit(values: Iterable[float], lo: float, hi: float) -> list[float]:
    """The values on [0, 1]; one outside [lo, hi] is a ValueError."""
    width = hi - lo
    out = []
    for v in values:
        v = float(v)
        if not lo <= v <= hi:
            raise ValueError(f"a value must lie in [{lo:g}, {hi:g}], got {v!r}")
        out.append(min(1.0, max(0.0, (v - lo) / width)))
    return out


def plug_in_bets(ys: Sequence[float], alpha: float, fixed_n: int | None = None) -> list[float]:
    """The predictable plug-in bets lambda_1..lambda_n for observations `ys` on [0, 1]
    (module docstring; `fixed_n`: tuned for an interval at n, else for every t).
    lambda_t depends on y_1..y_{t-1} only."""
    log_term = math.log(2 / alpha)
    bets = []
    s2_prev = 0.25
    total = sq_dev = 0.0
    for t, y in enumerate(ys, start=1):
        scale = fixed_n if fixed_n is not None else t * math.log1p(t)
        bets.append(math.sqrt(2 * log_term / (s2_prev * scale)))
        total += y
        mu = min(1.0, (0.5 + total) / (t + 1))
        sq_dev += (y - mu) ** 2
        s2_prev = (0.25 + sq_dev) / (t + 1)
    return bets


def focus_bets(ys: Sequence[float], focus: float) -> list[float]:
    """Bets tuned to tell the mean from `focus` (on [0, 1]): the growth-rate plug-in
    |mu_{t-1} - focus| / (s2_{t-1} + (mu_{t-1} - focus)^2) (Waudby-Smith & Ramdas' aGRAPA,
    with `plug_in_bets`' regularised mean and variance, the same bet for every m), the
    Kelly bet against `focus` were the past mean and variance the truth."""
    bets = []
    mu_prev, s2_prev = 0.5, 0.25
    total = sq_dev = 0.0
    for t, y in enumerate(ys, start=1):
        gap = mu_prev - focus
        bets.append(abs(gap) / (s2_prev + gap * gap))
        total += y
        mu_prev = min(1.0, (0.5 + total) / (t + 1))
        sq_dev += (y - mu_prev) ** 2
        s2_prev = (0.25 + sq_dev) / (t + 1)
    return bets


def _peak(ys: Sequence[float], parts: Sequence[tuple[Sequence[float], float]], m: float, up: bool,
          stop_at: float = math.inf) -> float:
    """max over t >= 0 of the log of the mean over `parts` (bets, cap c) of the capital
    K+_t(m) (`up`) or K-_t(m), or a value >= `stop_at` as soon as it reaches it."""
    log1p, exp, log = math.log1p, math.exp, math.log
    sign = 1.0 if up else -1.0
    room = m if up else 1 - m  # how far y can fall below m (above, for K-)
    caps = [c / room if room > 0 else math.inf for _, c in parts]
    if len(parts) == 1:
        (bets, _), cap = parts[0], caps[0]
        total = peak = 0.0
        for y, lam in zip(ys, bets):
            total += log1p((lam if lam < cap else cap) * sign * (y - m))
            if total > peak:
                peak = total
                if peak >= stop_at:
                    break
        return peak
    (bets_a, _), (bets_b, _) = parts  # two parts: log((1 - w) K_a + w K_b)
    cap_a, cap_b = caps
    total_a = total_b = peak = 0.0
    log_a, log_b = log(1 - FOCUS_WEIGHT), log(FOCUS_WEIGHT)
    for y, lam_a, lam_b in zip(ys, bets_a, bets_b):
        gain = sign * (y - m)
        total_a += log1p((lam_a if lam_a < cap_a else cap_a) * gain)
        total_b += log1p((lam_b if lam_b < cap_b else cap_b) * gain)
        wa, wb = total_a + log_a, total_b + log_b
        high, low = (wa, wb) if wa > wb else (wb, wa)
        mixed = high + log1p(exp(low - high))
        if mixed > peak:
            peak = mixed
            if peak >= stop_at:
                break
    return peak


class BettingCS:
    """The hedged-capital betting CS (module docstring) of the observations `values`, all
    in [lo, hi], at level 1 - alpha: P(the mean lies in every interval it gives, as
    observations are added one at a time) >= 1 - alpha. `fixed_n`: plug-in bets tuned
    for an interval at n (see `betting_interval`); `focus`: the value the focused bets
    tell the mean from (default the range's middle: a paired score's 1/2). The
    observations' order matters (deal order)."""

    def __init__(self, values: Iterable[float], alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
                 fixed_n: int | None = None, focus: float | None = None):
        _check(alpha, lo, hi)
        self.alpha, self.lo, self.hi = alpha, lo, hi
        self.ys = _unit(values, lo, hi)
        centre = 0.5 if focus is None else (focus - lo) / (hi - lo)
        if not 0 <= centre <= 1:
            raise ValueError(f"the focus must lie in [{lo:g}, {hi:g}], got {focus!r}")
        self.parts = [(plug_in_bets(self.ys, alpha, fixed_n), TRUNCATION),
                      (focus_bets(self.ys, centre), FOCUS_TRUNCATION)]
        self.threshold = math.log(2 / alpha)
        self.n = len(self.ys)
        self.mean = lo + (hi - lo) * math.fsum(self.ys) / self.n if self.ys else (lo + hi) / 2

    def _to_unit(self, m: float) -> float:
        return (m - self.lo) / (self.hi - self.lo)

    def log_capital(self, m: float, up: bool) -> float:
        """The largest log capital so far of the gambler betting that the mean lies above
        m (`up`) or below it: an e-process against "the mean is m" (log scale)."""
        return _peak(self.ys, self.parts, min(1.0, max(0.0, self._to_unit(m))), up)

    def excludes_below(self, m: float) -> bool:
        """Whether m lies below the interval (the data show the mean above m): exact."""
        u = self._to_unit(m)
        return u < 0 or (u < 1 and _peak(self.ys, self.parts, u, True, self.threshold) >= self.threshold)

    def excludes_above(self, m: float) -> bool:
        """Whether m lies above the interval (the data show the mean below m): exact."""
        u = self._to_unit(m)
        return u > 1 or (u > 0 and _peak(self.ys, self.parts, u, False, self.threshold) >= self.threshold)

    def bound(self) -> Bound:
        """The interval after the last observation (the whole range with none); its ends
        are within 2^-32 of the range of the exact ones, on the wide side."""
        if not self.ys:
            return Bound(0, self.mean, self.lo, self.hi)
        width = self.hi - self.lo
        low = self._end(True)
        high = self._end(False)
        return Bound(self.n, self.mean, self.lo + width * low, self.lo + width * high)

    def _end(self, lower: bool) -> float:
        """The interval's lower (or upper) end on [0, 1] by bisection: the largest m
        (smallest) known to be excluded, or 0 (1)."""
        ys, bets, thr = self.ys, self.parts, self.threshold
        mean = math.fsum(ys) / len(ys)
        excluded = (lambda m: _peak(ys, bets, m, True, thr) >= thr) if lower else \
            (lambda m: _peak(ys, bets, m, False, thr) >= thr)
        edge, inside = (0.0, mean) if lower else (1.0, mean)
        if not excluded(edge):
            return edge
        if excluded(inside):  # the running intersection can leave the mean outside
            edge, inside = inside, (1.0 if lower else 0.0)
        while abs(inside - edge) > _TOLERANCE:
            mid = (edge + inside) / 2
            if excluded(mid):
                edge = mid
            else:
                inside = mid
        return edge


class BettingMonitor:
    """`BettingCS`'s exact exclusion tests at a few fixed values `points`, kept up to date
    one observation at a time (`add`) in O(1) each, with the same floats as `BettingCS`
    over the same observations: for a run that looks often (a benchmark's simulated
    stops). Anytime bets only (no `fixed_n`)."""

    def __init__(self, points: Sequence[float], alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
                 focus: float | None = None):
        _check(alpha, lo, hi)
        self.lo, self.hi = lo, hi
        self.threshold = math.log(2 / alpha)
        self._log_term = math.log(2 / alpha)
        self._centre = 0.5 if focus is None else (focus - lo) / (hi - lo)
        self.points = [(p, (p - lo) / (hi - lo)) for p in points]
        # per point and side: [total of part a, total of part b, peak]
        self._state = {(p, up): [0.0, 0.0, 0.0] for p, _ in self.points for up in (True, False)}
        self.n = 0
        self._mu_prev, self._s2_prev, self._total, self._sq_dev = 0.5, 0.25, 0.0, 0.0

    def add(self, value: float) -> None:
        """One more observation (in [lo, hi])."""
        (y,) = _unit([value], self.lo, self.hi)
        t = self.n + 1
        lam_a = math.sqrt(2 * self._log_term / (self._s2_prev * (t * math.log1p(t))))
        gap = self._mu_prev - self._centre
        lam_b = abs(gap) / (self._s2_prev + gap * gap)
        log_a, log_b = math.log(1 - FOCUS_WEIGHT), math.log(FOCUS_WEIGHT)
        for p, m in self.points:
            for up in (True, False):
                room = m if up else 1 - m
                cap_a = TRUNCATION / room if room > 0 else math.inf
                cap_b = FOCUS_TRUNCATION / room if room > 0 else math.inf
                gain = (1.0 if up else -1.0) * (y - m)
                state = self._state[(p, up)]
                state[0] += math.log1p((lam_a if lam_a < cap_a else cap_a) * gain)
                state[1] += math.log1p((lam_b if lam_b < cap_b else cap_b) * gain)
                wa, wb = state[0] + log_a, state[1] + log_b
                high, low = (wa, wb) if wa > wb else (wb, wa)
                mixed = high + math.log1p(math.exp(low - high))
                if mixed > state[2]:
                    state[2] = mixed
        self.n = t
        self._total += y
        self._mu_prev = min(1.0, (0.5 + self._total) / (t + 1))
        self._sq_dev += (y - self._mu_prev) ** 2
        self._s2_prev = (0.25 + self._sq_dev) / (t + 1)

    def excludes_below(self, point: float) -> bool:
        """`BettingCS.excludes_below` at one of the `points`."""
        return self._state[(point, True)][2] >= self.threshold

    def excludes_above(self, point: float) -> bool:
        """`BettingCS.excludes_above` at one of the `points`."""
        return self._state[(point, False)][2] >= self.threshold


def betting_cs(values: Iterable[float], alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
               focus: float | None = None) -> Bound:
    """The anytime-valid (1 - alpha) betting confidence sequence for the mean of
    observations in the known range [lo, hi] (deal scores: [0, 1]; luck-adjusted scores:
    their proven per-ruleset range), after the last one. Valid at every n at once, so it
    may be read after every observation and a run may stop on it. Assumes each
    observation's mean given the earlier ones is the same (independent deals do).
    Returns the plain mean and the interval; with no observations, [lo, hi]. `focus`:
    the null value the verdicts read (default the range's middle; see `BettingCS`)."""
    return BettingCS(values, alpha, lo, hi, focus=focus).bound()


def betting_interval(values: Sequence[float], alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
                     focus: float | None = None) -> Bound:
    """A (1 - alpha) confidence interval for the mean of the n observations in [lo, hi],
    read once at n: the betting CS with bets tuned for n (Waudby-Smith & Ramdas, section
    on fixed-time intervals), so its coverage is at least 1 - alpha for any bounded
    distribution (no normal approximation). For a run without `stop`."""
    values = list(values)
    return BettingCS(values, alpha, lo, hi, fixed_n=max(1, len(values)), focus=focus).bound()


def betting_e_value(values: Iterable[float], m: float, alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0,
                    up: bool = True, focus: float | None = None) -> float:
    """The largest so far of the betting capital against "the mean is m" (`up`: the
    gambler betting that it is above m), log scale: under the null, P(it ever reaches
    log(1/a)) <= a for every a (Ville). `alpha` only tunes the bets."""
    return BettingCS(values, alpha, lo, hi, focus=focus).log_capital(m, up)


# ---------------------------------------------------------------- asymptotic


def normal_mixture_radius(n: int, alpha: float, rho2: float) -> float:
    """Robbins' two-sided normal-mixture boundary divided by n, per unit of standard
    deviation: sqrt(2 (n rho^2 + 1) / (n^2 rho^2) * log(sqrt(n rho^2 + 1) / alpha))."""
    return math.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) / alpha))


def optimal_rho2(alpha: float, t_star: int) -> float:
    """The mixture's tuning rho^2 that makes the boundary tightest at n = t_star
    (Waudby-Smith et al. 2021, eq. (12)): (-2 log alpha + log(-2 log alpha + 1)) / t_star."""
    a = -2 * math.log(alpha)
    return (a + math.log(a + 1)) / t_star


def iter_asymptotic_cs(values: Iterable[float], alpha: float = 0.05, t_star: int = 100) -> Iterator[Bound]:
    """After each observation, the (1 - alpha) asymptotic confidence sequence of
    Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (2021), Theorem 2.2:

        mean_n +- sd_n * normal_mixture_radius(n, alpha, rho^2),   rho^2 = optimal_rho2(alpha, t_star)

    (sd_n: the sample standard deviation, divisor n). For observations with no usable
    bound: it assumes only independent observations with a common mean and a finite
    variance (more than two moments for the rate), and its coverage over all n >= m
    tends to 1 - alpha as m grows (an approximation at small n, like a t interval's
    normality; `tests/test_confidence.py` measures it). `t_star`: the number of
    observations at which it is tightest (e.g. the expected looks' end). With one
    observation there is no spread to measure: the whole real line."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if t_star < 1:
        raise ValueError(f"t_star must be at least 1, got {t_star!r}")
    rho2 = optimal_rho2(alpha, t_star)
    n = 0
    mean = m2 = 0.0
    for v in values:
        v = float(v)
        if not math.isfinite(v):
            raise ValueError(f"a value must be finite, got {v!r}")
        n += 1
        delta = v - mean  # Welford, for the variance of large-offset values
        mean += delta / n
        m2 += delta * (v - mean)
        if n < 2:
            yield Bound(n, mean, -math.inf, math.inf)
            continue
        half = math.sqrt(m2 / n) * normal_mixture_radius(n, alpha, rho2)
        yield Bound(n, mean, mean - half, mean + half)


def asymptotic_cs(values: Iterable[float], alpha: float = 0.05, t_star: int = 100) -> Bound:
    """`iter_asymptotic_cs` after the last observation (no observations: the real line)."""
    bound = Bound(0, 0.0, -math.inf, math.inf)
    for bound in iter_asymptotic_cs(values, alpha, t_star):
        pass
    return bound
