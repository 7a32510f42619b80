"""ismcts search speed: iterations per second of CPU time on one fixed position per ruleset,
or (``--games``) CPU microseconds per iteration over whole games.

The position is seat 0's third decision with more than one legal action in a seeded game
against `random` (3 players); the search runs with the default parameters but the iteration count, and a fixed seed.
Every figure is the median over --reps runs; with several --module files the runs are
interleaved (A, B, B, A, ...) so that load on the machine falls on each alike.

A search on one position meets the same hands again and again, so the heuristics' memo
tables warm up as they never do in play; ``--games N`` measures what a game costs instead:
ismcts in seat 0 against two copies of the ruleset's best heuristic, seeds 1..N (UNO Flip
single rounds), the CPU time of its decisions over the iterations they ran. To compare
with an older tree, run this file with an export of that tree first on the path
(``cd /tmp/old && PYTHONPATH=/tmp/old python /work/main/benchmarks/bench_ismcts.py --games 4``).

    .venv/bin/python benchmarks/bench_ismcts.py                        # arena_bots.ismcts
    .venv/bin/python benchmarks/bench_ismcts.py --module /tmp/before.py --module bots/ismcts.py --reps 7
    .venv/bin/python benchmarks/bench_ismcts.py --games 4 --params '{"color-flush": {"opponents": "tree"}}'
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ismcts_fingerprint import load_bot  # noqa: E402

from arena.bot import Bot  # noqa: E402
from arena.match import Entrant, play_game  # noqa: E402
from arena.plugins import load_registry  # noqa: E402
from arena_bots.random_bot import RandomBot  # noqa: E402

RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")
OPTIONS = {"flip-7": {}, "uno-flip": {}, "color-flush": {}, "flip-hue": {}}
# iterations a run: about 0.3 s each on a 2020s core
ITERATIONS = {"flip-7": 2000, "uno-flip": 600, "color-flush": 200, "flip-hue": 200}


class _Stop(Exception):
    pass


def position(ruleset_id: str, seed: int = 5, nth: int = 3) -> tuple[dict[str, Any], list[dict], dict[str, Any]]:
    """(start info, events received before, observation) of seat 0's `nth` real decision."""
    captured: dict[str, Any] = {}

    class Capture(Bot):
        name = "capture"
        rulesets = "*"

        def start(self, info):
            captured["info"] = info
            captured["events"] = []
            captured["asked"] = 0

        def act(self, observation):
            captured["asked"] += 1
            if captured["asked"] == nth:
                captured["observation"] = observation
                raise _Stop
            captured["events"].extend(observation["events"])
            return self.rng.choice(observation["legal_actions"])

    ruleset = load_registry().ruleset(ruleset_id).cls
    try:
        play_game(ruleset, [Entrant(Capture), Entrant(RandomBot), Entrant(RandomBot)], seed,
                  options=OPTIONS[ruleset_id])
    except Exception:  # the capture stops the game (the harness may wrap the exception)
        pass
    return captured["info"], captured["events"], captured["observation"]


def rate(bot_class: type, ruleset_id: str, where: tuple, iterations: int) -> float:
    info, events, observation = where
    bot = bot_class(iterations=iterations)
    bot.rng = random.Random(1)
    bot.start(dict(info))
    bot.events = list(events)
    start = time.process_time()
    bot.act(dict(observation))
    return iterations / (time.process_time() - start)


# bench_strength.HEURISTIC, not imported: that module needs arena.pairwise, and this one must
# also run against older trees (dc393df) put first on PYTHONPATH
HEURISTIC = {"flip-7": "flip7-threshold", "uno-flip": "uno-flip-heuristic",
             "color-flush": "color-flush-heuristic", "flip-hue": "flip-hue-heuristic"}
GAME_OPTIONS = {"uno-flip": {"target_score": 0}}


def per_iteration_in_games(bot_class: type, ruleset_id: str, games: int, iterations: int,
                           params: dict[str, Any]) -> tuple[int, float]:
    """(decisions, CPU microseconds per iteration) of `bot_class` over `games` seeded games."""
    spent = {"cpu": 0.0, "decisions": 0}

    class Timed(bot_class):
        def act(self, observation):
            start = time.process_time()
            action = super().act(observation)
            spent["cpu"] += time.process_time() - start
            spent["decisions"] += 1
            return action

    registry = load_registry()
    heuristic = registry.bot(HEURISTIC[ruleset_id]).cls
    for seed in range(1, games + 1):
        play_game(registry.ruleset(ruleset_id).cls,
                  [Entrant(Timed, params=dict(params, iterations=iterations)), Entrant(heuristic), Entrant(heuristic)],
                  seed, options=GAME_OPTIONS.get(ruleset_id, {}))
    return spent["decisions"], 1e6 * spent["cpu"] / max(1, spent["decisions"] * iterations)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a file holding an ISMCTSBot (repeatable)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the iterations a run")
    parser.add_argument("--games", type=int, default=0,
                        help="instead: CPU us per iteration over this many whole games per ruleset")
    parser.add_argument("--params", type=json.loads, default={},
                        help='--games: ismcts params by ruleset id, JSON, e.g. \'{"color-flush": {"opponents": "tree"}}\'')
    args = parser.parse_args()
    modules = args.module or [None]
    bots = [load_bot(path) for path in modules]
    labels = [path or "arena_bots.ismcts" for path in modules]
    if args.games:
        print(f"CPU us per iteration over {args.games} games against two heuristics (ismcts in seat 0)")
        for rid in RULESETS:
            iterations = max(1, round(ITERATIONS[rid] * args.scale))
            for bot, label in zip(bots, labels):
                decisions, cost = per_iteration_in_games(bot, rid, args.games, iterations, args.params.get(rid, {}))
                print(f"{rid:<12} {label[-28:]:>30} {cost:>10,.1f} us  ({decisions} decisions of {iterations} iterations)")
        return 0
    where = {rid: position(rid) for rid in RULESETS}
    iterations = {rid: max(1, round(ITERATIONS[rid] * args.scale)) for rid in RULESETS}
    rates: dict[tuple[int, str], list[float]] = {}
    for rep in range(args.reps):
        order = list(range(len(bots)))
        if rep % 2:
            order.reverse()
        for rid in RULESETS:
            for index in order:
                rates.setdefault((index, rid), []).append(rate(bots[index], rid, where[rid], iterations[rid]))
    print(f"iterations/s (CPU), median of {args.reps} runs of {iterations} iterations")
    print(f"{'ruleset':<12}" + "".join(f"{label[-28:]:>30}" for label in labels)
          + ("   change" if len(bots) == 2 else ""))
    for rid in RULESETS:
        medians = [statistics.median(rates[(i, rid)]) for i in range(len(bots))]
        change = f"   {100 * (medians[1] / medians[0] - 1):+.1f}%" if len(bots) == 2 else ""
        print(f"{rid:<12}" + "".join(f"{m:>30,.1f}" for m in medians) + change)
    return 0


if __name__ == "__main__":
    sys.exit(main())
