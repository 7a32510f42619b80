"""Flip Hue's pairwise value and its unrevealed cards (the `pairwise_value` and
`permute_unrevealed` capabilities, see `Ruleset.capabilities`). Written, tested by the kit's
checks and measured (benchmarks/bench_luck.py), but not declared by `FlipHue`: declaring a
pairwise value makes luck-adjusted scores the default for the ruleset.

Unrevealed: the draw pile's cards that no seat has seen a side of (`TwoFacedTable.seen` is
0), that is every card below its visible top (the discard pile's order was watched by
everyone, and a pile top's place is known). Their orientation depends on where the pile
came from:

- the deal's pile (no reshuffle yet): each card lies on the side a coin chose, so a
  reordering tosses those coins again;
- a reshuffled discard pile: each card keeps the side it showed on the discard pile, so a
  reordering moves cards with their sides.

Which one it is: the game's chance is drawn only by the deal (one shuffle and a coin per
card) and by each reshuffle (one shuffle), so the pile is the deal's exactly while
``chance.points`` is no more than the deck's size plus one. (A `lay_out` position's
hand-set pile is taken as lying the way it was laid, unless the counts say otherwise.)

The value: each seat's distance to a win, five minus its longest line toward five cards of
one of its faction colors (its own faces, or another hand's backs: both win), a seat's
chance of winning ~ exp(-SCALE x distance) among the seats and "nobody wins" (the turn
limit), and ``V[a][b] = P(a wins) + 1/2 P(neither a nor b wins)`` (the winner first, the
rest tied). It reads hands and faction cards, never the piles. Exact once the game is over.
"""

from __future__ import annotations

import random

from arena.rules.cards import shuffle_unseen, unseen_places
from arena.rules.flip_hue.engine import DRAW, HAND_SIZE, OVER, FlipHueState
from arena.rules.evaluation import distance_win_chances, winner_takes_all

VALUE_ID = "flip-hue/line-distance"
VALUE_VERSION = "1"
"""The value's identity and version (a plan records them)."""

# Fitted by log loss over a grid, on 4,254 states kept at random decisions of 200 games
# between flip-hue-heuristic and random (2-4 players; a third reached the turn limit): a
# weak value (log loss 0.683, against 0.693 for a constant 1/2).
SCALE = 1.0
"""How much one card of distance weighs."""
NOBODY = 1.0
"""The "nobody wins" outcome's weight, as a distance (the turn limit)."""


def unrevealed_places(state: FlipHueState) -> list[int]:
    """Positions in the draw pile of the cards no seat has seen a side of."""
    return unseen_places(state.table, DRAW)


def dealt_pile(state: FlipHueState) -> bool:
    """Whether the draw pile is still the deal's (its cards' sides chosen by coins): no
    reshuffle has drawn on the game's chance since the deal's shuffle and coins."""
    return state.chance.points <= len(state.table.faces) + 1


def permute_unrevealed(state: FlipHueState, rng: random.Random) -> None:
    """Reorder the unrevealed draw pile cards uniformly from `rng`, among their places; in
    the deal's pile toss again the coin that chose each one's up side."""
    table = state.table
    coins = dealt_pile(state)
    for _, card in shuffle_unseen(table, DRAW, rng):
        if coins:
            table.side[card] = rng.getrandbits(1)


def distance(state: FlipHueState, seat: int) -> int:
    """Five minus `seat`'s longest line toward a win: its own faces, or another hand's
    backs, of one of its faction colors."""
    table = state.table
    faces, side = table.faces, table.side
    best = 0
    for color in set(faces[state.faction[seat]]):
        for holder, hand in enumerate(table.hands):
            shown = 0 if holder == seat else 1   # own faces; the others' backs
            best = max(best, sum(1 for card in hand if faces[card][side[card] ^ shown] == color))
    return HAND_SIZE - min(best, HAND_SIZE)


def pairwise_value(state: FlipHueState) -> list[list[float]]:
    """``V[a][b]``: the estimated probability that seat a finishes ahead of seat b (see the
    module); ``V[b][a] == 1 - V[a][b]``, ``V[a][a] == 0.5``."""
    if state.step == OVER:
        return winner_takes_all([1.0 if seat == state.winner else 0.0 for seat in range(state.players)])
    distances = [distance(state, seat) for seat in range(state.players)]
    return winner_takes_all(distance_win_chances(distances, SCALE, NOBODY))
