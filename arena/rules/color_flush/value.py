"""Color Flush's pairwise value and its unrevealed cards (the `pairwise_value` and
`permute_unrevealed` capabilities, see `Ruleset.capabilities`).

Unrevealed: the draw pile's cards that no seat has seen a side of (`TwoFacedTable.seen` is 0):
the cards of the opening shuffle below the visible top. A card placed on the pile, or a top
that was covered, was seen and keeps its known place. Their up sides were chosen by a coin at
the deal (a black face always down), so a reordering also tosses those coins again.

The value: each seat's distance to a flush (its hand's cards whose face toward it is not the
hand's most common color; a white face counts as any color, a black one never), a seat's
chance of winning ~ exp(-SCALE x distance) among the seats and "nobody wins" (the turn
limit), and ``V[a][b] = P(a wins) + 1/2 P(neither a nor b wins)`` (the winner first, the rest
tied). Exact once the game is over.
"""

from __future__ import annotations

import random

from arena.rules.cards import shuffle_unseen, unseen_places
from arena.rules.color_flush.engine import CODE_BLACK, CODE_WHITE, PILE, ColorFlushState
from arena.rules.evaluation import distance_win_chances, winner_takes_all

VALUE_ID = "color-flush/flush-distance"
VALUE_VERSION = "1"

SCALE = 1.0
"""How much one card of distance weighs (the ismcts evaluation's scale)."""
NOBODY = 4.0
"""The "nobody wins" outcome's weight, as a distance (games seldom reach the turn limit)."""


def unrevealed_places(state: ColorFlushState) -> list[int]:
    """Positions in the draw pile of the cards no seat has seen a side of."""
    return unseen_places(state.table, PILE)


def permute_unrevealed(state: ColorFlushState, rng: random.Random) -> None:
    """Reorder the unrevealed pile cards uniformly from `rng` and toss again the coin that
    chose each one's up side (a card with a black face keeps it down)."""
    table = state.table
    for _, card in shuffle_unseen(table, PILE, rng):
        first, second = table.faces[card]
        if first == "black":
            table.side[card] = 1
        elif second == "black":
            table.side[card] = 0
        else:
            table.side[card] = rng.getrandbits(1)


def distance(state: ColorFlushState, seat: int) -> int:
    """Cards of `seat`'s hand whose face toward it is off its best color (blacks always)."""
    codes, side = state.codes, state.table.side
    counts: dict[int, int] = {}
    off = 0
    for card in state.table.hands[seat]:
        code = codes[card][side[card]]
        if code == CODE_BLACK:
            off += 1
        elif code != CODE_WHITE:
            counts[code] = counts.get(code, 0) + 1
    colored = sum(counts.values())
    return off + colored - (max(counts.values()) if counts else 0)


def pairwise_value(state: ColorFlushState) -> list[list[float]]:
    """``V[a][b]``: the estimated probability that seat a finishes ahead of seat b (see the module)."""
    if state.over:
        return winner_takes_all([1.0 if seat == state.winner else 0.0 for seat in range(state.players)])
    distances = [distance(state, seat) for seat in range(state.players)]
    return winner_takes_all(distance_win_chances(distances, SCALE, NOBODY))
