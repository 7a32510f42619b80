"""UNO Flip's pairwise value and its unrevealed cards (the `pairwise_value` and
`permute_unrevealed` capabilities, see `Ruleset.capabilities`). Written, tested by the kit's
checks and measured (benchmarks/bench_luck.py), but not declared by `UnoFlip`: declaring a
pairwise value makes luck-adjusted scores the default for the ruleset.

Unrevealed: the draw pile's cards that no seat has seen a side of (`TwoFacedTable.seen` is
0). Those are every card below the visible top: the deal's shuffle, a reshuffled discard
pile (a reshuffle forgets the cards' history) and the opening Wild Draw put back at a
random place. A card whose place everyone knows keeps it: the top, and the old top that a
Flip turned to the bottom of the pile. Every card of the pile lies the same way (the side
not in play up), so a reordering turns none.

The value reads the hands (their sizes, their wilds and the points they hold on the side in
play) and the totals, never the piles. Each seat's chance of winning the round falls with its
hand's size, a wild counting `WILD_BONUS` cards fewer: ``exp(-PER_CARD x size)`` among the
seats. Then:

- a single round (``target_score`` 0): the winner first, the others by points left in
  hand, fewest first; ``V[a][b] = P(a wins) + P(neither) x sigmoid((points_b - points_a) /
  POINT_SCALE)``;
- with a target: each seat's expected total after this round (its total plus, for
  "highest" scoring, its chance of winning times the others' points; for "lowest", its
  chance of not winning times its own points), and ``V[a][b] = sigmoid((E_a - E_b) / S)``
  (the sign turned for "lowest"), where ``S = TOTAL_SCALE + REMAINING x (target - max E)``:
  totals far from the target still have many rounds to change;
- a finished game: its standing, exactly.
"""

from __future__ import annotations

import math
import random

from arena.rules.cards import shuffle_unseen, unseen_places
from arena.rules.uno_flip.engine import OVER, WILD, UnoFlipState

VALUE_ID = "uno-flip/hand-race"
VALUE_VERSION = "1"
"""The value's identity and version (a plan records them)."""

# Fitted by log loss over a grid, on states kept at random decisions of games between
# uno-flip-heuristic and random (2-4 players; 600 single rounds: 4,818 states, log loss
# 0.573; 400 games to 500: 1,717 states, 0.465).
PER_CARD = 0.25
"""How much one more card in hand lowers a seat's chance of winning the round (log scale)."""
POINT_SCALE = 40.0
"""The spread of a single round's points left in hand (a loser 40 points behind another is
~73% sure to finish behind it)."""
TOTAL_SCALE = 100.0
"""The spread of a target game's outcome around the expected totals, near the end."""
REMAINING = 0.05
"""How much the spread grows with the points still to go before the target."""
WILD_BONUS = 3.0
"""A wild in hand counts as this many cards fewer (it always plays, and most draw)."""


def unrevealed_places(state: UnoFlipState) -> list[int]:
    """Positions in the draw pile of the cards no seat has seen a side of."""
    return unseen_places(state.table, "draw")


def permute_unrevealed(state: UnoFlipState, rng: random.Random) -> None:
    """Reorder the unrevealed draw pile cards uniformly from `rng`, among their places."""
    shuffle_unseen(state.table, "draw", rng)


def effective_sizes(state: UnoFlipState) -> list[float]:
    """Per seat, its hand's size less `WILD_BONUS` a wild (on the side in play): how far it
    is from going out."""
    wild = [kind >= WILD for kind in state.deck.kind[state.active]]
    return [len(hand) - WILD_BONUS * sum(1 for card in hand if wild[card]) for hand in state.table.hands]


def round_win_chances(state: UnoFlipState) -> list[float]:
    """Per seat, its estimated chance of winning the round: ``exp(-PER_CARD x effective size)``,
    normed."""
    weights = [math.exp(-PER_CARD * size) for size in effective_sizes(state)]
    total = sum(weights)
    return [w / total for w in weights]


def hand_points(state: UnoFlipState) -> list[int]:
    """Per seat, the points its hand would count if the round ended now (the side in play)."""
    points = state.deck.points[state.active]
    return [sum(points[card] for card in hand) for hand in state.table.hands]


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -50 else 0.0


def _standing_value(standing: list[int]) -> list[list[float]]:
    n = len(standing)
    return [[1.0 if standing[a] < standing[b] else 0.5 if standing[a] == standing[b] else 0.0
             for b in range(n)] for a in range(n)]


def _single_round(win: list[float], points: list[int]) -> list[list[float]]:
    n = len(win)
    return [[0.5 if a == b else win[a] + (1.0 - win[a] - win[b]) * _sigmoid((points[b] - points[a]) / POINT_SCALE)
             for b in range(n)] for a in range(n)]


def expected_totals(state: UnoFlipState, win: list[float], points: list[int]) -> list[float]:
    """Per seat, its total after this round, expected (see the module)."""
    if state.lowest:
        return [total + (1.0 - w) * p for total, w, p in zip(state.scores, win, points)]
    pot = sum(points)
    return [total + w * (pot - p) for total, w, p in zip(state.scores, win, points)]


def pairwise_value(state: UnoFlipState) -> list[list[float]]:
    """``V[a][b]``: the estimated probability that seat a finishes ahead of seat b (ties a
    half; see the module); ``V[b][a] == 1 - V[a][b]``, ``V[a][a] == 0.5``."""
    if state.phase == OVER:
        return _standing_value(state.outcome()["standing"])
    win, points = round_win_chances(state), hand_points(state)
    if state.target == 0:
        return _single_round(win, points)
    expected = expected_totals(state, win, points)
    scale = TOTAL_SCALE + REMAINING * max(0.0, state.target - max(expected))
    sign = -1.0 if state.lowest else 1.0
    n = state.players
    return [[0.5 if a == b else _sigmoid(sign * (expected[a] - expected[b]) / scale) for b in range(n)]
            for a in range(n)]
