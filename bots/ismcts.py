"""`ismcts`: single-observer information-set Monte Carlo tree search (Cowling, Powley &
Whitehouse, IEEE TCIAIG 4(2), 2012), for every ruleset with ``Ruleset.sample_state``.

Each iteration samples a determinization (a full state consistent with this seat's
observation and events), then: `select` (UCB1 with availability counts, plus a root bonus
for the playout heuristic's choice), `expand` (one untried action), evaluate (an
`Evaluator`: here `PlayoutEvaluator`, heuristic or random playouts cut off by a per-ruleset
evaluation) and `backpropagate`. The tree is open-loop over chance; a node's children are
keyed by ``(seat, action)``. The move played is the most visited root child.

Per-ruleset settings are `SearchHints` (`search_hints(ruleset_id)`), from what each ruleset
declares (`Ruleset.search_hints`; the cut-off evaluations it names live here). Rewards are per seat in
[0, 1]: the share of the other seats a seat finished ahead of (a tie counts 1/2).

Parameters (keyword, JSON values): ``iterations`` (200; the bot is then deterministic, all its
chance from ``self.rng``; or a table of counts by ruleset id, ``"*"`` for the others, e.g.
``{"flip-7": 4000, "*": 200}``, since an iteration costs 8x more in some games than in
others), ``time_per_move`` (seconds instead of a count; the instance is then
``time_dependent``), ``exploration`` (0.7), ``playout_depth`` (per ruleset), ``playout``
("heuristic" or "random"), ``prior_weight`` (per ruleset; no effect with random playouts),
``prior_at`` ("root", or "own": the bonus at every node where the bot moves), ``opponents``
(per ruleset; "tree", or "policy": the other seats play the playout policy on each
determinization instead of being searched, so their choices follow the cards they hold),
``evaluation`` (the cut-off evaluation as "module:function", default the ruleset's
declared one; e.g. "arena_bots.flip_hue_value:evaluate_flip_hue_fitted").
A ruleset without ``sample_state``, or a game whose sampler failed, is played uniformly
at random (noted on stderr). Measurements behind the defaults:
benchmarks/ismcts_notes.md (speed) and benchmarks/strength_notes.md (strength against the
heuristics, per ruleset, and the choices of value and opponent model).
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
import math
import random
import sys
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping, Protocol

import arena
from arena.rules.base import fresh_copy
from arena_bots.uno_flip_heuristic import TableReading

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
        score = state._round_score(s)
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
    from arena_bots.color_flush_heuristic import distance

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
        colors = [color for color in state._factions_seen_by(seat)[seat] if color is not None]
        own_hand = hands[seat] if seat == me else table.hand_view(seat, seat)
        best = 0
        for color in colors:
            best = max(best, sum(1 for card in own_hand if card["face"] == color))
            for other, hand in enumerate(hands):
                if other != seat:
                    best = max(best, sum(1 for card in hand if card["back"] == color))
        values.append(best * best / 5.0)
    return pairwise(values, 1.0)


# -- search hints: what each ruleset declares, as one frozen record ----------------------


@dataclass(frozen=True)
class SearchHints:
    """How to search one ruleset; the defaults are for a ruleset ismcts knows nothing of."""

    playout_bot: str | None = None     # "module:Class" of the heuristic bot playing every seat
    playout_depth: int = 20            # decisions of heuristic playout before the cut-off
    random_playout_depth: int = 20     # the same with random playouts
    playout_stop: str | None = None    # a playout also ends at the first such event the seat receives
    prior_weight: float = 0.0          # the default root bonus of the heuristic's choice
    evaluation: Callable[[Any, int], list[float]] = neutral_evaluation   # at the cut-off
    opponents: str = "tree"            # the default opponent model: "tree" or "policy"


NO_HINTS = SearchHints()


def hints_from(declared: Mapping[str, Any]) -> SearchHints:
    """A ruleset's declared `search_hints` (`Ruleset.search_hints`, plain data) as a
    SearchHints: the "module:function" `evaluation` imported. ValueError for a key that
    is not a SearchHints field."""
    given = dict(declared)
    unknown = sorted(set(given) - {f.name for f in fields(SearchHints)})
    if unknown:
        raise ValueError(f"unknown search hints {unknown} (known: {', '.join(f.name for f in fields(SearchHints))})")
    if isinstance(given.get("evaluation"), str):
        given["evaluation"] = _imported(given["evaluation"])
    return SearchHints(**given)


def search_hints(ruleset_id: str) -> SearchHints:
    """The search hints `ruleset_id` declares (`NO_HINTS` for a ruleset without any)."""
    cls = ruleset_class(ruleset_id)
    declared = getattr(cls, "search_hints", None) if cls is not None else None
    return hints_from(declared) if declared else NO_HINTS


def _imported(name: str) -> Any:
    """The object a "module:attribute" name points at."""
    module_name, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def heuristic_bot(ruleset_id: str) -> type | None:
    """The built-in heuristic bot class that plays `ruleset_id`'s playouts, if any."""
    name = search_hints(ruleset_id).playout_bot
    return None if name is None else _imported(name)


_RULESETS: dict[str, Any] = {}


def ruleset_class(ruleset_id: str) -> Any:
    """The registered ruleset class for `ruleset_id` (the registry is loaded once per process)."""
    if not _RULESETS:
        from arena.plugins import load_registry

        registry = load_registry()
        _RULESETS.update({rid: entry.cls for rid, entry in registry.rulesets.items()})
    return _RULESETS.get(ruleset_id)


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
    return bot.play_or_draw(reading, actions, phase == "drawn")


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


# -- the bot ----------------------------------------------------------------------------


class ISMCTSBot(arena.Bot):
    """Single-observer ISMCTS over the ruleset's determinizations (`sample_state`)."""

    name = "ismcts"
    rulesets = "*"
    time_dependent = False

    def __init__(self, iterations: int | Mapping[str, int] = 200, time_per_move: float | None = None,
                 exploration: float = 0.7, playout_depth: int | None = None, playout: str = "heuristic",
                 prior_weight: float | None = None, prior_at: str = "root", opponents: str | None = None,
                 evaluation: str | None = None):
        counts = list(iterations.values()) if isinstance(iterations, Mapping) else [iterations]
        if isinstance(iterations, Mapping) and not all(isinstance(key, str) for key in iterations):
            raise ValueError(f"iterations by ruleset must be keyed by ruleset ids, not {iterations!r}")
        if not counts or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts):
            raise ValueError(f"iterations must be a positive integer, or a table of them by ruleset id, "
                             f"not {iterations!r}")
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
        if opponents not in (None, "tree", "policy"):
            raise ValueError(f'opponents must be "tree" or "policy", not {opponents!r}')
        if prior_at not in ("root", "own"):
            raise ValueError(f'prior_at must be "root" or "own", not {prior_at!r}')
        if playout not in ("heuristic", "random"):
            raise ValueError(f'playout must be "heuristic" or "random", not {playout!r}')
        if evaluation is not None and not (isinstance(evaluation, str) and evaluation.count(":") == 1
                                           and all(evaluation.split(":"))):
            raise ValueError(f'evaluation must be a "module:function" name, not {evaluation!r}')
        self.iterations_by_ruleset = dict(iterations) if isinstance(iterations, Mapping) else {"*": iterations}
        self.iterations = self.iterations_by_ruleset.get("*", 200)   # this game's count, set by start
        self.time_per_move = float(time_per_move) if time_per_move is not None else None
        self.time_dependent = time_per_move is not None
        self.exploration = float(exploration)
        self.playout_depth = playout_depth
        self.playout = playout
        self.prior_weight = prior_weight
        self.prior_at = prior_at
        self.opponents = opponents
        self.evaluation = evaluation
        self.cutoff: Callable[[Any, int], list[float]] = neutral_evaluation   # in force for this game
        self.opponent_model = "tree"   # the one in force for this game
        self.hints = NO_HINTS
        self.bias = 0.0      # the prior weight in force for this game
        self.depth = 0       # the playout depth in force for this game
        self.policy: type | None = None   # the playout bot class, None for random playouts
        self.info: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.ruleset: Any = None
        self._failed = False
        self._started = False

    def start(self, info):
        self.events = []
        self._failed = False
        self._started = True
        self.ruleset = ruleset_class(info["ruleset"])
        if self.ruleset is None or not self.ruleset.supports("sample_state"):
            self.ruleset = None
            print(f"ismcts: ruleset {info['ruleset']!r} has no sample_state; playing at random",
                  file=sys.stderr)
        self.info = dict(info)
        self.iterations = self.iterations_by_ruleset.get(info["ruleset"], self.iterations_by_ruleset.get("*", 200))
        self.hints = search_hints(info["ruleset"])
        self.policy = heuristic_bot(info["ruleset"]) if self.playout == "heuristic" else None
        self.bias = float(self.prior_weight if self.prior_weight is not None else self.hints.prior_weight)
        self.opponent_model = self.opponents if self.opponents is not None else self.hints.opponents
        self.cutoff = _imported(self.evaluation) if self.evaluation is not None else self.hints.evaluation
        self.depth = (self.playout_depth if self.playout_depth is not None
                      else self.hints.playout_depth if self.policy is not None
                      else self.hints.random_playout_depth)

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

    def search(self, observation: dict[str, Any]) -> str:
        """Search from `observation` with this game's settings; the action to play."""
        return search(observation, self.ruleset.sample_state, self.events, self.rng, self.evaluator(observation),
                      self.iterations, self.time_per_move, self.exploration, self.bias, self.prior_at,
                      self.opponent_model)

    def evaluator(self, observation: dict[str, Any]) -> PlayoutEvaluator:
        """This decision's playout evaluator (its policy bots seeded from `self.rng`)."""
        base = {"ruleset": observation["ruleset"], "version": observation.get("version"),
                "options": observation.get("options"), "players": observation.get("players"),
                "events": []}
        bots = self._policy_bots(observation, self.policy) if self.policy is not None else None
        return PlayoutEvaluator(bots, self.depth, self.cutoff, self.rng, self.hints.playout_stop, base)

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
