"""The search of `ismcts` (bots/ismcts.py, which states what it does and its parameters):
rewards and cut-off evaluations, playouts (`PlayoutEvaluator` and the playout bots' fast
paths), the tree (`Node`) and its four steps (`select`, `expand`, evaluate,
`backpropagate`), composed by `search`.

Its own module so that a compiled install (docs/compiled.md) can compile it: it holds only
functions and classes of its own (the bot class, which the harness reads and subclasses,
stays in bots/ismcts.py). Every name here is also importable from `arena_bots.ismcts`.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
import random
import time
from typing import Any, Callable, Protocol

from arena.rules.base import fresh_copy
from arena_bots.color_flush_play import distance
from arena_bots.uno_flip_play import TableReading, play_or_draw

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


def neutral_evaluation(state: Any, me: int) -> list[float]:
    """1/2 for everybody: the search rests on finished playouts alone."""
    return [0.5] * state.players


@functools.cache
def flip7_value_model() -> tuple[tuple[float, float, float, float], float]:
    """The fitted round-end value's weights and cap on m (bots/data/flip7_value.json, made
    by benchmarks/fit_flip7_value.py from self-play outcomes)."""
    data = json.loads(importlib.resources.files("arena_bots").joinpath("data/flip7_value.json").read_text())
    w0, w1, w2, w3 = (float(w) for w in data["weights"])
    return (w0, w1, w2, w3), float(data["m_cap"])


def flip7_ahead(values: list[float], target: float) -> list[float]:
    """Per seat: the mean over other seats of the fitted P(finishing ahead of it), from the
    two values: logit = d (w0 + w1 m + w2 m^2 + w3 m^3), d = the difference / target, m =
    the larger / target (capped). A lead weighs more as its holder nears the target."""
    (w0, w1, w2, w3), cap = flip7_value_model()
    exp = math.exp
    n = len(values)
    result = []
    for s, mine in enumerate(values):
        total = 0.0
        for o, other in enumerate(values):
            if o != s:
                m = min((mine if mine > other else other) / target, cap)
                x = (mine - other) / target * (w0 + m * (w1 + m * (w2 + m * w3)))
                total += 1.0 / (1.0 + exp(-x)) if x > -50 else 0.0
        result.append(total / (n - 1))
    return result


def evaluate_flip_7(state: Any, me: int) -> list[float]:
    """Total plus this round's score (an active row at 75 %: it may bust), compared seat
    by seat with the fitted value `flip7_ahead`; solo: progress. Everything in Flip 7 is
    public; read off the state (what `view` would show) for speed."""
    target = max(1, state.target_score)
    values = []
    for s, (total, status) in enumerate(zip(state.totals, state.status)):
        score = state.round_score(s)
        values.append(total + (0.75 * score if status == 0 else score))   # 0: ACTIVE
    if len(values) == 1:
        return [min(1.0, values[0] / target)]
    return flip7_ahead(values, target)


def evaluate_uno_flip(state: Any, me: int) -> list[float]:
    """Fewer cards is better (6 points a card); with a target the totals count (target = 60 cards)."""
    # hand sizes and totals are public: read off the state (what state.view(me) shows)
    values = [-6.0 * len(hand) for hand in state.table.hands]
    target = state.options.get("target_score", 0)
    if target:
        sign = -1.0 if state.options.get("scoring") == "lowest" else 1.0
        values = [v + sign * 360.0 * total / target for v, total in zip(values, state.scores)]
    return pairwise(values, 12.0)


def evaluate_color_flush(state: Any, me: int) -> list[float]:
    """Minus color-flush-heuristic's distance to a flush, on each hand as its holder knows it."""
    values = []
    for seat in range(state.players):
        hand = state.table.hand_view(seat, seat)   # == state.view(seat)["hands"][seat], cheaper
        values.append(-distance([(card["face"], card["back"]) for card in hand]))
    return pairwise(values, 1.0)


def evaluate_flip_hue(state: Any, me: int) -> list[float]:
    """The longest line toward five of a seat's faction colors (own faces, or another hand's
    backs: both win); a line of k counts (k / 5) ** 2 * 5."""
    # the parts of state.view(seat) this reads, without building whole views
    table = state.table
    hands = table.hands_view(me)
    values = []
    for seat in range(state.players):
        colors = [color for color in state.factions_seen_by(seat)[seat] if color is not None]
        own_hand = hands[seat] if seat == me else table.hand_view(seat, seat)
        best = 0
        for color in colors:
            best = max(best, sum(1 for card in own_hand if card["face"] == color))
            for other, hand in enumerate(hands):
                if other != seat:
                    best = max(best, sum(1 for card in hand if card["back"] == color))
        values.append(best * best / 5.0)
    return pairwise(values, 1.0)


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


# -- fast paths: a playout bot's move read off the determinization, without a view -------
# Each returns exactly what the bot's `act` would (or None: ask the bot); the state is the
# search's own sample, so nothing hidden leaks. tests/test_ismcts.py checks them against `act`.


def flip7_threshold_move(bot: Any, state: Any, seat: int, actions: list[str]) -> str | None:
    """flip7-threshold at hit-or-stay (it reads only the row's Second Chance and number sum)."""
    if state.decision is not None:
        return None
    return "hit" if state.second_chance[seat] or sum(state.numbers[seat]) < bot.threshold else "stay"


def uno_flip_heuristic_move(bot: Any, state: Any, seat: int, actions: list[str]) -> str | None:
    """uno-flip-heuristic's play or draw, from a `TableReading` of the table instead of a
    view (a view holds every card of every hand as dicts; the play reads its own faces and
    the hand sizes, and the few other cards it needs on demand)."""
    if len(actions) == 1:
        return actions[0]
    phase = state.phase
    if phase != "play" and phase != "drawn":
        return None
    table = state.table
    faces, side, hands = table.faces, table.side, table.hands
    own = [faces[card][side[card]] for card in hands[seat]]   # a holder sees its cards' faces
    reading = TableReading(seat, own, [len(hand) for hand in hands], state.direction, state.color,
                           state.active, lambda holder: table.hand_view(holder, seat))
    return play_or_draw(reading, actions, phase == "drawn", bot.rng)


FAST_MOVES: dict[str, Callable[[Any, Any, int, list[str]], str | None]] = {
    "arena_bots.flip7_threshold:Flip7ThresholdBot": flip7_threshold_move,
    "arena_bots.uno_flip_heuristic:UnoFlipHeuristicBot": uno_flip_heuristic_move,
}


def fast_move_for(bot: Any) -> Callable[[Any, Any, int, list[str]], str | None] | None:
    """The fast path for `bot`, if its exact class has one."""
    cls = type(bot)
    return FAST_MOVES.get(f"{cls.__module__}:{cls.__qualname__}")


class PlayoutEvaluator:
    """Plays `depth` decisions (by one policy bot per seat, or uniformly with `rng` when
    `bots` is None), stopping early at a `stop_event`; then scores a finished game by its
    standing and a cut-off position by `cutoff(state, seat)`."""

    def __init__(self, bots: list[Any] | None, depth: int, cutoff: Callable[[Any, int], list[float]],
                 rng: random.Random, stop_event: str | None, base: dict[str, Any]) -> None:
        self.bots = bots
        self.depth = depth
        self.cutoff = cutoff
        self.rng = rng
        self.stop_event = stop_event
        self.base = base   # the observation fields every policy bot gets besides its view
        self.fast = [fast_move_for(bot) for bot in bots] if bots is not None else None

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
