"""ismcts search speed: iterations per second of CPU time on one fixed position per ruleset.

The position is seat 0's third decision with more than one legal action in a seeded game
against `random` (3 players); the search runs with the default parameters but the iteration count, and a fixed seed.
Every figure is the median over --reps runs; with several --module files the runs are
interleaved (A, B, B, A, ...) so that load on the machine falls on each alike.

    .venv/bin/python benchmarks/bench_ismcts.py                        # arena_bots.ismcts
    .venv/bin/python benchmarks/bench_ismcts.py --module /tmp/before.py --module bots/ismcts.py --reps 7
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a file holding an ISMCTSBot (repeatable)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the iterations a run")
    args = parser.parse_args()
    modules = args.module or [None]
    bots = [load_bot(path) for path in modules]
    labels = [path or "arena_bots.ismcts" for path in modules]
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
