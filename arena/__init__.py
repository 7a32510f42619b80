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
"""

from importlib.metadata import PackageNotFoundError, version as _version

from arena.bot import Bot
from arena.errors import ArenaError, IllegalActionError
from arena.hookspecs import hookimpl

try:
    __version__ = _version("flip-arena")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["Bot", "hookimpl", "ArenaError", "IllegalActionError", "__version__"]
