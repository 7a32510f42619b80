"""Flip Arena: a tournament harness for card-game bots.

The public contract for bot authors: subclass `Bot`, and register it from a
plugin module with a function marked `@hookimpl`::

    import arena

    class MyBot(arena.Bot):
        name = "my-bot"
        rulesets = ("flip-7",)

        def act(self, observation):
            return observation["legal_actions"][0]

    @arena.hookimpl
    def register_bots(register):
        register(MyBot)

From Python (a notebook, a script): `arena.play(ruleset, bots, seed=..., options=...)`
plays one game with bot classes, installed bots' names or plain functions
(`arena.api`); `arena.rulesets.get(id)` and `arena.bots.get(name)` look things up.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from arena.bot import Bot
from arena.errors import ArenaError, IllegalActionError
from arena.hookspecs import hookimpl

try:
    __version__ = _version("flip-arena")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["Bot", "hookimpl", "ArenaError", "IllegalActionError", "__version__", "play", "PlayResult", "Observation"]

_LAZY = {"play": "arena.api", "PlayResult": "arena.api", "Observation": "arena.rules.observation"}


def __getattr__(name: str):
    """`arena.play`, `arena.Observation` and the submodules `arena.rulesets`, `arena.bots`, `arena.envs` are
    imported on first use: a bot's `import arena` stays as light as the Bot class."""
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in ("rulesets", "bots", "envs", "returns"):
        return importlib.import_module(f"arena.{name}")
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
