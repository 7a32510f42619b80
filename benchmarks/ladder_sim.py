"""The ladder's schedulers and refit against a synthetic outcome model (issue 39's goals).

50 bots on a Bradley-Terry scale (each adjacent gap drawn so the better one's paired
score is 0.55-0.60), finish orders drawn from the Plackett-Luce model (an exponential
race: P(A ahead of B) is the Bradley-Terry probability at any table), at 2- or 3-player
tables; no engine. Each game is drawn independently (a real deal's rotations are
correlated; the statistics treat a deal's rotations as one paired score either way).

The schedulers are driven through the interface the ladder's server uses
(`Scheduler.next(state, room)` with room = a lease's batch, 4): the information scheduler
and the first one (`RoundRobinFirst`) are the ladder's own classes, uniform random is the
`Uniform` class below. The state is `MemoryLadderState` (in memory: the database state
does the same reads but would make 20 seeds take hours); every game returns before the
next lease, so nothing is in flight. The published order and marks are the ladder's
`Ranking` refit (alpha 0.05, margin 0.05), the same for every scheduler.

Printed per scheduler and table size (20 seeds by default):
1. games until the published order's Kendall tau with the true order first reaches 0.9;
2. a new version (true strength drawn uniformly over the field's range, replacing a
   random bot's version, after a warm-up of the field), its published rank after its
   30th game: within 2 of its true rank in how many of the trials;
3. the longest run of games a pair of the current top ten went without meeting (the goal:
   at most 500);
4. runs in which some adjacent pair was ever marked separated in the wrong order.

    python benchmarks/ladder_sim.py --seeds 20 --trials 50 --games 4000 --warmup 2000 --players 2 3 --kinds information uniform
    python benchmarks/ladder_sim.py --seeds 3 --trials 10 --games 3000 --warmup 2000 --players 2 --kinds round-robin
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import time
from typing import Any, Sequence

import numpy as np

from arena.identity import GameIdentity
from arena.ladder.information import InformationScheduler, InformationSettings, MemoryLadderState
from arena.ladder.ranking import Ranking
from arena.ladder.scheduler import LadderGame, RoundRobinFirst
from arena.pairwise import SEPARATED
from arena.scheduling.base import FieldEntry, Play, StoredResult

LABEL = "sim"
ROOM = 4


class Uniform:
    """Uniform random scheduling: each deal at a table of distinct current versions drawn
    uniformly, all its rotations (the baseline of the issue's first goal)."""

    name = "uniform"

    def __init__(self, players: int, seed: int):
        self.players, self.seed = players, seed

    def look(self, state: Any) -> Sequence[Any]:
        return ()

    def next(self, state: Any, room: int) -> Any:
        rng = random.Random(f"{self.seed}:{state.result_count()}")
        entries = list(state.field())
        chosen: list[LadderGame] = []
        while len(chosen) < room:
            table = tuple(sorted(rng.sample(entries, self.players)))
            deal = state.result_count() * 1000 + len(chosen)
            chosen += [LadderGame(LABEL, table, deal, r) for r in range(min(self.players, room - len(chosen)))]
        return Play(tuple(chosen))


class World:
    """The true strengths and a ladder state fed by the Plackett-Luce model."""

    def __init__(self, seed: int, bots: int, players: int):
        self.rng = np.random.default_rng(seed)
        gaps = np.log(p := self.rng.uniform(0.55, 0.60, bots - 1)) - np.log(1 - p)
        strengths = np.concatenate([[0.0], -np.cumsum(gaps)])  # bot 0 best
        entry = self.rng.permutation(bots)  # the order bots entered the ladder
        self.players = players
        self.truth: dict[str, float] = {}
        self.name_of: dict[str, str] = {}
        self.state = MemoryLadderState()
        for number, k in enumerate(entry, 1):
            self.add(f"bot{k:02d}", f"{seed:04d}{k:02d}v1", float(strengths[k]), number)

    def add(self, name: str, version: str, strength: float, number: int) -> None:
        self.truth[version], self.name_of[version] = strength, name
        self.state.entries = [e for e in self.state.entries if e.name != name] + [FieldEntry(name, version, (LABEL,))]
        self.state.entry_numbers[version] = number

    def play(self, game: LadderGame) -> StoredResult:
        identity: GameIdentity = game.identity
        seats = [seat.version for seat in identity.seats]
        race = self.rng.exponential(1.0, len(seats)) / np.exp([self.truth[v] for v in seats])
        places = np.argsort(np.argsort(race))
        result = StoredResult(identity, tuple(int(p) for p in places), tuple(float(-p) for p in places),
                              (0,) * len(seats))
        self.state.store(result)
        return result

    def true_order(self) -> list[str]:
        return sorted((e.version for e in self.state.entries), key=lambda v: -self.truth[v])


def kendall_tau(order: Sequence[str], truth: dict[str, float]) -> float:
    s = np.array([truth[v] for v in order])
    diff = np.sign(s[:, None] - s[None, :])  # +1 where the earlier-listed one is truly better
    upper = np.triu(diff, 1)
    n = len(order)
    return float(upper.sum() / (n * (n - 1) / 2))


class Watch:
    """The measurements of one run: tau, top-ten waits, wrong separations."""

    def __init__(self) -> None:
        self.met: dict[tuple[str, str], int] = {}
        self.top_since: dict[tuple[str, str], int] = {}
        self.longest_wait = 0
        self.wrong = 0
        self.separated = 0  # adjacent pairs marked separated at the last check
        self.tau_games: int | None = None

    def game(self, result: StoredResult, t: int) -> None:
        seats = sorted(seat.version for seat in result.identity.seats)
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                self.met[(a, b)] = t

    def check(self, world: World, ranking: Ranking, t: int) -> None:
        published = ranking.published(world.state.entries, world.state.entry_numbers)
        if self.tau_games is None and kendall_tau(published.order, world.truth) >= 0.9:
            self.tau_games = t
        top = sorted(published.order[:10])
        pairs = {(a, b) for i, a in enumerate(top) for b in top[i + 1:]}
        self.top_since = {p: self.top_since.get(p, t) for p in sorted(pairs)}
        for p, since in self.top_since.items():
            self.longest_wait = max(self.longest_wait, t - max(since, self.met.get(p, since)))
        self.separated = published.marks.count(SEPARATED)
        for upper, lower, mark in zip(published.order, published.order[1:], published.marks):
            if mark == SEPARATED and world.truth[upper] < world.truth[lower]:
                self.wrong += 1


REFIT_EVERY = 50
SEED_GAMES = 30


def make_scheduler(kind: str, players: int, seed: int) -> tuple[Any, Ranking]:
    ranking = Ranking(LABEL, refit_every=REFIT_EVERY, seed_games=SEED_GAMES)
    if kind == "information":
        return InformationScheduler([(LABEL, players)], {LABEL: ranking}, InformationSettings(seed_games=SEED_GAMES)), ranking
    if kind == "uniform":
        return Uniform(players, seed), ranking
    return RoundRobinFirst([(LABEL, players)], 20), ranking


def run(world: World, scheduler: Any, ranking: Ranking, games: int, watch: Watch, check_every: int = 10) -> None:
    t = world.state.result_count()
    end = t + games
    while t < end:
        decision = scheduler.next(world.state, ROOM)
        if not isinstance(decision, Play):
            break
        for game in decision.games:
            t += 1
            watch.game(world.play(game), t)
            if t % check_every == 0:
                ranking.catch_up(world.state)
                watch.check(world, ranking, t)


def newcomer_trials(kind: str, seed: int, players: int, warmup: int, trials: int) -> int:
    """Trials (of `trials`) in which a new version's published rank after its 30th game
    was within 2 of its true rank."""
    world = World(seed, 50, players)
    scheduler, ranking = make_scheduler("information", players, seed)
    run(world, scheduler, ranking, warmup, Watch(), check_every=warmup)
    hits = 0
    for trial in range(trials):
        w = copy.deepcopy(world)
        w.rng = np.random.default_rng([seed, trial])
        s, r = make_scheduler(kind, players, seed * 1000 + trial)
        if kind == "information":
            s, r = copy.deepcopy(scheduler), None
            r = s.rankings[LABEL]
        lo, hi = min(w.truth.values()), max(w.truth.values())
        old = w.state.entries[int(w.rng.integers(len(w.state.entries)))]
        new = f"{old.version}-new{trial}"
        w.add(old.name, new, float(w.rng.uniform(lo, hi)), max(w.state.entry_numbers.values()) + 1)
        played = 0
        while played < 30:
            decision = s.next(w.state, 1)
            if not isinstance(decision, Play):
                break
            played += new in [seat.version for seat in w.play(decision.games[0]).identity.seats]
        r.catch_up(w.state)
        order = list(r.published(w.state.entries, w.state.entry_numbers).order)
        hits += abs(order.index(new) - w.true_order().index(new)) <= 2
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--games", type=int, default=3000, help="games per run")
    parser.add_argument("--trials", type=int, default=50, help="new-version trials per table size")
    parser.add_argument("--warmup", type=int, default=3000)
    parser.add_argument("--kinds", nargs="+", default=["information", "uniform", "round-robin"])
    parser.add_argument("--refit-every", type=int, default=REFIT_EVERY)
    parser.add_argument("--seed-games", type=int, default=SEED_GAMES)
    args = parser.parse_args()
    globals()["REFIT_EVERY"] = args.refit_every
    globals()["SEED_GAMES"] = args.seed_games
    for players in args.players:
        for kind in args.kinds:
            started = time.perf_counter()
            taus, waits, wrong, separated = [], [], 0, []
            for seed in range(1, args.seeds + 1):
                world = World(seed, 50, players)
                scheduler, ranking = make_scheduler(kind, players, seed)
                watch = Watch()
                run(world, scheduler, ranking, args.games, watch)
                taus.append(watch.tau_games if watch.tau_games is not None else math.inf)
                waits.append(watch.longest_wait)
                wrong += watch.wrong > 0
                separated.append(watch.separated)
            reached = [t for t in taus if math.isfinite(t)]
            mean = f"{np.mean(reached):.0f}" if len(reached) == len(taus) else f"not reached in {len(taus) - len(reached)}"
            hits = sum(newcomer_trials(kind, seed, players, args.warmup, 1) for seed in range(1, args.trials + 1))
            print(f"{players}p {kind:12s} games to tau 0.9: mean {mean} (per seed {taus}); "
                  f"new version within 2 after 30 games: {hits}/{args.trials}; "
                  f"longest top-ten wait: {max(waits)} games; runs with a wrong separation: {wrong}/{args.seeds} "
                  f"(adjacent pairs marked separated after {args.games} games: mean {np.mean(separated):.1f} of 49) "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
