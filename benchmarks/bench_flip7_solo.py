"""Flip 7 solo challenge: mean rounds to reach the target, with a 95% interval.

Plays N solo games (1 player, `target_score` 200 by default) for each policy through
`arena.match.play_game` (the real observation path), deal seeds seed .. seed+N-1 (the same
deals for every policy), spread over `--processes` processes, and prints per policy the mean
rounds, its 95% confidence interval (mean +- 1.96 sd / sqrt(N)), the sd, and the time taken.
Also the paired difference against the first policy (same deals) with its 95% interval.

Policies: "expectimax" (flip7-expectimax as it comes: depth 2, the fresh-deck optimum's
values), "expectimax-D" (depth D), either with ":histogram" or ":optimum" for its `values`
parameter (e.g. "expectimax:histogram", the bot before the fresh-deck optimum), and
"threshold-N" (flip7-threshold at threshold N).

Measured (2 processes on a shared, heavily loaded 2-core machine, so the times are long):
    expectimax            mean 10.2407 rounds, 95% CI [10.2253, 10.2562], sd 2.488  (100,000 games)
    expectimax:histogram  mean 10.2747 rounds, 95% CI [10.2592, 10.2902], sd 2.498  (100,000 games)
    expectimax:histogram - expectimax (paired): +0.0340 rounds, 95% CI [+0.0272, +0.0407]
  and, in an earlier session with the histogram bot as "expectimax":
    threshold-23  mean 10.6540 rounds, 95% CI [10.6382, 10.6699], sd 2.562  (100,000 games)
    threshold-23 - expectimax:histogram (paired): +0.3794 rounds, 95% CI [+0.3685, +0.3902]

Usage:
    .venv/bin/python benchmarks/bench_flip7_solo.py                       # 100,000 games, 2 processes
    .venv/bin/python benchmarks/bench_flip7_solo.py --games 2000 --policies expectimax threshold-23
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time

from arena.match import Entrant, play_game
from arena.rules.flip_7 import Flip7
from arena_bots.flip7_expectimax import Flip7ExpectimaxBot
from arena_bots.flip7_threshold import Flip7ThresholdBot


def entrant(policy: str) -> Entrant:
    if policy.startswith("expectimax"):
        name, _, values = policy.partition(":")
        params: dict[str, object] = {"values": values} if values else {}
        if name != "expectimax":
            params["depth"] = int(name.split("-", 1)[1])
        return Entrant(Flip7ExpectimaxBot, params)
    if policy.startswith("threshold-"):
        return Entrant(Flip7ThresholdBot, {"threshold": int(policy.split("-", 1)[1])})
    raise SystemExit(f"unknown policy {policy!r}")


def chunk(job: tuple[str, int, int, int]) -> tuple[str, int, list[int]]:
    policy, first_seed, count, target = job
    seat = [entrant(policy)]
    options = {"target_score": target}
    rounds = [play_game(Flip7, seat, seed, options=options).record["outcome"]["rounds"]
              for seed in range(first_seed, first_seed + count)]
    return policy, first_seed, rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--policies", nargs="+", default=["expectimax", "threshold-23"])
    args = parser.parse_args()
    jobs = [(policy, args.seed + first, min(args.chunk, args.games - first), args.target)
            for policy in args.policies for first in range(0, args.games, args.chunk)]
    results: dict[str, dict[int, list[int]]] = {p: {} for p in args.policies}
    started = {p: time.perf_counter() for p in args.policies}
    elapsed: dict[str, float] = {}
    done = {p: 0 for p in args.policies}
    with multiprocessing.Pool(args.processes) as pool:
        for policy, first, rounds in pool.imap(chunk, jobs):
            results[policy][first] = rounds
            done[policy] += len(rounds)
            if done[policy] == args.games:
                elapsed[policy] = time.perf_counter() - started[policy]
                nxt = args.policies.index(policy) + 1
                if nxt < len(args.policies):
                    started[args.policies[nxt]] = time.perf_counter()
    print(f"Flip 7 solo, target {args.target}, {args.games:,} games per policy (deal seeds "
          f"{args.seed}..{args.seed + args.games - 1}), {args.processes} processes")
    series = {p: [r for first in sorted(results[p]) for r in results[p][first]] for p in args.policies}
    for policy in args.policies:
        xs = series[policy]
        n = len(xs)
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n)
        print(f"  {policy:>14}: mean {mean:.4f} rounds, 95% CI [{mean - half:.4f}, {mean + half:.4f}], "
              f"sd {sd:.3f}, min {min(xs)}, max {max(xs)}  ({elapsed.get(policy, 0):.0f} s)")
    base = args.policies[0]
    for policy in args.policies[1:]:
        diffs = [a - b for a, b in zip(series[policy], series[base])]
        n = len(diffs)
        mean = sum(diffs) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n)
        print(f"  {policy} - {base} (paired, same deals): {mean:+.4f} rounds, "
              f"95% CI [{mean - half:+.4f}, {mean + half:+.4f}]")


if __name__ == "__main__":
    main()
