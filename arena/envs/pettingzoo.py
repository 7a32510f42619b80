"""A PettingZoo AEC environment for any ruleset that declares an ``encoding``
(`arena.rules.encoding`): `env(ruleset, players=..., ...)`.

    from arena.envs.pettingzoo import env
    game = env("flip-7", players=2)
    game.reset(seed=7)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else game.action_space(agent).sample(mask)
        game.step(action)

- Agents are ``player_0`` .. ``player_{n-1}``, seat order; the acting agent is the seat
  whose decision it is (every decision is asked, a forced one too).
- Actions: ``Discrete(len(index))`` over the ruleset's stable action index
  (the ruleset's ``encoding``; each game documents its own); ``info["legal_actions"]`` lists the legal
  action strings, ``env.unwrapped.action_string(i)`` names what index `i` does for the acting agent.
- Observations: ``{"observation": float32 array (the encoding of that seat's
  observation, then the history block if asked), "action_mask": int8 array}``; the mask is
  all zeros for an agent that is not acting. The array is written from the engine's state
  for that seat (`Encoding.encode_state_into`: the ruleset's own fill where it declares one,
  which builds no view), the same array as the encoding of the seat's observation.
  ``env.unwrapped.features`` names the array's blocks (offsets, lengths), ``feature_name(i)``
  entry `i`.
- The raw observation (the same plain data a bot gets, `arena.Bot`, events since the seat's
  previous decision included; its ``options`` are one copy per game, shared by the game's
  raw observations) of the acting agent is built on request: ``env.unwrapped.raw_observation``
  (built on first read at each decision, then the same object until the step), or in every
  acting agent's ``info["observation"]`` with ``raw_observations=True`` (the step then pays
  for it). ``info["legal_actions"]`` lists the legal action strings either way.
- ``seats="relative"``: each agent's array and action index are rotated so that it is seat
  0 (`arena.envs.seats`); ``"absolute"`` (default): seat numbers as the ruleset has them.
- ``history=k``: the array ends with the table's last k actions (`arena.envs.history`).
- Rewards: zero until the game ends, then each seat's return (`arena.returns`). A game
  stopped by the ruleset's turn or round limit (outcome reason ``max_turns`` or
  ``max_rounds``: every seat tied, every return 0) is reported as a *truncation*, not a
  termination (``truncation=False`` reports it as a termination, a real draw).
- Illegal actions: as PettingZoo's ``TerminateIllegalWrapper`` does for its classic
  environments (built in here, which costs a step far less than the wrapper): an action the
  mask does not allow ends the game, every agent terminated, the agent that took it
  rewarded ``illegal_reward`` (default -1) and every other 0 (``info["illegal_action"]``
  names it); ``illegal_reward=None`` makes `step` refuse it instead (ValueError naming
  it). An index outside the action space is always refused.
- Seeding: `reset(seed)` seeds ``np_random``; each game's deal seed is drawn from it.
- The engine's state is ``env.unwrapped.game`` (PettingZoo's ``state()`` method is not
  shadowed: no global-state encoding is declared, so it raises NotImplementedError).
- The environment pickles (its encoding is rebuilt from ruleset, players and options).
- ``render_mode="ansi"``: `render()` returns the acting seat's frame as `arena play`
  prints it (its view, its events since its previous decision, its legal actions).
"""

from __future__ import annotations

import random
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from arena.api import ruleset_class
from arena.envs.encoding import Encoding, Feature, encoding_for
from arena.envs.history import History
from arena.envs.seats import RelativeSeats
from arena.returns import returns
from arena.rules.base import GameState, Ruleset, fresh_copy
from arena.rules.observation import Observation, make_observation

DEAL_SEEDS = 1 << 63
LIMIT_REASONS = ("max_turns", "max_rounds")
"""Outcome reasons of a game stopped by its ruleset's turn or round limit: a truncation."""
SEATS = ("absolute", "relative")


def env(ruleset: str | type[Ruleset], players: int = 2, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None, *, seats: str = "absolute", history: int = 0, truncation: bool = True,
        illegal_reward: float | None = -1.0, raw_observations: bool = False) -> AECEnv:
    """The AEC environment of `ruleset` for `players` seats and `options` (defaults for
    the rest), in PettingZoo's OrderEnforcingWrapper. See the module docstring."""
    return _OrderEnforcing(ArenaEnv(ruleset, players, options, render_mode, seats=seats,
                                                   history=history, truncation=truncation,
                                                   illegal_reward=illegal_reward, raw_observations=raw_observations))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with the checks of a step's calls (`agent_iter`,
    `last`, `step`) made on the environment at once: the inherited ones read its attributes
    through the wrapper's `__getattr__`, a fifth of a step's time in all. Same checks, same
    errors and warnings."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the environment behind the
    wrapper directly."""

    def __next__(self) -> str:
        wrapper = self.env  # an _OrderEnforcing (its __init__ asserts an order-enforcing wrapper)
        inner = wrapper.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return inner.agent_selection


class ArenaEnv(AECEnv):
    """One table of one ruleset as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "arena_v0", "is_parallelizable": False}

    def __init__(self, ruleset: str | type[Ruleset], players: int = 2, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, *, seats: str = "absolute", history: int = 0,
                 truncation: bool = True, illegal_reward: float | None = -1.0, raw_observations: bool = False):
        super().__init__()
        self.ruleset = ruleset_class(ruleset)
        self.ruleset.check_players(players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if seats not in SEATS:
            raise ValueError(f"seats must be one of {SEATS}, not {seats!r}")
        if isinstance(history, bool) or not isinstance(history, int) or history < 0:
            raise ValueError(f"history must be a whole number of actions >= 0, not {history!r}")
        self.render_mode = render_mode
        self.players = players
        self.seats, self.history_length, self.truncation = seats, history, truncation
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        self.raw_observations = bool(raw_observations)
        """Put the acting agent's raw observation in its ``info["observation"]`` at every decision."""
        self.game_options = self.ruleset.resolve_options(options)
        self._build()
        self.metadata = dict(self.metadata, name=f"arena_{self.ruleset.id.replace('-', '_')}_v0")
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (len(self.encoding.actions),), dtype=np.int8),
        })
        # The same space objects on every call (PettingZoo's api_test checks it).
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(len(self.encoding.actions)) for agent in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game: GameState | None = None
        self._acting: int | None = None   # the seat to act; None: no decision pending
        self._legal: list[str] = []       # its legal actions
        self._events: list[dict[str, Any]] = []   # its events since its previous decision, uncopied
        self._raw: Observation | None = None      # its raw observation, once built
        self.deal_seed: int | None = None

    def _build(self) -> None:
        """The encoding and what is derived from it (not pickled: the encoding holds a closure)."""
        self.encoding: Encoding = encoding_for(self.ruleset, self.players, self.game_options)
        self.relative = RelativeSeats(self.encoding) if self.seats == "relative" else None
        self.history = History(self.encoding, self.history_length, self.encoding.size) \
            if self.history_length else None
        self.size = self.encoding.size + (self.history.size if self.history else 0)
        self.features: tuple[Feature, ...] = self.encoding.features + (self.history.features if self.history else ())
        """The observation array's named blocks, the history's included."""

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("encoding", "relative", "history", "size", "features"):
            del state[name]
        state["_history_actions"] = list(self.history.actions) if self.history else []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        actions = state.pop("_history_actions")
        self.__dict__.update(state)
        self._build()
        if self.history:
            self.history.actions.extend(actions)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def action_string(self, action: int) -> str:
        """The action string index `action` stands for: for the acting agent when seats are
        relative (the action `step` applies)."""
        if self.relative is not None and self._acting is not None:
            action = self.relative.actions[self._acting][action]
        return self.encoding.actions[action]

    def feature_name(self, i: int) -> str:
        """The name of entry `i` of the observation array, e.g. ``"turn[2]"``."""
        for feature in self.features:
            if feature.offset <= i < feature.offset + feature.length:
                return feature.name if feature.length == 1 else f"{feature.name}[{i - feature.offset}]"
        raise IndexError(f"entry {i} is past the observation array's {self.size} entries")

    # -- the game --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.deal_seed = int(self.np_random.integers(DEAL_SEEDS))
        self.game = self.ruleset.new_game(self.players, self.game_options, random.Random(self.deal_seed))
        self._options = fresh_copy(self.game_options)  # one copy a game, shared by its raw observations
        if self.history:
            self.history.clear()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._acting, self._raw = None, None
        self._next_decision()

    def _playing(self) -> GameState:
        """The game in play: `reset` deals one, `close` drops it."""
        if self.game is None:  # (the AttributeError a None game gave before)
            raise AttributeError(f"{self.ruleset.id}: no game in play: reset() deals one")
        return self.game

    def _next_decision(self) -> None:
        """Point at the seat to act (its legal actions, its events; its raw observation only
        with `raw_observations`); or end the game."""
        game = self._playing()
        seat = game.current_seat()
        if seat is None:
            outcome = game.outcome()
            ended = self.truncations if self.truncation and outcome.get("reason") in LIMIT_REASONS \
                else self.terminations
            for agent, value in zip(self.agents, returns(outcome["standing"])):
                self.rewards[agent] = value
                ended[agent] = True
                self.infos[agent] = {"outcome": outcome}
            self._acting, self._raw = None, None
            return
        legal = game.legal_actions()
        if self._acting is not None:  # the previous decision's info goes; no other agent's info is set
            self.infos[self.possible_agents[self._acting]] = {}
        self._acting, self._legal = seat, legal
        self.agent_selection = agent = self.possible_agents[seat]
        if self.raw_observations:
            self._raw = make_observation(self.ruleset, game, seat, options=self._options, legal_actions=legal)
            self.infos[agent] = {"observation": self._raw, "legal_actions": list(legal)}
        else:
            self._events, self._raw = game.drop_events(seat), None   # copied if asked for (`raw_observation`)
            self.infos[agent] = {"legal_actions": list(legal)}

    @property
    def raw_observation(self) -> Observation | None:
        """The acting agent's raw observation: exactly what an `arena.Bot` receives at this
        decision (events since the seat's previous decision included), built on the first
        read at each decision, then the same object until the step; None when no agent is
        to act (the game is over)."""
        if self._raw is None and self._acting is not None:
            self._raw = make_observation(self.ruleset, self._playing(), self._acting, fresh_copy(self._events),
                                         options=self._options, legal_actions=self._legal)
        return self._raw

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:  # (the TypeError int(None) gave before)
            raise TypeError(f"{self.ruleset.id}: {agent} is to act; step(None) is for a done agent")
        seat = self._acting
        assert seat is not None  # a live agent is the one to act
        actions = self.encoding.actions
        number = int(action)
        if not 0 <= number < len(actions):
            raise ValueError(f"{self.ruleset.id}: action {action!r} is outside the index (0 to {len(actions) - 1})")
        text = actions[number] if self.relative is None else self.action_string(number)
        if text not in self._legal:
            if self.illegal_reward is None:
                raise ValueError(f"{self.ruleset.id}: action {number} ({text!r}) is not legal for {agent}; "
                                 "use the action_mask")
            self._end_illegal(agent, number, text, self.illegal_reward)
            return
        self._cumulative_rewards[agent] = 0.0
        self._playing().apply(text)
        if self.history:
            self.history.record(seat, text)
        self._next_decision()
        if self._acting is None:
            # The game is over: the rewards are in; every agent is done, the last to act asked first.
            self._accumulate_rewards()
            self.agent_selection = agent

    def _end_illegal(self, agent: str, number: int, text: str, penalty: float) -> None:
        """End the game as TerminateIllegalWrapper does: every agent terminated, `agent`
        rewarded `penalty`, the others 0."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = penalty
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {other: {} for other in self.agents}
        self.infos[agent] = {"illegal_action": (number, text)}
        self._acting, self._raw = None, None
        self._accumulate_rewards()
        self._deads_step_first()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        encoding, relative = self.encoding, self.relative
        acting = seat == self._acting
        observation = np.zeros(self.size, dtype=np.float32)
        encoding.encode_state_into(observation, seat, self._playing())
        if acting:
            mask = encoding.mask(self._legal)
        else:
            mask = np.zeros(len(encoding.actions), dtype=np.int8)
        if relative is not None:
            observation[:encoding.size] = observation[relative.array_order[seat]]
            if acting:
                mask = mask[relative.actions[seat]]
        if self.history:
            self.history.fill(observation, seat if relative else 0, relative.to_relative[seat] if relative else None)
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        from arena.render import Style, frame, renderer_for, seat_names

        raw = self.raw_observation
        if raw is None and self._playing().current_seat() is not None:
            return f"{self.ruleset.id}: over (an illegal action)"
        if raw is None:
            outcome = self._playing().outcome()
            return f"{self.ruleset.id}: over ({outcome['reason']}); standing {outcome['standing']}, " \
                   f"scores {outcome['scores']}"
        names = seat_names(self.possible_agents, None)
        renderer = renderer_for(self.ruleset, Style(False), names, raw["seat"], self.players)
        return "\n".join(frame(renderer, raw))

    def close(self) -> None:
        self.game = None
