"""Fit Flip Hue's position value (issue 22, item 2): P(each seat wins) from the features of
`arena_bots.flip_hue_value`, regressed on self-play outcomes, written to
bots/data/flip_hue_value.json for `evaluate_flip_hue_fitted`.

ismcts's Flip Hue playouts are three heuristic decisions long (the heuristic looks two
plies ahead, so a playout is dear), so nearly every iteration ends at a cut-off and the
value there is what the search learns from. Today's value compares the seats' longest
lines (k^2 / 5, pairwise sigmoid), whoever moves next and whatever else they hold.

Data: `--games` self-play games of flip-hue-heuristic at every seat (the playout policy,
so the value matches the playouts it ends), 2 to 4 players; at each decision, with
probability `--every`, the features of every seat; the label is the game's winner
(games ended by max_turns, everyone tied, are left out). Model: a conditional logit,
P(s wins) = exp(w . x_s) / sum_seats exp(w . x), fitted by Newton's method on the first
80% of the games; the report compares held-out log loss with uniform chances and with
today's quantity as a softmax (exp(k^2 / 5) over seats).

Usage::

    .venv/bin/python benchmarks/fit_flip_hue_value.py --games 3000 --write    # needs numpy (the test extra)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from arena.plugins import load_registry
from arena_bots.flip_hue_heuristic import FlipHueHeuristicBot
from arena_bots.flip_hue_value import FEATURES, seat_features

sys.path.insert(0, str(Path(__file__).resolve().parent))
from self_play import play_out, seated_bots  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "bots" / "data" / "flip_hue_value.json"


def self_play(games: int, seed: int, every: float) -> list[tuple[int, np.ndarray, int]]:
    """(game number, features by seat, winner) for the sampled decisions of every won game."""
    ruleset = load_registry().ruleset("flip-hue").cls
    options = ruleset.resolve_options({})
    master = random.Random(seed)
    rows = []
    for game in range(games):
        players = 2 + game % 3
        state = ruleset.new_game(players, options, random.Random(master.getrandbits(64)))
        pick = random.Random(master.getrandbits(64))
        bots = seated_bots(FlipHueHeuristicBot, "flip-hue", players, options, master)
        taken = []

        def sample(state):
            if pick.random() < every:
                taken.append(np.array(seat_features(state)))
        play_out(state, bots, "flip-hue", options, sample)
        if state.winner is not None:
            rows.extend((game, x, state.winner) for x in taken)
    return rows


def fit(rows: list[tuple[int, np.ndarray, int]], iterations: int = 50, ridge: float = 1e-3) -> np.ndarray:
    """The conditional logit's weights by Newton's method (a small ridge keeps it finite);
    positions are grouped by table size so that each group is one array."""
    groups = {}
    for _, x, winner in rows:
        groups.setdefault(len(x), ([], []))
        groups[len(x)][0].append(x)
        groups[len(x)][1].append(winner)
    arrays = [(np.array(xs), np.array(ws)) for _, (xs, ws) in sorted(groups.items())]
    k = rows[0][1].shape[1]
    w = np.zeros(k)
    for _ in range(iterations):
        gradient = ridge * w
        hessian = ridge * np.eye(k)
        for x, winners in arrays:                      # x: (positions, seats, features)
            u = x @ w
            p = np.exp(u - u.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            mean = np.einsum("ps,psk->pk", p, x)
            gradient += mean.sum(axis=0) - x[np.arange(len(x)), winners].sum(axis=0)
            hessian += np.einsum("ps,psk,psl->kl", p, x, x) - mean.T @ mean
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def log_loss(rows: list[tuple[int, np.ndarray, int]], utility) -> float:
    total = 0.0
    for _, x, winner in rows:
        u = utility(x)
        u = u - u.max()
        total -= u[winner] - np.log(np.exp(u).sum())
    return total / len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--every", type=float, default=0.1, help="share of decisions sampled")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--write", action="store_true", help=f"write {OUT}")
    args = parser.parse_args(argv)
    started = time.process_time()
    rows = self_play(args.games, args.seed, args.every)
    cut = int(args.games * 0.8)
    train = [r for r in rows if r[0] < cut]
    test = [r for r in rows if r[0] >= cut]
    w = fit(train)
    fitted = log_loss(test, lambda x: x @ w)
    uniform = log_loss(test, lambda x: np.zeros(len(x)))
    today = log_loss(test, lambda x: (5 * x[:, 0]) ** 2 / 5)   # x[:, 0] = k / 5
    print(f"{args.games} self-play games (2-4 players, flip-hue-heuristic), {len(rows)} positions "
          f"({len(train)} fit, {len(test)} held out), {time.process_time() - started:.0f} s CPU")
    print("weights " + ", ".join(f"{name} {v:+.3f}" for name, v in zip(FEATURES, w)))
    print(f"held out: log loss {fitted:.4f} fitted vs {today:.4f} today's k^2/5 as a softmax, "
          f"{uniform:.4f} uniform")
    if args.write:
        OUT.parent.mkdir(exist_ok=True)
        OUT.write_text(json.dumps({
            "model": "P(seat s wins) = exp(w . x_s) / sum over seats exp(w . x), x = features",
            "features": list(FEATURES),
            "weights": [round(float(v), 6) for v in w],
            "fitted_on": f"{args.games} self-play games of flip-hue-heuristic, 2-4 players, "
                         f"{args.every:.0%} of decisions, seed {args.seed}",
            "held_out": {"log_loss": round(fitted, 5), "log_loss_today_as_softmax": round(today, 5),
                         "log_loss_uniform": round(uniform, 5)},
            "made_by": f"benchmarks/fit_flip_hue_value.py --games {args.games} --every {args.every} "
                       f"--seed {args.seed} --write",
        }, indent=2) + "\n")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
