"""Registers `openspiel-ismcts`, OpenSpiel's Python ISMCTS entered as an arena bot, where
open-spiel is installed (the entry point ``openspiel-bots`` of the group ``arena``).

The class registered here is thin: OpenSpiel is imported when a game starts, not when
the registry loads, so the harness starts as fast without it.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import arena

if TYPE_CHECKING:
    from arena.rules.observation import Observation

GAME_CAPABILITIES = ("encoding", "chance_outcomes")
"""What a ruleset declares to be an OpenSpiel game (`arena.envs.openspiel`)."""
SEARCH_CAPABILITIES = GAME_CAPABILITIES + ("sample_state",)
"""What it declares besides for OpenSpiel's ISMCTS (``resample_from_infostate``); here so
that listing the bot imports no pyspiel."""


class OpenSpielISMCTS(arena.Bot):
    """OpenSpiel's ISMCTS (random rollouts) through `arena.envs.openspiel.ISMCTSBot`: it is
    given states sampled from its observation, never the true state. Params: `simulations`
    per decision (default 50), `rollouts` per leaf (1), `uct_c` (2.0). It plays the
    installed rulesets that declare an ``encoding``, ``chance_outcomes`` and
    ``sample_state`` (`plays`), and is listed for those only."""

    name = "openspiel-ismcts"
    rulesets = "*"

    def __init__(self, simulations: int = 50, rollouts: int = 1, uct_c: float = 2.0):
        self.params: dict[str, Any] = {"simulations": simulations, "rollouts": rollouts, "uct_c": uct_c}

    @classmethod
    def plays(cls, ruleset_id: str) -> bool:
        """True for an installed ruleset that declares what OpenSpiel's ISMCTS needs
        (`arena.envs.openspiel.SEARCH_CAPABILITIES`); the rules are asked, not pyspiel."""
        import arena.rulesets
        from arena.errors import UnknownNameError

        try:
            ruleset = arena.rulesets.get(ruleset_id)
        except UnknownNameError:
            return False
        return all(ruleset.supports(name) for name in SEARCH_CAPABILITIES)

    def start(self, info: dict[str, Any]) -> None:
        from arena.envs.openspiel import ISMCTSBot

        self.inner = ISMCTSBot(**self.params)
        self.inner.rng = self.rng
        self.inner.start(info)

    def act(self, observation: Observation) -> str:
        return self.inner.act(observation)


@arena.hookimpl
def register_bots(register):
    """Register `openspiel-ismcts` if open-spiel is installed."""
    if importlib.util.find_spec("pyspiel") is not None:
        register(OpenSpielISMCTS)
