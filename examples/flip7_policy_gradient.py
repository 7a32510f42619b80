"""A small reinforcement-learning agent for Flip 7, trained on CPU in minutes with numpy only.

    python examples/flip7_policy_gradient.py train --games 3000 --out examples/flip7_pg.npz
    python examples/flip7_policy_gradient.py evaluate --weights examples/flip7_pg.npz --deals 200
    python examples/flip7_policy_gradient.py serve --weights examples/flip7_pg.npz   # the bot protocol

The agent is a linear softmax policy over the legal actions (`action_features`: for a hit,
the chance it busts, the row's score and the lead; for handing out an action card, whom it
goes to), trained by REINFORCE with a running-mean baseline in the PettingZoo environment
(`arena.envs.pettingzoo`) against an arena bot (default: `flip7-threshold`, the
heuristic), the seats alternating. It reads the raw observation the environment puts in
``info["observation"]`` (asked for with ``raw_observations=True``) and answers with the
environment's action index; its reward is the environment's, each seat's return at the end
of the game (`arena.returns`).

Entered as a bot (`PolicyBot`, an `arena.Bot`), it plays anywhere a bot plays:
`arena.play`, `arena match flip-7 ./examples/flip7_policy_gradient.py:PolicyBot random`,
or a tournament through the bot protocol (``serve``; see docs/rl.md). `evaluate` reports
its head-to-head against `random` and the heuristic over deals, both seat orders per
deal, with the paired-score interval of `arena.pairwise`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

import arena
from arena.envs.pettingzoo import env as make_env
from arena.pairwise import paired_scores, summarize

RULESET = "flip-7"
PLAYERS = 2
DEFAULT_WEIGHTS = Path(__file__).with_name("flip7_pg.npz")


KINDS = ("freeze", "flip-three", "second-chance")
FEATURES = 5 + 3 * len(KINDS)


def action_features(observation: dict, action: str) -> np.ndarray:
    """What the policy sees of one legal action (a linear softmax over these).

    ``hit``: a bias, the chance that the hit busts, the row's score, their product and the
    seat's lead (its total plus this round's score, less the best other total, over the
    target). ``stay``: all zeros (the reference). ``freeze:s``, ``flip-three:s``,
    ``second-chance:s``: per kind, whether s is the acting seat, s's total plus round
    score over the target, and s's round score."""
    view, seat = observation["view"], observation["seat"]
    rows, totals, target = view["rows"], view["totals"], float(view["target_score"])
    x = np.zeros(FEATURES)
    if action == "hit":
        row = rows[seat]
        unseen = view["unseen"]
        left = sum(unseen.values()) or 1
        bust = 0.0 if row["second_chance"] else sum(unseen.get(str(n), 0) for n in set(row["numbers"])) / left
        score = row["score"] / 50.0
        best_other = max((totals[s] + rows[s]["score"] for s in range(len(rows)) if s != seat), default=0)
        x[:5] = [1.0, bust, score, bust * score, (totals[seat] + row["score"] - best_other) / target]
    elif action != "stay":
        kind, _, target_seat = action.rpartition(":")
        s = int(target_seat)
        at = 5 + 3 * KINDS.index(kind)
        x[at:at + 3] = [float(s == seat), (totals[s] + rows[s]["score"]) / target, rows[s]["score"] / 50.0]
    return x


class LinearPolicy:
    """Softmax over the legal actions of ``theta @ action_features(observation, action)``."""

    def __init__(self, theta: np.ndarray):
        self.theta = theta

    @classmethod
    def fresh(cls) -> LinearPolicy:
        return cls(np.zeros(FEATURES))

    @classmethod
    def load(cls, path: Path | str) -> LinearPolicy:
        with np.load(path) as data:
            return cls(data["theta"])

    def save(self, path: Path | str) -> None:
        np.savez(path, theta=self.theta)

    def probabilities(self, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions' feature rows and their probabilities."""
        rows = np.array([action_features(observation, a) for a in observation["legal_actions"]])
        logits = rows @ self.theta
        exp = np.exp(logits - logits.max())
        return rows, exp / exp.sum()


def train(games: int, opponent: str = "flip7-threshold", seed: int = 0, learning_rate: float = 0.01,
          log_every: int = 500) -> LinearPolicy:
    """REINFORCE against `opponent` for `games` games (the agent's seat alternates)."""
    game = make_env(RULESET, players=PLAYERS, raw_observations=True)
    encoding = game.unwrapped.encoding
    policy = LinearPolicy.fresh()
    rng = np.random.default_rng(seed)
    opponent_cls = arena.bots.get(opponent)
    baseline, won, started = 0.0, 0.0, time.time()
    for episode in range(games):
        me = f"player_{episode % PLAYERS}"
        game.reset(seed=seed * 1_000_003 + episode)
        other = opponent_cls()
        other.rng = random.Random(episode)
        trajectory: list[tuple[np.ndarray, np.ndarray, int]] = []  # feature rows, probabilities, choice
        result = 0.0
        for agent in game.agent_iter():
            observation, reward, termination, truncation, info = game.last()
            if termination or truncation:
                if agent == me:
                    result = reward
                game.step(None)
                continue
            raw = info["observation"]
            if agent == me:
                rows, p = policy.probabilities(raw)
                choice = int(rng.choice(len(p), p=p))
                trajectory.append((rows, p, choice))
                action = encoding.index[raw["legal_actions"][choice]]
            else:
                action = encoding.index[other.act(raw)]
            game.step(action)
        advantage = result - baseline
        baseline += 0.01 * (result - baseline)
        for rows, p, choice in trajectory:
            policy.theta += learning_rate * advantage * (rows[choice] - p @ rows)  # grad of log p[choice]
        won += result > 0
        if log_every and (episode + 1) % log_every == 0:
            print(f"game {episode + 1}: won {won / log_every:.0%} of the last {log_every} against {opponent} "
                  f"({time.time() - started:.0f} s)", file=sys.stderr)
            won = 0.0
    return policy


class PolicyBot(arena.Bot):
    """The trained policy as an arena bot: the most probable legal action (params:
    `weights`, a .npz from `train`; default examples/flip7_pg.npz)."""

    name = "flip7-pg"
    rulesets = (RULESET,)

    def __init__(self, weights: str | None = None):
        self.policy = LinearPolicy.load(weights or DEFAULT_WEIGHTS)

    def act(self, observation: dict) -> str:
        _, p = self.policy.probabilities(observation)
        return observation["legal_actions"][int(np.argmax(p))]


def head_to_head(opponent: str, deals: int, seed: int = 1, weights: str | None = None) -> dict:
    """`deals` deals of two games each (each seat order) against `opponent`: the agent's
    paired score over deals (1 = it finished ahead in both games), interval, LOS."""
    bot = type("Trained", (PolicyBot,), {"__init__": lambda self: PolicyBot.__init__(self, weights)})
    games = []
    for deal in range(deals):
        deal_seed = seed * 1_000_003 + deal
        for order in ([bot, opponent], [opponent, bot]):
            result = arena.play(RULESET, order, seed=deal_seed)
            entries = ["flip7-pg" if spec is bot else opponent for spec in order]
            games.append((deal, entries, result.standing))
    summary = summarize(paired_scores(games)[("flip7-pg", opponent)])
    return {"opponent": opponent, "deals": summary.deals, "paired_score": round(summary.mean, 3),
            "interval_95": [round(summary.interval.low, 3), round(summary.interval.high, 3)],
            "los": round(summary.los, 3)}


def serve(weights: str | None) -> None:
    """Play over the bot protocol (docs/protocol.md) on stdin/stdout, one game after another."""
    from arena.protocol import PROTOCOL_VERSION

    bot = None
    channel = sys.stdout
    sys.stdout = sys.stderr  # nothing but protocol lines on the channel
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            reply = {"type": "hello", "protocol": PROTOCOL_VERSION, "bot": PolicyBot.name}
        elif kind == "start":
            bot = PolicyBot(weights)
            bot.rng = random.Random(message["seed"])
            bot.start(message["info"])
            reply = {"type": "ok"}
        elif kind == "act":
            reply = {"type": "action", "action": bot.act(message["observation"])}
        elif kind == "end":
            reply = {"type": "ok"}
        else:
            return
        channel.write(json.dumps(reply) + "\n")
        channel.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    training = commands.add_parser("train", help="train and save the weights")
    training.add_argument("--games", type=int, default=3000)
    training.add_argument("--opponent", default="flip7-threshold")
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--learning-rate", type=float, default=0.01)
    training.add_argument("--out", default=str(DEFAULT_WEIGHTS))
    evaluating = commands.add_parser("evaluate", help="head-to-head against random and the heuristic")
    evaluating.add_argument("--weights", default=str(DEFAULT_WEIGHTS))
    evaluating.add_argument("--deals", type=int, default=200)
    serving = commands.add_parser("serve", help="play over the bot protocol")
    serving.add_argument("--weights", default=str(DEFAULT_WEIGHTS))
    args = parser.parse_args()
    if args.command == "train":
        started = time.time()
        policy = train(args.games, args.opponent, args.seed, args.learning_rate)
        policy.save(args.out)
        print(f"trained on {args.games} games in {time.time() - started:.0f} s; weights in {args.out}")
    elif args.command == "evaluate":
        for opponent in ("random", "flip7-threshold"):
            print(json.dumps(head_to_head(opponent, args.deals, weights=args.weights)))
    else:
        serve(args.weights)


if __name__ == "__main__":
    main()
