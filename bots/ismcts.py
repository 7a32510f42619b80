"""`ismcts`: information-set Monte Carlo tree search, for every ruleset that can be determinized.

The algorithm is single-observer ISMCTS (Cowling, Powley & Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012):

- Each iteration draws one *determinization*: a full game state consistent with what this
  seat has seen, from the ruleset's ``Ruleset.sample_state(observation, rng, events)``
  (``events``: every event this seat has received this game, accumulated by the bot).
- One tree is shared by all determinizations. A node stands for an information set of
  the searching seat, identified by the sequence of decisions taken from the root; its
  children are keyed by ``(seat, action string)`` of the decision taken (chance is not
  in the tree: a card drawn after "hit" is whatever the determinization holds, so the
  tree is open-loop over chance).
- Selection descends while every action legal in the current determinization already
  has a child, by UCB1 with *availability counts*: a child's ``avail`` counts the
  visits of its parent in which the child's action was legal, and the exploration
  term is ``c * sqrt(ln(avail) / visits)`` (the subset-armed bandit of section IV-B).
  The value of a child is the mean reward of the seat that chose it.
- Expansion adds one untried action (uniformly; at the root the playout policy's own choice
  first), then a playout runs for at most `playout_depth` decisions: every seat played by
  the ruleset's built-in heuristic bot (flip-7: flip7-threshold, uno-flip:
  uno-flip-heuristic, color-flush: color-flush-heuristic, flip-hue: flip-hue-heuristic; each
  gets the sampled state's view of its seat as its observation), or uniformly at random for
  a ruleset without one (or with ``playout = "random"``). A Flip 7 playout also stops at
  the end of the current round. A finished game is scored from its standing; a cut-off
  position by a cheap per-ruleset evaluation of the determinized state (below).
- At the root the playout policy's own choice (the *favourite*) gets a progressive-bias
  bonus ``prior_weight * sqrt(N + 1) / (1 + n)`` (N: root visits, n: the favourite's), the
  PUCT form with all of the prior on the favourite: the search spends most of its visits on
  the heuristic's move and leaves it only for a move whose mean reward is clearly better.
  With 200 iterations over Color Flush's many give/take moves, visits alone are too thin
  to beat the heuristic's one- to two-ply lookahead: without the bonus ismcts won 11 of 36
  games against color-flush-heuristic's 25 (12 deals x 3 rotations, seed 777, with random
  as the third seat); with ``prior_weight = 1`` it won 20 to the heuristic's 14. In Flip 7,
  where the heuristic is a fixed threshold and search finds better, the bonus hurts (20
  deals x 3 rotations: 43 wins of 60 against flip7-threshold's 16 without it, 29 to 29
  with it), so the default is per ruleset (``PRIOR_WEIGHT``).
- The move played is the root child with the most visits (ties: the playout policy's
  choice, then the first in legal order).

Rewards are per seat, in [0, 1]: for a finished game, the share of the other seats this
seat finished ahead of (a tie counts one half), so a win is 1, a draw at the turn limit
1/2 and last place 0. The cut-off evaluation returns the same kind of number, from a
smooth per-seat "strength" ``v`` compared pairwise (``sigmoid((v_s - v_o) / scale)``):

- flip-7: total score plus the round score so far (banked rows in full, an active row at
  75 %: it may still bust), scale = target / 5; solo: progress toward the target.
- uno-flip: fewer cards in hand is better (6 points per card); with a target score the
  totals count too (scaled so that the target is worth 60 cards' difference).
- color-flush: minus the distance to a flush of color-flush-heuristic (``distance``), on
  each hand as its holder knows it in the determinization.
- flip-hue: the longest line toward five of one of the seat's faction colors, over its own
  faces and the backs of every other hand (both win), squared.
- any other ruleset: 1/2 for everybody (search then rests on finished playouts alone).

Parameters (all keyword, JSON values, for the tournament file's ``params``):

- ``iterations`` (int, default 200): iterations per decision. With it the bot is
  deterministic: all its chance comes from ``self.rng``.
- ``time_per_move`` (seconds, default None): if given, search runs until that much
  wall-clock time has passed (at least one iteration) instead of a fixed count; the
  decisions then depend on the machine's speed. The *instance* then has
  ``time_dependent = True``; the class attribute stays False because `arena validate`
  checks the bot with its default parameters, which are deterministic.
- ``exploration`` (float, default 0.7): the UCB constant ``c`` (rewards are in [0, 1]).
- ``playout_depth`` (int, default per ruleset: flip-7 60 (the round's end comes first),
  uno-flip 20, color-flush and flip-hue 3 (their heuristics cost about a millisecond a
  decision; 0 with random playouts: the evaluation comes right after the tree's move),
  others 20): decisions of playout before the cut-off evaluation.
- ``playout`` ("heuristic", the default, or "random"): the playout policy.
- ``prior_weight`` (float, default per ruleset: 1 for color-flush and flip-hue, whose
  heuristics look ahead; 0, plain ISMCTS, for flip-7, uno-flip and any other): the root
  bonus of the playout policy's choice (above). With ``playout = "random"`` there is no
  favourite, so no bonus.

It uses only its observation, the public rules API (``sample_state``, ``legal_actions``,
``apply``, ``current_seat``, ``is_terminal``, ``outcome``, ``view``, ``take_events``), the
built-in heuristic bots as playout policies (seeded from ``self.rng``) and ``self.rng``, so it runs in process
isolation like any submission. The ruleset class comes from the plugin registry
(``arena.plugins.load_registry``, loaded once per process). A ruleset without
``sample_state`` is played by uniform random choice (a note goes to stderr); so is the rest
of a game in which the sampler fails (the error is noted on stderr).
"""

from __future__ import annotations

import importlib
import math
import random
import sys
import time
from typing import Any, Callable

import arena
from arena.rules.base import fresh_copy

_RULESETS: dict[str, Any] = {}


def ruleset_class(ruleset_id: str) -> Any:
    """The registered ruleset class for `ruleset_id` (the registry is loaded once per process)."""
    if not _RULESETS:
        from arena.plugins import load_registry

        registry = load_registry()
        _RULESETS.update({rid: entry.cls for rid, entry in registry.rulesets.items()})
    return _RULESETS.get(ruleset_id)


class _Node:
    """One information set of the search tree (the root, or reached by `key` from its parent)."""

    __slots__ = ("seat", "children", "visits", "avail", "reward")

    def __init__(self, seat: int) -> None:
        self.seat = seat          # who chose the action leading here (its reward is kept)
        self.children: dict[tuple[int, str], _Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = 0.0


class ISMCTSBot(arena.Bot):
    """Single-observer ISMCTS over the ruleset's determinizations (`sample_state`)."""

    name = "ismcts"
    rulesets = "*"
    time_dependent = False

    def __init__(self, iterations: int = 200, time_per_move: float | None = None,
                 exploration: float = 0.7, playout_depth: int | None = None, playout: str = "heuristic",
                 prior_weight: float | None = None):
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
        if time_per_move is not None and (isinstance(time_per_move, bool)
                                          or not isinstance(time_per_move, (int, float)) or time_per_move <= 0):
            raise ValueError(f"time_per_move must be a positive number of seconds, not {time_per_move!r}")
        if isinstance(exploration, bool) or not isinstance(exploration, (int, float)) or exploration < 0:
            raise ValueError(f"exploration must be a non-negative number, not {exploration!r}")
        if playout_depth is not None and (isinstance(playout_depth, bool) or not isinstance(playout_depth, int)
                                          or playout_depth < 0):
            raise ValueError(f"playout_depth must be a non-negative integer, not {playout_depth!r}")
        if prior_weight is not None and (isinstance(prior_weight, bool)
                                         or not isinstance(prior_weight, (int, float)) or prior_weight < 0):
            raise ValueError(f"prior_weight must be a non-negative number, not {prior_weight!r}")
        if playout not in ("heuristic", "random"):
            raise ValueError(f'playout must be "heuristic" or "random", not {playout!r}')
        self.iterations = iterations
        self.time_per_move = float(time_per_move) if time_per_move is not None else None
        self.time_dependent = time_per_move is not None
        self.exploration = float(exploration)
        self.playout_depth = playout_depth
        self.playout = playout
        self.prior_weight = prior_weight
        self.bias = 0.0
        self.depth = 0
        self.policy: type | None = None
        self.prior: type | None = None
        self.info: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.ruleset: Any = None
        self.evaluate: Callable[[Any, int], list[float]] = _neutral
        self._failed = False
        self._started = False

    # -- the bot protocol ------------------------------------------------------------

    def start(self, info):
        self.events = []
        self._failed = False
        self._started = True
        self.ruleset = ruleset_class(info["ruleset"])
        if self.ruleset is None or not callable(getattr(self.ruleset, "sample_state", None)):
            self.ruleset = None
            print(f"ismcts: ruleset {info['ruleset']!r} has no sample_state; playing at random",
                  file=sys.stderr)
        self.evaluate = EVALUATIONS.get(info["ruleset"], _neutral)
        self.info = dict(info)
        cheap = self.playout == "heuristic" and info["ruleset"] in CHEAP_HEURISTICS
        self.policy = self.prior = heuristic_bot(info["ruleset"]) if cheap else None
        self.bias = float(self.prior_weight if self.prior_weight is not None
                          else PRIOR_WEIGHT.get(info["ruleset"], 0.0))
        self.depth = (self.playout_depth if self.playout_depth is not None
                      else PLAYOUT_DEPTH.get((info["ruleset"], self.policy is not None), 20))

    def act(self, observation):
        self.events.extend(observation["events"])
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        if not self._started:
            # start() was not called (a harness that skips it): find the ruleset now
            events = self.events
            self.start({"ruleset": observation["ruleset"], "seat": observation["seat"],
                        "players": observation.get("players"), "options": observation.get("options")})
            self.events = events
        if self.ruleset is None or self._failed:
            return self.rng.choice(legal)
        try:
            return self.search(observation)
        except Exception as exc:  # a sampler bug must not cost the game: play on at random
            self._failed = True
            print(f"ismcts: search failed ({type(exc).__name__}: {exc}); playing at random from now on",
                  file=sys.stderr)
            return self.rng.choice(legal)

    # -- the search ---------------------------------------------------------------------

    def search(self, observation: dict[str, Any]) -> str:
        """Run the iterations from this observation; the most visited legal action."""
        legal = observation["legal_actions"]
        me = observation["seat"]
        rng = self.rng
        sample = self.ruleset.sample_state
        events = self.events
        root = _Node(me)
        c = self.exploration
        depth = self.depth
        stop_event = PLAYOUT_STOP.get(observation["ruleset"])
        evaluate = self.evaluate
        log = math.log
        sqrt = math.sqrt
        bots = self._policy_bots(observation, self.policy) if self.policy is not None else None
        base = {"ruleset": observation["ruleset"], "version": observation.get("version"),
                "options": observation.get("options"), "players": observation.get("players"),
                "events": []}
        # the heuristic's own choice is tried first and wins ties of the final count
        favourite = legal[0]
        if self.prior is not None:
            adviser = bots[me] if bots is not None else self._policy_bots(observation, self.prior)[me]
            choice = adviser.act(fresh_copy(observation))
            if choice in legal:
                favourite = choice
        bias = self.bias
        favourite_child = None
        deadline = None if self.time_per_move is None else time.perf_counter() + self.time_per_move
        iteration = 0
        while True:
            if deadline is None:
                if iteration >= self.iterations:
                    break
            elif iteration > 0 and time.perf_counter() >= deadline:
                break
            iteration += 1
            state = sample(observation, rng, events)
            node = root
            path = []
            # selection: descend while every legal action has a child
            while True:
                seat = state.current_seat()
                if seat is None:
                    break
                actions = state.legal_actions()
                children = node.children
                untried = []
                best = None
                best_value = -1.0
                for action in actions:
                    child = children.get((seat, action))
                    if child is None:
                        untried.append(action)
                        continue
                    child.avail += 1
                    value = child.reward / child.visits + c * sqrt(log(child.avail) / child.visits)
                    if child is favourite_child:
                        value += bias * sqrt(root.visits + 1) / (1 + child.visits)
                    if value > best_value:
                        best, best_value, best_action = child, value, action
                if untried:
                    if node is root and favourite in untried:
                        action = favourite
                    else:
                        action = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    child = _Node(seat)
                    children[(seat, action)] = child
                    if node is root and action == favourite and bias:
                        favourite_child = child
                    state.apply(action)
                    path.append(child)
                    break
                node = best
                state.apply(best_action)
                path.append(node)
            # playout: the ruleset's heuristic bot for every seat, or uniform
            steps = 0
            if stop_event is not None:
                state.take_events(me)   # what the determinization and the tree emitted so far
            while steps < depth and not state.is_terminal():
                actions = state.legal_actions()
                if len(actions) == 1:
                    action = actions[0]
                elif bots is not None:
                    seat = state.current_seat()
                    action = bots[seat].act(dict(base, seat=seat, view=state.view(seat), legal_actions=actions))
                    if action not in actions:
                        action = actions[rng.randrange(len(actions))]
                else:
                    action = actions[rng.randrange(len(actions))]
                state.apply(action)
                steps += 1
                if stop_event is not None and any(e["type"] == stop_event for e in state.take_events(me)):
                    break
            rewards = outcome_rewards(state.outcome()) if state.is_terminal() else evaluate(state, me)
            # backpropagation
            root.visits += 1
            for visited in path:
                visited.visits += 1
                visited.reward += rewards[visited.seat]
        best_action, best_visits = favourite, -1
        for action in [favourite] + legal:
            child = root.children.get((me, action))
            if child is not None and child.visits > best_visits:
                best_action, best_visits = action, child.visits
        return best_action

    def _policy_bots(self, observation: dict[str, Any], policy: type) -> list[Any]:
        """One playout bot per seat (the ruleset's heuristic), seeded from `self.rng`."""
        bots = []
        info = self.info
        for seat in range(observation["players"]):
            bot = policy()
            bot.rng = random.Random(self.rng.getrandbits(64))
            bot.start({"ruleset": observation["ruleset"], "version": observation.get("version"),
                       "options": fresh_copy(observation.get("options")), "seat": seat,
                       "players": observation["players"], "bots": info.get("bots")})
            bots.append(bot)
        return bots


def heuristic_bot(ruleset_id: str) -> type | None:
    """The built-in heuristic bot class that plays `ruleset_id`, if any."""
    module_name, class_name = HEURISTICS.get(ruleset_id, (None, None))
    if module_name is None:
        return None
    module = importlib.import_module(module_name)
    return getattr(module, class_name)


HEURISTICS = {
    "flip-7": ("arena_bots.flip7_threshold", "Flip7ThresholdBot"),
    "uno-flip": ("arena_bots.uno_flip_heuristic", "UnoFlipHeuristicBot"),
    "color-flush": ("arena_bots.color_flush_heuristic", "ColorFlushHeuristicBot"),
    "flip-hue": ("arena_bots.flip_hue_heuristic", "FlipHueHeuristicBot"),
}
# the heuristics used as playout policies (all four). Flip 7's and UNO Flip's cost a few
# microseconds a decision; Color Flush's and Flip Hue's look one to two plies ahead (~1 ms a
# decision), so their playouts are short (3 decisions: about the rest of a turn). Measured
# before this choice: with no playout (evaluation right after the tree's move) ismcts at
# 100 iterations won 1 of 12 games against color-flush-heuristic and 3 of 12 against
# flip-hue-heuristic; with 3 heuristic decisions, 7 of 12 and (at 50 iterations) 6 of 12.
CHEAP_HEURISTICS = ("flip-7", "uno-flip", "color-flush", "flip-hue")
# the default root bonus of the heuristic's choice (prior_weight), by ruleset; 0 elsewhere
PRIOR_WEIGHT = {"color-flush": 1.0, "flip-hue": 1.0}
# playouts also stop at the first such event the searching seat receives (the end of a
# Flip 7 round: what follows is mostly noise for this round's hit-or-stay decisions)
PLAYOUT_STOP = {"flip-7": "round-end"}
# default playout depth by (ruleset, heuristic playouts?)
PLAYOUT_DEPTH = {
    ("flip-7", True): 60, ("flip-7", False): 60,
    ("uno-flip", True): 20, ("uno-flip", False): 20,
    ("color-flush", True): 3, ("color-flush", False): 0,
    ("flip-hue", True): 3, ("flip-hue", False): 0,
}


# -- rewards and cut-off evaluations ----------------------------------------------------


def outcome_rewards(outcome: dict[str, Any]) -> list[float]:
    """Per seat: the share of the other seats it finished ahead of, a tie counting 1/2."""
    standing = outcome["standing"]
    n = len(standing)
    if n == 1:
        rounds = outcome.get("rounds")
        return [1.0 / (1 + 0.1 * rounds) if isinstance(rounds, int) else 1.0]
    rewards = []
    for mine in standing:
        ahead = sum(1.0 if mine < other else 0.5 if mine == other else 0.0 for other in standing)
        rewards.append((ahead - 0.5) / (n - 1))   # the seat itself counted 1/2 above
    return rewards


def pairwise(values: list[float], scale: float) -> list[float]:
    """Per seat: the mean over other seats of sigmoid((v_seat - v_other) / scale)."""
    n = len(values)
    if n == 1:
        return [1.0]
    exp = math.exp
    result = []
    for s, mine in enumerate(values):
        total = 0.0
        for o, other in enumerate(values):
            if o != s:
                x = (mine - other) / scale
                total += 1.0 / (1.0 + exp(-x)) if x > -50 else 0.0
        result.append(total / (n - 1))
    return result


def _neutral(state: Any, me: int) -> list[float]:
    return [0.5] * state.players


def _evaluate_flip_7(state: Any, me: int) -> list[float]:
    view = state.view(me)   # everything in Flip 7 is public: one view shows every row
    target = max(1, view["target_score"])
    values = []
    for total, row in zip(view["totals"], view["rows"]):
        score = row["score"]
        values.append(total + (0.75 * score if row["status"] == "active" else score))
    if len(values) == 1:
        return [min(1.0, values[0] / target)]
    return pairwise(values, target / 5)


def _evaluate_uno_flip(state: Any, me: int) -> list[float]:
    view = state.view(me)   # hand sizes and totals are public
    values = [-6.0 * len(hand) for hand in view["hands"]]
    target = state.options.get("target_score", 0)
    if target:
        sign = -1.0 if state.options.get("scoring") == "lowest" else 1.0
        values = [v + sign * 360.0 * total / target for v, total in zip(values, view["scores"])]
    return pairwise(values, 12.0)


def _evaluate_color_flush(state: Any, me: int) -> list[float]:
    # the distance to a flush of color-flush-heuristic, on each hand as its holder knows it
    from arena_bots.color_flush_heuristic import distance

    values = []
    for seat in range(state.players):
        hand = state.view(seat)["hands"][seat]
        values.append(-distance([(card["face"], card["back"]) for card in hand]))
    return pairwise(values, 1.0)


def _evaluate_flip_hue(state: Any, me: int) -> list[float]:
    # the longest line toward five of one of the seat's faction colors: its own faces, or
    # the backs of another hand (both win); a line of k counts (k / 5) ** 2 * 5
    view = state.view(me)
    hands = view["hands"]
    values = []
    for seat in range(state.players):
        own = state.view(seat) if seat != me else view
        faction = own["factions"][seat]
        colors = [color for color in (faction.get("top"), faction.get("bottom")) if color is not None]
        best = 0
        for color in colors:
            best = max(best, sum(1 for card in own["hands"][seat] if card["face"] == color))
            for other, hand in enumerate(hands):
                if other != seat:
                    best = max(best, sum(1 for card in hand if card["back"] == color))
        values.append(best * best / 5.0)
    return pairwise(values, 1.0)


EVALUATIONS: dict[str, Callable[[Any, int], list[float]]] = {
    "flip-7": _evaluate_flip_7,
    "uno-flip": _evaluate_uno_flip,
    "color-flush": _evaluate_color_flush,
    "flip-hue": _evaluate_flip_hue,
}
