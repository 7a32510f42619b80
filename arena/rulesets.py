"""The installed rulesets, by id: `arena.rulesets.get("flip-7")` returns its Ruleset class.

Looks through the same plugin registry as the CLI (built-in rulesets and every
installed plugin); the registry is loaded once per process, on first use.
"""

from __future__ import annotations

from functools import lru_cache

from arena.plugins import Registry, load_registry
from arena.rules.base import Ruleset


@lru_cache(maxsize=1)
def registry() -> Registry:
    """The plugin registry, loaded on first use and kept for the process."""
    return load_registry()


def get(ruleset_id: str) -> type[Ruleset]:
    """The Ruleset class registered as `ruleset_id`; UnknownNameError (naming the known ids) if none."""
    return registry().ruleset(ruleset_id).cls


def ids() -> list[str]:
    """Every installed ruleset id, sorted."""
    return sorted(registry().rulesets)
