"""Self-play for fitting values (benchmarks/fit_*_value.py): one bot class at every seat,
driven on the engine directly (no harness), every random stream drawn from one master."""

from __future__ import annotations

import random
from typing import Any, Callable


def seated_bots(cls: type, ruleset_id: str, players: int, options: dict[str, Any],
                master: random.Random) -> list[Any]:
    """One started `cls` per seat, each seeded with a draw from `master`, seats in order."""
    bots = []
    for seat in range(players):
        bot = cls()
        bot.rng = random.Random(master.getrandbits(64))
        bot.start({"ruleset": ruleset_id, "seat": seat, "players": players, "options": options})
        bots.append(bot)
    return bots


def play_out(state: Any, bots: list[Any], ruleset_id: str, options: dict[str, Any],
             before_move: Callable[[Any], None] | None = None) -> None:
    """Play `state` to its end, each seat's bot deciding from its view (a forced move is not
    asked); `before_move(state)` is called before every move."""
    players = len(bots)
    while (seat := state.current_seat()) is not None:
        if before_move is not None:
            before_move(state)
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else bots[seat].act(
            {"ruleset": ruleset_id, "seat": seat, "players": players, "options": options,
             "view": state.view(seat), "events": [], "legal_actions": legal})
        state.apply(action)
