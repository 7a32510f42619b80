"""The peer: RLCard's UNO environment with random agents, timed like our games.

Run by `run_all.py` with the benchmark's own virtualenv (benchmarks/.peer-venv,
``python -m venv benchmarks/.peer-venv && benchmarks/.peer-venv/bin/pip install rlcard``):

    benchmarks/.peer-venv/bin/python benchmarks/peer_rlcard_uno.py --games 200 --players 4

A decision is one `env.step` (one action applied, whoever takes it), exactly as we
count one entry of a record's `decisions`. Each step builds the next player's
state (RLCard's observation: the encoded planes, legal actions and raw state), and
the random agent picks uniformly among the legal actions, so observation building
is included. Prints one JSON line: games, decisions, wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--loop", choices=("bare", "run"), default="bare",
                        help="bare: agent.step + env.step (default); run: RLCard's env.run(is_training=False)")
    args = parser.parse_args()

    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"seed": args.seed})
    # rlcard.make ignores game_num_players for UNO (only some envs take game configs);
    # its UNO game supports any count through configure.
    env.game.configure({"game_num_players": args.players})
    env.num_players = env.game.get_num_players()
    np.random.seed(args.seed)
    agents = [RandomAgent(num_actions=env.num_actions) for _ in range(args.players)]
    env.set_agents(agents)

    def play() -> int:
        """One game with the bare loop: agent.step (uniform over legal) and env.step."""
        state, player = env.reset()
        assert len(env.game.players) == args.players
        steps = 0
        while not env.is_over():
            state, player = env.step(agents[player].step(state))
            steps += 1
        return steps

    def run() -> int:
        """One game with RLCard's own loop, env.run (eval_step, trajectories)."""
        trajectories, _ = env.run(is_training=False)
        return sum((len(t) - 1) // 2 for t in trajectories)

    if args.loop == "run":
        play = run  # noqa: F811

    for _ in range(max(1, args.games // 10)):  # warm up
        play()
    cpu, wall = time.process_time(), time.perf_counter()
    decisions = sum(play() for _ in range(args.games))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"games": args.games, "decisions": decisions, "wall": wall, "cpu": cpu,
                      "players": args.players, "loop": args.loop, "rlcard": rlcard.__version__,
                      "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == "__main__":
    main()
