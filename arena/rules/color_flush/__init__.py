"""Color Flush, one package: `engine` (the rules page, `ColorFlush` and its state), `sampler` (the
determinization for search bots). The names of both are importable from here, as from the
module this package replaced (`from arena.rules.color_flush import ColorFlush`)."""

from arena.rules.color_flush.engine import *  # noqa: F401,F403
from arena.rules.color_flush.sampler import sample_state, _recall  # noqa: F401
