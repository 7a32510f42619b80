"""Order-independent rankings: a periodic Bradley-Terry refit from all stored games of
the current versions, with settled marks under alpha spending over versions entered.

**Model.** Each game's finish order is broken into every pair of its seats (A ahead of
B: a point to A; a tie: half each). Under Plackett-Luce, P(A ahead of B) at any table is
w_A / (w_A + w_B) whoever else sits there (an exponential race), so maximising the
Bradley-Terry likelihood of these pairwise points (a composite likelihood: "full
breaking") estimates the Plackett-Luce strengths consistently, at 2- and 3-player tables
alike; it is also what a pair's paired score estimates. The fit (`fit_strengths`) is
Newton's method on the log-strengths with a weak Gaussian prior (`PRIOR`), which keeps
unbeaten or unplayed versions finite and the scale centred; it reads the games as counts,
so the order the games arrived in cannot change it. The published order is by strength
(ties: the order versions entered).

**Settled marks.** Each adjacent pair of the published order gets the verdict of
[verdicts-2] (`arena.pairwise.pair_status`, betting confidence sequence over the pair's
deal paired scores from every table holding both, in the order they were stored).
The error rate is spent over versions as they enter (`pair_alpha`): the j-th version
to pass the gate (j = 2, 3, ...) gets alpha / (j (j - 1)), shared equally over its pairs
with the j - 1 versions entered before it. These sum to alpha over an unbounded field,
and each pair's sequence is anytime-valid, so the chance that ANY mark ever published is
wrong (a pair marked separated in the wrong order, or equal when it is not) is at most
alpha however the field grows and however often the standings are read.

**When.** `Ranking.catch_up` reads the stored results of its ruleset once each, in
stored order, and refits at *boundaries* fixed by the results alone: after every
`refit_every` results (sooner while few are stored: after 1/25 of those refitted, at
least 2, so a young ladder's order settles quickly), and at the result with which a version completes its first
`seed_games` games. So the published refit is a function of the stored games (and the
current field), never of when it was asked for: a restarted server publishes the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from arena.pairwise import BETTING, UNSETTLED, PairVerdict, judge, pair_status
from arena.scheduling.base import FieldEntry, StoredResult

PRIOR = 0.01
"""Precision of the Gaussian prior on each log-strength (variance 100: weak; the fitted
strengths of a 50-bot field span about 15)."""

Pair = tuple[str, str]


def pair_alpha(alpha: float, entered_a: int, entered_b: int) -> float:
    """The error rate of the pair of the versions that entered `entered_a`-th and
    `entered_b`-th (1-based): alpha / (j (j - 1)^2), j the later (see the module docstring)."""
    j = max(entered_a, entered_b, 2)
    return alpha / (j * (j - 1) ** 2)


def ordered(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


@dataclass
class Evidence:
    """One ruleset's stored games as pairwise counts, fed in stored order (`add`)."""

    versus: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # a -> b -> [halves a over b, games]
    deals: dict[Pair, dict[Any, list[int]]] = field(default_factory=dict)  # (a<b) -> deal -> [halves a, games]
    games: dict[str, int] = field(default_factory=dict)  # version -> games stored
    last_met: dict[Pair, int] = field(default_factory=dict)  # (a<b) -> count of results at their last meeting
    table_deals: dict[tuple[str, ...], int] = field(default_factory=dict)  # sorted table -> next free deal index
    count: int = 0

    def add(self, seats: Sequence[str], standing: Sequence[int], deal: Any) -> None:
        """Count one game: the versions by seat, their places (0 first; ties share one), its deal index."""
        self.count += 1
        table = tuple(sorted(seats))
        if isinstance(deal, int):
            self.table_deals[table] = max(self.table_deals.get(table, 0), deal + 1)
        for i, a in enumerate(seats):
            self.games[a] = self.games.get(a, 0) + 1
            for j, b in enumerate(seats):
                if i == j:
                    continue
                halves = 2 if standing[i] < standing[j] else 1 if standing[i] == standing[j] else 0
                cell = self.versus.setdefault(a, {}).setdefault(b, [0, 0])
                cell[0] += halves
                cell[1] += 1
                if a < b:
                    deal_cell = self.deals.setdefault((a, b), {}).setdefault((table, deal), [0, 0])
                    deal_cell[0] += halves
                    deal_cell[1] += 1
                    self.last_met[(a, b)] = self.count

    def deal_count(self, a: str, b: str) -> int:
        return len(self.deals.get(ordered(a, b), ()))

    def pair_games(self, a: str, b: str) -> int:
        return self.versus.get(a, {}).get(b, [0, 0])[1]

    def scores(self, upper: str, lower: str) -> list[float]:
        """`upper`'s deal paired scores against `lower`, in the order the deals were first stored."""
        cells = self.deals.get(ordered(upper, lower), {})
        values = [halves / (2 * games) for halves, games in cells.values()]
        return values if upper < lower else [1.0 - v for v in values]


def fit_strengths(versions: Sequence[str], evidence: Evidence, prior: float = PRIOR) -> np.ndarray:
    """Bradley-Terry log-strengths of `versions` from their games against each other
    (MAP with a N(0, 1/prior) prior): Newton's method to steps under 1e-10, each step
    solved by conjugate gradients on the sparse Hessian, so a refit costs time in the
    games' pairs, not the cube of the field."""
    index = {v: k for k, v in enumerate(versions)}
    edges = [(index[a], index[b], halves / 2, games) for a in versions
             for b, (halves, games) in evidence.versus.get(a, {}).items() if a < b and b in index]
    n = len(versions)
    s = np.zeros(n)
    if not edges:
        return s
    i, j = np.array([e[0] for e in edges]), np.array([e[1] for e in edges])
    w, m = np.array([e[2] for e in edges]), np.array([e[3] for e in edges], dtype=float)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(s[j] - s[i]))
        g = -prior * s + np.bincount(i, w - m * p, n) - np.bincount(j, w - m * p, n)
        step = _solve(i, j, m * p * (1 - p), prior, g)
        s += step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return s


def _solve(i: np.ndarray, j: np.ndarray, c: np.ndarray, prior: float, g: np.ndarray) -> np.ndarray:
    """x with (prior I + the Laplacian of edge weights c) x = g: Jacobi-preconditioned conjugate gradients."""
    n = len(g)

    def times(v: np.ndarray) -> np.ndarray:
        d = c * (v[i] - v[j])
        return prior * v + np.bincount(i, d, n) - np.bincount(j, d, n)

    diagonal = prior + np.bincount(i, c, n) + np.bincount(j, c, n)
    x = np.zeros(n)
    r = g.copy()
    z = r / diagonal
    direction = z.copy()
    rz = float(r @ z)
    scale = float(np.linalg.norm(g))
    for _ in range(10 * n + 100):
        if float(np.linalg.norm(r)) <= 1e-12 * scale:
            break
        hd = times(direction)
        step = rz / float(direction @ hd)
        x += step * direction
        r -= step * hd
        z = r / diagonal
        rz, previous = float(r @ z), rz
        direction = z + (rz / previous) * direction
    return x


def one_strength(version: str, evidence: Evidence, strength: Mapping[str, float], prior: float = PRIOR) -> float:
    """`version`'s log-strength from its own games alone, its opponents held at `strength`
    (unknown opponents at 0): how the scheduler places a newcomer between refits."""
    opponents = [(strength.get(b, 0.0), halves / 2, games) for b, (halves, games)
                 in evidence.versus.get(version, {}).items()]
    x = 0.0
    for _ in range(200):
        grad, hess = -prior * x, prior
        for s_b, w, m in opponents:
            p = win_probability(x, s_b)
            grad += w - m * p
            hess += m * p * (1 - p)
        step = max(-1.0, min(1.0, grad / hess))  # damped: a version that won everything runs off slowly
        x += step
        if abs(step) < 1e-10:
            break
    return float(x)


def win_probability(a: float, b: float) -> float:
    """P(strength `a` finishes ahead of strength `b`): the logistic of a - b, without overflow."""
    return 1.0 / (1.0 + math.exp(max(-700.0, min(700.0, b - a))))


class Published(NamedTuple):
    """A refit: the current versions best first, their strengths, and the mark of each
    adjacent pair (order[i] over order[i + 1]: an `arena.pairwise` status)."""

    order: tuple[str, ...]
    strength: Mapping[str, float]
    marks: tuple[str, ...]
    results: int  # the ruleset's stored results it covers


@dataclass
class Ranking:
    """One ruleset's evidence and published refit (see the module docstring)."""

    label: str
    alpha: float = 0.05
    margin: float = 0.05
    refit_every: int = 50
    seed_games: int = 30
    evidence: Evidence = field(default_factory=Evidence)
    tail: list[tuple[tuple[str, ...], tuple[int, ...], Any]] = field(default_factory=list)
    cursor: int = 0  # results of every ruleset read from the state
    boundary_games: dict[str, int] = field(default_factory=dict)  # games per version up to the tail
    _published: Published | None = None
    _key: Any = None
    _marks: dict[tuple[str, str, int, float], str] = field(default_factory=dict)

    def catch_up(self, state: Any) -> None:
        """Read the results stored since the last call (a state with fewer: start over)."""
        if state.result_count() < self.cursor:  # another state: read it from the start
            self.evidence, self.tail, self.cursor, self.boundary_games = Evidence(), [], 0, {}
            self._published = self._key = None
        for result in state.results(self.cursor):
            self.cursor += 1
            if result.identity.ruleset == self.label:
                self._take(result)

    def _take(self, result: StoredResult) -> None:
        seats = tuple(seat.version for seat in result.identity.seats)
        self.tail.append((seats, tuple(result.standing), result.identity.deal))
        counts = self.boundary_games
        completes = False
        for v in seats:
            counts[v] = counts.get(v, 0) + 1
            completes = completes or counts[v] == self.seed_games
        if completes or len(self.tail) >= min(self.refit_every, max(2, self.evidence.count // 25)):
            for game in self.tail:
                self.evidence.add(*game)
            self.tail.clear()

    def tail_games(self) -> list[tuple[tuple[str, ...], tuple[int, ...], Any]]:
        """The results stored since the last boundary (counted, not yet refitted)."""
        return self.tail

    def published(self, field_entries: Sequence[FieldEntry], entered: Mapping[str, int]) -> Published:
        """The refit at the last boundary over the current versions of `field_entries` that
        play this ruleset; `entered`: version -> its entry number (1-based, every version
        that ever passed the gate counts)."""
        current = tuple(e.version for e in field_entries if self.label in e.rulesets)
        key = (self.evidence.count, current, tuple(entered.get(v, 0) for v in current))
        if self._published is None or key != self._key:
            self._published, self._key = self._refit(current, entered), key
        return self._published

    def _refit(self, current: tuple[str, ...], entered: Mapping[str, int]) -> Published:
        s = np.round(fit_strengths(current, self.evidence), 9)
        ranked = sorted(range(len(current)), key=lambda k: (-s[k], k))
        order = tuple(current[k] for k in ranked)
        strength = {current[k]: float(s[k]) for k in ranked}
        kept, self._marks = self._marks, {}
        marks = tuple(self._mark(a, b, entered, kept) for a, b in zip(order, order[1:]))
        return Published(order, strength, marks, self.evidence.count)

    def verdict(self, upper: str, lower: str, entered: Mapping[str, int]) -> PairVerdict:
        """The verdict on `upper` against `lower` at the last boundary, with its mean and
        interval (at the pair's share of the error rate, as its mark)."""
        alpha = pair_alpha(self.alpha, entered.get(upper, 0), entered.get(lower, 0))
        return judge(upper, lower, self.evidence.scores(upper, lower), alpha, self.margin, "sequence", BETTING)

    def _mark(self, upper: str, lower: str, entered: Mapping[str, int], kept: Mapping[Any, str]) -> str:
        """The pair's status (the last refit's, in `kept`, if its games have not changed since)."""
        alpha = pair_alpha(self.alpha, entered.get(upper, 0), entered.get(lower, 0))
        games = self.evidence.pair_games(upper, lower)
        if not games:
            return UNSETTLED
        key = (upper, lower, games, alpha)
        found = kept.get(key)
        if found is None:
            found = pair_status(self.evidence.scores(upper, lower), alpha, self.margin, "sequence", BETTING)
        self._marks[key] = found
        return found
