"""Rulesets as OpenSpiel games: `load_game(ruleset, players=..., **options)`, for any ruleset
that declares an ``encoding`` and its ``chance_outcomes`` (`Ruleset.capabilities`).

In the order of OpenSpiel's Python games (`open_spiel/python/games/kuhn_poker.py`): this
docstring, constants, the game type as data, the game, the state, the observer, then the
bridge that enters any OpenSpiel bot into an arena game (`OpenSpielBot`).

    import pyspiel
    from arena.envs.openspiel import load_game
    game = load_game("flip-7", players=2)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)

Each installed ruleset that can be (`playable`) is registered with pyspiel as ``arena_<id>``
(``arena_flip_7``, ...; its one parameter is ``players``), so
``pyspiel.load_game("arena_flip_7", {"players": 3})`` works too; `load_game` also takes the
ruleset's options. A ruleset missing a capability is refused in one line naming it.

- Chance is explicit, from the engines' one chance source (`arena/rules/chance.py`):
  every ``shuffle``, ``bit`` and ``below`` an engine makes (dealing, reshuffling, a coin
  for a card's side, a place in a pile) is asked of OpenSpiel as chance nodes before the
  step that makes it is applied. A coin is one node (2 outcomes), ``below(n)`` one node
  (n outcomes), a shuffle of n items n - 1 nodes (Fisher-Yates: node k chooses which of
  the n - k remaining items lands in place n - 1 - k, uniformly), so the deal is a run
  of chance nodes at the start and a reshuffle a run in the middle of the game. Between
  them the engine draws from the pile deterministically: the order is already chosen.
- Player actions are the ruleset's stable action index (its ``encoding``); a legal
  action past a hand cap is left out (UNO Flip, past 40 cards). The largest chance node
  is the ruleset's ``chance_outcomes``.
- `max_game_length` is a cap on the number of actions, chance outcomes included
  (default `MAX_GAME_LENGTH`, or ``max_game_length=`` in `load_game`): a game that
  reaches it ends there with every return 0, as a ruleset's own turn limit ties everyone.
  Every ruleset's own turn limit usually ends a game long before.
- Returns: `arena.returns` of the standing (zero-sum, in [-1, 1]), at the end only.
- The information-state string of a player is its view (perfect recall, as a bot gets
  it) and the actions it took; the observation string is the view; the observation
  tensor is the ruleset's encoding of it. All three are built from that player's
  observation alone.
- ``State.resample_from_infostate(player, sampler)`` draws a full state consistent with
  the player's information through the ruleset's `sample_state`, so OpenSpiel's Python
  ISMCTS (`open_spiel.python.algorithms.ismcts.ISMCTSBot`) plays the games that have one
  (`searchable`).
"""

from __future__ import annotations

import json
import random
from typing import Any, Mapping, Sequence

import numpy as np
import pyspiel

from arena.api import ruleset_class
from arena.bot import Bot
from arena.envs.encoding import Encoding, encoding_for
from arena.envs.plugin import GAME_CAPABILITIES, SEARCH_CAPABILITIES
from arena.returns import returns
from arena.rules.base import GameState, Ruleset
from arena.rules.observation import Observation, make_observation

MAX_GAME_LENGTH = 100_000
"""Actions (chance outcomes included) after which a game ends with every return 0."""



def missing(ruleset: type[Ruleset], capabilities: Sequence[str] = GAME_CAPABILITIES) -> list[str]:
    """The `capabilities` that `ruleset` does not declare."""
    return [name for name in capabilities if not ruleset.supports(name)]


def playable(ruleset: type[Ruleset]) -> bool:
    """Whether `ruleset` can be an OpenSpiel game."""
    return not missing(ruleset)


def searchable(ruleset: type[Ruleset]) -> bool:
    """Whether OpenSpiel's ISMCTS (`ISMCTSBot`) can play `ruleset`."""
    return not missing(ruleset, SEARCH_CAPABILITIES)


def short_name(ruleset_id: str) -> str:
    """The pyspiel name of a ruleset: ``arena_`` and its id with underscores."""
    return "arena_" + ruleset_id.replace("-", "_")


def game_type(ruleset: type[Ruleset]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name(ruleset.id),
        long_name=f"Flip Arena {ruleset.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=ruleset.max_players,
        min_num_players=ruleset.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": max(2, ruleset.min_players)})


def load_game(ruleset: str | type[Ruleset], players: int = 2, max_game_length: int = MAX_GAME_LENGTH,
              **options: Any) -> ArenaGame:
    """The OpenSpiel game of `ruleset` for `players` seats; `options` are the ruleset's."""
    cls = ruleset_class(ruleset)
    return ArenaGame({"players": players}, ruleset=cls, options=options, max_game_length=max_game_length)


class ArenaGame(pyspiel.Game):
    """One ruleset, table size and options as an OpenSpiel game."""

    ruleset: type[Ruleset]  # the class default of a registered game's subclass (`register_games`)

    def __init__(self, params: Mapping[str, Any] | None = None, ruleset: type[Ruleset] | None = None,
                 options: Mapping[str, Any] | None = None, max_game_length: int = MAX_GAME_LENGTH):
        ruleset = ruleset or self.ruleset
        lacking = missing(ruleset)
        if lacking:
            raise ValueError(f"ruleset {ruleset.id!r} cannot be an OpenSpiel game: it declares no "
                             f"{' and no '.join(lacking)} (add them to its capabilities: arena.rules.base)")
        params = dict(params or {})
        players = int(params.get("players", max(2, ruleset.min_players)))
        ruleset.check_players(players)
        if not isinstance(max_game_length, int) or max_game_length < 1:
            raise ValueError(f"max_game_length must be a positive integer, not {max_game_length!r}")
        self.ruleset = ruleset
        self.players = players
        self.options = ruleset.resolve_options(options)
        self.encoding: Encoding = encoding_for(ruleset, players, self.options)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.encoding.actions),
            max_chance_outcomes=ruleset.chance_outcomes(players, self.options),
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length)
        super().__init__(game_type(ruleset), info, {"players": players})
        self.cap = max_game_length

    def new_initial_state(self) -> ArenaState:
        return ArenaState(self)

    def state_around(self, engine: GameState, player: int, own_actions: Sequence[str] = (),
                     events: Sequence[dict[str, Any]] = (), moves: int = 0) -> ArenaState:
        """A state around `engine` (e.g. one sampled from `player`'s observation) at a
        decision, carrying what `player` knows beyond its view: its own actions and the
        events it received (the other players' records are empty)."""
        state = ArenaState.__new__(ArenaState)
        pyspiel.State.__init__(state, self)
        state._game = self
        state.engine = engine
        state._pending, state._outcomes, state._need, state._choices = None, [], None, []
        state._moves, state._capped = moves, False
        state.own_actions = [list(own_actions) if seat == player else [] for seat in range(self.players)]
        state.events = [list(events) if seat == player else [] for seat in range(self.players)]
        return state

    def __deepcopy__(self, memo: dict) -> ArenaGame:
        return self  # immutable; a copy rebuilt from its pyspiel string would lose the options

    def __reduce__(self) -> tuple:
        return _rebuild_game, (self.ruleset.id, self.players, self.options, self.cap)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ArenaObserver:
        return ArenaObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


def _rebuild_game(ruleset_id: str, players: int, options: dict[str, Any], cap: int) -> ArenaGame:
    return load_game(ruleset_id, players, cap, **options)


class _NeedChance(Exception):
    """Raised by `_Scripted` when the engine asks for an outcome it has not been given."""

    def __init__(self, kind: str, n: int):
        self.kind, self.n = kind, n


class _Scripted(random.Random):
    """The engine's random.Random while a step is played: the `Chance` calls it receives
    (shuffle, getrandbits(1), randrange(n)) take the outcomes chosen at chance nodes, in
    order; one past them raises `_NeedChance`. Anything else is a bug, so it raises."""

    def __init__(self, outcomes: list[Any] | None = None):
        super().__init__(0)
        self.outcomes = outcomes if outcomes is not None else []
        self.used = 0

    def _next(self, kind: str, n: int) -> Any:
        if self.used == len(self.outcomes):
            raise _NeedChance(kind, n)
        self.used += 1
        return self.outcomes[self.used - 1]

    def shuffle(self, items: Any) -> None:
        order = self._next("shuffle", len(items))
        items[:] = [items[i] for i in order]

    def getrandbits(self, k: int) -> int:
        if k != 1:
            raise RuntimeError(f"an engine asked for {k} random bits outside its chance source")
        return self._next("bit", 2)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        return start + self._next("below", stop - start)

    def random(self) -> float:
        raise RuntimeError("an engine drew random() outside its chance source")


class ArenaState(pyspiel.State):
    """A game in progress: the engine state between steps, or a step waiting for chance.

    A *step* is the deal or one player action. `_pending` is the step being resolved;
    `_outcomes` the outcomes of its chance points so far (a permutation per shuffle);
    `_need` the chance point asked now and `_choices` the Fisher-Yates choices made so
    far for a shuffle.
    """

    def __init__(self, game: ArenaGame):
        super().__init__(game)
        self._game = game
        self.engine: GameState | None = None
        self._pending: str | None = ""  # "": the deal; an action string; None: nothing pending
        self._outcomes: list[Any] = []
        self._need: tuple[str, int] | None = None
        self._choices: list[int] = []
        self._moves = 0
        self._capped = False
        self.own_actions: list[list[str]] = [[] for _ in range(game.players)]
        self.events: list[list[dict[str, Any]]] = [[] for _ in range(game.players)]
        self._resolve()

    # -- steps and chance ------------------------------------------------------------

    def _engine(self) -> GameState:
        """The engine state, there once the deal is played (whenever no chance is pending)."""
        assert self.engine is not None, "the deal is waiting for chance"
        return self.engine

    def _resolve(self) -> None:
        """Play the pending step with the outcomes chosen so far; stop at the next chance
        point it needs (a chance node), or finish it (the engine moves on)."""
        game = self._game
        while True:
            scripted = _Scripted(self._outcomes)
            try:
                if self._pending == "":
                    engine = game.ruleset.new_game(game.players, game.options, scripted)
                else:
                    assert self._pending is not None  # (called with a step pending)
                    engine = self._engine().clone()
                    engine.rng = scripted
                    engine.apply(self._pending)
            except _NeedChance as need:
                if need.kind == "shuffle" and need.n <= 1:
                    self._outcomes.append(list(range(need.n)))
                    continue
                self._need, self._choices = (need.kind, need.n), []
                return
            break
        self.engine, self._pending, self._outcomes, self._need = engine, None, [], None
        for seat in range(game.players):
            self.events[seat].extend(engine.take_events(seat))

    def current_player(self) -> int:
        if self._capped:
            return pyspiel.PlayerId.TERMINAL
        if self._need is not None:
            return pyspiel.PlayerId.CHANCE
        seat = self._engine().current_seat()
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._need is not None, "not a chance node"
        kind, n = self._need
        choices = n - len(self._choices) if kind == "shuffle" else n
        return [(outcome, 1.0 / choices) for outcome in range(choices)]

    def _legal_actions(self, player: int) -> list[int]:
        index = self._game.encoding.index
        return sorted(index[a] for a in self._engine().legal_actions() if a in index)

    def _apply_action(self, action: int) -> None:
        self._moves += 1
        if self._need is not None:
            kind, n = self._need
            if kind != "shuffle":
                self._outcomes.append(int(action))
            else:
                self._choices.append(int(action))
                if len(self._choices) == n - 1:
                    self._outcomes.append(_fisher_yates(n, self._choices))
                else:
                    return self._check_cap()
            self._need = None
            self._resolve()
        else:
            text = self._game.encoding.actions[action]
            seat = self._engine().current_seat()
            assert seat is not None  # (a player acts)
            self.own_actions[seat].append(text)
            self._pending = text
            self._resolve()
        self._check_cap()

    def _check_cap(self) -> None:
        if self._moves >= self._game.cap and not self.is_terminal():
            self._capped = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {self._need[0] if self._need else ''} {action}".strip()
        return self._game.encoding.actions[action]

    def is_terminal(self) -> bool:
        return self._capped or (self._need is None and self._engine().current_seat() is None)

    def returns(self) -> list[float]:
        if self._capped or not self.is_terminal():
            return [0.0] * self._game.players
        return returns(self._engine().outcome()["standing"])

    def __str__(self) -> str:
        if self.engine is None:
            return "dealing"
        return json.dumps(self.engine.god_view(0), sort_keys=True)

    # -- what a player knows ---------------------------------------------------------

    def observation_for(self, player: int) -> Observation | None:
        """`player`'s observation as a bot gets it (events: all it has received), or None
        before the deal is complete."""
        if self.engine is None:
            return None
        return make_observation(self._game.ruleset, self.engine, player, self.events[player],
                                options=self._game.options)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ArenaState:
        """A state the same to `player_id` (same information-state string), everything it
        has not seen drawn by the ruleset's `sample_state` from a seed taken from
        `probability_sampler`."""
        if self.engine is None or self._need is not None:
            return self.clone()
        observation = self.observation_for(player_id)
        assert observation is not None  # (the deal is played)
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        sampled = self._game.ruleset.sample_state(observation, rng, observation["events"])
        return self._game.state_around(sampled, player_id, self.own_actions[player_id], self.events[player_id],
                                       self._moves)


def _fisher_yates(n: int, choices: list[int]) -> list[int]:
    """The permutation chosen by `choices` (choice k in 0..n-1-k: which of the items not
    yet placed goes to place n-1-k): ``items[:] = [items[i] for i in order]``."""
    order = list(range(n))
    for k, j in enumerate(choices):
        place = n - 1 - k
        order[place], order[j] = order[j], order[place]
    return order


class ArenaObserver:
    """The PyObserver of OpenSpiel: with perfect recall, the information state (the view
    and the player's own actions); without, the observation (the view). The tensor is the
    encoding of the view either way (the view already has perfect recall), written from the
    engine's state (`Encoding.encode_state_into`)."""

    def __init__(self, game: ArenaGame, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.encoding.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.engine is not None:   # the encoding of the player's view, written from the engine's state
            self.game.encoding.encode_state_into(self.tensor, player, state.engine)

    def string_from(self, state: ArenaState, player: int) -> str:
        if state.engine is None:
            return f"p{player} before the deal"
        text = json.dumps(state.engine.view(player), sort_keys=True, separators=(",", ":"))
        if state._need is not None:
            text += " resolving chance"
        if self.perfect_recall:
            text += " mine:" + ",".join(state.own_actions[player])
        return f"p{player} {text}"


def register_games() -> list[str]:
    """Register every installed ruleset that can be an OpenSpiel game (`playable`) with
    pyspiel as ``arena_<id>``, once each; the ids registered."""
    import arena.rulesets

    known = set(pyspiel.registered_names())
    done = []
    for ruleset_id in arena.rulesets.ids():
        cls = arena.rulesets.get(ruleset_id)
        if playable(cls):
            if short_name(ruleset_id) not in known:
                pyspiel.register_game(game_type(cls), type(f"ArenaGame_{ruleset_id.replace('-', '_')}", (ArenaGame,),
                                                           {"ruleset": cls}))
            done.append(ruleset_id)
    return done


register_games()


# -- OpenSpiel bots in the arena -------------------------------------------------------


class OpenSpielBot(Bot):
    """An OpenSpiel bot as an `arena.Bot`: at each decision it gets an OpenSpiel state
    *sampled* from the observation (the ruleset's `sample_state`, with the events this
    seat has received), never the true state, and its action index becomes the action.

    Subclass it and implement `make_bot(game, rng)`, returning an object with
    ``step(state) -> action``; `ISMCTSBot` below is OpenSpiel's Python ISMCTS.
    """

    rulesets = "*"  # any ruleset `searchable`: a subclass may narrow `plays`

    def start(self, info: dict[str, Any]) -> None:
        self.game = load_game(info["ruleset"], info["players"], **info["options"])
        self.events: list[dict[str, Any]] = []
        self.mine: list[str] = []
        self.bot = self.make_bot(self.game, self.rng)

    def make_bot(self, game: ArenaGame, rng: random.Random) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.make_bot is not implemented")

    def act(self, observation: Observation) -> str:
        self.events.extend(observation["events"])
        legal = observation["legal_actions"]
        index = self.game.encoding.index
        if sum(1 for a in legal if a in index) <= 1:
            action = next((a for a in legal if a in index), legal[0])
        else:
            seen = dict(observation, events=list(self.events))
            engine = self.game.ruleset.sample_state(seen, self.rng, self.events)
            state = self.game.state_around(engine, observation["seat"], self.mine, self.events)
            action = self.game.encoding.actions[self.bot.step(state)]
        self.mine.append(action)
        return action


class ISMCTSBot(OpenSpielBot):
    """OpenSpiel's Python ISMCTS (random-rollout evaluator) through `OpenSpielBot`:
    `simulations` searches per decision, `rollouts` random playouts per leaf."""

    name = "openspiel-ismcts"

    def __init__(self, simulations: int = 50, rollouts: int = 1, uct_c: float = 2.0):
        self.simulations, self.rollouts, self.uct_c = simulations, rollouts, uct_c

    def make_bot(self, game: ArenaGame, rng: random.Random) -> Any:
        from open_spiel.python.algorithms import ismcts, mcts

        random_state = np.random.RandomState(rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations, random_state=random_state)
        # Its own resampler would draw from a pyspiel sampler seeded apart from the game's seed.
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.random))
        return bot
