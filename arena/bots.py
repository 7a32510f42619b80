"""The installed bots, by name: `arena.bots.get("random")` returns its Bot class.

Looks through the same plugin registry as the CLI and `arena.rulesets`.
"""

from __future__ import annotations

from arena.bot import Bot
from arena.rulesets import registry


def get(name: str) -> type[Bot]:
    """The Bot class registered as `name`; UnknownNameError (naming the known bots) if none."""
    return registry().bot(name).cls


def names(ruleset_id: str | None = None) -> list[str]:
    """Every installed bot name, sorted; only those that play `ruleset_id` when it is given."""
    return sorted(name for name, entry in registry().bots.items()
                  if ruleset_id is None or entry.cls.plays(ruleset_id))
