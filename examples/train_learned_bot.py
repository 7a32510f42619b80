"""Train `learned-linear` (examples/learned_bot/) on CPU in minutes: numpy only.

    python examples/train_learned_bot.py train uno-flip --iterations 15 --pairs 6 --deals 80
    python examples/train_learned_bot.py evaluate uno-flip --deals 200

The policy is linear over hand-made features of each legal action (`learned_bot.FEATURIZERS`),
one of which is the ruleset's best heuristic's own score of the action (UNO Flip:
`uno-flip-heuristic`; Color Flush: `color-flush-heuristic`; Flip 7: `flip7-expectimax`). Training starts from
`learned_bot.STARTING_WEIGHTS`, the heuristic written as weights (its score, and for Color
Flush its order of action kinds; every other weight zero), so the untrained policy plays as
the heuristic does, and improves it by evolution strategies against that heuristic: each
iteration draws `pairs` Gaussian directions, plays the weights moved each way along each
(antithetic) on the same `deals` fresh training deals, both seat orders, and steps along the
directions weighted by the difference of their scores (common deals make the difference
tell). UNO Flip trains on single rounds (``target_score = 0``: ten times the deals for the
CPU); Color Flush and Flip 7 on their defaults; evaluation is on the rulesets' default
options. Training deals are seeded from 10,000,000 up, evaluation deals below 1,000,000
(`evaluate`) or by the tournament's seed (examples/learned_bot_tournament.toml,
examples/learned_bot_flip7_tournament.toml: 64-bit hashes), so they never meet.

`train` writes the weights into examples/learned_bot/weights.json (that ruleset's entry; the
others are kept) and prints each iteration's scores and weights. Fixed `--iterations` give
the same weights on any machine; `--minutes` stops earlier on a slow one. `evaluate` plays
the weights against the heuristic on `--deals` evaluation deals, both seat orders, in this
process, and prints the paired score with its 95% interval (`arena.pairwise`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

import arena
from arena.pairwise import paired_scores, summarize

HERE = Path(__file__).resolve().parent
BOT_FILE = HERE / "learned_bot" / "learned_bot.py"
HEURISTICS = {"uno-flip": "uno-flip-heuristic", "color-flush": "color-flush-heuristic",
              "flip-7": "flip7-expectimax"}   # each ruleset's best built-in heuristic
# what the ES games use (the evaluation is always on the defaults)
TRAINING_OPTIONS: dict[str, dict] = {"uno-flip": {"target_score": 0}, "color-flush": {}, "flip-7": {}}  # UNO Flip: single rounds
TRAIN_SEEDS = 10_000_000


def _load_bot_module():
    spec = importlib.util.spec_from_file_location("learned_bot", BOT_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["learned_bot"] = module
    spec.loader.exec_module(module)
    return module


lb = _load_bot_module()


def bot_with(ruleset: str, theta: np.ndarray) -> type:
    """A `LearnedBot` class whose weights for `ruleset` are `theta`."""

    def __init__(self):
        self.weights = {ruleset: np.asarray(theta, dtype=float)}
        self.cache = {}

    return type("LearnedCandidate", (lb.LearnedBot,), {"__init__": __init__, "name": "learned-linear"})


# -- evolution strategies -----------------------------------------------------------------


def score_against(args: tuple[str, np.ndarray, list[int], dict]) -> float:
    """The learned weights' mean result against the heuristic over `seeds`, both seat
    orders (1 ahead, 0.5 level, 0 behind)."""
    ruleset, theta, seeds, options = args
    bot, other = bot_with(ruleset, theta), HEURISTICS[ruleset]
    total = 0.0
    for seed in seeds:
        for me in (0, 1):
            order = [bot, other] if me == 0 else [other, bot]
            standing = arena.play(ruleset, order, seed=seed, options=options).standing
            total += 1.0 if standing[me] < standing[1 - me] else 0.5 if standing[me] == standing[1 - me] else 0.0
    return total / (2 * len(seeds))


def evolve(ruleset: str, theta: np.ndarray, iterations: int, minutes: float | None, pairs: int, deals: int,
           sigma: float, rate: float, workers: int, floor: float, cap: float, seed: int = 0,
           average: int = 1, free: np.ndarray | None = None) -> np.ndarray:
    """Antithetic ES against the heuristic for `iterations` (or fewer, if `minutes` of wall
    time run out first); returns the mean of the last `average` iterates (1: the last
    weights). `free`: a 0/1 mask of the weights that move (None: all); the others keep
    their starting values. The same arguments give the same weights."""
    rng = np.random.default_rng(seed)
    iterates = [theta]
    started, iteration, next_seed = time.time(), 0, TRAIN_SEEDS + 100_000 * seed  # each seed its own deals
    scale = np.clip(np.abs(theta), floor, cap)  # per weight: steps in proportion to its size
    if free is not None:
        scale = scale * free
    with multiprocessing.Pool(workers) as pool:
        while iteration < iterations and (minutes is None or time.time() - started < minutes * 60):
            seeds = list(range(next_seed, next_seed + deals))
            next_seed += deals
            eps = rng.standard_normal((pairs, len(theta)))
            jobs = [(ruleset, theta + sign * sigma * scale * e, seeds, TRAINING_OPTIONS[ruleset])
                    for e in eps for sign in (1, -1)]
            results = np.array(pool.map(score_against, jobs)).reshape(pairs, 2)
            diff = results[:, 0] - results[:, 1]
            theta = theta + rate * scale * (diff @ eps) / (pairs * max(diff.std(), 1e-3))
            iterates.append(theta)
            iteration += 1
            print(f"iteration {iteration}: mean score {results.mean():.3f} (best direction "
                  f"{results.max():.3f}) over {deals} deals x {2 * pairs} candidates, "
                  f"{time.time() - started:.0f} s; weights {json.dumps(theta.round(4).tolist())}",
                  file=sys.stderr, flush=True)
    return np.mean(iterates[-average:], axis=0)


# -- weights file and evaluation ---------------------------------------------------------


def save(ruleset: str, theta: np.ndarray, path: Path = lb.WEIGHTS) -> None:
    data = json.loads(path.read_text()) if path.is_file() else {}
    data[ruleset] = {name: round(float(w), 5) for name, w in zip(lb.FEATURIZERS[ruleset][0], theta)}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def evaluate(ruleset: str, deals: int, first_seed: int = 1, weights: str | None = None) -> dict:
    """The learned bot against the heuristic on `deals` evaluation deals (seeds
    `first_seed`..), both seat orders: paired score, 95% interval, LOS; and, where the
    ruleset declares a luck adjustment (Flip 7, Color Flush; docs/luck.md), the same for
    the luck-adjusted score the arena publishes."""
    from arena.api import ruleset_class
    from arena.luck import AdjustedTally, game_corrections, supports_luck

    theta = lb.load_weights(Path(weights) if weights else lb.WEIGHTS)[ruleset]
    bot, other = bot_with(ruleset, theta), HEURISTICS[ruleset]
    cls = ruleset_class(ruleset)
    luck = supports_luck(cls)
    games, adjusted = [], AdjustedTally()
    for deal in range(first_seed, first_seed + deals):
        for order in ([bot, other], [other, bot]):
            result = arena.play(ruleset, order, seed=deal)
            entries = ["learned-linear" if s is bot else other for s in order]
            games.append((deal, entries, result.standing))
            if luck:
                adjusted.add(deal, entries, result.standing, game_corrections(cls, result.record).corrections)
    out = {"ruleset": ruleset, "opponent": other, "seeds": [first_seed, first_seed + deals - 1]}
    tables = [("", paired_scores(games), True)] + ([("luck_adjusted_", adjusted.scores(), False)] if luck else [])
    for prefix, table, bounded in tables:
        summary = summarize(table[("learned-linear", other)], bounded=bounded)
        out.update({f"{prefix}paired_score": round(summary.mean, 3),
                    f"{prefix}interval_95": [round(summary.interval.low, 3), round(summary.interval.high, 3)],
                    f"{prefix}los": round(summary.los, 3)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    training = commands.add_parser("train")
    training.add_argument("ruleset", choices=sorted(HEURISTICS))
    training.add_argument("--iterations", type=int, default=15)
    training.add_argument("--minutes", type=float, help="stop earlier when this much wall time is spent")
    training.add_argument("--pairs", type=int, default=6)
    training.add_argument("--deals", type=int, default=30)
    training.add_argument("--sigma", type=float, default=0.5)
    training.add_argument("--rate", type=float, default=0.7)
    training.add_argument("--floor", type=float, default=0.3, help="step scale of a weight at zero")
    training.add_argument("--cap", type=float, default=3.0, help="step scale of a weight at most")
    training.add_argument("--workers", type=int, default=2)
    training.add_argument("--seed", type=int, default=0, help="of the directions and of the training deals")
    training.add_argument("--resume", action="store_true", help="start from weights.json's entry, not the heuristic")
    training.add_argument("--average", type=int, default=1, help="save the mean of the last N iterates")
    training.add_argument("--free", nargs="+", metavar="FEATURE",
                          help="train only these features' weights; the others keep their starting values")
    evaluating = commands.add_parser("evaluate")
    evaluating.add_argument("ruleset", choices=sorted(HEURISTICS))
    evaluating.add_argument("--deals", type=int, default=200)
    evaluating.add_argument("--weights")
    evaluating.add_argument("--first-seed", type=int, default=1,
                            help="of the deals (validation: a range of training seeds no run used)")
    args = parser.parse_args()
    if args.command == "evaluate":
        print(json.dumps(evaluate(args.ruleset, args.deals, args.first_seed, weights=args.weights)))
        return
    names = lb.FEATURIZERS[args.ruleset][0]
    theta = np.array([lb.STARTING_WEIGHTS[args.ruleset].get(name, 0.0) for name in names])
    if args.resume:
        theta = lb.load_weights()[args.ruleset]
    free = None
    if args.free:
        unknown = sorted(set(args.free) - set(names))
        if unknown:
            parser.error(f"--free: {', '.join(unknown)} not among {args.ruleset}'s features ({', '.join(names)})")
        free = np.array([float(name in args.free) for name in names])
    theta = evolve(args.ruleset, theta, args.iterations, args.minutes, args.pairs, args.deals, args.sigma, args.rate,
                   args.workers, args.floor, args.cap, args.seed, args.average, free)
    save(args.ruleset, theta)
    print(f"weights for {args.ruleset} in {lb.WEIGHTS}: {json.dumps(dict(zip(names, theta.round(3).tolist())))}")


if __name__ == "__main__":
    main()
