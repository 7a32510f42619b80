"""The ladder's information-driven scheduler (issue 39), on the `arena.scheduling.base.Scheduler`
interface: each deal it hands out goes where it most reduces the uncertainty of the
published order (`arena.ladder.ranking`).

For each deal (all its rotations), in this order of precedence:

1. **Top ten**: a pair of the published top ten that has not met for `top_gap` (400) of
   the ruleset's games (and has no game in flight) meets now, in one game (one rotation
   of a new deal, the rotation turning with the deal), the longest-waiting first: every
   such pair meets at least once per 500 games as long as a due game is stored within
   100 games of being handed out. The cap does not apply to these games; at 2-player
   tables they take 45 games in 400 (11%), at 3-player tables about a third of that.
2. **Newcomers**: a current version with fewer than `seed_games` games (stored, in
   flight or chosen) plays its first games in series, the one with fewest first, one game
   at a time (one rotation of a new deal, turning with the deal), each against the
   opponents whose games tell most about it now: largest p (1 - p) (the Fisher
   information of one game on its strength, p from its own one-version fit
   `ranking.one_strength` against the published strengths), divided by 1 + their games
   together, so it moves along the field instead of replaying one opponent. (Whole deals
   here took 25-30% more games to reach the simulator's Kendall tau 0.9.)
3. **Open adjacent pairs**: adjacent pairs of the published order whose mark is not
   settled (not separated or shown equal) and that have fewer than `pair_cap` games, the
   one with fewest deals first; at 3-player tables the third seat is the neighbour whose
   own adjacent pair with the two has fewer deals.
4. Else pairs two apart under the cap (the order's next-nearest uncertainty), fewest
   deals first. Nothing left: WAIT.

Each step is one pass over the field (or the top ten), so a decision costs time linear
in the field. The decision reads only the state (stored results, games in flight, the
field and the versions' entry numbers), through the rankings' refits at boundaries fixed
by the stored results: the same state gives the same games, and nothing is random.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, cast

from arena.ladder.ranking import Evidence, Pair, Published, Ranking, one_strength, ordered, win_probability
from arena.ladder.scheduler import LadderGame, RoundRobinFirst
from arena.pairwise import SEPARATED, EQUAL
from arena.scheduling.base import WAIT, Decision, FieldEntry, LookRecord, MemoryState, Play, SchedulerState

SETTLED_MARKS = (SEPARATED, EQUAL)
Table = tuple[str, ...]


class LadderState(SchedulerState, Protocol):
    """What the information scheduler reads beyond `SchedulerState`."""

    def entered(self) -> Mapping[str, int]:
        """Version (content hash) -> its entry number: 1 for the first version to pass the gate, ..."""

    def flying_tables(self) -> Sequence[tuple[str, Table, Any]]:
        """The games in flight as (ruleset label, versions by seat, deal)."""


@dataclass
class MemoryLadderState(MemoryState):
    """A `LadderState` in memory (tests and benchmarks/ladder_sim.py)."""

    entry_numbers: dict[str, int] = field(default_factory=dict)
    flying_games: list[tuple[str, Table, Any]] = field(default_factory=list)

    def entered(self) -> Mapping[str, int]:
        return self.entry_numbers

    def flying_tables(self) -> Sequence[tuple[str, Table, Any]]:
        return list(self.flying_games)


@dataclass(frozen=True)
class InformationSettings:
    seed_games: int = 30
    pair_cap: int = 2000
    top: int = 10
    top_gap: int = 400


@dataclass(frozen=True)
class _Prepared:
    """What a refit fixes until the next (the evidence changes only at refits): the versions
    that may still be newcomers, and the open adjacent pairs with their stored deals and games."""

    published: Published
    fresh: list[int]  # positions in the order of versions with fewer than seed_games stored games
    open_pairs: list[tuple[int, Pair, int, int]]  # (position, pair, deals, games) of unsettled adjacent pairs

    @classmethod
    def of(cls, evidence: Evidence, published: Published, seed_games: int) -> "_Prepared":
        order = published.order
        fresh = [k for k, v in enumerate(order) if evidence.games.get(v, 0) < seed_games]
        open_pairs = [(k, ordered(a, b), evidence.deal_count(a, b), evidence.pair_games(a, b))
                      for k, (a, b, mark) in enumerate(zip(order, order[1:], published.marks))
                      if mark not in SETTLED_MARKS]
        return cls(published, fresh, open_pairs)


class _Round:
    """One ruleset's counts for a decision: stored (refitted and tail), in flight and chosen."""

    def __init__(self, ranking: Ranking, published: Published, flying: Sequence[tuple[Table, Any]],
                 prepared: "_Prepared"):
        self.evidence: Evidence = ranking.evidence
        self.published = published
        self.prepared = prepared
        self.total = ranking.evidence.count + len(ranking.tail)
        self.extra_games: dict[str, int] = {}
        self.extra_pairs: dict[Pair, int] = {}
        self.extra_deals: dict[Pair, set[Any]] = {}
        self.tail_met: dict[Pair, int] = {}
        self.busy: set[Pair] = set()
        self.next_deal: dict[Table, int] = {}
        self.tail_versus: dict[str, dict[str, list[int]]] = {}
        for k, (seats, standing, deal) in enumerate(ranking.tail, ranking.evidence.count + 1):
            self.add(seats, deal)
            for pair in self._pairs(seats):
                self.tail_met[pair] = k
            self._tail_versus(seats, standing)
        for seats, deal in flying:
            self.add(seats, deal, busy=True)

    @staticmethod
    def _pairs(seats: Sequence[str]) -> list[Pair]:
        return [ordered(a, b) for i, a in enumerate(seats) for b in seats[i + 1:]]

    def _tail_versus(self, seats: Sequence[str], standing: Sequence[int]) -> None:
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if i != j:
                    cell = self.tail_versus.setdefault(a, {}).setdefault(b, [0, 0])
                    cell[0] += 2 if standing[i] < standing[j] else 1 if standing[i] == standing[j] else 0
                    cell[1] += 1

    def add(self, seats: Sequence[str], deal: Any, busy: bool = False) -> None:
        """Count a game not in the refit's evidence (tail, in flight, or chosen now)."""
        table = tuple(sorted(seats))
        if isinstance(deal, int):
            self.next_deal[table] = max(self.next_deal.get(table, 0), deal + 1)
        for v in seats:
            self.extra_games[v] = self.extra_games.get(v, 0) + 1
        for pair in self._pairs(seats):
            self.extra_pairs[pair] = self.extra_pairs.get(pair, 0) + 1
            self.extra_deals.setdefault(pair, set()).add((table, deal))
            if busy:
                self.busy.add(pair)

    def games(self, v: str) -> int:
        return self.evidence.games.get(v, 0) + self.extra_games.get(v, 0)

    def pair_games(self, a: str, b: str) -> int:
        return self.evidence.pair_games(a, b) + self.extra_pairs.get(ordered(a, b), 0)

    def deals(self, a: str, b: str) -> int:
        return self.evidence.deal_count(a, b) + len(self.extra_deals.get(ordered(a, b), ()))

    def since_met(self, a: str, b: str) -> int:
        pair = ordered(a, b)
        return self.total - self.tail_met.get(pair, self.evidence.last_met.get(pair, 0))

    def deal_index(self, table: Table) -> int:
        return max(self.evidence.table_deals.get(table, 0), self.next_deal.get(table, 0))

    def versus(self, v: str) -> Evidence:
        """An `Evidence` holding `v`'s games against everyone, refitted and tail."""
        merged: dict[str, list[int]] = {b: list(c) for b, c in self.evidence.versus.get(v, {}).items()}
        for b, (halves, games) in self.tail_versus.get(v, {}).items():
            cell = merged.setdefault(b, [0, 0])
            cell[0] += halves
            cell[1] += games
        return Evidence(versus={v: merged})


class InformationScheduler:
    """Deals where they most reduce the published order's uncertainty (module docstring)."""

    name = "ladder-information"

    def __init__(self, rulesets: Sequence[tuple[str, int]], rankings: Mapping[str, Ranking],
                 settings: InformationSettings = InformationSettings()):
        self.rulesets = list(rulesets)
        self.rankings = rankings
        self.settings = settings
        self._prepared: dict[str, _Prepared] = {}

    def _prepare(self, label: str, published: Published) -> _Prepared:
        cached = self._prepared.get(label)
        if cached is None or cached.published is not published:
            cached = self._prepared[label] = _Prepared.of(self.rankings[label].evidence, published,
                                                          self.settings.seed_games)
        return cached

    def look(self, state: SchedulerState) -> Sequence[LookRecord]:
        return ()

    def next(self, state: SchedulerState, room: int) -> Decision[Any]:
        """Up to `room` games (whole deals but for top-ten meetings and newcomers' games); WAIT if
        nothing is worth playing. `state` must be a `LadderState`."""
        ladder = cast(LadderState, state)
        entries = list(state.field())
        by_version = {e.version: e for e in entries}
        entered = ladder.entered()
        flying = list(ladder.flying_tables())
        rounds = {}
        for label, _ in self.rulesets:
            ranking = self.rankings[label]
            ranking.catch_up(state)
            published = ranking.published(entries, entered)
            rounds[label] = _Round(ranking, published, [(seats, deal) for lab, seats, deal in flying if lab == label],
                                   self._prepare(label, published))
        chosen: list[LadderGame] = []
        while len(chosen) < room:
            game = self._one_deal(rounds, by_version, room - len(chosen))
            if not game:
                break
            chosen.extend(game)
        return Play(tuple(chosen)) if chosen else WAIT

    def _one_deal(self, rounds: Mapping[str, _Round], by_version: Mapping[str, FieldEntry], room: int
                  ) -> list[LadderGame]:
        """The rotations (at most `room`) of the next deal: of the ruleset with fewest games that has one."""
        def played(k: int) -> tuple[int, int]:  # games stored, in flight and chosen; then the config's order
            label, players = self.rulesets[k]
            return rounds[label].total + sum(rounds[label].extra_games.values()) // players, k

        for k in sorted(range(len(self.rulesets)), key=played):
            label, players = self.rulesets[k]
            counts = rounds[label]
            chosen = self.choose(counts, players)
            if chosen is None:
                continue
            table, whole = chosen
            entries = tuple(sorted((by_version[v] for v in table), key=lambda e: (e.name, e.version)))
            deal = counts.deal_index(tuple(sorted(table)))
            rotations = range(min(players, room)) if whole else [deal % players]
            games = [LadderGame(label, entries, deal, rotation) for rotation in rotations]
            for _ in games:
                counts.add(table, deal, busy=True)
            return games
        return []

    def choose(self, counts: _Round, players: int) -> tuple[Table, bool] | None:
        """The table of the next deal (versions) and whether to hand out all its rotations
        (a top-ten meeting and a newcomer's game are one game each), or None: nothing worth playing."""
        if len(counts.published.order) < players:
            return None
        meeting = self._top_ten(counts, players)
        if meeting is not None:
            return meeting, False
        newcomer = self._newcomer(counts, players)
        if newcomer is not None:
            return newcomer, False
        for step in (self._adjacent, self._two_apart):
            table = step(counts, players)
            if table is not None:
                return table, True
        return None

    def _top_ten(self, counts: _Round, players: int) -> Table | None:
        top = counts.published.order[:self.settings.top]
        waits = [(counts.since_met(a, b), -i, -j) for i, a in enumerate(top) for j, b in enumerate(top)
                 if i < j and ordered(a, b) not in counts.busy]
        if not waits:
            return None
        gap, i, j = max(waits)
        if gap < self.settings.top_gap:
            return None
        pair = (top[-i], top[-j])
        if players == 2:
            return pair
        others = [(counts.since_met(pair[0], c) + counts.since_met(pair[1], c), -k) for k, c in enumerate(top)
                  if c not in pair]
        return self._fill(pair, [top[-k] for _, k in sorted(others, reverse=True)], players)

    def _newcomer(self, counts: _Round, players: int) -> Table | None:
        order = counts.published.order
        fresh = [(counts.games(order[k]), k) for k in counts.prepared.fresh
                 if counts.games(order[k]) < self.settings.seed_games]
        if not fresh:
            return None
        new = order[min(fresh)[1]]
        x = one_strength(new, counts.versus(new), counts.published.strength)
        values = []
        for k, o in enumerate(order):
            if o != new:
                p = win_probability(x, counts.published.strength[o])
                values.append((-p * (1 - p) / (1 + counts.pair_games(new, o)), k))
        values.sort()
        return tuple([new] + [order[k] for _, k in values[:players - 1]])

    def _open(self, counts: _Round, k: int, distance: int = 1) -> bool:
        order, cap = counts.published.order, self.settings.pair_cap
        if not 0 <= k < len(order) - distance:
            return False
        if distance == 1 and counts.published.marks[k] in SETTLED_MARKS:
            return False
        return counts.pair_games(order[k], order[k + distance]) < cap

    def _adjacent(self, counts: _Round, players: int) -> Table | None:
        order = counts.published.order
        cap, extra_pairs, extra_deals = self.settings.pair_cap, counts.extra_pairs, counts.extra_deals
        found = [(deals + len(extra_deals.get(pair, ())), k) for k, pair, deals, games in counts.prepared.open_pairs
                 if games + extra_pairs.get(pair, 0) < cap]
        if not found:
            return None
        k = min(found)[1]
        pair = (order[k], order[k + 1])
        sides = [(not self._open(counts, k - 1), counts.deals(order[k - 1], order[k]), k - 1) if k > 0 else None,
                 (not self._open(counts, k + 1), counts.deals(order[k + 1], order[k + 2]), k + 2)
                 if k + 2 < len(order) else None]
        thirds = [order[m] for *_, m in sorted(s for s in sides if s is not None)]
        return self._fill(pair, thirds, players)

    def _two_apart(self, counts: _Round, players: int) -> Table | None:
        order = counts.published.order
        found = [(counts.deals(order[k], order[k + 2]), k) for k in range(len(order) - 2)
                 if self._open(counts, k, 2)]
        if not found:
            return None
        k = min(found)[1]
        return self._fill((order[k], order[k + 2]), [order[k + 1]], players)

    @staticmethod
    def _fill(pair: tuple[str, str], others: Sequence[str], players: int) -> Table | None:
        table = list(pair) + [c for c in others if c not in pair][:players - 2]
        return tuple(table) if len(table) == players else None


def make_scheduler(config: Any, rankings: Mapping[str, Ranking]) -> Any:
    """The scheduler a ladder's config (`arena.ladder.config.LadderConfig`) names."""
    rulesets = [(r.name, r.players) for r in config.rulesets]
    ladder = config.ladder
    if ladder.scheduler == "round-robin":
        return RoundRobinFirst(rulesets, ladder.deals_per_table)
    return InformationScheduler(rulesets, rankings, InformationSettings(seed_games=ladder.seed_games,
                                                                        pair_cap=ladder.pair_cap))
