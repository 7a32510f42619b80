"""Learning presets: the options a ruleset offers (its ``option_presets["learning"]``) under
which uniformly random play ends well before the turn limit, so that rewards are not all zero
(docs/rl.md has the table of episode lengths, measured by benchmarks/bench_episode_lengths.py).

    from arena.envs.pettingzoo import env
    from arena.envs.presets import learning_options
    game = env("flip-hue", players=2, options=learning_options("flip-hue", players=2))

They are for training; evaluate on the rulesets' default options.
"""

from __future__ import annotations

import copy
from typing import Any

import arena.rulesets


def option_preset(ruleset: str, name: str, what: str) -> dict[str, Any]:
    """A copy of the installed `ruleset`'s option preset `name` (`Ruleset.option_presets`);
    KeyError naming the rulesets that offer one (`what` names the preset in the message)."""
    offered = [rid for rid in arena.rulesets.ids() if name in arena.rulesets.get(rid).option_presets]
    if ruleset not in offered:
        raise KeyError(f"no {what} for {ruleset!r}; {what}s: {', '.join(sorted(offered))}")
    return copy.deepcopy(dict(arena.rulesets.get(ruleset).option_presets[name]))


def learning_options(ruleset: str, players: int | None = None) -> dict[str, Any]:
    """A copy of `ruleset`'s learning preset (options; the rest default): for `players`
    seats its ``"learning-<players>p"`` preset where it offers one (Flip Hue at 2 players),
    else its ``"learning"`` preset; KeyError naming the rulesets that have one."""
    if players is not None and f"learning-{players}p" in arena.rulesets.get(ruleset).option_presets:
        return option_preset(ruleset, f"learning-{players}p", "learning preset")
    return option_preset(ruleset, "learning", "learning preset")
