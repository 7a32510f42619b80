"""Color Flush, one package: `ruleset` (the rules page and `ColorFlush`), `engine` (its state),
`deck` (the cards and option `deck` checked), `sampler` (the determinization for search bots),
`text` (its renderer and log lines). The names of ruleset, engine, deck and sampler are
importable from here, as from the module this package replaced
(`from arena.rules.color_flush import ColorFlush`)."""

from arena.rules.color_flush.engine import *  # noqa: F401,F403
from arena.rules.color_flush.ruleset import ColorFlush  # noqa: F401
from arena.rules.color_flush.sampler import sample_state, _recall  # noqa: F401
