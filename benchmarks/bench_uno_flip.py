"""UNO Flip benchmark: engine speed, hand length, and uno-flip-heuristic vs random.

Prints
1. speed, 4 random bots, single round (target_score 0), through `arena.match.play_game`
   in one process (one core): games/s and microseconds per decision (every applied
   decision counts, forced ones included); and the bare engine (uniform random
   choices straight on the state, no observations) for comparison;
2. speed, 4 random bots, a game to 500 (the default options): games/s;
3. table rounds per hand (a hand = one round; table rounds = turns / players) for 2-6
   players, median and mean, for two players of the same engine:
   - `random`: uniform over the legal actions (exactly what RandomBot does), so it
     draws on purpose, keeps playable cards, forgets UNO half the time, challenges at
     random; many of its rounds run into `max_turns` (1000 turns), shown as "capped";
   - `random-legal`: plays a uniformly chosen playable card whenever it has one (calls
     UNO, names a random color), draws only when it cannot play, plays a playable drawn
     card, always accepts a Wild Draw: the usual "random legal player" of simulators.
   The independent simplified simulator reported medians of about 16/14/13/12/12.
4. uno-flip-heuristic against 3 random bots: N deals, each played 4 times (the
   heuristic in each seat, random bots in the others, same deal seed), 4-player single
   rounds; win = the heuristic went out first (a max_turns tie is not a win). Win rate
   with a 95% interval: Wilson on all games, and a deal-clustered normal interval
   (mean +- 1.96 sd/sqrt(deals) over the per-deal win fractions), which allows for the
   four games of a deal being correlated.

Usage:
    .venv/bin/python benchmarks/bench_uno_flip.py                 # full size
    .venv/bin/python benchmarks/bench_uno_flip.py --games 100 --full-games 10 \\
        --hand-games 200 --deals 50                               # quick
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import time

from arena.match import Entrant, play_game
from arena.rules.uno_flip import UnoFlip
from arena_bots.random_bot import RandomBot
from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot

SINGLE_ROUND = {"target_score": 0}


def pin_to_one_core() -> str:
    """Run this process on one CPU (Linux); return a note saying which."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    return "not pinned"


def bench_single_round(games: int, seed: int) -> None:
    entrants = [Entrant(RandomBot)] * 4
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += len(play_game(UnoFlip, entrants, seed + game, SINGLE_ROUND).record["decisions"])
    elapsed = time.perf_counter() - start
    print(f"play_game, 4 random bots, single round, {games} games: {games / elapsed:,.1f} games/s, "
          f"{elapsed / decisions * 1e6:.1f} us/decision ({decisions / games:,.0f} decisions/game)")

    options = UnoFlip.resolve_options(SINGLE_ROUND)
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        chooser = random.Random(game)
        state = UnoFlip.new_game(4, options, random.Random(seed + game))
        while state.current_seat() is not None:
            legal = state.legal_actions()
            state.apply(legal[chooser.randrange(len(legal))])
            decisions += 1
    elapsed = time.perf_counter() - start
    print(f"bare engine, same kind of games: {games / elapsed:,.1f} games/s, "
          f"{elapsed / decisions * 1e6:.1f} us/decision")


def bench_full_game(games: int, seed: int) -> None:
    entrants = [Entrant(RandomBot)] * 4
    decisions = rounds = 0
    reasons: dict[str, int] = {}
    start = time.perf_counter()
    for game in range(games):
        record = play_game(UnoFlip, entrants, seed + game).record
        decisions += len(record["decisions"])
        rounds += record["outcome"]["rounds"]
        reasons[record["outcome"]["reason"]] = reasons.get(record["outcome"]["reason"], 0) + 1
    elapsed = time.perf_counter() - start
    print(f"play_game, 4 random bots, game to 500, {games} games: {games / elapsed:,.2f} games/s "
          f"({rounds / games:.1f} rounds/game, {decisions / games:,.0f} decisions/game, "
          f"ended by {reasons})")


def random_legal(legal: list[str], rng: random.Random) -> str:
    """Play a random playable card (calling UNO), else accept / draw / keep."""
    cards: dict[str, list[str]] = {}
    for action in legal:
        if action.startswith("play"):
            parts = action.split(":")
            if parts[-1] == "uno" or action + ":uno" not in legal:
                cards.setdefault(parts[0] + parts[1] if parts[0] == "play" else parts[0], []).append(action)
    if cards:
        return rng.choice(cards[rng.choice(sorted(cards))])
    if "accept" in legal:
        return "accept"
    return rng.choice(legal)


def table_rounds(players: int, games: int, seed: int, policy: str) -> tuple[float, float, float]:
    options = UnoFlip.resolve_options(SINGLE_ROUND)
    per_hand = []
    capped = 0
    for game in range(games):
        chooser = random.Random(10_000 + game)
        state = UnoFlip.new_game(players, options, random.Random(seed + game))
        while state.current_seat() is not None:
            legal = state.legal_actions()
            if policy == "random":
                action = legal[chooser.randrange(len(legal))]
            else:
                action = random_legal(legal, chooser)
            state.apply(action)
        outcome = state.outcome()
        capped += outcome["reason"] == "max_turns"
        per_hand.append(outcome["round_turns"][-1] / players)
    return statistics.median(per_hand), statistics.fmean(per_hand), capped / games


def bench_table_rounds(games: int, seed: int) -> None:
    print(f"table rounds per hand (turns / players), {games} single rounds per table size:")
    print("  players | random: median  mean  capped | random-legal: median  mean | simulator median")
    reference = {2: 16, 3: 14, 4: 13, 5: 12, 6: 12}
    for players in range(2, 7):
        r_med, r_mean, r_cap = table_rounds(players, games, seed, "random")
        l_med, l_mean, _ = table_rounds(players, games, seed, "random-legal")
        print(f"  {players:7d} | {r_med:14.1f} {r_mean:5.1f} {r_cap:6.1%} | "
              f"{l_med:20.1f} {l_mean:5.1f} | {reference[players]:16d}")


def duplicate_chunk(job: tuple[int, int]) -> list[int]:
    """Wins of the heuristic per deal (0-4) for deals first .. first+count-1."""
    first, count = job
    wins = []
    for deal in range(first, first + count):
        won = 0
        for seat in range(4):
            entrants = [Entrant(RandomBot)] * 4
            entrants[seat] = Entrant(UnoFlipHeuristicBot)
            outcome = play_game(UnoFlip, entrants, deal, SINGLE_ROUND).record["outcome"]
            won += outcome["reason"] == "win" and outcome["standing"][seat] == 1
        wins.append(won)
    return wins


def bench_heuristic(deals: int, seed: int, processes: int) -> None:
    chunk = max(1, deals // (processes * 4))
    jobs = [(seed + start, min(chunk, deals - start)) for start in range(0, deals, chunk)]
    start = time.perf_counter()
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            results = pool.map(duplicate_chunk, jobs)
    else:
        results = [duplicate_chunk(job) for job in jobs]
    elapsed = time.perf_counter() - start
    per_deal = [w for chunk_wins in results for w in chunk_wins]
    games = 4 * len(per_deal)
    wins = sum(per_deal)
    p = wins / games
    z = 1.96
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    fractions = [w / 4 for w in per_deal]
    sd = statistics.stdev(fractions) if len(fractions) > 1 else 0.0
    half_c = z * sd / math.sqrt(len(fractions))
    print(f"uno-flip-heuristic vs 3 random bots, {len(per_deal)} deals x 4 seats = {games} "
          f"duplicate-seated 4-player single rounds ({elapsed:.0f} s, {processes} processes):")
    low_c, high_c = max(0.0, p - half_c), min(1.0, p + half_c)
    print(f"  win rate {p:.1%} ({wins}/{games}); 95% Wilson interval [{centre - half:.1%}, "
          f"{centre + half:.1%}]; deal-clustered 95% interval [{low_c:.1%}, {high_c:.1%}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="single-round speed games")
    parser.add_argument("--full-games", type=int, default=100, help="games to 500 for speed")
    parser.add_argument("--hand-games", type=int, default=2000, help="single rounds per table size")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals (x4 games)")
    parser.add_argument("--processes", type=int, default=1, help="processes for the win-rate part")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("speed", "full", "rounds", "heuristic"), nargs="*")
    args = parser.parse_args()
    parts = set(args.only or ("speed", "full", "rounds", "heuristic"))
    if parts & {"speed", "full", "rounds"}:
        print(pin_to_one_core() if args.processes == 1 or "heuristic" not in parts else "not pinned")
    if "speed" in parts:
        bench_single_round(args.games, args.seed)
    if "full" in parts:
        bench_full_game(args.full_games, args.seed)
    if "rounds" in parts:
        bench_table_rounds(args.hand_games, args.seed)
    if "heuristic" in parts:
        bench_heuristic(args.deals, args.seed, args.processes)


if __name__ == "__main__":
    main()
