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
  action strings, ``env.unwrapped.action_string(i)`` names an index.
- Observations: ``{"observation": float32 array (the encoding of that seat's
  observation), "action_mask": int8 array}``; the mask is all zeros for an agent that
  is not acting. ``info["observation"]`` of the acting agent is the raw observation, the
  same plain data a bot gets (`arena.Bot`), events since its previous decision included
  (its ``options`` are one copy per game, shared by the game's raw observations).
- Rewards: zero until the game ends, then each seat's return (`arena.returns`). A game
  always ends (every ruleset has a turn limit), so there is no truncation.
- Seeding: `reset(seed)` seeds ``np_random``; each game's deal seed is drawn from it.
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

from arena.api import ruleset_class
from arena.envs.encoding import Encoding, encoding_for
from arena.returns import returns
from arena.rules.base import GameState, Ruleset, fresh_copy
from arena.rules.observation import Observation, make_observation

DEAL_SEEDS = 1 << 63


def env(ruleset: str | type[Ruleset], players: int = 2, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The AEC environment of `ruleset` for `players` seats and `options` (defaults for
    the rest), wrapped in PettingZoo's OrderEnforcingWrapper (`step` itself refuses an
    index out of range or not legal, naming it)."""
    return wrappers.OrderEnforcingWrapper(ArenaEnv(ruleset, players, options, render_mode))


class ArenaEnv(AECEnv):
    """One table of one ruleset as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "arena_v0", "is_parallelizable": False}

    def __init__(self, ruleset: str | type[Ruleset], players: int = 2, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None):
        super().__init__()
        self.ruleset = ruleset_class(ruleset)
        self.ruleset.check_players(players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        self.render_mode = render_mode
        self.players = players
        self.game_options = self.ruleset.resolve_options(options)
        self.encoding: Encoding = encoding_for(self.ruleset, players, self.game_options)
        self.metadata = dict(self.metadata, name=f"arena_{self.ruleset.id.replace('-', '_')}_v0")
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (len(self.encoding.actions),), dtype=np.int8),
        })
        # The same space objects on every call (PettingZoo's api_test checks it).
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(len(self.encoding.actions)) for agent in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.state: GameState | None = None
        self._raw: Observation | None = None
        self.deal_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def action_string(self, action: int) -> str:
        """The action string of index `action`."""
        return self.encoding.actions[action]

    # -- the game --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.deal_seed = int(self.np_random.integers(DEAL_SEEDS))
        self.state = self.ruleset.new_game(self.players, self.game_options, random.Random(self.deal_seed))
        self._options = fresh_copy(self.game_options)  # one copy a game, shared by its raw observations
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._raw = None
        self._next_decision()

    def _next_decision(self) -> None:
        """Point at the seat to act and build its raw observation; or end the game."""
        state = self.state
        seat = state.current_seat()
        if seat is None:
            for agent, value in zip(self.agents, returns(state.outcome()["standing"])):
                self.rewards[agent] = value
                self.terminations[agent] = True
                self.infos[agent] = {"outcome": state.outcome()}
            self._raw = None
            return
        legal = state.legal_actions()
        if self._raw is not None:  # the previous decision's info goes; no other agent's info is set
            self.infos[self.possible_agents[self._raw["seat"]]] = {}
        self._raw = make_observation(self.ruleset, state, seat, options=self._options, legal_actions=legal)
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = {"observation": self._raw, "legal_actions": list(legal)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        actions = self.encoding.actions
        number = int(action)
        if not 0 <= number < len(actions):
            raise ValueError(f"{self.ruleset.id}: action {action!r} is outside the index (0 to {len(actions) - 1})")
        text = actions[number]
        if text not in self._raw["legal_actions"]:
            raise ValueError(f"{self.ruleset.id}: action {number} ({text!r}) is not legal for {agent}; "
                             "use the action_mask")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(text)
        self._next_decision()
        if self._raw is None:
            # The game is over: the rewards are in; every agent is done, the last to act asked first.
            self._accumulate_rewards()
            self.agent_selection = agent

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        acting = self._raw is not None and self._raw["seat"] == seat
        view = self._raw["view"] if acting else self.state.view(seat)
        observation = self.encoding.encode({"seat": seat, "view": view})
        mask = self.encoding.mask(self._raw["legal_actions"]) if acting else \
            np.zeros(len(self.encoding.actions), dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        from arena.render import Style, frame, renderer_for, seat_names

        if self._raw is None:
            outcome = self.state.outcome()
            return f"{self.ruleset.id}: over ({outcome['reason']}); standing {outcome['standing']}, " \
                   f"scores {outcome['scores']}"
        names = seat_names(self.possible_agents, None)
        renderer = renderer_for(self.ruleset, Style(False), names, self._raw["seat"], self.players)
        return "\n".join(frame(renderer, self._raw))

    def close(self) -> None:
        self.state = None
