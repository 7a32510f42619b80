"""Stopping a ruleset early: when its ranking is settled, or at an SPRT's decision (issue 19).

A tournament with a `stop` (arena.tournament.Stop) plays each ruleset deal by deal (the
schedule is deal-major) and looks at a ruleset's results only at batch boundaries: after
`look_every`, 2 `look_every`, ... deals, and only once every game of those deals is
stored, whatever order the workers finished them in. A look is a function of those
games alone, and it is recorded in the store (`arena.store.record_look`) before anything
acts on it, so the same file and seed stop at the same deal on any number of workers,
on any backend, and after a kill and resume.

The statistics are `arena.pairwise`'s on deal-level paired scores (a deal's games at
every table holding both entries, all rotations; the deal index is the key):

- "settled": an anytime-valid confidence sequence per pair at 1 - (1 - confidence)/K,
  K fixed in advance = the pairs of entries that share a table in the ruleset's schedule
  (a gauntlet: the challenger-field pairs), so the error rate holds over all pairs and
  all looks. Entries are ranked as the published table ranks them (`arena.ratings`:
  TrueSkill over the ruleset's games so far, in schedule order, so at the stop the very
  table that is published); the ruleset stops when every adjacent pair of that ranking is
  separated or shown within 1/2 +- margin (a pair whose interval contradicts the ranking
  is not settled: the table would show it "reversed"). A gauntlet stops when every
  challenger-field pair is separated, reversed or shown equal (it ranks no one).
- "sprt": `pairwise.sprt` of the stop's bot against its baseline, per ruleset.

A luck-adjusted ruleset (`arena.luck`) is judged on its adjusted scores' own scale by the
"asymptotic" family (`pairwise.ASYMPTOTIC`; `pairwise.asymptotic_sprt` for "sprt"), at the
same error split, with the t_star its plan records.

A ruleset also stops at its last deal (`max_deals`), its unsettled pairs reported so.
Games played past a stop (in flight when it came) stay stored; the stop's cut leaves them out.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Iterator

from arena import luck, pairwise
from arena.ratings import Rater
from arena.store import Look, Store, StoreError, count_games, prepare_looks, read_looks, read_luck_range, record_look
from arena.tournament import GameSpec, Schedule, Tournament


class Looks:
    """The looks of one run: which deals each ruleset may play, and its stops."""

    def __init__(self, tournament: Tournament, schedule: Schedule, store: Store):
        self.tournament = tournament
        self.schedule = schedule
        self.store = store
        self.stop = tournament.stop
        self.every = tournament.look_every
        n = len(tournament.rulesets)
        self.offsets = schedule.offsets()
        self.looked = [0] * n        # deals covered by the last recorded look
        self.looks = [0] * n         # looks recorded
        self.cut: list[int | None] = [None] * n  # deals a stopped ruleset ends at
        self.verdicts: list[dict[str, Any] | None] = [None] * n  # the detail of the last look
        self.scores: list[dict[tuple[str, str], list[float]]] = [{} for _ in range(n)]
        self.pair_count = [0] * n
        self.adjusted = [False] * n   # per ruleset: luck-adjusted scores (the plan's `luck`)
        self.t_star = [pairwise.ASYMPTOTIC_T_STAR] * n  # per ruleset: the asymptotic CS's tuning
        # Per ruleset, its games so far rated as its published table rates them (the order
        # "adjacent" refers to).
        self.raters: list[Rater] = []
        # Per ruleset (settled, 2-player tables): pair of entries -> the deal from which it is
        # dealt no more (its verdict settled at a look; see `_close_pairs`).
        self.closed: list[dict[tuple[int, int], int]] = [{} for _ in range(n)]
        self.narrowing = [False] * n
        self.intervals = pairwise.CLASSIC
        if self.stop is None:
            return
        plan = store.plan()
        self.intervals = plan.get("intervals") or pairwise.CLASSIC  # as the plan was made
        self.adjusted = [luck.planned_method(plan, r) is not None for r in range(n)]
        self.t_star = [luck.planned_t_star(plan, r) for r in range(n)]
        self.raters = [Rater(plan, [r]) for r in range(n)]
        self.pair_count = [self._pairs_in_schedule(r) for r in range(n)]
        self.narrowing = [self.stop.kind == "settled" and ruleset.players == 2 and tournament.format != "sampled"
                          for ruleset in tournament.rulesets]
        prepare_looks(store)
        entry_of = {b.display: b.index for b in tournament.bots}
        for look in read_looks(store):
            for a, b in look.detail.get("closed") or ():
                self.closed[look.ruleset][_pair(entry_of[a], entry_of[b])] = look.detail["closed_from"]
            self.looked[look.ruleset] = look.deals
            self.looks[look.ruleset] = look.look
            self.verdicts[look.ruleset] = look.detail
            if look.stopped:
                self.cut[look.ruleset] = look.deals
        for r in range(n):
            if self.cut[r] is None and self.looked[r]:
                self._read_scores(r, 0, self.looked[r])

    # -- what may be played ----------------------------------------------------------

    def horizon(self, ruleset: int, ahead: int) -> int:
        """The deals of `ruleset` that may be played now: all of them without a stop; up to
        its stop once stopped; else `ahead` batches past the last look."""
        if self.stop is None:
            return self.tournament.deals
        cut = self.cut[ruleset]
        if cut is not None:
            return cut
        return min(self.tournament.deals, self.looked[ruleset] + ahead * self.every)

    def counted_total(self) -> int:
        """Games the standings count: every ruleset's, up to its stop."""
        return sum(self._games_below(r, cut) if cut is not None else count
                   for r, (count, cut) in enumerate(zip(self.schedule.counts, self.cut)))

    def all_stopped(self) -> bool:
        return self.stop is not None and all(c is not None for c in self.cut)

    # -- looking ------------------------------------------------------------------

    def look(self, echo: Any = None) -> list[int]:
        """Take every look whose games are all stored (in schedule order per ruleset);
        return the rulesets that stopped."""
        stopped: list[int] = []
        if self.stop is None:
            return stopped
        for r, ruleset in enumerate(self.tournament.rulesets):
            while self.cut[r] is None:
                boundary = min(self.looked[r] + self.every, self.tournament.deals)
                if count_games(self.store, r, boundary) < self._games_below(r, boundary):
                    break
                self._read_scores(r, self.looked[r], boundary)
                detail, settled = self._decide(r)
                last = boundary >= self.tournament.deals
                stop_here = settled or last
                if stop_here:
                    detail["reason"] = "settled" if settled else "max_deals"
                elif self.narrowing[r]:
                    self._close_pairs(r, boundary, detail)
                self.looks[r] += 1
                plan = None
                if stop_here:
                    plan = self.store.plan()
                    self.cut[r] = boundary
                    plan["rulesets"][r]["counted_games"] = self._games_below(r, boundary)
                    plan["rulesets"][r]["stopped_at_deals"] = boundary
                    if self.narrowing[r]:
                        detail["saved"] = plan["rulesets"][r]["games_saved"] = self._saved(r, boundary)
                    plan["total_games"] = self.counted_total()
                record_look(self.store, Look(r, self.looks[r], boundary, stop_here, detail), plan)
                self.looked[r] = boundary
                self.verdicts[r] = detail
                if stop_here:
                    stopped.append(r)
                    if echo is not None:
                        echo(f"{ruleset.label}: stopped after {boundary:,} deals ({describe(detail)})")
        return stopped

    def _games_below(self, ruleset: int, deals: int) -> int:
        """The ruleset's games below deal `deals` that are played: its schedule's, less
        those of pairs closed before then."""
        players = self.tournament.rulesets[ruleset].players
        closed = sum(max(0, deals - since) for since in self.closed[ruleset].values())
        return (deals * self.schedule.table_counts[ruleset] - closed) * players

    def _saved(self, ruleset: int, deals: int) -> int:
        """Games the full schedule plays below deal `deals` that closed pairs did not."""
        players = self.tournament.rulesets[ruleset].players
        return deals * self.schedule.table_counts[ruleset] * players - self._games_below(ruleset, deals)

    def is_closed(self, ruleset: int, seats: tuple[int, ...], deal: int) -> bool:
        """Whether the game of these seats at `deal` is not dealt: its pair was closed before."""
        since = self.closed[ruleset].get(_pair(*seats)) if len(seats) == 2 else None
        return since is not None and deal >= since

    def _close_pairs(self, r: int, boundary: int, detail: dict[str, Any]) -> None:
        """At a 2-player settled ruleset's look: close every pair whose verdict is settled
        (separated, reversed or equal, at the split error rate of every pair) from the deal
        after the next block on, so that no game of it was dealt past that point on any
        number of workers (a run deals at most two blocks past its last look). Recorded in
        the look's detail ("closed", "closed_from"), so a resumed run closes the same."""
        stop = self.stop
        assert stop is not None
        names = [b.display for b in self.tournament.bots]
        alpha = pairwise.split_alpha(1 - stop.confidence, self.pair_count[r])
        since = min(boundary + self.every, self.tournament.deals)
        closing = []
        for table in self.schedule.tables(self.tournament.rulesets[r]):
            pair = _pair(*table)
            if pair in self.closed[r] or not self._compared(pair):
                continue
            a, b = names[pair[0]], names[pair[1]]
            verdict = pairwise.judge(a, b, self.scores[r].get((a, b), []), alpha, self._margin(r), "sequence",
                                     self._intervals(r), self.t_star[r])
            if verdict.status in pairwise.SETTLED_STATES:
                self.closed[r][pair] = since
                closing.append([a, b])
        if closing:
            detail["closed"], detail["closed_from"] = closing, since

    def _compared(self, pair: tuple[int, int]) -> bool:
        """Whether the pair counts (a gauntlet compares challengers with the field only)."""
        challengers = set(self.tournament.challengers)
        return not challengers or (pair[0] in challengers) != (pair[1] in challengers)

    def _read_scores(self, r: int, first: int, end: int) -> None:
        """Add the deal scores of deals [first, end) of ruleset `r` (all stored)."""
        per_deal = self.schedule.table_counts[r] * self.tournament.rulesets[r].players
        start = self.offsets[r] + first * per_deal
        stop = self.offsets[r] + end * per_deal
        names = [b.display for b in self.tournament.bots]
        games = []
        indices: list[int] = []
        corrections = read_luck_range(self.store, start, stop) if self.adjusted[r] else {}
        index = start
        while index < stop:
            rows = self.store.rows(index, 5000, ruleset=r, end=stop)
            if not rows:
                break
            for row in rows:
                self.raters[r].apply(row, corrections.get(row.index))
                games.append(((row.index - self.offsets[r]) // per_deal, [names[e] for e in row.seats],
                              row.standing))
                indices.append(row.index)
            index = rows[-1].index + 1
        if self.adjusted[r]:
            tally = luck.AdjustedTally()
            for (deal, entries, standing), index in zip(games, indices):
                if index not in corrections:
                    raise StoreError(f"{self.store.path}: game {index} has no luck corrections, and its ruleset "
                                     f"is scored luck-adjusted (the store is damaged)")
                tally.add(deal, entries, standing, corrections[index])
            for pair, deals in tally.scores().items():   # on their own scale: the "asymptotic" intervals
                self.scores[r].setdefault(pair, []).extend(d.score for d in deals)
            return
        for pair, deals in pairwise.paired_scores(games).items():
            self.scores[r].setdefault(pair, []).extend(d.score for d in deals)

    def _pairs_in_schedule(self, r: int) -> int:
        """K: the unordered pairs of entries that share a table of ruleset `r` (a
        gauntlet: a challenger and a field entry), fixed before any game."""
        challengers = set(self.tournament.challengers)
        pairs = set()
        for table in self.schedule.tables(self.tournament.rulesets[r]):
            for a, b in itertools.combinations(table, 2):
                if not challengers or (a in challengers) != (b in challengers):
                    pairs.add((a, b))
        return max(1, len(pairs))

    def _decide(self, r: int) -> tuple[dict[str, Any], bool]:
        detail, settled = self._decide_scores(r)
        if self.adjusted[r]:
            detail = dict(detail, luck="adjusted")
        return detail, settled

    def _margin(self, r: int) -> float:
        assert self.stop is not None
        return self.stop.margin

    def _intervals(self, r: int) -> str:
        """Ruleset `r`'s interval family: a luck-adjusted one's is "asymptotic" (its scores
        have no usable bound), the others' the plan's."""
        return pairwise.ASYMPTOTIC if self.adjusted[r] else self.intervals

    def _decide_scores(self, r: int) -> tuple[dict[str, Any], bool]:
        stop = self.stop
        assert stop is not None
        scores = self.scores[r]
        names = [b.display for b in self.tournament.bots]
        if stop.kind == "sprt":
            assert stop.bot is not None and stop.baseline is not None  # an sprt stop names both
            values = scores.get((names[stop.bot], names[stop.baseline]), [])
            if self.adjusted[r]:
                return self._decide_asymptotic_sprt(values, r)
            if self.intervals == pairwise.BETTING:
                return self._decide_betting_sprt(values, r)
            result = pairwise.sprt(values, self._margin(r), stop.alpha, stop.beta)
            return ({"test": "sprt", "bot": names[stop.bot], "baseline": names[stop.baseline],
                     "decision": result.decision, "llr": round(result.llr, 6), "lower": round(result.lower, 6),
                     "upper": round(result.upper, 6), "deals": result.deals, "mean": round(result.mean, 6)},
                    result.decision != pairwise.CONTINUE)
        entries = [names[e] for e in self.tournament.rulesets[r].entries]
        if self.tournament.challengers:
            return self._decide_gauntlet(r, entries)
        order = self.raters[r].order(r)
        settlement = pairwise.settle(order, scores, confidence=stop.confidence, margin=self._margin(r),
                                     method="sequence", pair_count=self.pair_count[r], intervals=self._intervals(r),
                                     t_star=self.t_star[r])
        settled = all(v.status in (pairwise.SEPARATED, pairwise.EQUAL) for v in settlement.verdicts)
        return ({"test": "settled", "pairs": settlement.pairs, "order": order,
                 "verdicts": [_verdict(v) for v in settlement.verdicts], **self._family(r)}, settled)

    def _family(self, r: int) -> dict[str, Any]:
        """A look's record of its intervals: none for the classic ones (as before issue 43)."""
        intervals = self._intervals(r)
        if intervals == pairwise.ASYMPTOTIC:
            return {"intervals": intervals, "t_star": self.t_star[r]}
        return {} if intervals == pairwise.CLASSIC else {"intervals": intervals}

    def _decide_asymptotic_sprt(self, values: list[float], r: int) -> tuple[dict[str, Any], bool]:
        stop = self.stop
        assert stop is not None and stop.bot is not None and stop.baseline is not None
        names = [b.display for b in self.tournament.bots]
        result = pairwise.asymptotic_sprt(values, stop.margin, stop.alpha, stop.beta, self.t_star[r])
        return ({"test": "sprt", "bot": names[stop.bot], "baseline": names[stop.baseline],
                 "decision": result.decision, "low": _finite(result.low), "high": _finite(result.high),
                 "deals": result.deals, "mean": round(result.mean, 6), **self._family(r)},
                result.decision != pairwise.CONTINUE)

    def _decide_betting_sprt(self, values: list[float], r: int) -> tuple[dict[str, Any], bool]:
        stop = self.stop
        assert stop is not None and stop.bot is not None and stop.baseline is not None  # an sprt stop names both
        names = [b.display for b in self.tournament.bots]
        result = pairwise.betting_sprt(values, self._margin(r), stop.alpha, stop.beta)
        return ({"test": "sprt", "bot": names[stop.bot], "baseline": names[stop.baseline],
                 "decision": result.decision, "against_h0": round(result.against_h0, 6),
                 "against_h1": round(result.against_h1, 6), "h0_bound": round(result.h0_bound, 6),
                 "h1_bound": round(result.h1_bound, 6), "deals": result.deals, "mean": round(result.mean, 6),
                 **self._family(r)}, result.decision != pairwise.CONTINUE)

    def _decide_gauntlet(self, r: int, entries: list[str]) -> tuple[dict[str, Any], bool]:
        stop = self.stop
        assert stop is not None
        names = [b.display for b in self.tournament.bots]
        challengers = [names[c] for c in self.tournament.challengers if names[c] in entries]
        field = [e for e in entries if e not in challengers]
        alpha = pairwise.split_alpha(1 - stop.confidence, self.pair_count[r])
        verdicts = []
        for challenger in challengers:
            for other in field:
                values = self.scores[r].get((challenger, other), [])
                verdicts.append(_verdict(pairwise.judge(challenger, other, values, alpha, self._margin(r), "sequence",
                                                        self._intervals(r), self.t_star[r])))
        settled = all(v[2] in pairwise.SETTLED_STATES for v in verdicts)
        return {"test": "settled", "pairs": self.pair_count[r], "verdicts": verdicts, **self._family(r)}, settled


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _finite(x: float) -> float | None:
    """A stored interval end: None for an unbounded one (JSON has no infinity)."""
    return round(x, 6) if math.isfinite(x) else None


def _verdict(v: pairwise.AdjacentVerdict) -> list[Any]:
    """A verdict as stored in a look: [upper, lower, status, deals, mean, low, high]."""
    return [v.upper, v.lower, v.status, v.deals, round(v.mean, 6), _finite(v.interval.low),
            _finite(v.interval.high)]


def describe(detail: dict[str, Any]) -> str:
    """A look's outcome in a few words, for a progress line."""
    if detail.get("test") == "sprt":
        if detail.get("intervals") == pairwise.ASYMPTOTIC:
            return (f"SPRT {detail['decision']}, asymptotic CS [{detail['low']}, {detail['high']}] against "
                    f"1/2 (H0) and 1/2 + margin (H1)")
        if "llr" not in detail:  # the betting SPRT
            return (f"SPRT {detail['decision']}, log e-values {detail['against_h0']:.2f} against H0 (bound "
                    f"{detail['h0_bound']:.2f}), {detail['against_h1']:.2f} against H1 (bound {detail['h1_bound']:.2f})")
        return f"SPRT {detail['decision']}, LLR {detail['llr']:.2f} in ({detail['lower']:.2f}, {detail['upper']:.2f})"
    verdicts = detail.get("verdicts", [])
    open_pairs = [v for v in verdicts if v[2] == pairwise.UNSETTLED]
    saved = f"; {detail['saved']:,} games saved by dealing no more to settled pairs" if detail.get("saved") else ""
    if not open_pairs:
        return "every pair settled" + saved
    return f"{len(open_pairs)} of {len(verdicts)} pairs not settled" + \
        (" at max_deals" if detail.get("reason") == "max_deals" else "") + saved


class Feed:
    """The pending games of a run in batches: each batch one ruleset's, within the deals
    `Looks.horizon` allows, never across a look's boundary; rulesets in file order, a
    later one played while an earlier one waits for its look."""

    def __init__(self, schedule: Schedule, done: bytearray, looks: Looks, sizer: Any, ahead: int):
        self.looks = looks
        self.sizer = sizer
        self.ahead = ahead
        self.every = schedule.tournament.look_every if schedule.tournament.stop is not None else None
        self.pending: list[Iterator[GameSpec]] = [
            (spec for spec in schedule.ruleset_games(r) if not done[spec.index >> 3] >> (spec.index & 7) & 1)
            for r in schedule.tournament.rulesets]
        self.next: list[GameSpec | None] = [None] * len(self.pending)
        self.exhausted = [False] * len(self.pending)

    def _peek(self, r: int) -> GameSpec | None:
        while not self.exhausted[r]:
            spec = self.next[r] if self.next[r] is not None else next(self.pending[r], None)
            if spec is None:
                self.exhausted[r] = True
            elif self.looks.is_closed(r, spec.seats, spec.deal):  # a settled pair's is not dealt (checked
                self.next[r] = None                              # again: it may close while waiting here)
                continue
            self.next[r] = spec
            break
        spec = self.next[r]
        cut = self.looks.cut[r]
        if spec is not None and cut is not None and spec.deal >= cut:
            self.next[r], self.exhausted[r] = None, True
            return None
        return spec

    def next_batch(self) -> list[GameSpec] | None:
        """The next batch that may be played now, or None."""
        for r in range(len(self.pending)):
            spec = self._peek(r)
            limit = self.looks.horizon(r, self.ahead)
            if spec is None or spec.deal >= limit:
                continue
            size = self.sizer.size_for(r)
            block = spec.deal // self.every if self.every else 0
            batch: list[GameSpec] = []
            while spec is not None and spec.deal < limit and len(batch) < size and \
                    (not self.every or spec.deal // self.every == block):
                batch.append(spec)
                self.next[r] = None
                spec = self._peek(r)
            return batch
        return None

    def finished(self) -> bool:
        return all(self._peek(r) is None for r in range(len(self.pending)))
