"""The luck corrections' cost against the games' own under an isolation (issue 43 item 2).

Runs the same two-entry Flip 7 tournament (flip7-threshold A against B, fixed `--deals`, one
worker) with ``luck = "raw"`` and ``luck = "adjusted"`` under `--isolation` (default: the
default sandbox), interleaved `--rounds` times, and prints each run's CPU time (this process
and its children: bot hosts, sandboxes, workers) and the ratio.

    .venv/bin/python benchmarks/bench_luck_cost.py --deals 20 --rounds 2
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from arena.plugins import load_registry
from arena.runner import RunObserver, run_tournament
from arena.tournament import parse_tournament


def text(luck: str, deals: int, isolation: str, a: int, b: int) -> str:
    return (f'[tournament]\nname = "cost"\nseed = 5\ndeals = {deals}\nisolation = "{isolation}"\nluck = "{luck}"\n'
            f'workers = 1\n\n[[bots]]\nuse = "flip7-threshold"\nas = "a"\nparams = {{ threshold = {a} }}\n\n'
            f'[[bots]]\nuse = "flip7-threshold"\nas = "b"\nparams = {{ threshold = {b} }}\n\n'
            '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')


def cpu() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--isolation", default="sandbox")
    parser.add_argument("a", nargs="?", type=int, default=23)
    parser.add_argument("b", nargs="?", type=int, default=31)
    args = parser.parse_args()
    registry = load_registry()
    totals = {"raw": 0.0, "adjusted": 0.0}
    for _ in range(args.rounds):
        for luck in ("raw", "adjusted"):
            with tempfile.TemporaryDirectory() as folder:
                tournament = parse_tournament(text(luck, args.deals, args.isolation, args.a, args.b), registry,
                                              str(Path(folder) / "t.toml"))
                started, wall = cpu(), time.perf_counter()
                run_tournament(tournament, Path(folder) / "out", workers=1, observer=RunObserver(lambda line: None))
                used = cpu() - started
                totals[luck] += used
                print(f"{luck:9s} {2 * args.deals} games under {args.isolation}: {used:.1f} s CPU "
                      f"({time.perf_counter() - wall:.1f} s wall)", flush=True)
    print(f"adjusted / raw CPU: {totals['adjusted'] / totals['raw']:.2f}x (the corrections cost "
          f"{totals['adjusted'] / totals['raw'] - 1:.2f}x the games)")


if __name__ == "__main__":
    main()
