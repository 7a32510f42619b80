"""Flip Hue benchmarks: engine speed, random-table behaviour, and the heuristic's strength.

Run from the repository root::

    .venv/bin/python benchmarks/bench_flip_hue.py            # everything, default sizes
    .venv/bin/python benchmarks/bench_flip_hue.py --only speed --speed-games 300

Prints:

- speed: games/s and microseconds per decision with 4 random bots through
  `arena.match.play_game` (one process, one core; CPU time), and the bare engine
  (legal_actions + apply, no observations) for comparison;
- random: how often 4-player random-only games reach `max_turns`, and their mean turns;
- duplicate: the heuristic's win rate against 3 random bots over duplicate-seated
  4-player games (each deal seed played 4 times, the heuristic in each seat, the random
  bots keeping their seat's RNG seed), with a 95% Wilson interval and a 95% interval
  clustered by deal seed; mean turns of those tables and of all-heuristic tables.

Measured (Python 3.11, a 2-core container shared with other jobs, so throughput is
given in CPU time; engine version "1"):

    $ .venv/bin/python benchmarks/bench_flip_hue.py --only speed
    speed (play_game, 4 random bots, 200 games): 19.2 games/s CPU, 52.3 us/decision CPU
        over 199576 decisions (998 per game)
    speed (bare engine, uniform random actions, 200 games): 116.3 games/s CPU, 8.8 us/decision

    $ .venv/bin/python benchmarks/bench_flip_hue.py          # (default sizes)
    random-only 4-player tables (2000 games): max_turns reached in 1657/2000 = 82.8%
        (95% CI 81.1%-84.4%); mean turns 273.6
    heuristic vs 3 random, duplicate-seated 4-player (500 deal seeds x 4 seats = 2000
        games, 85 s CPU): wins 1927/2000 = 96.4%; 95% Wilson 95.4%-97.1%; 95%
        seed-clustered 95.5%-97.2%; max_turns 12; mean turns 62.4
    all-heuristic 4-player tables (200 games): mean turns 44.1

    $ .venv/bin/python benchmarks/bench_flip_hue.py --only random --random-games 500 \
          --random-players 2,3,5,6
    max_turns reached: 2 players 98.2% (mean turns 296.5), 3 players 87.8% (278.8),
        5 players 83.6% (275.6), 6 players 81.4% (270.5)

In the harness, most of the time per decision goes to building observations: the
options (with the 63-pair deck) are deep-copied into every observation.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from arena.match import Entrant, play_game
from arena.rules.flip_hue import FlipHue
from arena.seeding import derive_seed
from arena_bots.flip_hue_heuristic import FlipHueHeuristicBot
from arena_bots.random_bot import RandomBot

BASE_SEED = 20240501


def deal_seed(index: int, stream: str) -> int:
    return derive_seed(BASE_SEED, "bench-flip-hue", stream, index)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


def clustered(per_cluster: list[tuple[int, int]], z: float = 1.96) -> tuple[float, float, float]:
    """Ratio estimate and 95% interval with a cluster-robust standard error
    (clusters = deal seeds; each holds (successes, trials))."""
    total_s = sum(s for s, _ in per_cluster)
    total_n = sum(n for _, n in per_cluster)
    p = total_s / total_n
    k = len(per_cluster)
    if k < 2:
        return p, 0.0, 1.0
    var = sum((s - p * n) ** 2 for s, n in per_cluster) * k / (k - 1) / (total_n ** 2)
    half = z * math.sqrt(var)
    return p, max(0.0, p - half), min(1.0, p + half)


def bench_speed(games: int) -> None:
    entrants = [Entrant(RandomBot)] * 4
    decisions = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for index in range(games):
        record = play_game(FlipHue, entrants, deal_seed(index, "speed")).record
        decisions += len(record["decisions"])
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"speed (play_game, 4 random bots, {games} games): {games / cpu:.1f} games/s CPU "
          f"({games / wall:.1f} wall), {cpu / decisions * 1e6:.1f} us/decision CPU over {decisions} "
          f"decisions ({decisions / games:.0f} per game)")
    options = FlipHue.resolve_options({})
    decisions = 0
    cpu0 = time.process_time()
    for index in range(games):
        state = FlipHue.new_game(4, options, random.Random(deal_seed(index, "speed")))
        rng = random.Random(index)
        while state.current_seat() is not None:
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    cpu = time.process_time() - cpu0
    print(f"speed (bare engine, uniform random actions, {games} games): {games / cpu:.1f} games/s CPU, "
          f"{cpu / decisions * 1e6:.1f} us/decision")


def bench_random(games: int, players: int = 4) -> None:
    entrants = [Entrant(RandomBot)] * players
    stopped = 0
    turns = []
    for index in range(games):
        outcome = play_game(FlipHue, entrants, deal_seed(index, f"random-{players}")).record["outcome"]
        stopped += outcome["reason"] == "max_turns"
        turns.append(outcome["turns"])
    low, high = wilson(stopped, games)
    print(f"random-only {players}-player tables ({games} games): max_turns reached in {stopped}/{games} = "
          f"{stopped / games:.1%} (95% CI {low:.1%}-{high:.1%}); mean turns {statistics.mean(turns):.1f}")


def bench_duplicate(seeds: int, heuristic_tables: int) -> None:
    per_seed: list[tuple[int, int]] = []
    wins = games = stopped = 0
    turns = []
    cpu0 = time.process_time()
    for index in range(seeds):
        seed = deal_seed(index, "duplicate")
        seed_wins = 0
        for seat in range(4):
            entrants = [Entrant(RandomBot)] * 4
            entrants[seat] = Entrant(FlipHueHeuristicBot)
            outcome = play_game(FlipHue, entrants, seed).record["outcome"]
            won = outcome["reason"] == "win" and outcome["standing"][seat] == 1
            seed_wins += won
            stopped += outcome["reason"] == "max_turns"
            turns.append(outcome["turns"])
            games += 1
        wins += seed_wins
        per_seed.append((seed_wins, 4))
    cpu = time.process_time() - cpu0
    low, high = wilson(wins, games)
    p, clow, chigh = clustered(per_seed)
    print(f"heuristic vs 3 random, duplicate-seated 4-player ({seeds} deal seeds x 4 seats = {games} games, "
          f"{cpu:.0f} s CPU): wins {wins}/{games} = {p:.1%}; 95% Wilson {low:.1%}-{high:.1%}; "
          f"95% seed-clustered {clow:.1%}-{chigh:.1%}; max_turns {stopped}; "
          f"mean turns {statistics.mean(turns):.1f}")
    turns = []
    for index in range(heuristic_tables):
        outcome = play_game(FlipHue, [Entrant(FlipHueHeuristicBot)] * 4,
                            deal_seed(index, "heuristic")).record["outcome"]
        turns.append(outcome["turns"])
    if turns:
        print(f"all-heuristic 4-player tables ({heuristic_tables} games): mean turns {statistics.mean(turns):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("speed", "random", "duplicate"), help="run one part")
    parser.add_argument("--speed-games", type=int, default=200)
    parser.add_argument("--random-games", type=int, default=2000)
    parser.add_argument("--random-players", default="4",
                        help="comma-separated table sizes for the random-only part, e.g. 2,3,4,5,6")
    parser.add_argument("--duplicate-seeds", type=int, default=500, help="deal seeds (x4 games each)")
    parser.add_argument("--heuristic-tables", type=int, default=200)
    args = parser.parse_args()
    if args.only in (None, "speed"):
        bench_speed(args.speed_games)
    if args.only in (None, "random"):
        for players in (int(p) for p in args.random_players.split(",")):
            bench_random(args.random_games, players)
    if args.only in (None, "duplicate"):
        bench_duplicate(args.duplicate_seeds, args.heuristic_tables)


if __name__ == "__main__":
    main()
