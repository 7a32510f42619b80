"""Flip 7, one package: `ruleset` (the rules page and `Flip7`), `engine` (its state),
`deck` (the cards), `sampler` (the determinization for search bots), `text` (its renderer
and log lines). The names of ruleset, engine, deck and sampler are importable from here, as
from the module this package replaced (`from arena.rules.flip_7 import Flip7`)."""

from arena.rules.flip_7.engine import *  # noqa: F401,F403
from arena.rules.flip_7.ruleset import Flip7  # noqa: F401
from arena.rules.flip_7.sampler import sample_flip7_state  # noqa: F401
