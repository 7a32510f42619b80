"""Flip Hue, one package: `ruleset` (the rules page and `FlipHue`), `engine` (its state),
`deck` (the cards and option `deck` checked), `sampler` (the determinization for search bots),
`text` (its renderer and log lines). The names of ruleset, engine, deck and sampler are
importable from here, as from the module this package replaced
(`from arena.rules.flip_hue import FlipHue`)."""

from arena.rules.flip_hue.engine import *  # noqa: F401,F403
from arena.rules.flip_hue.ruleset import FlipHue  # noqa: F401
from arena.rules.flip_hue.sampler import _recall, sample_state  # noqa: F401
