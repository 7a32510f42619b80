"""Episode lengths under uniformly random play, and the share of games stopped by the turn
or round limit, per ruleset and player count: the default options and the learning preset
(`arena.envs.presets`, its 2-player preset where a ruleset has one). Prints a markdown table
(docs/rl.md has one).

    .venv/bin/python benchmarks/bench_episode_lengths.py --games 100

A step is one decision (what a PettingZoo step is). Games are played on the engine
directly (the same actions the environment offers), deal and choices seeded by game number.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.api import ruleset_class
from arena.envs.presets import learning_options

LIMIT_REASONS = ("max_turns", "max_rounds")   # as arena.envs.pettingzoo reports truncations


def random_games(ruleset: str, players: int, options: dict, games: int, seed: int) -> tuple[list[int], int]:
    """Steps of each game, and how many stopped at the limit."""
    cls = ruleset_class(ruleset)
    resolved = cls.resolve_options(options)
    lengths, capped = [], 0
    for number in range(games):
        choices = random.Random(seed * 1_000_003 + number)
        state = cls.new_game(players, resolved, random.Random(seed * 7_000_001 + number))
        steps = 0
        while state.current_seat() is not None:
            state.apply(choices.choice(state.legal_actions()))
            steps += 1
        lengths.append(steps)
        capped += state.outcome().get("reason") in LIMIT_REASONS
    return lengths, capped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per ruleset, player count and options")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--rulesets", nargs="+", default=["uno-flip", "flip-7", "color-flush", "flip-hue"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| ruleset | players | options | median steps | mean | 90th percentile | at the limit |")
    print("|---|---|---|---|---|---|---|")
    started = time.process_time()
    for ruleset in args.rulesets:
        for players in args.players:
            for label, options in (("default", {}), ("learning preset", learning_options(ruleset, players))):
                lengths, capped = random_games(ruleset, players, options, args.games, args.seed)
                tenth = statistics.quantiles(lengths, n=10)[-1]
                print(f"| {ruleset} | {players} | {label} | {statistics.median(lengths):.0f} | "
                      f"{statistics.fmean(lengths):.0f} | {tenth:.0f} | {capped / args.games:.0%} |", flush=True)
    print(f"\n{args.games} games each, {time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
