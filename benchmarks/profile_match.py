"""Profile the match loop: 4 random bots through `play_game`, one ruleset.

    .venv/bin/python benchmarks/profile_match.py uno-flip --games 100            # us/decision
    .venv/bin/python benchmarks/profile_match.py flip-7 --games 500 --profile    # + cProfile top 18

Prints CPU microseconds per decision (observation building included), then, with
--profile, the cProfile entries with the most time of their own. UNO Flip plays single
rounds (target_score 0) so that a game is short.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena_bots.random_bot import RandomBot


def play(ruleset, games: int, options) -> int:
    """Play `games` 4-random-bot games from seed 0; the number of decisions."""
    entrants = [Entrant(RandomBot)] * 4
    return sum(len(play_game(ruleset, entrants, seed, options=options).record["decisions"])
               for seed in range(games))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ruleset")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--profile", action="store_true", help="also print the cProfile top entries")
    parser.add_argument("--top", type=int, default=18)
    args = parser.parse_args()
    ruleset = load_registry().ruleset(args.ruleset).cls
    options = {"target_score": 0} if args.ruleset == "uno-flip" else None
    started = time.process_time()
    decisions = play(ruleset, args.games, options)
    cpu = time.process_time() - started
    print(f"{args.ruleset}: {1e6 * cpu / decisions:.2f} us/decision over {decisions} decisions ({args.games} games)")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(play, ruleset, args.games, options)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
