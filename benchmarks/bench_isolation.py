"""Benchmark: the cost of process isolation per decision, and games/s inline vs process.

    .venv/bin/python benchmarks/bench_isolation.py [--decisions 20000] [--games 400] [--ruleset flip-7]

Prints: microseconds per act() round trip for an in-process and a subprocess host
(same bot, same observation), the difference (the added cost of isolation), and
games/s with 4 random bots in both modes, with 1 and 2 worker processes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time

from arena.match import Entrant, FaultPolicy, play_game
from arena.plugins import load_registry
from arena.seats import InlineHost, Limits, ProcessHost
from arena_bots.random_bot import RandomBot


def sample_observation(ruleset, players=4, seed=3, moves=6):
    state = ruleset.new_game(players, ruleset.resolve_options(), random.Random(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_seat()
    return {"ruleset": ruleset.id, "version": ruleset.version, "options": ruleset.resolve_options(),
            "seat": seat, "players": players, "view": state.view(seat), "events": [],
            "legal_actions": state.legal_actions()}


def time_acts(host, observation, decisions):
    host.start_game(1, {}, {"ruleset": observation["ruleset"], "version": "1", "options": {}, "seat": 0,
                           "players": 4, "bots": []})
    for _ in range(200):  # warm up
        host.act(observation, 5.0)
    started = time.perf_counter()
    for _ in range(decisions):
        host.act(observation, 5.0)
    elapsed = time.perf_counter() - started
    host.end_game({"standing": [1], "scores": [0], "reason": "bench"})
    return elapsed / decisions * 1e6


def play_many(args):
    ruleset_id, mode, seeds = args
    ruleset = load_registry().ruleset(ruleset_id).cls
    hosts = ([ProcessHost.for_bot("random", Limits()) for _ in range(4)] if mode == "process"
             else [InlineHost(RandomBot) for _ in range(4)])
    decisions = 0
    try:
        for seed in seeds:
            record = play_game(ruleset, [Entrant(RandomBot)] * 4, deal_seed=seed, hosts=hosts,
                               policy=FaultPolicy(on_fault="random", time_per_decision=1.0, time_bank=10.0)).record
            decisions += len(record["decisions"])
    finally:
        for host in hosts:
            host.close()
    return decisions


def games_per_second(ruleset_id, mode, games, workers):
    seeds = list(range(games))
    chunks = [(ruleset_id, mode, seeds[i::workers]) for i in range(workers)]
    started = time.perf_counter()
    if workers == 1:
        decisions = play_many(chunks[0])
    else:
        with multiprocessing.Pool(workers) as pool:
            decisions = sum(pool.map(play_many, chunks))
    elapsed = time.perf_counter() - started
    return games / elapsed, decisions / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20000)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--ruleset", default="flip-7")
    args = parser.parse_args()
    ruleset = load_registry().ruleset(args.ruleset).cls
    observation = sample_observation(ruleset)

    inline = time_acts(InlineHost(RandomBot), observation, args.decisions)
    process_host = ProcessHost.for_bot("random", Limits())
    try:
        process = time_acts(process_host, observation, args.decisions)
    finally:
        process_host.close()
    print(f"{args.ruleset}: act() round trip, {args.decisions} decisions")
    print(f"  inline   {inline:8.1f} us/decision")
    print(f"  process  {process:8.1f} us/decision")
    print(f"  added    {process - inline:8.1f} us/decision (the cost of isolation)")
    for workers in (1, 2):
        for mode in ("inline", "process"):
            rate, per_game = games_per_second(args.ruleset, mode, args.games, workers)
            print(f"  {mode:8s} workers={workers}: {rate:8.1f} games/s ({per_game:.0f} decisions/game)")


if __name__ == "__main__":
    main()
