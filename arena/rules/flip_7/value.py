"""Flip 7's pairwise value and its unrevealed cards (the `pairwise_value` and
`permute_unrevealed` capabilities, see `Ruleset.capabilities`).

The value is fixed before play and reads only what every seat sees: totals, rows, the
deck's composition (the view's "unseen" counts). It is an estimate, per ordered pair of
seats (a, b), of P(a finishes ahead of b), a tie counting a half:

- each seat's *expected total*: its total plus the round score it can still expect. A row
  that stayed, froze or flipped 7 banks its score, a busted row 0; an active row is worth
  its expected banked score when played on by the best hit-or-stay rule against the
  deck's current composition (`expected_banked`, an exact expectimax over the cards the
  row can still draw, each draw taken with its probability in the deck; Second Chance and
  the modifiers counted, a Freeze or Flip Three drawn treated as a blank);
- the pair's two expected totals through a logistic of their difference relative to the
  target, steeper as the leader nears it (`ahead`, fitted on self-play outcomes of the
  threshold bots: weights below, the fit of the ismcts evaluation's round-end value);
- a finished game: its standing, exactly.

The only unrevealed cards of Flip 7 are the deck's: everything else lies face up, and the
set-aside pile is shuffled by the game's chance before any of it is drawn again.
"""

from __future__ import annotations

import functools
import math
import random
from typing import Any

from arena.rules.chance import shuffle
from arena.rules.flip_7.engine import (ACTIVE, BUSTED, CARD_ORDER, FLIP_7_BONUS, MODIFIER_BONUS, NUMBER_VALUE,
                                       ONE_DECK, Flip7State)

VALUE_ID = "flip-7/expected-total-logistic"
VALUE_VERSION = "1"
"""The value's identity and version: a plan records them, and corrections made with
another value are not mixed with these."""

# logit P(A ahead of B) = d (w0 + w1 m + w2 m^2 + w3 m^3), d = (a - b) / target,
# m = min(max(a, b) / target, M_CAP): fitted on 20,000 self-play games of flip7-threshold,
# 2-4 players, target 200 (the ismcts evaluation's fit, copied: rules import no bot)
WEIGHTS = (3.122231, 5.48407, -6.287981, 7.930637)
M_CAP = 1.2

def permute_unrevealed(state: Flip7State, rng: random.Random) -> None:
    """Shuffle the deck in place from `rng`: its order is the only thing no seat knows.
    Its counts (and the view's cached "unseen" counts) stay as they were."""
    shuffle(state.deck, rng)


def pairwise_value(state: Flip7State) -> list[list[float]]:
    """``V[a][b]``: the estimated probability that seat a finishes ahead of seat b (ties a
    half); ``V[b][a] == 1 - V[a][b]``, ``V[a][a] == 0.5``. Exact once the game is over."""
    n = state.players
    if state.over:
        standing = state.outcome()["standing"]
        return [[1.0 if standing[a] < standing[b] else 0.5 if standing[a] == standing[b] else 0.0
                 for b in range(n)] for a in range(n)]
    values = expected_totals(state)
    target = max(1, state.target_score)
    result = [[0.5] * n for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            p = ahead(values[a], values[b], target)
            result[a][b], result[b][a] = p, 1.0 - p
    return result


def ahead(mine: float, other: float, target: float) -> float:
    """The fitted P(a seat expecting `mine` finishes ahead of one expecting `other`)."""
    w0, w1, w2, w3 = WEIGHTS
    m = min((mine if mine > other else other) / target, M_CAP)
    x = (mine - other) / target * (w0 + m * (w1 + m * (w2 + m * w3)))
    if x < -50:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def expected_totals(state: Flip7State) -> list[float]:
    """Per seat: its total plus the round score it can still expect (see the module)."""
    counts = state._unseen_counts_now() if state.deck else state._set_aside_counts_now()
    key = tuple([counts.get(card, 0) for card in CARD_ORDER])   # the next card's law (an empty
    values = []                                                 # deck is refilled from the pile)
    for s in range(state.players):
        status = state.status[s]
        if status == ACTIVE:
            bonus, doubled = 0, False
            for card in state.modifiers[s]:
                if card == "x2":
                    doubled = True
                else:
                    bonus += MODIFIER_BONUS[card]
            row = _expected_row(state.masks[s], bonus, doubled, state.second_chance[s], key)
        elif status == BUSTED:
            row = 0.0
        else:
            row = float(state._round_score(s))
        values.append(state.totals[s] + row)
    return values


@functools.lru_cache(maxsize=1 << 16)
def _expected_row(mask: int, bonus: int, doubled: bool, second_chance: bool, counts: tuple[int, ...]) -> float:
    return expected_banked(mask, bonus, doubled, second_chance, _law(counts))


def _law(counts: tuple[int, ...]) -> list[tuple[float, int, int]]:
    """``[(probability, kind, value), ...]`` of the next card, the cards counted in
    `CARD_ORDER`: kind 0 a number (value: its bit), 1 a +N (value: N), 2 x2, 3 Second
    Chance, 4 a Freeze or Flip Three (a blank here)."""
    total = sum(counts)
    if total == 0:
        return []
    law = []
    for card, count in zip(CARD_ORDER, counts):
        if not count:
            continue
        p = count / total
        if card in NUMBER_VALUE:
            law.append((p, 0, 1 << NUMBER_VALUE[card]))
        elif card in MODIFIER_BONUS:
            law.append((p, 1, MODIFIER_BONUS[card]))
        elif card == "x2":
            law.append((p, 2, 0))
        elif card == "second-chance":
            law.append((p, 3, 0))
        else:
            law.append((p, 4, 0))
    return law


_BASE_LAW = _law(tuple(ONE_DECK.count(card) for card in CARD_ORDER))


def _mask_sums() -> list[int]:
    """The sum of the numbers 0-12 whose bits a mask sets, for every 13-bit mask (each from
    the mask without its lowest bit: ~1 ms at import, where summing each mask's bits took ~17)."""
    sums = [0] * (1 << 13)
    for mask in range(1, 1 << 13):
        lowest = mask & -mask
        sums[mask] = sums[mask ^ lowest] + lowest.bit_length() - 1
    return sums


_SUMS = _mask_sums()


def _stay(mask: int, bonus: int, doubled: bool) -> int:
    total = _SUMS[mask]
    return (2 * total if doubled else total) + bonus


def _step(law: list[tuple[float, int, int]], mask: int, bonus: int, doubled: bool, second: int,
          then: Any) -> tuple[float, float]:
    """One hit drawn from `law`: the expected value of the outcomes that change the row,
    each valued by `then`, and the probability of the rest (a blank, an x2 or Second
    Chance the row holds already, a +N: the row as it was, a +N's points added to the
    value)."""
    value = same = 0.0
    for p, kind, x in law:
        if kind == 0:
            if mask & x:
                if second == 1:   # used: the row goes on, counted as taking no other one
                    value += p * then(mask, bonus, doubled, 2)
                # else a bust: 0
            else:
                value += p * then(mask | x, bonus, doubled, second)
        elif kind == 1:   # a +N: counted as N more on the same row (a row drawing one seldom busts)
            value += p * x
            same += p
        elif kind == 2 and not doubled:
            value += p * then(mask, bonus, True, second)
        elif kind == 3 and not second:
            value += p * then(mask, bonus, doubled, 1)
        else:
            same += p
    return value, same


def _best(stay: float, law: list[tuple[float, int, int]], mask: int, bonus: int, doubled: bool,
          second: int) -> float:
    """max(stay, hit), where hitting here and on every return to this same row is worth
    ``value / (1 - same)`` (`_step`)."""
    if bin(mask).count("1") == 7:
        return stay + FLIP_7_BONUS
    value, same = _step(law, mask, bonus, doubled, second, _best_base)
    hit = value / (1.0 - same) if same < 1.0 else 0.0
    return hit if hit > stay else stay


@functools.lru_cache(maxsize=None)
def _best_base(mask: int, bonus: int, doubled: bool, second: int) -> float:
    """The expected banked score of a row played by the best hit-or-stay rule, every card
    drawn from one full deck's law (with replacement). `second`: 0 no Second Chance, 1 one
    held, 2 one used (another is then counted as a blank, which keeps the table acyclic)."""
    return _best(float(_stay(mask, bonus, doubled)), _BASE_LAW, mask, bonus, doubled, second)


def expected_banked(mask: int, bonus: int, doubled: bool, second_chance: bool,
                    law: list[tuple[float, int, int]]) -> float:
    """The expected score an active row banks when it hits while hitting is worth more than
    staying: the next card drawn from `law` (the deck's composition now), the cards after it
    from a full deck's (`_best_base`). `mask`: the row's numbers as bits."""
    stay = float(_stay(mask, bonus, doubled))
    if not law:
        return stay
    return _best(stay, law, mask, bonus, doubled, 1 if second_chance else 0)


__all__ = ["VALUE_ID", "VALUE_VERSION", "ahead", "expected_banked", "expected_totals", "pairwise_value",
           "permute_unrevealed"]

