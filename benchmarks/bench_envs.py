"""Environment steps per second: our PettingZoo env against RLCard's UNO `env.step`, in one run.

    .venv/bin/pip install rlcard          # the peer (not in any extra)
    .venv/bin/python benchmarks/bench_envs.py --games 40 --rounds 5

A step is one action applied, whoever takes it. Ours: `game.last()` (the encoded
observation array and int8 mask of the acting seat, its raw observation in infos) then
`game.step(i)`, with `i` drawn uniformly among the mask's legal actions, for every
ruleset at `--players` seats. RLCard's: `env.step(agent.step(state))` with its
`RandomAgent` (uniform over legal actions), where each step builds the next player's
state (encoded planes, legal actions, raw state) — the same work. Both measured on CPU
time (`time.process_time`, so other processes on the machine matter less) in interleaved
rounds; the median round is reported. Prints one JSON line per environment and a table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def ours(ruleset: str, players: int, games: int, seed: int) -> tuple[int, float]:
    from arena.envs.pettingzoo import env

    game = env(ruleset, players=players)
    rng = np.random.default_rng(seed)
    steps = 0
    started = time.process_time()
    for number in range(games):
        game.reset(seed=seed + number)
        for _ in game.agent_iter():
            observation, reward, termination, truncation, info = game.last()
            if termination or truncation:
                game.step(None)
                continue
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps, time.process_time() - started


def rlcard_uno(players: int, games: int, seed: int) -> tuple[int, float]:
    import rlcard
    from rlcard.agents import RandomAgent

    environment = rlcard.make("uno", config={"seed": seed})
    environment.game.configure({"game_num_players": players})  # rlcard.make ignores it for UNO
    environment.num_players = environment.game.get_num_players()
    np.random.seed(seed)
    agents = [RandomAgent(num_actions=environment.num_actions) for _ in range(players)]
    steps = 0
    started = time.process_time()
    for _ in range(games):
        state, player = environment.reset()
        while not environment.is_over():
            state, player = environment.step(agents[player].step(state))
            steps += 1
    return steps, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per environment per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs: dict[str, callable] = {
        f"arena {ruleset} (PettingZoo)": (lambda r=ruleset, k=0: ours(r, args.players, args.games, args.seed + k))
        for ruleset in ("uno-flip", "flip-7", "color-flush", "flip-hue")
    }
    try:
        import rlcard  # noqa: F401

        runs["RLCard uno (env.step)"] = lambda k=0: rlcard_uno(args.players, args.games, args.seed + k)
    except ImportError:
        print("rlcard is not installed: measuring ours only (pip install rlcard)")
    rates: dict[str, list[float]] = {name: [] for name in runs}
    steps_seen: dict[str, int] = {name: 0 for name in runs}
    for name, run in runs.items():  # warm up: imports, caches
        run()
    for round_number in range(args.rounds):
        for name, run in runs.items():
            steps, cpu = run(k=1000 * (round_number + 1))
            rates[name].append(steps / cpu)
            steps_seen[name] += steps
    from tabulate import tabulate

    rows = []
    for name in runs:
        median = statistics.median(rates[name])
        print(json.dumps({"env": name, "players": args.players, "games_per_round": args.games, "rounds": args.rounds,
                          "steps": steps_seen[name], "steps_per_cpu_second_median": round(median),
                          "min": round(min(rates[name])), "max": round(max(rates[name]))}))
        rows.append([name, steps_seen[name], f"{median:,.0f}", f"{min(rates[name]):,.0f}-{max(rates[name]):,.0f}"])
    print(tabulate(rows, headers=["environment", "steps", "steps/CPU s (median)", "range"]))


if __name__ == "__main__":
    main()
