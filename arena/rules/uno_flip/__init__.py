"""UNO Flip, one package: `ruleset` (the rules page and `UnoFlip`), `engine` (its state),
`deck` (the cards, the deck file and option `deck`), `sampler` (the determinization for
search bots), `text` (its renderer and log lines). The names of ruleset, engine, deck and
sampler are importable from here, as from the module this package replaced
(`from arena.rules.uno_flip import UnoFlip`)."""

from arena.rules.uno_flip.engine import *  # noqa: F401,F403
from arena.rules.uno_flip.ruleset import UnoFlip  # noqa: F401
from arena.rules.uno_flip.sampler import sample_uno_flip_state  # noqa: F401
