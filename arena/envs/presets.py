"""Learning presets: per ruleset, existing options under which uniformly random play ends
well before the turn limit, so that rewards are not all zero (docs/rl.md has the table of
episode lengths, measured by benchmarks/bench_episode_lengths.py).

    from arena.envs.pettingzoo import env
    from arena.envs.presets import learning_options
    game = env("uno-flip", players=2, options=learning_options("uno-flip"))

They are for training; evaluate on the rulesets' default options.
"""

from __future__ import annotations

import copy
from itertools import combinations
from typing import Any

_HUE_COLORS = ("red", "yellow", "blue")

LEARNING: dict[str, dict[str, Any]] = {
    # a single round, no penalty for a forgotten UNO (random play forgets it half the time), room to finish
    "uno-flip": {"target_score": 0, "uno_penalty": 0, "max_turns": 3000},
    # a game of a few rounds instead of about ten
    "flip-7": {"target_score": 50},
    # random play already ends well before the turn limit
    "color-flush": {},
    # three colors instead of six (30 cards: each pair of colors 6 times, each color twice on both
    # faces, and two Flip cards per color), so five of a faction color come together
    "flip-hue": {"deck": [list(pair) for pair in combinations(_HUE_COLORS, 2)] * 6
                 + [[color, color] for color in _HUE_COLORS] * 2
                 + [["flip", color] for color in _HUE_COLORS] * 2},
}


def learning_options(ruleset: str) -> dict[str, Any]:
    """A copy of `ruleset`'s learning preset (options; the rest default); KeyError naming
    the rulesets that have one."""
    if ruleset not in LEARNING:
        raise KeyError(f"no learning preset for {ruleset!r}; presets: {', '.join(sorted(LEARNING))}")
    return copy.deepcopy(LEARNING[ruleset])
