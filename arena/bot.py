"""`Bot`: the base class every bot subclasses (the public contract for bot authors).

Per game the harness makes a fresh instance with ``BotClass(**params)``, sets
``bot.rng`` to a ``random.Random`` seeded for that game and seat, calls
``bot.start(info)``, then ``bot.act(observation)`` for each decision of its seat,
and finally ``bot.end(outcome)``.

- ``info`` = ``{"ruleset", "version", "options", "seat", "players", "bots"}``
  (``bots``: display names by seat).
- ``observation`` = ``{"ruleset", "version", "options", "seat", "players",
  "view", "events", "legal_actions"}``: plain JSON data, a fresh copy per decision
  (typed as `arena.rules.observation.Observation`, a TypedDict: index it as a dict).
- ``outcome`` = ``{"standing", "scores", "reason"}``; ``standing[seat]`` is the
  finishing position of that seat, 1 = first, ties sharing a position.

A bot must take all its randomness from ``self.rng`` so that games replay.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # (a bot's `import arena` stays light)
    from arena.rules.observation import Observation

BOT_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class Bot:
    """A card-game bot. Subclass it; set `name` and `rulesets`; implement `act`."""

    name: ClassVar[str] = ""
    """Unique registered name: lowercase letters, digits and dashes."""

    rulesets: ClassVar[tuple[str, ...] | str] = "*"
    """Ruleset ids this bot plays, or "*" for every ruleset."""

    rng: random.Random
    """Set by the harness before `start`: the bot's only source of randomness."""

    def start(self, info: dict[str, Any]) -> None:
        """Called once before the first decision of a game (optional)."""

    def act(self, observation: Observation) -> str:
        """Return one string of ``observation["legal_actions"]``."""
        raise NotImplementedError(f"{type(self).__name__}.act is not implemented")

    def end(self, outcome: dict[str, Any]) -> None:
        """Called once when the game is over (optional)."""

    @classmethod
    def plays(cls, ruleset_id: str) -> bool:
        """True if this bot declares that it plays `ruleset_id`."""
        return cls.rulesets == "*" or ruleset_id in cls.rulesets
