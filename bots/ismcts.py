"""`ismcts`: single-observer information-set Monte Carlo tree search (Cowling, Powley &
Whitehouse, IEEE TCIAIG 4(2), 2012), for every ruleset with ``Ruleset.sample_state``.

Each iteration samples a determinization (a full state consistent with this seat's
observation and events), then: `select` (UCB1 with availability counts, plus a root bonus
for the playout heuristic's choice), `expand` (one untried action), evaluate (an
`Evaluator`: here `PlayoutEvaluator`, heuristic or random playouts cut off by a per-ruleset
evaluation) and `backpropagate`. The tree is open-loop over chance; a node's children are
keyed by ``(seat, action)``. The move played is the most visited root child.

Per-ruleset settings are `SearchHints` (`search_hints(ruleset_id)`): what each ruleset
declares (`Ruleset.search_hints`: depths, stop event, prior weight, opponent model; its
``evaluate`` capability is the cut-off evaluation) and the playout policy a plugin
registered for it (``register_playouts``: the heuristic bot and its fast path). A ruleset
with neither is searched with random playouts and a neutral cut-off. Rewards are per seat
in [0, 1]: the share of the other seats a seat finished ahead of (a tie counts 1/2).

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
``evaluate``; e.g. "arena_bots.flip_hue_value:evaluate_flip_hue_fitted").
A ruleset without ``sample_state``, or a game whose sampler failed, is played uniformly
at random (noted on stderr). Measurements behind the defaults:
benchmarks/ismcts_notes.md (speed) and benchmarks/strength_notes.md (strength against the
heuristics, per ruleset, and the choices of value and opponent model).
"""

from __future__ import annotations

import importlib
import random
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import arena
from arena.rules.base import fresh_copy
# the search itself (bots/ismcts_search.py); its names also importable from here, as before
from arena_bots.ismcts_search import (Evaluator, FastMove, Node, PlayoutEvaluator, backpropagate,  # noqa: F401
                                      expand, neutral_evaluation, outcome_rewards, pairwise, search, select)

# -- search hints: what each ruleset declares, as one frozen record ----------------------


@dataclass(frozen=True)
class SearchHints:
    """How to search one ruleset; the defaults are for a ruleset ismcts knows nothing of."""

    playout_bot: type | None = None    # the registered heuristic bot playing every seat (register_playouts)
    playout_depth: int = 20            # decisions of heuristic playout before the cut-off
    random_playout_depth: int = 20     # the same with random playouts
    playout_stop: str | None = None    # a playout also ends at the first such event the seat receives
    prior_weight: float = 0.0          # the default root bonus of the heuristic's choice
    evaluation: Callable[[Any, int], list[float]] = neutral_evaluation   # at the cut-off: the game's evaluate
    opponents: str = "tree"            # the default opponent model: "tree" or "policy"
    fast_move: FastMove | None = None  # the playout bot's registered fast path


NO_HINTS = SearchHints()

DECLARED = ("playout_depth", "random_playout_depth", "playout_stop", "prior_weight", "opponents")
"""The keys a ruleset's `search_hints` may hold (plain data, naming no bot)."""

MOVED = {"playout_bot": "a plugin registers it through the register_playouts hook",
         "evaluation": "the ruleset declares the evaluate capability"}


def hints_from(declared: Mapping[str, Any], playout: Any = None,
               evaluation: Callable[[Any, int], list[float]] | None = None) -> SearchHints:
    """A ruleset's declared `search_hints` (`Ruleset.search_hints`, plain data) as a
    SearchHints, with the `playout` registered for it (a `PlayoutEntry`, or None) and its
    `evaluation` (its ``evaluate``, or None). ValueError for a key it may not declare."""
    given = dict(declared)
    for key, instead in MOVED.items():
        if key in given:
            raise ValueError(f"search hint {key!r} is no longer declared by a ruleset: {instead}")
    unknown = sorted(set(given) - set(DECLARED))
    if unknown:
        raise ValueError(f"unknown search hints {unknown} (known: {', '.join(DECLARED)})")
    if playout is not None:
        given.update(playout_bot=playout.bot, fast_move=playout.fast_move)
    if evaluation is not None:
        given["evaluation"] = evaluation
    return SearchHints(**given)


def search_hints(ruleset_id: str) -> SearchHints:
    """How to search `ruleset_id`: its declared hints, its ``evaluate`` and the playout
    registered for it (`NO_HINTS` for a ruleset that has none of them)."""
    cls = ruleset_class(ruleset_id)
    if cls is None:
        return NO_HINTS
    declared = getattr(cls, "search_hints", None) or {}
    evaluation = cls.evaluate if cls.supports("evaluate") else None
    playout = _registry().playouts.get(ruleset_id)
    if not declared and evaluation is None and playout is None:
        return NO_HINTS
    return hints_from(declared, playout, evaluation)


def _imported(name: str) -> Any:
    """The object a "module:attribute" name points at."""
    module_name, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def heuristic_bot(ruleset_id: str) -> type | None:
    """The heuristic bot class registered to play `ruleset_id`'s playouts, if any."""
    return search_hints(ruleset_id).playout_bot


def _registry() -> Any:
    """The plugin registry, loaded once per process (`arena.rulesets.registry`)."""
    import arena.rulesets

    return arena.rulesets.registry()


def ruleset_class(ruleset_id: str) -> Any:
    """The registered ruleset class for `ruleset_id`, or None."""
    entry = _registry().rulesets.get(ruleset_id)
    return None if entry is None else entry.cls


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
        fast_move = self.hints.fast_move if self.policy is self.hints.playout_bot else None
        return PlayoutEvaluator(bots, self.depth, self.cutoff, self.rng, self.hints.playout_stop, base, fast_move)

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
