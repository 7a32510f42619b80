"""Fast paths of the built-in playout bots: a bot's move read off a search's full state,
without building a view (registered with their bots through ``register_playouts``,
bots/plugin.py).

Each returns exactly what the bot's `act` would (or None: ask the bot); the state is the
search's own sample, so nothing hidden leaks. tests/test_ismcts.py checks them against
`act`. Their own module so that a compiled install (docs/compiled.md) can compile them.
"""

from __future__ import annotations

from typing import Any

from arena_bots.uno_flip_play import TableReading, play_or_draw


def flip7_threshold_move(bot: Any, state: Any, seat: int, actions: list[str]) -> str | None:
    """flip7-threshold at hit-or-stay (it reads only the row's Second Chance and number sum)."""
    if state.decision is not None:
        return None
    return "hit" if state.second_chance[seat] or sum(state.numbers[seat]) < bot.threshold else "stay"


def uno_flip_heuristic_move(bot: Any, state: Any, seat: int, actions: list[str]) -> str | None:
    """uno-flip-heuristic's play or draw, from a `TableReading` of the table instead of a
    view (a view holds every card of every hand as dicts; the play reads its own faces and
    the hand sizes, and the few other cards it needs on demand)."""
    if len(actions) == 1:
        return actions[0]
    phase = state.phase
    if phase != "play" and phase != "drawn":
        return None
    table = state.table
    faces, side, hands = table.faces, table.side, table.hands
    own = [faces[card][side[card]] for card in hands[seat]]   # a holder sees its cards' faces
    reading = TableReading(seat, own, [len(hand) for hand in hands], state.direction, state.color,
                           state.active, lambda holder: table.hand_view(holder, seat))
    return play_or_draw(reading, actions, phase == "drawn", bot.rng)
