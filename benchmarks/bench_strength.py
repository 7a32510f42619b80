"""Strength of a search bot against a ruleset's best heuristic (issue 22, item 4).

The comparison the issue asks for: 3-player tables of the candidate and TWO copies of the
ruleset's best heuristic (a random third seat dilutes the comparison), every deal played
in all three seat rotations, the candidate at a fixed iteration count (fixed counts keep
results reproducible; time budgets do not). A deal's paired score is the candidate's
share of (game, heuristic seat) comparisons it finished ahead of, ties 1/2, over the
deal's 3 games x 2 heuristic seats; the report is the mean over deals with its 95%
Student-t interval (`arena.pairwise.summarize`), and the candidate's CPU seconds per
decision it was asked (one core per game).

``--sees-all`` plays the ceiling instead: ismcts searching the TRUE state (every card of
every hand and pile, in order; only the engine's future reshuffles are unknown to it), an
upper bound no legal bot can reach. It is built here, outside the bot contract, by
remembering the engine state the game was dealt into; it is never a registered bot.

Every game is appended to ``--out`` (JSON lines) as soon as it ends; a second run with
the same file plays only the games missing, so an interrupted run loses nothing.

Usage::

    .venv/bin/python benchmarks/bench_strength.py flip-7 --iterations 3000 --deals 30 --out /tmp/f7.jsonl
    .venv/bin/python benchmarks/bench_strength.py flip-7 --iterations 3000 --deals 10 --sees-all --out /tmp/f7god.jsonl
    .venv/bin/python benchmarks/bench_strength.py uno-flip --options '{"target_score": 0}' ...
    .venv/bin/python benchmarks/bench_strength.py --report /tmp/f7.jsonl     # summarise a file
    .venv/bin/python benchmarks/bench_strength.py --compare /tmp/new.jsonl /tmp/old.jsonl   # A/B, paired by deal

Results: benchmarks/strength_notes.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

from arena import pairwise
from arena.match import Entrant, play_game
from arena.plugins import load_registry

HEURISTIC = {   # the best heuristic per ruleset (the reference tournament's order)
    "flip-7": "flip7-threshold",
    "uno-flip": "uno-flip-heuristic",
    "color-flush": "color-flush-heuristic",
    "flip-hue": "flip-hue-heuristic",
}
ROTATIONS = 3

_TRUE_STATE: list[Any] = [None]   # the game being played, for the --sees-all ceiling only


def timed(cls: type) -> type:
    """`cls` with the CPU time and count of its asked decisions kept on the instance."""

    class Timed(cls):  # type: ignore[misc, valid-type]
        cpu_total = 0.0   # over every instance of this class: one class per game (see play_one)
        asked_total = 0

        def act(self, observation):
            started = time.process_time()
            try:
                return super().act(observation)
            finally:
                if len(observation["legal_actions"]) > 1:
                    Timed.cpu_total += time.process_time() - started
                    Timed.asked_total += 1

    Timed.__name__ = Timed.__qualname__ = cls.__name__
    return Timed


def seeing(cls: type) -> type:
    """ismcts whose every determinization is the true state (its chance reseeded)."""
    from arena_bots import ismcts

    class SeesAll(cls):  # type: ignore[misc, valid-type]
        def search(self, observation):
            truth = _TRUE_STATE[0]

            def sample(_observation, rng, _events):
                state = truth.clone()
                state.chance.rng = random.Random(rng.getrandbits(64))
                return state

            return ismcts.search(observation, sample, self.events, self.rng, self.evaluator(observation),
                                 self.iterations, None, self.exploration, self.bias)

    SeesAll.__name__ = SeesAll.__qualname__ = cls.__name__
    return SeesAll


def play_one(task: dict[str, Any]) -> dict[str, Any]:
    """Play deal `task["deal"]` in rotation `task["rotation"]`; the game's line for the file."""
    registry = load_registry()
    ruleset = registry.ruleset(task["ruleset"]).cls
    candidate_cls = timed(registry.bot(task["candidate"]).cls)
    if task["sees_all"]:
        candidate_cls = seeing(candidate_cls)
        dealt = ruleset.new_game

        def remembering_new_game(players, options, rng):
            _TRUE_STATE[0] = dealt(players, options, rng)
            return _TRUE_STATE[0]

        ruleset.new_game = remembering_new_game   # this worker process only
    heuristic_cls = registry.bot(HEURISTIC[task["ruleset"]]).cls
    table = [Entrant(candidate_cls, task["params"], display="candidate"),
             Entrant(heuristic_cls, {}, display="heuristic-a"),
             Entrant(heuristic_cls, {}, display="heuristic-b")]
    shift = task["rotation"]
    seats = table[shift:] + table[:shift]
    started = time.perf_counter()
    result = play_game(ruleset, seats, task["seed"] + task["deal"], task["options"])
    candidate_seat = (ROTATIONS - shift) % ROTATIONS
    return {**{k: task[k] for k in ("ruleset", "candidate", "params", "sees_all", "seed", "options",
                                       "deal", "rotation")},
            "entries": [e.display for e in seats], "standing": result.record["outcome"]["standing"],
            "decisions": len(result.record["decisions"]), "wall": round(time.perf_counter() - started, 3),
            "candidate_cpu": round(candidate_cls.cpu_total, 4), "candidate_asked": candidate_cls.asked_total,
            "candidate_seat": candidate_seat}


def deal_scores(games: list[dict[str, Any]]) -> dict[int, float]:
    """Per deal with all its rotations: the candidate's paired score against the heuristic seats."""
    by_deal: dict[int, list[float]] = {}
    for game in games:
        standing = game["standing"]
        mine = standing[game["entries"].index("candidate")]
        for seat, entry in enumerate(game["entries"]):
            if entry != "candidate":
                other = standing[seat]
                by_deal.setdefault(game["deal"], []).append(1.0 if mine < other else 0.5 if mine == other else 0.0)
    return {deal: sum(v) / len(v) for deal, v in sorted(by_deal.items()) if len(v) == 2 * ROTATIONS}


def report(games: list[dict[str, Any]]) -> str:
    """The summary lines for one file's games."""
    if not games:
        return "no games"
    first = games[0]
    scores = list(deal_scores(games).values())
    asked = sum(g["candidate_asked"] for g in games)
    cpu = sum(g["candidate_cpu"] for g in games)
    who = ("ceiling: ismcts seeing every card" if first["sees_all"] else first["candidate"])
    lines = [f"{first['ruleset']}: {who} {json.dumps(first['params'])} against 2 x {HEURISTIC[first['ruleset']]}"
             f" (options {json.dumps(first['options'])}, seed {first['seed']})",
             f"  games {len(games)}, complete deals {len(scores)}; candidate CPU {cpu / max(1, asked):.3f} s"
             f" a decision over {asked} decisions"]
    if len(scores) >= 2:
        summary = pairwise.summarize(scores)
        lines.append(f"  mean paired score {summary.mean:.3f} (95% {summary.interval.low:.3f}-"
                     f"{summary.interval.high:.3f}), LOS {summary.los:.3f}")
    return "\n".join(lines)


def compare(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> str:
    """The first file's candidate against the second's on the deals both completed (same
    seed: the same cards): the mean per-deal difference of their paired scores, 95% t interval."""
    a, b = deal_scores(first), deal_scores(second)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return f"fewer than 2 deals in common ({len(common)})"
    differences = [a[d] - b[d] for d in common]
    # summarize works on [0, 1] scores: shift the differences to (d + 1) / 2 and back
    summary = pairwise.summarize([(d + 1) / 2 for d in differences])
    low, high = 2 * summary.interval.low - 1, 2 * summary.interval.high - 1
    return (f"over {len(common)} common deals: {sum(a[d] for d in common) / len(common):.3f} against "
            f"{sum(b[d] for d in common) / len(common):.3f}, difference {2 * summary.mean - 1:+.3f} "
            f"(95% {low:+.3f} to {high:+.3f})")


def read_games(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ruleset", nargs="?", choices=sorted(HEURISTIC))
    parser.add_argument("--candidate", default="ismcts")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--params", default="{}", help="more candidate params, JSON")
    parser.add_argument("--options", default="{}", help="ruleset options, JSON")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=220000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sees-all", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", type=Path, nargs="*", help="summarise these files and stop")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("FIRST", "SECOND"),
                        help="the difference between two files' candidates on their common deals")
    args = parser.parse_args(argv)
    if args.compare:
        print(compare(read_games(args.compare[0]), read_games(args.compare[1])))
        return 0
    if args.report:
        for path in args.report:
            print(report(read_games(path)))
        return 0
    if args.ruleset is None or args.out is None:
        parser.error("a ruleset and --out are needed (or --report FILE)")
    params = {"iterations": args.iterations, **json.loads(args.params)}
    options = json.loads(args.options)
    done = {(g["deal"], g["rotation"]) for g in read_games(args.out)
            if g["params"] == params and g["options"] == options and g["sees_all"] == args.sees_all
            and g["seed"] == args.seed and g["candidate"] == args.candidate}
    tasks = [{"ruleset": args.ruleset, "candidate": args.candidate, "params": params, "options": options,
              "sees_all": args.sees_all, "seed": args.seed, "deal": deal, "rotation": rotation}
             for deal in range(args.deals) for rotation in range(ROTATIONS) if (deal, rotation) not in done]
    print(f"{len(tasks)} games to play ({len(done)} already in {args.out})", file=sys.stderr)
    # import every bot and ruleset before the workers fork: edits to the files during a
    # long run must not reach its later games
    registry = load_registry()
    registry.ruleset(args.ruleset).cls, registry.bot(args.candidate).cls, registry.bot(HEURISTIC[args.ruleset]).cls
    importlib.import_module("arena_bots.ismcts")
    with multiprocessing.get_context("fork").Pool(args.workers, maxtasksperchild=1) as pool, \
            args.out.open("a") as out:
        for game in pool.imap_unordered(play_one, tasks):
            out.write(json.dumps(game) + "\n")
            out.flush()
            print(f"deal {game['deal']} rotation {game['rotation']}: standing {game['standing']} "
                  f"(candidate seat {game['candidate_seat']}), {game['wall']} s", file=sys.stderr)
    print(report([g for g in read_games(args.out) if g["params"] == params and g["options"] == options
                  and g["sees_all"] == args.sees_all and g["seed"] == args.seed]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
