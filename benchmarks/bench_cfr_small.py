"""Exploitability against iterations of CFR+ (or CFR) on the small variants
(`arena.envs.small`), and the built-in bots' results against the solved policy.

    python benchmarks/bench_cfr_small.py flip-7 --iterations 100 --minutes 10 --deals 200

Prints the curve (iterations, `nash_conv` of the average policy, CPU and wall seconds of the
solver, the measurements of `nash_conv` left out) as a Markdown table, then each bot's mean
return against the policy over `--deals` deals (seeds 1..deals), both seat orders, with a
95% interval over deals: below 0 the policy is ahead. Needs open-spiel (`.[examples]`).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena.bots  # noqa: E402
from arena.envs.small import head_to_head, small_options, solve, table  # noqa: E402


def interval(values: list[float]) -> tuple[float, float]:
    """The mean of `values` and the half-width of its 95% interval (normal)."""
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return statistics.fmean(values), half


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset", help="a ruleset with a small variant (arena.envs.small.SMALL)")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=10.0, help="CPU budget of the solver")
    parser.add_argument("--cfr", action="store_true", help="vanilla CFR instead of CFR+")
    parser.add_argument("--deals", type=int, default=200, help="deals per bot (0: no head-to-head)")
    parser.add_argument("--bots", nargs="*", help="default: every installed bot that plays the ruleset "
                        "but the search bots (ismcts, openspiel-ismcts)")
    args = parser.parse_args(argv)
    options = small_options(args.ruleset)
    print(f"{args.ruleset}, 2 players, options {options}; {'CFR' if args.cfr else 'CFR+'}\n")
    print("| iterations | nash_conv | solver CPU s | wall s |\n|---|---|---|---|")
    wall = time.monotonic()
    _, average = solve(args.ruleset, args.iterations, plus=not args.cfr, seconds=args.minutes * 60,
                           report=lambda i, v, cpu: print(f"| {i} | {v:.4f} | {cpu:.1f} | "
                                                          f"{time.monotonic() - wall:.1f} |", flush=True))
    if args.deals <= 0:
        return
    policy = table(average)
    bots = args.bots or [name for name in arena.bots.names(args.ruleset) if "ismcts" not in name]
    print(f"\n| bot | its mean return against the policy ({args.deals} deals x 2 seat orders) | 95% interval |"
          "\n|---|---|---|")
    for bot in bots:
        mean, half = interval(head_to_head(args.ruleset, policy, bot, range(1, args.deals + 1), options))
        print(f"| {bot} | {mean:+.3f} | {mean - half:+.3f} to {mean + half:+.3f} |", flush=True)


if __name__ == "__main__":
    main()
