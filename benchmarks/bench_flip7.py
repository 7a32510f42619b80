"""Flip 7 benchmark: engine speed, and the solo challenge for flip7-threshold.

Prints
- games/s and microseconds per decision for Flip 7 with 4 random bots, through
  `arena.match.play_game`, on one core (one process); also the bare engine's rate
  (random choices straight on the state, no observations) for comparison;
- the solo challenge (1 player, rounds to reach target_score) for `flip7-threshold` at
  thresholds 19, 21, ..., 31: mean rounds with a 95% confidence interval
  (mean +- 1.96 * sd / sqrt(N)), N games each, spread over `--processes` processes.

Usage:
    .venv/bin/python benchmarks/bench_flip7.py                  # full size (20,000 per threshold)
    .venv/bin/python benchmarks/bench_flip7.py --games 500 --solo-games 1000   # quick
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import time

from arena.match import Entrant, play_game
from arena.rules.flip_7 import Flip7
from arena_bots.flip7_threshold import Flip7ThresholdBot
from arena_bots.random_bot import RandomBot


def bench_random(games: int, players: int, seed: int) -> None:
    entrants = [Entrant(RandomBot)] * players
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += len(play_game(Flip7, entrants, seed + game).record["decisions"])
    elapsed = time.perf_counter() - start
    print(f"play_game, {players} random bots, {games} games on one core: "
          f"{games / elapsed:,.1f} games/s, {elapsed / decisions * 1e6:.1f} us/decision "
          f"({decisions / games:.1f} decisions/game)")

    options = Flip7.resolve_options()
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        chooser = random.Random(game)
        state = Flip7.new_game(players, options, random.Random(seed + game))
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[chooser.randrange(len(legal))])
            decisions += 1
    elapsed = time.perf_counter() - start
    print(f"bare engine, same games' shape: {games / elapsed:,.1f} games/s, "
          f"{elapsed / decisions * 1e6:.1f} us/decision")


def solo_chunk(job: tuple[int, int, int, int]) -> tuple[int, int, float, float]:
    threshold, first_seed, count, target = job
    entrant = [Entrant(Flip7ThresholdBot, {"threshold": threshold})]
    options = {"target_score": target}
    total = squares = 0.0
    for seed in range(first_seed, first_seed + count):
        rounds = play_game(Flip7, entrant, seed, options=options).record["outcome"]["rounds"]
        total += rounds
        squares += rounds * rounds
    return threshold, count, total, squares


def bench_solo(games: int, thresholds: list[int], processes: int, seed: int, target: int) -> None:
    chunk = max(1, min(1000, games // max(1, 4 * processes)))
    jobs = []
    for threshold in thresholds:
        for first in range(0, games, chunk):
            jobs.append((threshold, seed + first, min(chunk, games - first), target))
    sums = {t: [0, 0.0, 0.0] for t in thresholds}
    start = time.perf_counter()
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            results = list(pool.imap_unordered(solo_chunk, jobs))
    else:
        results = [solo_chunk(job) for job in jobs]
    elapsed = time.perf_counter() - start
    for threshold, count, total, squares in results:
        acc = sums[threshold]
        acc[0] += count
        acc[1] += total
        acc[2] += squares
    print(f"\nsolo challenge, flip7-threshold, rounds to reach {target} "
          f"({games:,} games per threshold, seeds {seed}..{seed + games - 1}, "
          f"{processes} processes, {elapsed:.0f} s):")
    print(f"{'threshold':>9}  {'mean rounds':>11}  {'95% interval':>17}  {'sd':>5}")
    for threshold in thresholds:
        n, total, squares = sums[threshold]
        mean = total / n
        sd = math.sqrt(max(0.0, (squares - n * mean * mean) / max(1, n - 1)))
        half = 1.96 * sd / math.sqrt(n)
        print(f"{threshold:>9}  {mean:>11.3f}  [{mean - half:6.3f}, {mean + half:6.3f}]  {sd:>5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="random-bot games for the speed test")
    parser.add_argument("--players", type=int, default=4, help="players in the speed test")
    parser.add_argument("--solo-games", type=int, default=20_000, help="solo games per threshold")
    parser.add_argument("--thresholds", default="19,21,23,25,27,29,31")
    parser.add_argument("--processes", type=int, default=2, help="processes for the solo sweep")
    parser.add_argument("--target", type=int, default=200, help="target_score of the solo challenge")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-solo", action="store_true")
    args = parser.parse_args()
    if not args.skip_speed:
        bench_random(args.games, args.players, args.seed)
    if not args.skip_solo:
        thresholds = [int(t) for t in args.thresholds.split(",")]
        bench_solo(args.solo_games, thresholds, args.processes, args.seed, args.target)


if __name__ == "__main__":
    main()
