"""The search of `ismcts` (bots/ismcts.py, which states what it does and its parameters):
rewards, playouts (`PlayoutEvaluator`), the tree (`Node`) and its four steps (`select`,
`expand`, evaluate, `backpropagate`), composed by `search`.

It knows no game: the cut-off evaluation is the game's ``evaluate`` (`Ruleset.capabilities`),
the playout policy and its fast path are what a plugin registered (``register_playouts``).
Its own module so that a compiled install (docs/compiled.md) can compile it: it holds only
functions and classes of its own (the bot class, which the harness reads and subclasses,
stays in bots/ismcts.py). Every name here is also importable from `arena_bots.ismcts`.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Callable, Optional, Protocol

from arena.rules.base import fresh_copy
from arena.rules.evaluation import pairwise  # noqa: F401 (importable from here, as before)

FastMove = Callable[[Any, Any, int, list[str]], Optional[str]]
"""A playout bot's fast path (`arena.hookspecs.HookSpecs.register_playouts`):
``(bot, state, seat, legal_actions) -> action or None``."""

# -- rewards and cut-off evaluations (state, searching seat) -> reward per seat ----------


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


def neutral_evaluation(state: Any, me: int) -> list[float]:
    """1/2 for everybody: the search rests on finished playouts alone."""
    return [0.5] * state.players


# -- evaluators -------------------------------------------------------------------------


class Evaluator(Protocol):
    """Values a determinization for the search, and may favour one root action."""

    def evaluate(self, state: Any, seat: int) -> list[float]:
        """A reward in [0, 1] per seat for `state` (it may be advanced), searched by `seat`."""

    def favourite(self, observation: dict[str, Any]) -> str | None:
        """The action this evaluator's policy would play from `observation`, or None."""

    def favourite_in(self, state: Any, seat: int) -> str | None:
        """The action this evaluator's policy would play for `seat` in `state` (a
        determinization: `seat`'s view of it is what the seat would see there), or None.
        Asked only with ``prior_at = "own"`` or ``opponents = "policy"``."""


class PlayoutEvaluator:
    """Plays `depth` decisions (by one policy bot per seat, or uniformly with `rng` when
    `bots` is None), stopping early at a `stop_event`; then scores a finished game by its
    standing and a cut-off position by `cutoff(state, seat)`. `fast_move`, the policy's
    registered fast path, answers for the bots where it can."""

    def __init__(self, bots: list[Any] | None, depth: int, cutoff: Callable[[Any, int], list[float]],
                 rng: random.Random, stop_event: str | None, base: dict[str, Any],
                 fast_move: FastMove | None = None) -> None:
        self.bots = bots
        self.depth = depth
        self.cutoff = cutoff
        self.rng = rng
        self.stop_event = stop_event
        self.base = base   # the observation fields every policy bot gets besides its view
        self.fast = [fast_move for _ in bots] if bots is not None else None

    def favourite(self, observation: dict[str, Any]) -> str | None:
        if self.bots is None:
            return None
        return self.bots[observation["seat"]].act(fresh_copy(observation))

    def favourite_in(self, state: Any, seat: int) -> str | None:
        if self.bots is None:
            return None
        actions = state.legal_actions()
        action = self.policy_move(state, seat, actions)
        return action if action in actions else None

    def policy_move(self, state: Any, seat: int, actions: list[str]) -> Any:
        """`seat`'s policy bot's answer in `state` (its fast path, else `act` on its view);
        the caller checks that it is among `actions`."""
        bots, fast = self.bots, self.fast
        assert bots is not None and fast is not None   # a policy is asked only where there is one
        quick = fast[seat]
        action = quick(bots[seat], state, seat, actions) if quick is not None else None
        if action is None:
            action = bots[seat].act(dict(self.base, seat=seat, view=state.view(seat), legal_actions=actions))
        return action

    def evaluate(self, state: Any, seat: int) -> list[float]:
        bots, rng, stop_event, policy_move = self.bots, self.rng, self.stop_event, self.policy_move
        me = seat
        steps = 0
        if stop_event is not None:
            state.drop_events(me)   # what the determinization and the tree emitted so far
        while steps < self.depth and not state.is_terminal():
            actions = state.legal_actions()
            if len(actions) == 1:
                action = actions[0]
            elif bots is not None:
                action = policy_move(state, state.current_seat(), actions)
                if action not in actions:
                    action = actions[rng.randrange(len(actions))]
            else:
                action = actions[rng.randrange(len(actions))]
            state.apply(action)
            steps += 1
            if stop_event is not None and any(e["type"] == stop_event for e in state.drop_events(me)):
                break
        return outcome_rewards(state.outcome()) if state.is_terminal() else self.cutoff(state, me)


# -- the tree and the four steps --------------------------------------------------------


class Node:
    """An information set of the searching seat: the root, or reached by `(seat, action)`
    from its parent. `reward` sums the rewards of `seat`, who chose the action leading here;
    `avail` counts the parent's visits in which that action was legal; `prior` is the
    bonus weight of the policy's favourite child (the root's; with ``prior_at = "own"``
    also at the searching seat's other nodes), 0 on every other child."""

    __slots__ = ("seat", "children", "visits", "avail", "reward", "prior")

    def __init__(self, seat: int, prior: float = 0.0) -> None:
        self.seat = seat
        self.children: dict[tuple[int, str], Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.prior = prior


def select(root: Node, state: Any, exploration: float,
           opponent_move: Callable[[Any, int], str] | None = None) -> tuple[Node, list[Node], int | None, list[str]]:
    """Descend from `root`, applying the tree's moves to `state`, while every legal action has
    a child: (node reached, path below the root, seat to move there or None at the game's
    end, its untried actions). Counts availability on the way. With `opponent_move`, the
    other seats are not in the tree: each of their turns is ``opponent_move(state, seat)``,
    chosen from what that seat holds in this determinization."""
    log, sqrt = math.log, math.sqrt
    c = exploration
    node = root
    me = root.seat
    path: list[Node] = []
    while True:
        seat = state.current_seat()
        if seat is None:
            return node, path, None, []
        if opponent_move is not None and seat != me:
            state.apply(opponent_move(state, seat))
            continue
        children = node.children
        untried = []
        best = None
        best_value = -1.0
        for action in state.legal_actions():
            child = children.get((seat, action))
            if child is None:
                untried.append(action)
                continue
            child.avail += 1
            # UCB1 over availability; the favourite's bonus is PUCT's with all prior on it
            value = child.reward / child.visits + c * sqrt(log(child.avail) / child.visits)
            if child.prior:
                value += child.prior * sqrt(node.visits + 1) / (1 + child.visits)
            if value > best_value:
                best, best_value, best_action = child, value, action
        if untried:
            return node, path, seat, untried
        assert best is not None   # some legal action, every one with a child
        node = best
        state.apply(best_action)
        path.append(node)


def expand(node: Node, seat: int, untried: list[str], state: Any, rng: random.Random,
           favourite: str | None, prior: float) -> Node:
    """Add a child for one untried action (`favourite` first, with bonus weight `prior`; else
    uniformly) and apply it to `state`."""
    if favourite is not None and favourite in untried:
        action = favourite
    else:
        action = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
    child = Node(seat, prior if action == favourite else 0.0)
    node.children[(seat, action)] = child
    state.apply(action)
    return child


def backpropagate(root: Node, path: list[Node], rewards: list[float]) -> None:
    """Count the visit on the root and add each node's seat's reward along `path`."""
    root.visits += 1
    for node in path:
        node.visits += 1
        node.reward += rewards[node.seat]


def search(observation: dict[str, Any], sample_state: Callable[..., Any], events: list[dict[str, Any]],
           rng: random.Random, evaluator: Evaluator, iterations: int, time_per_move: float | None = None,
           exploration: float = 0.7, prior_weight: float = 0.0, prior_at: str = "root",
           opponents: str = "tree") -> str:
    """The most visited legal action after `iterations` (or `time_per_move` seconds, at least
    one iteration) of search from `observation`; ties go to the evaluator's favourite, then
    to legal order. The evaluator's favourite is expanded first and gets the bonus
    `prior_weight` at the root, and with `prior_at` "own" at every node where this seat
    moves (its favourite there asked of the determinization that first reaches the node).
    `opponents` "tree" searches the other seats' moves in the tree too (single-observer
    ISMCTS: their choices cannot depend on their own hidden cards); "policy" plays them by
    the evaluator's policy on each determinization (their choices then follow what they
    hold there; uniformly at random without a policy), the tree holding this seat's moves.
    All chance comes from `rng` (and the evaluator's own)."""
    legal = observation["legal_actions"]
    me = observation["seat"]
    root = Node(me)
    wanted = evaluator.favourite(observation)
    # not legal: the first action is still tried first at the root, and first among equal counts
    favourite = wanted if wanted is not None and wanted in legal else legal[0]
    deadline = None if time_per_move is None else time.perf_counter() + time_per_move
    everywhere = prior_at == "own" and prior_weight > 0
    opponent_move = None
    if opponents == "policy":
        def opponent_move(state: Any, seat: int) -> str:
            actions = state.legal_actions()
            if len(actions) == 1:
                return actions[0]
            action = evaluator.favourite_in(state, seat)
            return action if action is not None else actions[rng.randrange(len(actions))]
    iteration = 0
    while True:
        if deadline is None:
            if iteration >= iterations:
                break
        elif iteration > 0 and time.perf_counter() >= deadline:
            break
        iteration += 1
        state = sample_state(observation, rng, events)
        node, path, seat, untried = select(root, state, exploration, opponent_move)
        if untried:
            assert seat is not None   # untried actions are some seat's
            if node is root:
                path.append(expand(node, seat, untried, state, rng, favourite, prior_weight))
            elif everywhere and seat == me and not node.children:
                path.append(expand(node, seat, untried, state, rng, evaluator.favourite_in(state, me),
                                   prior_weight))
            else:
                path.append(expand(node, seat, untried, state, rng, None, 0.0))
        backpropagate(root, path, evaluator.evaluate(state, me))
    best_action, best_visits = favourite, -1
    for action in [favourite] + legal:
        child = root.children.get((me, action))
        if child is not None and child.visits > best_visits:
            best_action, best_visits = action, child.visits
    return best_action
