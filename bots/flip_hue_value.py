"""Flip Hue's fitted position value (issue 22, item 2): P(each seat wins) from a few
features of a full state, a conditional logit regressed on self-play outcomes
(`benchmarks/fit_flip_hue_value.py`), shipped as bots/data/flip_hue_value.json.

A seat's features (`seat_features`), read off a full state (a search's determinization:
every card's both sides):

- its best line k: over its two faction colors, the most cards of one color among its
  own faces or among the backs of one other hand (both win at five), as k / 5 and as
  the indicators k >= 4 and k = 5;
- how many such lines (color x own faces or another hand's backs) hold four or more;
- whether its best line is its own faces (which only it changes);
- the Flip faces it holds (at most 2 count): each blocks a pull or flips a hand;
- whether it is the active player, or the next one (a win is checked in turn order
  from the active player, and the next player moves next).

P(seat s wins) = exp(w . x_s) / sum over seats of exp(w . x); the search's reward for a
seat is then its expected outcome reward: 1 for the winner, for a loser the share of
the other losers it ties with, (n - 2) / (2 (n - 1)).

It predicts the winner a little better than the declared `evaluate_flip_hue` but did not
play better (benchmarks/strength_notes.md), so flip-hue does not declare it; ismcts uses
it when given ``evaluation = "arena_bots.flip_hue_value:evaluate_flip_hue_fitted"``.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
from typing import Any

from arena.rules.flip_hue.deck import FLIP

FEATURES = ("best/5", "best>=4", "best=5", "lines>=4", "best is own faces", "flips held",
            "is active", "is next")


def seat_features(state: Any) -> list[list[float]]:
    """Per seat, the features above, from the full state `state` (a FlipHueState)."""
    table = state.table
    faces, side = table.faces, table.side
    players = state.players
    face_counts: list[dict[str, int]] = []
    back_counts: list[dict[str, int]] = []
    for hand in table.hands:
        fc: dict[str, int] = {}
        bc: dict[str, int] = {}
        for card in hand:
            pair, toward = faces[card], side[card]
            face, back = pair[toward], pair[1 - toward]
            fc[face] = fc.get(face, 0) + 1
            bc[back] = bc.get(back, 0) + 1
        face_counts.append(fc)
        back_counts.append(bc)
    active = state.active
    rows = []
    for seat in range(players):
        colors = faces[state.faction[seat]]
        own = max(face_counts[seat].get(color, 0) for color in colors)
        best = own
        near = sum(1 for color in colors if face_counts[seat].get(color, 0) >= 4)
        for other in range(players):
            if other != seat:
                for color in colors:
                    count = back_counts[other].get(color, 0)
                    if count > best:
                        best = count
                    if count >= 4:
                        near += 1
        best = min(best, 5)
        rows.append([best / 5, float(best >= 4), float(best == 5), float(min(near, 3)),
                     float(own == best), float(min(face_counts[seat].get(FLIP, 0), 2)),
                     float(seat == active), float(seat == (active + 1) % players)])
    return rows


@functools.cache
def weights() -> tuple[float, ...]:
    """The fitted weights, in `FEATURES` order (bots/data/flip_hue_value.json)."""
    data = json.loads(importlib.resources.files("arena_bots").joinpath("data/flip_hue_value.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"flip_hue_value.json was fitted on features {data['features']}, not {list(FEATURES)}")
    return tuple(float(w) for w in data["weights"])


def win_chances(rows: list[list[float]], w: tuple[float, ...]) -> list[float]:
    """Per seat, exp(w . x_s) normalised over the seats."""
    utilities = [sum(a * b for a, b in zip(w, row)) for row in rows]
    top = max(utilities)
    exps = [math.exp(u - top) for u in utilities]
    total = sum(exps)
    return [e / total for e in exps]


def evaluate_flip_hue_fitted(state: Any, me: int) -> list[float]:
    """Per seat, its expected outcome reward under the fitted win chances (see above)."""
    chances = win_chances(seat_features(state), weights())
    n = state.players
    if n == 1:
        return [1.0]
    loser = (n - 2) / (2 * (n - 1))
    return [p + (1 - p) * loser for p in chances]
