"""The fresh-deck model's single round (benchmarks/flip7_solo_optimum.py) against the engine's.

A single round of the engine from a new game is a round from a freshly shuffled full deck, so
for any fixed round policy the model must predict the engine's round-score distribution, up to
the model's three stated simplifications. This plays N engine rounds (deal seeds 0..N-1, the
real rules through `Flip7`) and compares, with 95% intervals of the Monte-Carlo side:

- "stay at 23" (hit while holding a Second Chance or while the number sum is below 23): the
  mean round score and P(round score 0);
- the model's optimal round policy from total T (``--total``, default 0), its decisions read
  from the DP's table: the mean round score, P(0), and E[V(T + S)] with V the model's values
  (read from ``--values``, the JSON of ``flip7_solo_optimum.py --out``).

Run: ``nice -n 10 .venv/bin/python benchmarks/flip7_solo_check.py --values v.json --rounds 200000``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

import numpy as np

from arena.rules.flip_7 import Flip7

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flip7_solo_optimum import FULL_DECK, Model  # noqa: E402


def engine_round(seed: int, hit) -> int:
    """One solo round of the engine from a new game (a freshly shuffled deck), played by
    ``hit(view) -> bool``; returns the round score."""
    options = Flip7.resolve_options({"target_score": 10 ** 6})
    state = Flip7.new_game(1, options, random.Random(seed))
    while state.round == 1:
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
        else:
            state.apply("hit" if hit(state.view(0)) else "stay")
    return state.totals[0]


def stay_at_23(view) -> bool:
    row = view["rows"][0]
    return row["second_chance"] or row["number_sum"] < 23


def model_state(model: Model, view) -> tuple[int, int]:
    """The model's (mask, inner) of the solo row in `view`, in the first round of a game."""
    row = view["rows"][0]
    mask = sum(1 << n for n in row["numbers"])
    mods = sum(1 << model.deck.modifiers.index(card) for card in row["modifiers"])
    drawn = model.deck.second_chances - view["unseen"].get("second-chance", 0)
    return model.index(mask, mods, drawn, int(row["second_chance"]))


def summary(xs: list[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% interval)."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, 1.96 * sd / math.sqrt(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--values", default=None, help="V table (JSON) for the optimal policy check")
    parser.add_argument("--total", type=int, default=0)
    args = parser.parse_args()
    model = Model(FULL_DECK)
    scores_g = np.arange(model.max_score + 1, dtype=float)
    zero_g = (scores_g == 0).astype(float)
    rule = (model.h[None, :] == 1) | (model.nsum[:, None] < 23)
    checks = [("stay at 23", rule, stay_at_23, None)]
    if args.values:
        v = json.loads(Path(args.values).read_text())["rounds_to_go"]
        target, t = len(v), args.total
        g = model.terminal_values(v, t, v[t], target)
        _, _, hit = model.solve(g)
        checks.append((f"optimal from total {t}", hit, lambda view: bool(hit[model_state(model, view)]), g))
    print(f"{args.rounds:,} engine rounds per policy (deal seeds 0..{args.rounds - 1})")
    for name, rule, play, g in checks:
        mean_score = model.solve(scores_g, hit_rule=rule)[0]
        p_zero = model.solve(zero_g, hit_rule=rule)[0]
        scores = [engine_round(seed, play) for seed in range(args.rounds)]
        mean, half = summary(scores)
        zero, zhalf = summary([float(s == 0) for s in scores])
        print(f"  {name}: mean round score model {mean_score:.4f}, engine {mean:.4f} +- {half:.4f}; "
              f"P(0) model {p_zero:.5f}, engine {zero:.5f} +- {zhalf:.5f}")
        if g is not None:
            predicted = model.solve(g, hit_rule=rule)[0]
            value, vhalf = summary([g[s] for s in scores])
            print(f"    E[V(T + S)]: model {predicted:.5f}, engine {value:.5f} +- {vhalf:.5f}")


if __name__ == "__main__":
    main()
