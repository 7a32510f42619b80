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

``--parts`` prints instead where a step's CPU time goes, in us a step (medians of the rounds),
by adding the work of a step in layers over the same games: the engine alone (legal actions,
apply), then the raw observation the env hands out (the seat's view and events), then
encoding it and its mask, then the benchmark's own action draw (`rng.choice` over the
mask), and finally the whole PettingZoo loop; and RLCard's step split the same way into
its agent's draw (timed again over the states it saw) and the rest:

    .venv/bin/python benchmarks/bench_envs.py --parts --games 10 --rounds 3
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


LAYERS = ("engine", "+ raw observation", "+ encoding and mask", "+ action draw")


def layered(ruleset: str, players: int, games: int, seed: int, layers: int) -> float:
    """CPU us a step of the first `layers` of `LAYERS` over `games` seeded games."""
    import random

    from arena.api import ruleset_class
    from arena.envs.encoding import encoding_for
    from arena.rules.observation import make_observation

    cls = ruleset_class(ruleset)
    options = cls.resolve_options({})
    encoding = encoding_for(cls, players, options)
    rng = np.random.default_rng(seed)
    steps, started = 0, time.process_time()
    for number in range(games):
        state = cls.new_game(players, options, random.Random(seed + number))
        seat = state.current_seat()
        while seat is not None:
            legal = state.legal_actions()
            if layers > 1:
                raw = make_observation(cls, state, seat, options=options, legal_actions=legal)
            if layers > 2:
                encoding.encode_into(np.zeros(encoding.size, dtype=np.float32), seat, raw["view"])
                mask = encoding.mask(legal)
            if layers > 3:
                action = encoding.actions[int(rng.choice(np.flatnonzero(mask)))]
            else:
                action = legal[int(rng.integers(len(legal)))]
            state.apply(action)
            steps += 1
            seat = state.current_seat()
    return 1e6 * (time.process_time() - started) / steps


def rlcard_draw_share(players: int, games: int, seed: int) -> tuple[float, float]:
    """RLCard UNO: CPU us a step of the whole loop, and of its agent's draw alone (replayed
    over the states the loop saw)."""
    import rlcard
    from rlcard.agents import RandomAgent

    environment = rlcard.make("uno", config={"seed": seed})
    environment.game.configure({"game_num_players": players})
    environment.num_players = environment.game.get_num_players()
    np.random.seed(seed)
    agent = RandomAgent(num_actions=environment.num_actions)
    states, started = [], time.process_time()
    for _ in range(games):
        state, player = environment.reset()
        while not environment.is_over():
            states.append(state)
            state, player = environment.step(agent.step(state))
    whole = time.process_time() - started
    started = time.process_time()
    for state in states:
        agent.step(state)
    return 1e6 * whole / len(states), 1e6 * (time.process_time() - started) / len(states)


def parts(args: argparse.Namespace) -> None:
    """Print `--parts` (see the module docstring)."""
    from tabulate import tabulate

    rulesets = ("uno-flip", "flip-7", "color-flush", "flip-hue")
    figures: dict[tuple[str, str], list[float]] = {}
    for ruleset in rulesets:  # warm up: imports, caches
        layered(ruleset, args.players, 1, args.seed, len(LAYERS))
        ours(ruleset, args.players, 1, args.seed)
    rlcard_draw_share(args.players, 2, args.seed)
    for round_number in range(args.rounds):
        seed = args.seed + 1000 * (round_number + 1)
        for ruleset in rulesets:
            for layers, name in enumerate(LAYERS, 1):
                figures.setdefault((ruleset, name), []).append(layered(ruleset, args.players, args.games, seed, layers))
            steps, cpu = ours(ruleset, args.players, args.games, seed)
            figures.setdefault((ruleset, "PettingZoo loop"), []).append(1e6 * cpu / steps)
        whole, draw = rlcard_draw_share(args.players, 3 * args.games, seed)
        figures.setdefault(("rlcard", "whole"), []).append(whole)
        figures.setdefault(("rlcard", "draw"), []).append(draw)
    median = {key: statistics.median(values) for key, values in figures.items()}
    rows = []
    for ruleset in rulesets:
        cumulative = [median[(ruleset, name)] for name in LAYERS + ("PettingZoo loop",)]
        added = [b - a for a, b in zip([0.0] + cumulative, cumulative)]
        rows.append([ruleset] + [f"{us:.1f}" for us in added] + [f"{cumulative[-1]:.1f}"])
    draw, whole = median[("rlcard", "draw")], median[("rlcard", "whole")]
    rows.append(["RLCard uno", "", "", f"{whole - draw:.1f} (env.step)", f"{draw:.1f}", "", f"{whole:.1f}"])
    print(tabulate(rows, headers=["us a step", *LAYERS, "+ PettingZoo", "total"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per environment per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", action="store_true", help="where a step's time goes (module docstring)")
    args = parser.parse_args()
    if args.parts:
        parts(args)
        return
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
