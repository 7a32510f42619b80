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


class OpenSpielISMCTS(arena.Bot):
    """OpenSpiel's ISMCTS (random rollouts) through `arena.envs.openspiel.ISMCTSBot`: it is
    given states sampled from its observation, never the true state. Params: `simulations`
    per decision (default 50), `rollouts` per leaf (1), `uct_c` (2.0). Rulesets "*": it
    plays the four built-in rulesets (a ruleset without an environment encoding is an
    error at the start of its game)."""

    name = "openspiel-ismcts"
    rulesets = "*"

    def __init__(self, simulations: int = 50, rollouts: int = 1, uct_c: float = 2.0):
        self.params = {"simulations": simulations, "rollouts": rollouts, "uct_c": uct_c}

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
