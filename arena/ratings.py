"""Ratings and statistics: TrueSkill (the `trueskill` package, used only here) and the
per-entry numbers of the standings tables.

Games are applied in SCHEDULE order (their index), never in completion order, so
the standings are a function of the stored games alone: the number of workers
and any interruptions make no difference. Each game updates two ratings per
entry at the table: its ruleset's (scope = the ruleset label) and the overall
one, both from the game's final standing (ties as ties) with the ruleset's draw
probability (an overall update uses the draw probability of the game's ruleset).

Per entry and scope: games; wins (finished first, alone or shared, in a game
that not everyone tied); win rate with a 95% Wilson interval; average finishing
position (tied players share the mean of the positions they span: 1, 2, 2, 2
gives the three second places 3 each); mean score (overall: the plain mean
over every ruleset's scores); faults (a per-seat ``faults`` list in the record,
if any). Head-to-head: for A and B, the fraction of their games at the same
table in which A finished strictly ahead of B.

In a gauntlet, results between field entries are neither rated nor reported: a game
is rated on its challenger-field comparisons only (`rate_comparisons`), and the
head-to-head and the pairs hold only challenger-field pairs (`is_compared`).

Pairwise (`arena.pairwise`, the deal as the unit: deal number d of a ruleset, its games
at every table holding both entries of a pair, all rotations): per ruleset, for every
pair that shared a table, the mean paired score of the higher-ranked entry against the other,
its interval, LOS and number of deals, and a verdict (`VERDICTS`); each row's
``vs_next`` is its verdict against the row below. One kind of interval per run
(`comparison_settings`): fixed-sample when the tournament has no `stop`, the
anytime-valid confidence sequence when it has; either way the error rate is split
over all of the ruleset's pairs (Bonferroni), so the intervals hold all together.
The overall table holds only the entries entered in every ruleset (`overall_entries`):
a table mixing entries that play different rulesets ranks nothing; a pair there is
separated when it is separated, in the same order, on every ruleset.

A `Rater` can follow a store while a tournament runs (`drain` with a time
budget), so rating overlaps play instead of following it; with `history` it also keeps
each entry's rating after each game (`RatingHistory`), so that the site's charts need no
second pass over the store.
"""

from __future__ import annotations

import math
import time
from array import array
from typing import Any, Callable, Mapping, Sequence

import trueskill

from arena import luck
from arena.confidence import BettingCS, asymptotic_cs
from arena.luck import AdjustedTally, planned_method
from arena.pairwise import (ASYMPTOTIC, ASYMPTOTIC_T_STAR, BETTING, CLASSIC, EQUAL, REVERSED, SEPARATED, UNSETTLED,
                            PairTally, compare, split_alpha, summarize)
from arena.rules.base import forfeit_standing
from arena.store import GameRow, Store, StoreError, read_luck_range

WILSON_Z = 1.959963984540054  # two-sided 95%
DEFAULT_DRAW_PROBABILITY = 0.05


def default_draw_probability(ruleset: Any, players: int) -> float:
    """The draw probability used for `ruleset` (a Ruleset class) at tables of `players`: the
    ruleset's own `draw_probability` (a function of players, as `Ruleset` declares it, a
    number, or a {players: number} mapping), else `DEFAULT_DRAW_PROBABILITY`."""
    own = getattr(ruleset, "draw_probability", None)
    if callable(own):
        return float(own(players))
    if isinstance(own, Mapping) and players in own:
        return float(own[players])
    if isinstance(own, (int, float)) and not isinstance(own, bool):
        return float(own)
    return DEFAULT_DRAW_PROBABILITY


def wilson_interval(successes: int, trials: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def positions(standing: list[int]) -> list[float]:
    """Finishing position per seat, tied seats sharing the mean of the positions they span."""
    ahead = sorted(standing)
    out = []
    for mine in standing:
        before = sum(1 for s in ahead if s < mine)
        tied = sum(1 for s in ahead if s == mine)
        out.append(before + (tied + 1) / 2)
    return out


def rate_comparisons(env: trueskill.TrueSkill, ratings: list[trueskill.Rating], standing: list[int],
                     compared: Callable[[int, int], bool]) -> list[trueskill.Rating]:
    """New ratings of the seats of one game whose standing says only how the `compared`
    pairs of seats finished (a gauntlet: the challenger against each field entry; the
    field entries' order among themselves is left out, as if not observed).

    TrueSkill's `rate` takes a total order (ties allowed), and neither a total order nor
    equal ranks can say "these two were not compared": equal ranks are draws, which
    pull two ratings together. So the game is rated on the factor graph of its
    comparisons: each compared pair is a two-player game rated from the ratings before
    the game (`env.rate`, ties as draws), which gives each of its seats a message (the
    Gaussian posterior divided by the prior, in natural parameters pi = 1/sigma^2 and
    tau = mu/sigma^2), and a seat's new rating is its prior (with the dynamics tau added
    once, as `rate` adds it) times all its messages. A seat in one comparison (a field
    entry) gets exactly its two-player update; the challenger gets every comparison's
    evidence at once, in no order (one pass of the message passing TrueSkill runs,
    treating its performance in each comparison as a separate draw). A seat compared
    with no one keeps its rating."""
    posteriors: list[list[trueskill.Rating]] = [[] for _ in ratings]
    for i in range(len(ratings)):
        for j in range(i + 1, len(ratings)):
            if compared(i, j):
                (a,), (b,) = env.rate([(ratings[i],), (ratings[j],)], ranks=[standing[i], standing[j]])
                posteriors[i].append(a)
                posteriors[j].append(b)
    out = []
    for rating, found in zip(ratings, posteriors):
        if len(found) <= 1:
            out.append(found[0] if found else rating)
            continue
        prior = trueskill.Rating(rating.mu, math.sqrt(rating.sigma ** 2 + env.tau ** 2))
        pi = prior.pi + math.fsum(p.pi - prior.pi for p in found)
        tau = prior.tau + math.fsum(p.tau - prior.tau for p in found)
        out.append(trueskill.Rating(tau / pi, math.sqrt(1 / pi)))
    return out


class _Scope:
    """Ratings and counters of one table (a ruleset, or overall); a ruleset's (`paired`)
    also counts its games' paired scores by deal. With `challengers` (a gauntlet's entry
    numbers) only challenger-field comparisons are rated and counted head to head
    (`rate_comparisons`); an entry's own games, wins, positions and scores still count
    its whole table."""

    def __init__(self, entries: list[int], n_entries: int, env: trueskill.TrueSkill, paired: bool = False,
                 challengers: Any = None):
        self.entries = entries
        self.challengers = None if challengers is None else frozenset(challengers)
        self.tally = PairTally() if paired else None
        self.luck_tally: AdjustedTally | None = None   # a ruleset scored luck-adjusted (Rater)
        self.t_star = ASYMPTOTIC_T_STAR   # its asymptotic intervals' tuning (the plan's)
        self.ratings = {e: env.create_rating() for e in entries}
        self.games = [0] * n_entries
        self.wins = [0] * n_entries
        self.position_sum = [0.0] * n_entries
        self.score_sum = [0.0] * n_entries
        self.faults = [0] * n_entries
        self.disqualified = [False] * n_entries
        self.ahead: dict[int, dict[int, int]] = {}
        self.met: dict[int, dict[int, int]] = {}

    def add(self, env: trueskill.TrueSkill, row: GameRow, max_faults: int,
            corrections: list[list[float]] | None = None) -> None:
        seats = row.seats
        standing = list(row.standing)
        out = [seat for seat, entry in enumerate(seats) if self.disqualified[entry]]
        if out:  # a disqualified entry finishes last in every game after its disqualification
            standing = forfeit_standing(standing, out)
        places = positions(standing)
        best = min(standing)
        everyone_tied = all(s == best for s in standing)
        if self.challengers is None:
            rated = [group[0] for group in env.rate([(self.ratings[e],) for e in seats], ranks=standing)]
        else:
            rated = rate_comparisons(env, [self.ratings[e] for e in seats], standing,
                                     lambda i, j: self._compared(seats[i], seats[j]))
        if self.tally is not None:
            # The unit is the deal number: deal d at every table holding both entries of a
            # pair, every rotation (as arena.stopping looks at it); d sorts in schedule order.
            self.tally.add(row.index if row.deal is None else row.deal, seats, standing)
        if self.luck_tally is not None:
            if corrections is None:
                raise StoreError(f"game {row.index} has no luck corrections, and its ruleset is scored "
                                 f"luck-adjusted (the store is damaged)")
            self.luck_tally.add(row.index if row.deal is None else row.deal, seats, standing, corrections)
        for seat, entry in enumerate(seats):
            self.ratings[entry] = rated[seat]
            self.games[entry] += 1
            self.wins[entry] += standing[seat] == best and not everyone_tied
            self.position_sum[entry] += places[seat]
            self.score_sum[entry] += row.scores[seat]
            self.faults[entry] += row.faults[seat]
            if max_faults and self.faults[entry] > max_faults:
                self.disqualified[entry] = True
            ahead = self.ahead.setdefault(entry, {})
            met = self.met.setdefault(entry, {})
            for other_seat, other in enumerate(seats):
                if other_seat != seat and self._compared(entry, other):
                    met[other] = met.get(other, 0) + 1
                    if standing[seat] < standing[other_seat]:
                        ahead[other] = ahead.get(other, 0) + 1

    def _compared(self, a: int, b: int) -> bool:
        """Whether entries a and b are compared (see `is_compared`)."""
        return self.challengers is None or (a in self.challengers) != (b in self.challengers)


OVERALL = "overall"

# What a pair's interval says, in the tables: the higher-ranked entry is better
# (separated), the lower-ranked one is (reversed: the ranking and the pair disagree),
# the two are within 1/2 +- margin (equal; only a run with `stop` has a margin), or
# none of these (not separated).
VERDICTS = {SEPARATED: "separated", REVERSED: "reversed", EQUAL: "equal", UNSETTLED: "not separated"}
NOT_SEPARATED = VERDICTS[UNSETTLED]
NOT_COMPARED = "not compared"  # vs_next between two field entries of a gauntlet
# A ranking is settled when each adjacent pair is one of these (a reversed pair is not:
# the table's order contradicts its data); a gauntlet's field entries are not compared.
SETTLED_VERDICTS = (VERDICTS[SEPARATED], VERDICTS[EQUAL], NOT_COMPARED)


def comparison_settings(plan: Mapping[str, Any]) -> dict[str, Any]:
    """How a run's pairs are compared: ``{"method", "confidence", "margin", "interval",
    "intervals"}``, method "fixed" (one look) without a `stop` in the plan, "sequence"
    (anytime-valid) with one; confidence and margin the stop's ("settled"; margin 0
    otherwise); interval a label for the tables; intervals the plan's family
    (`arena.pairwise.INTERVALS`: "betting", or "classic" for a plan that records none)."""
    stop = plan.get("stop")
    if not stop:
        method, confidence, margin = "fixed", 0.95, 0.0
    else:
        method = "sequence"
        confidence = float(stop.get("confidence") or 0.95)
        margin = float(stop.get("margin") or 0.0) if stop.get("kind", "settled") == "settled" else 0.0
    intervals = plan.get("intervals") or CLASSIC
    percent = f"{100 * confidence:g}%"
    if intervals == BETTING:
        interval = (f"fixed-sample {percent} betting interval" if method == "fixed" else
                    f"anytime-valid {percent} betting confidence sequence") + " (Waudby-Smith & Ramdas)"
    else:
        interval = (f"fixed-sample {percent} (Student t over deals)" if method == "fixed" else
                    f"anytime-valid {percent} confidence sequence (empirical Bernstein, Waudby-Smith & Ramdas)")
    return {"method": method, "confidence": confidence, "margin": margin, "intervals": intervals,
            "interval": interval + ", simultaneous over each ruleset's pairs (Bonferroni)"}


def is_compared(plan: Mapping[str, Any], a: int, b: int) -> bool:
    """Whether entries `a` and `b` (numbers) are compared when they share a table: always,
    but in a gauntlet only a challenger with a field entry (results between field
    entries are not reported)."""
    if plan.get("format") != "gauntlet":
        return True
    challengers = plan.get("challengers") or ()
    return (a in challengers) != (b in challengers)


def overall_alpha(plan: Mapping[str, Any]) -> float:
    """The error rate of each ruleset's interval for a pair of the overall table (betting
    plans): 1 - confidence split over the overall table's compared pairs times the
    rulesets, so that every ruleset's interval of every such pair holds at once, and with
    them the averages the overall table reads (`_overall_pairwise`)."""
    members = overall_entries(plan)
    pairs = sum(1 for i, a in enumerate(members) for b in members[i + 1:] if is_compared(plan, a, b))
    return split_alpha(1 - comparison_settings(plan)["confidence"], max(1, pairs) * len(plan["rulesets"]))


def overall_entries(plan: Mapping[str, Any]) -> list[int]:
    """The entries (numbers, in file order) of the overall table: those entered in every
    ruleset of the plan."""
    entered = [set(r["entries"]) for r in plan["rulesets"]]
    return [e for e in range(len(plan["entries"])) if all(e in s for s in entered)]


def scope_plan(plan: Mapping[str, Any]) -> list[Any]:
    """The independent rating chains of a plan: ``"overall"`` and each ruleset index
    (just ruleset 0 when it is the only ruleset and every entry plays it: then the
    overall ratings are the ruleset's). Each chain can be rated in its own process."""
    rulesets = plan["rulesets"]
    if len(rulesets) == 1 and list(rulesets[0]["entries"]) == list(range(len(plan["entries"]))):
        return [0]
    return [OVERALL, *range(len(rulesets))]


class Rater:
    """Applies stored games in schedule order and turns them into standings.

    `plan` is the store's plan (entries and rulesets; see arena.runner). `chains`
    limits it to some of the chains of `scope_plan` (default: all of them); the
    parts of several raters combine with `assemble`. With `history`, it also keeps each
    entry's rating after each of its games (`RatingHistory`, for the site's charts)."""

    def __init__(self, plan: Mapping[str, Any], chains: Any = None, history: bool = False):
        self.plan = plan
        self.entries = plan["entries"]
        n = len(self.entries)
        self.envs = [trueskill.TrueSkill(draw_probability=r["draw_probability"]) for r in plan["rulesets"]]
        all_chains = scope_plan(plan)
        self.chains = list(all_chains if chains is None else chains)
        self.shared = OVERALL not in all_chains
        challengers = plan.get("challengers") if plan.get("format") == "gauntlet" else None
        self.overall = (_Scope(list(range(n)), n, trueskill.TrueSkill(), challengers=challengers)
                        if OVERALL in self.chains else None)
        self.scopes = {i: _Scope(list(plan["rulesets"][i]["entries"]), n, self.envs[i], paired=True,
                                 challengers=challengers)
                       for i in self.chains if i != OVERALL}
        for i, scope in self.scopes.items():   # the plan's `luck`: scores net of the draw
            if planned_method(plan, i) is not None:
                scope.luck_tally = AdjustedTally()
                scope.t_star = luck.planned_t_star(plan, i)
        self.adjusted = any(scope.luck_tally is not None for scope in self.scopes.values())
        # A rater of one ruleset alone reads only that ruleset's games: its indices
        # are contiguous in the schedule, from the ruleset's offset on.
        self.only = self.chains[0] if len(self.chains) == 1 and self.chains[0] != OVERALL else None
        self.next_index = 0
        self.end_index: int | None = None
        if self.only is not None and all("games" in r for r in plan["rulesets"]):
            self.next_index = sum(r["games"] for r in plan["rulesets"][:self.only])
            self.end_index = self.next_index + plan["rulesets"][self.only]["games"]
        self.rated = 0
        self.history = RatingHistory(self) if history else None

    def apply(self, row: GameRow, corrections: list[list[float]] | None = None) -> None:
        """Rate one game (with its luck corrections, for a ruleset scored luck-adjusted).
        Callers apply games in schedule order."""
        env = self.envs[row.ruleset]
        max_faults = self.plan.get("max_faults", 0)
        scope = self.scopes.get(row.ruleset)
        if scope is not None:
            scope.add(env, row, max_faults, corrections)
        if self.overall is not None:
            self.overall.add(env, row, max_faults)
        self.rated += 1
        if self.history is not None:
            self.history.record(row)

    def drain(self, store: Store, budget: float | None = None, stop_at_gap: bool = True, chunk: int = 1000) -> bool:
        """Rate the stored games from `next_index` on, in schedule order.

        With `stop_at_gap`, stop before the first game not stored yet (a running
        tournament fills it later); otherwise skip over gaps. With `budget`
        (seconds) stop after about that long. Returns True if it stopped for the
        budget (more games may be ready), False if it ran out of games."""
        deadline = None if budget is None else time.perf_counter() + budget
        while True:
            rows = store.rows(self.next_index, chunk, ruleset=self.only, end=self.end_index)
            if not rows:
                return False
            luck = read_luck_range(store, rows[0].index, rows[-1].index + 1) if self.adjusted else {}
            for row in rows:
                if stop_at_gap and row.index != self.next_index:
                    return False
                self.apply(row, luck.get(row.index))
                self.next_index = row.index + 1
                if deadline is not None and time.perf_counter() > deadline:
                    return True
            if len(rows) < chunk:
                return False

    # -- results ---------------------------------------------------------------

    def parts(self) -> dict[str, Any]:
        """This rater's chains, by label (``"overall"`` or a ruleset label):
        ``{"rows": [...], "head_to_head": {...}}``, a ruleset's with its ``"pairwise"``."""
        labels = [r["label"] for r in self.plan["rulesets"]]
        out = {}
        if self.overall is not None:
            out[OVERALL] = {"rows": self._rows(self.overall), "head_to_head": self._head_to_head(self.overall)}
        for i, scope in self.scopes.items():
            rows = self._rows(scope)
            out[labels[i]] = {"rows": rows, "head_to_head": self._head_to_head(scope),
                              "pairwise": self._pairwise(scope, rows)}
            if comparison_settings(self.plan)["intervals"] == BETTING:
                out[labels[i]]["strata"] = self._strata(scope)
        return out

    def _strata(self, scope: _Scope) -> dict[tuple[str, str], tuple[float, float, float]]:
        """This ruleset's part of the overall table's intervals (betting plans): for each
        compared pair (a, b) of overall entries, a before b in file order, that shared a
        table, a's (mean, low, high) against b at the overall error rate per stratum
        (`overall_alpha`); a luck-adjusted ruleset's from its adjusted scores, by its
        "asymptotic" intervals (its CS with `stop`, else a Student t)."""
        assert scope.tally is not None
        settings = comparison_settings(self.plan)
        names = [e["bot"] for e in self.entries]
        members = set(overall_entries(self.plan))
        alpha = overall_alpha(self.plan)
        out = {}
        adjusted = scope.luck_tally is not None
        scores = scope.luck_tally.scores() if scope.luck_tally is not None else scope.tally.scores()
        for (a, b), deals in scores.items():
            if a < b and a in members and b in members and is_compared(self.plan, a, b):
                values = [d.score for d in deals]
                if adjusted and settings["method"] == "fixed":
                    summary = summarize(values, 1 - alpha, bounded=False)
                    out[(names[a], names[b])] = (summary.mean, summary.interval.low, summary.interval.high)
                    continue
                bound = asymptotic_cs(values, alpha, scope.t_star) if adjusted else \
                    BettingCS(values, alpha, fixed_n=len(values) if settings["method"] == "fixed" else None).bound()
                out[(names[a], names[b])] = (bound.mean, bound.low, bound.high)
        return out

    def _pairwise(self, scope: _Scope, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """The ruleset's pairs (see the module docstring), compared in the order of `rows`,
        whose ``vs_next`` it sets: ``{"pairs": K, "alpha_per_pair", "settled", "results":
        [{"a", "b", "deals", "mean", "low", "high", "los", "verdict"}]}``, a above b."""
        names = [e["bot"] for e in self.entries]
        settings = comparison_settings(self.plan)
        assert scope.tally is not None
        adjusted = scope.luck_tally is not None
        scores = scope.luck_tally.scores() if scope.luck_tally is not None else scope.tally.scores()
        paired: dict[tuple[str, str], Any] = {
            (names[a], names[b]): deals for (a, b), deals in scores.items() if is_compared(self.plan, a, b)}
        order = [r["bot"] for r in rows]
        # K = the pairs with a deal: in a stopping run, from its first look on, every pair its
        # schedule seats together, which is the K arena.stopping fixed in advance. Adjusted
        # scores, on their own scale, have the "asymptotic" intervals (they have no usable bound).
        comparison = compare(order, paired, confidence=settings["confidence"], margin=settings["margin"],
                             method=settings["method"], intervals=ASYMPTOTIC if adjusted else settings["intervals"],
                             t_star=scope.t_star)
        verdicts = {(v.upper, v.lower): v for v in comparison.verdicts}
        number = {name: e for e, name in enumerate(names)}
        for upper, lower in zip(rows, rows[1:]):
            v = verdicts.get((upper["bot"], lower["bot"]))
            upper["vs_next"] = (VERDICTS[v.status] if v else NOT_SEPARATED) \
                if is_compared(self.plan, number[upper["bot"]], number[lower["bot"]]) else NOT_COMPARED
        settled = all(row["vs_next"] in SETTLED_VERDICTS for row in rows[:-1])
        results = [{"a": v.upper, "b": v.lower, "deals": v.deals, "mean": _round(v.mean),
                    "low": _end(v.interval.low), "high": _end(v.interval.high), "los": _round(v.los),
                    "verdict": VERDICTS[v.status]}
                   for v in sorted(comparison.verdicts, key=lambda v: (order.index(v.upper), order.index(v.lower)))]
        found = {"pairs": comparison.pairs, "alpha_per_pair": _round(comparison.alpha_per_pair),
                 "settled": settled, "results": results}
        if adjusted:
            found["luck"] = "adjusted"   # scores net of the luck of the draw (docs/luck.md)
            found["intervals"] = ASYMPTOTIC
        return found

    def order(self, ruleset: int) -> list[str]:
        """The names of ruleset `ruleset`'s entries in its table's order (best first), as
        rated so far: the order whose adjacent pairs `vs_next` and a settled stop judge."""
        return [row["bot"] for row in self._rows(self.scopes[ruleset])]

    def standings(self) -> dict[str, Any]:
        """``{"overall": rows, "rulesets": {label: rows}, "head_to_head": {...}}``."""
        return assemble(self.plan, self.parts())

    def _rows(self, scope: _Scope) -> list[dict[str, Any]]:
        rows = []
        for entry in scope.entries:
            info = self.entries[entry]
            rating = scope.ratings[entry]
            games = scope.games[entry]
            wins = scope.wins[entry]
            low, high = wilson_interval(wins, games)
            rows.append({
                "rank": 0, "bot": info["bot"], "uses": info["uses"], "package": info["package"],
                "version": info["version"],
                "mu": _round(rating.mu), "sigma": _round(rating.sigma),
                "conservative": _round(rating.mu - 3 * rating.sigma),
                "games": games, "wins": wins,
                "win_rate": _round(wins / games) if games else None,
                "win_rate_low": _round(low) if games else None,
                "win_rate_high": _round(high) if games else None,
                "avg_position": _round(scope.position_sum[entry] / games) if games else None,
                "mean_score": _round(scope.score_sum[entry] / games) if games else None,
                "faults": scope.faults[entry],
                "disqualified": scope.disqualified[entry],
                "vs_next": None,
            })
        rows.sort(key=lambda r: (-r["conservative"], -r["mu"], r["bot"]))
        for rank, row in enumerate(rows, 1):
            row["rank"] = rank
        return rows

    def _head_to_head(self, scope: _Scope) -> dict[str, dict[str, float]]:
        names = [e["bot"] for e in self.entries]
        out: dict[str, dict[str, float]] = {}
        for entry in scope.entries:
            met = scope.met.get(entry, {})
            ahead = scope.ahead.get(entry, {})
            out[names[entry]] = {names[other]: _round(ahead.get(other, 0) / met[other])
                                 for other in scope.entries if other in met}
        return out


def assemble(plan: Mapping[str, Any], parts: Mapping[str, Any]) -> dict[str, Any]:
    """Standings from the parts of the raters of every chain of `scope_plan`:
    ``{"overall": rows, "rulesets": {label: rows}, "head_to_head": {...}, "pairwise":
    {...}}``; the overall rows and head-to-head only of `overall_entries`, ranked
    among themselves."""
    labels = [r["label"] for r in plan["rulesets"]]
    overall = parts[OVERALL] if OVERALL in parts else parts[labels[0]]
    names = [e["bot"] for e in plan["entries"]]
    members = [names[e] for e in overall_entries(plan)]
    rows = [dict(row) for row in overall["rows"] if row["bot"] in members]
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    head_to_head = {a: {b: value for b, value in against.items() if b in members}
                    for a, against in overall["head_to_head"].items() if a in members}
    rulesets = {label: parts[label]["pairwise"] for label in labels}
    settings = comparison_settings(plan)
    strata = {label: parts[label]["strata"] for label in labels} if settings["intervals"] == BETTING else None
    return {
        "overall": rows,
        "rulesets": {label: parts[label]["rows"] for label in labels},
        "head_to_head": {OVERALL: head_to_head, **{label: parts[label]["head_to_head"] for label in labels}},
        # A classic plan's standings stay as they were published before issue 43: no "intervals".
        "pairwise": {**{k: v for k, v in settings.items() if k != "intervals" or v != CLASSIC},
                     "overall": _overall_pairwise(rows, rulesets, members, names,
                                                  lambda a, b: is_compared(plan, names.index(a), names.index(b)),
                                                  strata, settings["margin"]),
                     "rulesets": rulesets},
    }


def _overall_pairwise(rows: list[dict[str, Any]], rulesets: Mapping[str, Any], members: list[str],
                      names: list[str], compared: Callable[[str, str], bool],
                      strata: Mapping[str, Any] | None = None, margin: float = 0.0) -> dict[str, Any]:
    """The overall table's pairs (sets each row's ``vs_next``); `mean` is the mean over the
    rulesets of the pair's mean paired score, `rulesets` those means.

    Classic plans (`strata` None): a verdict holds overall when it holds, in the same
    order, on every ruleset (so its error rate is at most a ruleset's). Betting plans:
    the overall estimand is that mean over rulesets (a stratified mean, each ruleset
    weighing the same), and its interval [low, high] the mean of the rulesets' intervals
    (`strata`, each at `overall_alpha`: all hold at once with probability at least the
    confidence, by the union bound, and then so do the means). The verdict is read from
    it as a ruleset's is (equal: within 1/2 +- `margin`), so a bot that wins clearly in
    every ruleset is separated overall even where one ruleset alone would not separate
    it. A pair that did not meet in every ruleset is not separated."""
    flipped = {"separated": "reversed", "reversed": "separated"}
    found: dict[tuple[str, str], dict[str, tuple[float, int, str]]] = {}
    for label, comparison in rulesets.items():
        for r in comparison["results"]:
            found.setdefault((r["a"], r["b"]), {})[label] = (r["mean"], r["deals"], r["verdict"])
            found.setdefault((r["b"], r["a"]), {})[label] = (1 - r["mean"], r["deals"],
                                                             flipped.get(r["verdict"], r["verdict"]))
    order = [r["bot"] for r in rows]
    results = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            per = found.get((a, b), {})
            verdicts = {per[label][2] if label in per else NOT_SEPARATED for label in rulesets}
            verdict = verdicts.pop() if len(verdicts) == 1 else NOT_SEPARATED
            means = {label: _round(per[label][0]) for label in rulesets if label in per}
            result = {"a": a, "b": b, "deals": sum(per[label][1] for label in per),
                      "mean": _round(sum(means.values()) / len(means)) if means else None,
                      "rulesets": means, "verdict": verdict}
            if strata is not None:
                result.update(_stratified(a, b, strata, margin))
            results.append(result)
    by_pair = {(r["a"], r["b"]): r["verdict"] for r in results}
    for upper, lower in zip(rows, rows[1:]):
        upper["vs_next"] = by_pair[(upper["bot"], lower["bot"])] if compared(upper["bot"], lower["bot"]) \
            else NOT_COMPARED
    return {"bots": order, "rulesets": list(rulesets), "left_out": [n for n in names if n not in members],
            "results": results}


def _stratified(a: str, b: str, strata: Mapping[str, Any], margin: float) -> dict[str, Any]:
    """a's overall interval against b (the mean of the rulesets' intervals) and its verdict."""
    bounds = []
    for per in strata.values():
        if (a, b) in per:
            bounds.append(per[(a, b)][1:])
        elif (b, a) in per:
            low, high = per[(b, a)][1:]
            bounds.append((1 - high, 1 - low))
        else:
            return {"low": None, "high": None, "verdict": NOT_SEPARATED}
    if not all(math.isfinite(lo) and math.isfinite(hi) for lo, hi in bounds):   # an adjusted pair of one deal
        return {"low": None, "high": None, "verdict": NOT_SEPARATED}
    low = math.fsum(lo for lo, _ in bounds) / len(bounds)
    high = math.fsum(hi for _, hi in bounds) / len(bounds)
    status = (SEPARATED if low > 0.5 else REVERSED if high < 0.5 else
              EQUAL if margin > 0 and 0.5 - margin <= low and high <= 0.5 + margin else UNSETTLED)
    return {"low": _round(low), "high": _round(high), "verdict": VERDICTS[status]}


def rate_chain(path: str, chain: Any) -> dict[str, Any]:
    """Rate one chain of the store at `path` from scratch (a process pool task)."""
    with Store.open(path) as store:
        rater = Rater(store.plan(), [chain])
        rater.drain(store, stop_at_gap=False)
        return rater.parts()


def unplayed_standings(plan: Mapping[str, Any]) -> dict[str, Any]:
    """The standings of `plan` before any game: every entry at its prior rating."""
    return Rater(plan).standings()


def rate_store(store: Store, workers: int = 1, parallel_from: int = 5000) -> dict[str, Any]:
    """Standings from every game in the store, in schedule order; with `workers` > 1
    and at least `parallel_from` games, the independent chains (overall, each
    ruleset) are rated in parallel processes."""
    plan = store.plan()
    chains = scope_plan(plan)
    if workers <= 1 or len(chains) == 1 or store.count() < parallel_from:
        rater = Rater(plan)
        rater.drain(store, stop_at_gap=False)
        return rater.standings()
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    parts: dict[str, Any] = {}
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ProcessPoolExecutor(min(workers, len(chains)), mp_context=context) as pool:
        for part in pool.map(rate_chain, [str(store.path)] * len(chains), chains):
            parts.update(part)
    return assemble(plan, parts)


def _round(value: float) -> float:
    return round(float(value), 6)


def _end(value: float) -> float | None:
    """A published interval end: None for an unbounded one (one adjusted deal; JSON has no infinity)."""
    return _round(value) if math.isfinite(value) else None


HISTORY_POINTS = 300
"""The most points of an entry's rating history per scope that the site draws (`thin`)."""


class RatingHistory:
    """Each entry's rating history in the scopes a `Rater` follows, for the site's charts:
    ``[games, index, mu, sigma]`` points (games played in the scope, schedule index, mu
    and sigma to 4 places), the prior before any game first (``[0, -1, mu, sigma]``), then
    one after each of its games. A scope is named by its label: ``"overall"`` or a ruleset
    label; the chain shared by the overall table and the only ruleset (`scope_plan` gives
    ``[0]``) has both. Points are kept packed (four doubles each), so that a rating
    follower holds a long tournament's history in little memory."""

    def __init__(self, rater: "Rater"):
        labels = [r["label"] for r in rater.plan["rulesets"]]
        self.names = [e["bot"] for e in rater.entries]
        # (label, scope, the ruleset whose games it rates: None for every game's)
        self.tracked: list[tuple[str, _Scope, int | None]] = []
        if rater.overall is not None:
            self.tracked.append((OVERALL, rater.overall, None))
        for i, scope in rater.scopes.items():
            self.tracked.append((labels[i], scope, i))
        if rater.shared and 0 in rater.scopes:
            self.tracked.append((OVERALL, rater.scopes[0], 0))
        self.points: dict[str, dict[str, array]] = {label: {} for label, _, _ in self.tracked}
        for label, scope, _ in self.tracked:  # every line starts at the prior, before any game (index -1)
            for entry in scope.entries:
                prior = scope.ratings[entry]
                self.points[label][self.names[entry]] = array("d", (0, -1, round(prior.mu, 4),
                                                                    round(prior.sigma, 4)))

    def record(self, row: GameRow) -> None:
        """Add the ratings of `row`'s entries after it (the rater has just applied it)."""
        for label, scope, only in self.tracked:
            if only is not None and row.ruleset != only:
                continue
            series = self.points[label]
            for entry in row.seats:
                rating = scope.ratings[entry]
                series.setdefault(self.names[entry], array("d")).extend(
                    (scope.games[entry], row.index, round(rating.mu, 4), round(rating.sigma, 4)))

    def thinned(self, max_points: int | None = None) -> dict[str, dict[str, list]]:
        """``history[label][bot] = [[games, index, mu, sigma], ...]``, each line thinned to at
        most `max_points` points (default `HISTORY_POINTS`; `thin`: the first and the last
        always kept)."""
        max_points = HISTORY_POINTS if max_points is None else max_points
        return {label: {bot: [[int(packed[4 * i]), int(packed[4 * i + 1]), packed[4 * i + 2], packed[4 * i + 3]]
                              for i in thin(range(len(packed) // 4), max_points)]
                        for bot, packed in series.items()}
                for label, series in self.points.items()}


def rate_with_history(store: Store, max_points: int | None = None
                      ) -> tuple[dict[str, Any], dict[str, dict[str, list]]]:
    """``(standings, history)`` for every game in `store`, in one rating pass: the standings
    exactly as `rate_store` gives them (the same `Rater`, fed the same games in schedule
    order) and each entry's rating history per scope (`RatingHistory.thinned`), for the
    site's charts: ``history[label][bot] = [[games, index, mu, sigma], ...]``. A run hands
    both over (arena.runner.RunSummary: its rating followers keep the same history); this
    pass is for a results folder published or served without a run."""
    rater = Rater(store.plan(), history=True)
    rater.drain(store, stop_at_gap=False)
    assert rater.history is not None
    return rater.standings(), rater.history.thinned(max_points)


def thin(points: Sequence[Any], limit: int) -> list[Any]:
    """At most `limit` of `points`, evenly spread, first and last kept."""
    if len(points) <= limit or limit < 2:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]
