"""Fit Flip 7's round-end value (issue 22, item 2): P(seat A finishes ahead of seat B) from
their totals, regressed on self-play outcomes, written to arena/rules/flip_7/data/value.json
for Flip 7's `evaluate` (arena/rules/flip_7/evaluation.py).

ismcts's Flip 7 playouts stop at the end of the round, so the value of a round-end
position is all its search learns from. Today's value is a fixed sigmoid of the total
difference, sigmoid(5 (a - b) / target), the same whether both are at 20 or at 180. The
fitted model lets the weight of a lead grow as the leader nears the target:

    logit P(A ahead of B) = d * (w0 + w1 m + w2 m^2 + w3 m^3),   d = (a - b) / target,
                                                                  m = min(max(a, b) / target, 1.2)

(odd in d, so P(A ahead of B) + P(B ahead of A) = 1 and equal totals give 1/2). Data:
`--games` self-play games of flip7-threshold at every seat (the ruleset's playout
policy, so the value matches the playouts it ends), 2 to 4 players, the default target
200; every round end before the last gives, for every ordered pair of seats, the
totals and whether A finished ahead (1), tied (1/2) or behind (0). Fitted by Newton's
method on the cross-entropy over the first 80% of the games; the report compares log
loss and Brier score with today's sigmoid on the last 20%.

Usage::

    .venv/bin/python benchmarks/fit_flip7_value.py --games 20000 --write    # needs numpy (the test extra)
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

from arena.plugins import load_registry
from arena_bots.flip7_threshold import Flip7ThresholdBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from self_play import play_out, seated_bots  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "arena" / "rules" / "flip_7" / "data" / "value.json"
M_CAP = 1.2


def features(a: float, b: float, target: float) -> list[float]:
    d = (a - b) / target
    m = min(max(a, b) / target, M_CAP)
    return [d, d * m, d * m * m, d * m * m * m]


def self_play(games: int, seed: int) -> list[tuple[int, list[list[float]], list[float]]]:
    """(game number, feature rows, labels) for every ordered pair at every round end but the last."""
    ruleset = load_registry().ruleset("flip-7").cls
    options = ruleset.resolve_options({})
    target = options["target_score"]
    rows = []
    master = random.Random(seed)
    for game in range(games):
        players = 2 + game % 3
        state = ruleset.new_game(players, options, random.Random(master.getrandbits(64)))
        bots = seated_bots(Flip7ThresholdBot, "flip-7", players, options, master)
        snapshots = []

        def note_round_ends(state):
            for event in state.drop_events(0):
                if event["type"] == "round-end":
                    snapshots.append(list(event["totals"]))
        play_out(state, bots, "flip-7", options, note_round_ends)
        note_round_ends(state)   # the events of the last move
        standing = state.outcome()["standing"]
        for totals in snapshots[:-1]:   # the last round end is the game's end
            for a in range(players):
                for b in range(players):
                    if a != b:
                        label = 1.0 if standing[a] < standing[b] else 0.5 if standing[a] == standing[b] else 0.0
                        rows.append((game, features(totals[a], totals[b], target), label))
    return rows


def fit(x: np.ndarray, y: np.ndarray, iterations: int = 50) -> np.ndarray:
    """Logistic regression without intercept by Newton's method (soft labels allowed)."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (p - y)
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def scores(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    log_loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    return log_loss, float(np.mean((p - y) ** 2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write", action="store_true", help=f"write {OUT}")
    args = parser.parse_args(argv)
    started = time.process_time()
    rows = self_play(args.games, args.seed)
    cut = int(args.games * 0.8)
    train = [r for r in rows if r[0] < cut]
    test = [r for r in rows if r[0] >= cut]
    x_train, y_train = np.array([r[1] for r in train]), np.array([r[2] for r in train])
    x_test, y_test = np.array([r[1] for r in test]), np.array([r[2] for r in test])
    w = fit(x_train, y_train)
    fitted = scores(1 / (1 + np.exp(-x_test @ w)), y_test)
    today = scores(1 / (1 + np.exp(-5 * x_test[:, 0])), y_test)
    print(f"{args.games} self-play games (2-4 players, flip7-threshold), {len(rows)} pair rows "
          f"({len(train)} fit, {len(test)} held out), {time.process_time() - started:.0f} s CPU")
    print(f"weights {np.round(w, 4).tolist()}")
    print(f"held out: log loss {fitted[0]:.4f} fitted vs {today[0]:.4f} today's sigmoid(5d); "
          f"Brier {fitted[1]:.4f} vs {today[1]:.4f}")
    for m in (0.1, 0.5, 0.8, 0.95):
        slope = w[0] + w[1] * m + w[2] * m * m + w[3] * m ** 3
        print(f"  leader at {m:.0%} of the target: a 10% lead wins the pair with "
              f"{1 / (1 + math.exp(-0.1 * slope)):.3f} (today {1 / (1 + math.exp(-0.5)):.3f})")
    if args.write:
        OUT.parent.mkdir(exist_ok=True)
        OUT.write_text(json.dumps({
            "model": "logit P(A ahead of B) = d * (w0 + w1 m + w2 m^2 + w3 m^3), "
                     f"d = (a - b) / target, m = min(max(a, b) / target, {M_CAP})",
            "weights": [round(float(v), 6) for v in w], "m_cap": M_CAP,
            "fitted_on": f"{args.games} self-play games of flip7-threshold, 2-4 players, target 200, seed {args.seed}",
            "held_out": {"log_loss": round(fitted[0], 5), "brier": round(fitted[1], 5),
                         "log_loss_fixed_sigmoid": round(today[0], 5), "brier_fixed_sigmoid": round(today[1], 5)},
            "made_by": f"benchmarks/fit_flip7_value.py --games {args.games} --seed {args.seed} --write",
        }, indent=2) + "\n")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
