"""The environments' encoding of a table: what the ruleset declares (its ``encoding``
capability, `arena.rules.encoding`, which documents the `Encoding` it returns; each game's
layout and action order are on its own `arena/rules/<game>/encoding.py`).

`encoding_for(ruleset, players, options)` returns it, or refuses a ruleset that declares
none in one line naming what to add.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.api import ruleset_class
from arena.rules.base import Ruleset
from arena.rules.encoding import Encoding, Feature  # noqa: F401 (the environments' API, as before)


def encoding_for(ruleset: str | type[Ruleset], players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of `ruleset` (a class or an installed id) for a table of `players`
    with resolved `options`; ValueError for a ruleset that declares no encoding."""
    cls = ruleset_class(ruleset)
    if not cls.supports("encoding"):
        raise ValueError(f"ruleset {cls.id!r} declares no encoding: add an encoding(players, options) classmethod "
                         f"and \"encoding\" to its capabilities (see arena.rules.encoding)")
    return cls.encoding(players, options)

