"""Environment steps per second: our PettingZoo env against RLCard's UNO `env.step`, in one run.

    .venv/bin/pip install rlcard          # the peer (not in any extra)
    .venv/bin/python benchmarks/bench_envs.py --games 40 --rounds 5

A step is one action applied, whoever takes it. Ours: `game.last()` (the encoded
observation array and int8 mask of the acting seat, its legal actions in infos; its raw
observation is built only on request, `--raw` asks for it at every step) then
`game.step(i)`, with `i` drawn uniformly among the mask's legal actions, for every
ruleset at `--players` seats. RLCard's: `env.step(agent.step(state))` with its
`RandomAgent` (uniform over legal actions), where each step builds the next player's
state (encoded planes, legal actions, raw state) — the same work (its raw state is the dict its
encoding is made from; ours is made on request). Both measured on CPU
time (`time.process_time`, so other processes on the machine matter less) in interleaved
rounds; the median round is reported. Prints one JSON line per environment and a table,
with each loop's rate and its rate as an environment alone: the loop's CPU time less its
agent's draws (ours: `rng.choice` over the mask's legal indices; RLCard's: its agent's
`np.random.choice`), each timed again over the masks or states the loop saw.

``--digests`` prints instead sha256 over every array the loop hands out (every seat's
observation and mask at every step, absolute seats and relative seats with a history) of
`--games` seeded games per ruleset: a faster encoding must print the same.

``--parts`` prints instead where a step's CPU time goes, in us a step (medians of the rounds),
by adding the work of a step in layers over the same games: the engine alone (legal actions,
apply), then the array written from the engine's state and the mask, then the benchmark's own
action draw (`rng.choice` over the mask), and finally the whole PettingZoo loop; beside them
what the raw observation costs when it is asked for at every step (`raw_observations=True`);
and RLCard's step split the same way into its agent's draw (timed again over the states it
saw) and the rest:

    .venv/bin/python benchmarks/bench_envs.py --parts --games 10 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def ours(ruleset: str, players: int, games: int, seed: int, raw: bool = False) -> tuple[int, float, float]:
    """Steps, CPU seconds of the loop, and CPU seconds of its action draws alone (replayed
    over the masks the loop saw, same generator). `raw`: the raw observation in infos too."""
    from arena.envs.pettingzoo import env

    game = env(ruleset, players=players, raw_observations=raw)
    rng = np.random.default_rng(seed)
    masks = []
    started = time.process_time()
    for number in range(games):
        game.reset(seed=seed + number)
        for _ in game.agent_iter():
            observation, reward, termination, truncation, info = game.last()
            if termination or truncation:
                game.step(None)
                continue
            mask = observation["action_mask"]
            masks.append(mask)
            game.step(int(rng.choice(np.flatnonzero(mask))))
    whole = time.process_time() - started
    rng = np.random.default_rng(seed)
    started = time.process_time()
    for mask in masks:
        int(rng.choice(np.flatnonzero(mask)))
    return len(masks), whole, time.process_time() - started


def rlcard_uno(players: int, games: int, seed: int) -> tuple[int, float, float]:
    """Steps, CPU seconds of the loop, and CPU seconds of its agent's draws alone (replayed
    over the states the loop saw)."""
    import rlcard
    from rlcard.agents import RandomAgent

    environment = rlcard.make("uno", config={"seed": seed})
    environment.game.configure({"game_num_players": players})  # rlcard.make ignores it for UNO
    environment.num_players = environment.game.get_num_players()
    np.random.seed(seed)
    agents = [RandomAgent(num_actions=environment.num_actions) for _ in range(players)]
    states = []
    started = time.process_time()
    for _ in range(games):
        state, player = environment.reset()
        while not environment.is_over():
            states.append(state)
            state, player = environment.step(agents[player].step(state))
    whole = time.process_time() - started
    started = time.process_time()
    for state in states:
        agents[0].step(state)
    return len(states), whole, time.process_time() - started


def digests(players: int, games: int, seed: int) -> dict[str, str]:
    """sha256 of every array the PettingZoo loop hands out (each seat's observation and
    mask at every step, absolute and relative seats with a history of 3) over `games`
    seeded games per ruleset: equal digests, identical arrays (for checking a faster
    encoding against the one before)."""
    import hashlib

    from arena.envs.pettingzoo import env

    out = {}
    for ruleset in RULESETS:
        for options in ({}, {"seats": "relative", "history": 3}):
            game, digest = env(ruleset, players=players, **options), hashlib.sha256()
            rng = np.random.default_rng(seed)
            for number in range(games):
                game.reset(seed=seed + number)
                for agent in game.agent_iter():
                    for other in game.possible_agents:
                        seen = game.observe(other)
                        digest.update(seen["observation"].tobytes() + seen["action_mask"].tobytes())
                    observation, _, termination, truncation, _ = game.last()
                    game.step(None if termination or truncation
                              else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            out[f"{ruleset} {options or 'absolute'}"] = digest.hexdigest()
    return out


RULESETS = ("uno-flip", "flip-7", "color-flush", "flip-hue")
LAYERS = ("engine", "+ encoding and mask", "+ action draw")


def layered(ruleset: str, players: int, games: int, seed: int, layers: int) -> float:
    """CPU us a step of the first `layers` of `LAYERS` over `games` seeded games."""
    import random

    from arena.api import ruleset_class
    from arena.envs.encoding import encoding_for

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
                encoding.encode_state_into(np.zeros(encoding.size, dtype=np.float32), seat, state)
                mask = encoding.mask(legal)
            if layers > 2:
                action = encoding.actions[int(rng.choice(np.flatnonzero(mask)))]
            else:
                action = legal[int(rng.integers(len(legal)))]
            state.apply(action)
            steps += 1
            seat = state.current_seat()
    return 1e6 * (time.process_time() - started) / steps


def parts(args: argparse.Namespace) -> None:
    """Print `--parts` (see the module docstring)."""
    from tabulate import tabulate

    rulesets = RULESETS
    figures: dict[tuple[str, str], list[float]] = {}
    for ruleset in rulesets:  # warm up: imports, caches
        layered(ruleset, args.players, 1, args.seed, len(LAYERS))
        ours(ruleset, args.players, 1, args.seed)
    rlcard_uno(args.players, 2, args.seed)
    for round_number in range(args.rounds):
        seed = args.seed + 1000 * (round_number + 1)
        for ruleset in rulesets:
            for layers, name in enumerate(LAYERS, 1):
                figures.setdefault((ruleset, name), []).append(layered(ruleset, args.players, args.games, seed, layers))
            steps, cpu, _ = ours(ruleset, args.players, args.games, seed)
            figures.setdefault((ruleset, "PettingZoo loop"), []).append(1e6 * cpu / steps)
            steps, cpu, _ = ours(ruleset, args.players, args.games, seed, raw=True)
            figures.setdefault((ruleset, "raw"), []).append(1e6 * cpu / steps)
        steps, whole, draw = rlcard_uno(args.players, 3 * args.games, seed)
        whole, draw = 1e6 * whole / steps, 1e6 * draw / steps
        figures.setdefault(("rlcard", "whole"), []).append(whole)
        figures.setdefault(("rlcard", "draw"), []).append(draw)
    median = {key: statistics.median(values) for key, values in figures.items()}
    rows = []
    for ruleset in rulesets:
        cumulative = [median[(ruleset, name)] for name in LAYERS + ("PettingZoo loop",)]
        added = [b - a for a, b in zip([0.0] + cumulative, cumulative)]
        rows.append([ruleset] + [f"{us:.1f}" for us in added] + [f"{cumulative[-1]:.1f}",
                                                                 f"{median[(ruleset, 'raw')] - cumulative[-1]:.1f}"])
    draw, whole = median[("rlcard", "draw")], median[("rlcard", "whole")]
    rows.append(["RLCard uno", "", f"{whole - draw:.1f} (env.step)", f"{draw:.1f}", "", f"{whole:.1f}", ""])
    print(tabulate(rows, headers=["us a step", *LAYERS, "+ PettingZoo", "total", "raw observation, if asked"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per environment per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", action="store_true", help="where a step's time goes (module docstring)")
    parser.add_argument("--digests", action="store_true", help="sha256 of the arrays of --games games (`digests`)")
    parser.add_argument("--raw", action="store_true", help="ours with the raw observation in infos at every step")
    args = parser.parse_args()
    if args.parts:
        parts(args)
        return
    if args.digests:
        print(json.dumps(digests(args.players, args.games, args.seed), indent=1))
        return
    runs: dict[str, callable] = {
        f"arena {ruleset} (PettingZoo)": (lambda r=ruleset, k=0: ours(r, args.players, args.games, args.seed + k,
                                                                    args.raw))
        for ruleset in RULESETS
    }
    try:
        import rlcard  # noqa: F401

        runs["RLCard uno (env.step)"] = lambda k=0: rlcard_uno(args.players, args.games, args.seed + k)
    except ImportError:
        print("rlcard is not installed: measuring ours only (pip install rlcard)")
    rates: dict[str, list[float]] = {name: [] for name in runs}
    alone: dict[str, list[float]] = {name: [] for name in runs}
    steps_seen: dict[str, int] = {name: 0 for name in runs}
    for name, run in runs.items():  # warm up: imports, caches
        run()
    for round_number in range(args.rounds):
        for name, run in runs.items():
            steps, cpu, draw = run(k=1000 * (round_number + 1))
            rates[name].append(steps / cpu)
            alone[name].append(steps / (cpu - draw))
            steps_seen[name] += steps
    from tabulate import tabulate

    rows = []
    for name in runs:
        median, median_alone = statistics.median(rates[name]), statistics.median(alone[name])
        print(json.dumps({"env": name, "players": args.players, "games_per_round": args.games, "rounds": args.rounds,
                          "steps": steps_seen[name], "steps_per_cpu_second_median": round(median),
                          "min": round(min(rates[name])), "max": round(max(rates[name])),
                          "env_alone_steps_per_cpu_second_median": round(median_alone)}))
        rows.append([name, steps_seen[name], f"{median:,.0f}", f"{min(rates[name]):,.0f}-{max(rates[name]):,.0f}",
                     f"{median_alone:,.0f}"])
    print(tabulate(rows, headers=["environment", "steps", "steps/CPU s (median)", "range",
                                  "env alone: steps/CPU s (median)"]))


if __name__ == "__main__":
    main()
