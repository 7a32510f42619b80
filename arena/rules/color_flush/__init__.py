"""Color Flush, one package: `engine` (the rules page, `ColorFlush` and its state), `deck` (the
cards and option `deck` checked), `sampler` (the determinization for search bots), `text` (its
renderer and log lines). The names of engine, deck and sampler are importable from here, as
from the module this package replaced (`from arena.rules.color_flush import ColorFlush`)."""

from arena.rules.color_flush.engine import *  # noqa: F401,F403
from arena.rules.color_flush.sampler import sample_state, _recall  # noqa: F401
