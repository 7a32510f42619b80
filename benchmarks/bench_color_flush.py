"""Color Flush benchmark: engine speed, game length, and the heuristic bot against random.

Prints:

1. engine speed with 4 random bots on one core: games/s and microseconds per
   decision (every decision, forced ones included; through `arena.match.play_game`,
   so observations and events are built as in a tournament), and the share of
   random-only games that reach `max_turns`, and their mean turns per game;
2. the heuristic bot against 3 random bots over duplicate-seated 4-player games:
   each deal seed is played 4 times with the heuristic in each seat, win rate with a
   95% Wilson interval (the chance level is 25%), the share of games that reach
   `max_turns`, and mean turns per game;
3. tables of heuristic bots only: mean turns per game, max_turns share, wins by seat.

Usage::

    .venv/bin/python benchmarks/bench_color_flush.py                  # the report's sizes
    .venv/bin/python benchmarks/bench_color_flush.py --speed-games 200 --duplicate-deals 50

Speeds are CPU seconds of this process (`time.process_time`), i.e. one core, so
they hold on a busy machine. Measured with the default sizes above (seed 2024,
Python 3.11, a shared 2-core container), the run printed:

    random-only through play_game, 4 players, 1000 games: 14.27 s CPU
      games/s 70.1; us/decision 64.7 (220.4 decisions/game)
      reach max_turns 4.50% (95% CI 3.38% .. 5.97%); mean turns/game 72.6
    engine alone (view + events + apply): games/s 117.9; us/decision 39.0
    heuristic vs 3 random, duplicate-seated, 500 deals x 4 seats = 2000 games
      heuristic win rate 98.85% (95% CI 98.28% .. 99.23%; chance 25%)
      reach max_turns 0.00%; mean turns/game 10.8 (34.3 decisions/game)
    heuristic-only tables, 500 games: reach max_turns 0.00%; mean turns/game 12.8
      (700 us/decision); wins by seat [137, 128, 140, 95]
"""

from __future__ import annotations

import argparse
import math
import random
import time

from arena.match import Entrant, play_game
from arena.rules.color_flush import ColorFlush
from arena.seeding import bot_seed, derive_seed
from arena_bots.color_flush_heuristic import ColorFlushHeuristicBot
from arena_bots.random_bot import RandomBot


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return centre - half, centre + half


def speed(games: int, seed: int, players: int) -> None:
    random_seat = Entrant(RandomBot)
    decisions = 0
    capped = 0
    turns = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for game in range(games):
        result = play_game(ColorFlush, [random_seat] * players, derive_seed(seed, "speed", game))
        decisions += len(result.record["decisions"])
        outcome = result.record["outcome"]
        capped += outcome["reason"] == "max_turns"
        turns += outcome["turns"]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"random-only through play_game, {players} players, {games} games: "
          f"{cpu:.2f} s CPU ({wall:.2f} s wall), one process")
    print(f"  games/s            {games / cpu:10.1f}")
    print(f"  us/decision        {cpu / decisions * 1e6:10.1f}   ({decisions / games:.1f} decisions/game)")
    low, high = wilson(capped, games)
    print(f"  reach max_turns    {capped / games:10.2%}   (95% CI {low:.2%} .. {high:.2%}; max_turns 200)")
    print(f"  mean turns/game    {turns / games:10.1f}")


def engine_speed(games: int, seed: int, players: int) -> None:
    """The rules engine alone: the loop play_game runs (view and events for every
    decision with a choice), minus the harness's copies of options and events."""
    options = ColorFlush.resolve_options({})
    decisions = 0
    cpu = time.process_time()
    for game in range(games):
        game_seed = derive_seed(seed, "speed", game)
        state = ColorFlush.new_game(players, options, random.Random(game_seed))
        rng = random.Random(game_seed + 1)
        while (seat := state.current_seat()) is not None:
            legal = state.legal_actions()
            if len(legal) > 1:
                state.view(seat)
                state.take_events(seat)
            state.apply(rng.choice(legal))
            decisions += 1
    cpu = time.process_time() - cpu
    print(f"engine alone (view + events + apply, random choices), {games} games: {cpu:.2f} s CPU")
    print(f"  games/s            {games / cpu:10.1f}")
    print(f"  us/decision        {cpu / decisions * 1e6:10.1f}")


def duplicate(deals: int, seed: int, players: int) -> None:
    heuristic, random_seat = Entrant(ColorFlushHeuristicBot), Entrant(RandomBot)
    wins = games = capped = turns = decisions = 0
    start = time.perf_counter()
    for deal in range(deals):
        deal_seed = derive_seed(seed, "duplicate", deal)
        for hero in range(players):
            seats = [heuristic if s == hero else random_seat for s in range(players)]
            # the random bots' seeds depend on the rotation too, so the four games
            # of a deal differ in more than the hero's seat
            bots = [bot_seed(deal_seed, s, game=hero) for s in range(players)]
            record = play_game(ColorFlush, seats, deal_seed, bot_seeds=bots).record
            outcome = record["outcome"]
            decisions += len(record["decisions"])
            games += 1
            wins += outcome["standing"][hero] == 1 and outcome["reason"] == "win"
            capped += outcome["reason"] == "max_turns"
            turns += outcome["turns"]
    elapsed = time.perf_counter() - start
    low, high = wilson(wins, games)
    print(f"heuristic vs 3 random, duplicate-seated: {deals} deals x {players} seats = {games} games "
          f"in {elapsed:.1f} s")
    print(f"  heuristic win rate {wins / games:10.2%}   (95% CI {low:.2%} .. {high:.2%}; chance 25%)")
    print(f"  reach max_turns    {capped / games:10.2%}")
    print(f"  mean turns/game    {turns / games:10.1f}   ({decisions / games:.1f} decisions/game)")


def heuristic_tables(games: int, seed: int, players: int) -> None:
    heuristic = Entrant(ColorFlushHeuristicBot)
    capped = turns = decisions = 0
    first = [0] * players
    cpu = time.process_time()
    for game in range(games):
        record = play_game(ColorFlush, [heuristic] * players, derive_seed(seed, "heuristic", game)).record
        outcome = record["outcome"]
        capped += outcome["reason"] == "max_turns"
        turns += outcome["turns"]
        decisions += len(record["decisions"])
        if outcome["reason"] == "win":
            first[outcome["standing"].index(1)] += 1
    cpu = time.process_time() - cpu
    print(f"heuristic-only tables, {players} players, {games} games: {cpu:.1f} s CPU "
          f"({cpu / decisions * 1e6:.0f} us/decision)")
    print(f"  reach max_turns    {capped / games:10.2%}")
    print(f"  mean turns/game    {turns / games:10.1f}   ({decisions / games:.1f} decisions/game)")
    print(f"  wins by seat       {first}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--speed-games", type=int, default=1000, help="random-only games to time")
    parser.add_argument("--duplicate-deals", type=int, default=500,
                        help="deals for the heuristic test (each played once per seat)")
    parser.add_argument("--heuristic-games", type=int, default=500,
                        help="games of heuristic bots only (for their game length)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    if args.speed_games:
        speed(args.speed_games, args.seed, args.players)
        engine_speed(args.speed_games, args.seed, args.players)
    if args.duplicate_deals:
        duplicate(args.duplicate_deals, args.seed, args.players)
    if args.heuristic_games:
        heuristic_tables(args.heuristic_games, args.seed, args.players)


if __name__ == "__main__":
    main()
