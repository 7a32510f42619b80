"""What `uno-flip-heuristic` plays, and which color it names, from a `TableReading`.

Functions of the table and the bot's `rng` (its only chance), so that ismcts's playouts
call them straight off a sampled state, and a compiled install (docs/compiled.md) can
compile them; the bot (bots/uno_flip_heuristic.py) says what the play is and why.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from arena.rules.uno_flip import COLORS, POINTS

WILD_FACES = ("wild", "wild-draw-two", "wild-draw-color")


@lru_cache(maxsize=1024)   # a deck has few distinct faces; playouts ask millions of times
def split_face(face: str) -> tuple[str | None, str]:
    """(color or None, value) of a face string."""
    if face in WILD_FACES:
        return None, face
    color, _, value = face.partition("-")
    return color, value


@lru_cache(maxsize=1024)
def face_points(face: str) -> int:
    _, value = split_face(face)
    return POINTS.get(value) or int(value)


@dataclass(slots=True)
class TableReading:
    """What a play or color choice reads of the table, as `seat` knows it: its own faces
    (`hand`), every hand's size, the direction, the color to match, the active side (0
    light, 1 dark), and any hand's cards as ``{"face", "back"}`` on demand (`cards`).
    `reading_of` (bots/uno_flip_heuristic.py) makes one from a view; a search may make one
    off its own sample."""

    seat: int
    hand: list[str]
    sizes: list[int]
    direction: int
    color: str | None
    side: int
    cards: Callable[[int], list[dict[str, Any]]]   # holder -> that hand's cards as `seat` knows them


def play_or_draw(table: TableReading, legal: list[str], drawn: bool, rng: random.Random) -> str:
    """The move in the play phase (`drawn`: after drawing a playable card), from `table`
    and the legal actions (more than one)."""
    hand = table.hand
    seat = table.seat
    sizes = table.sizes
    players = len(sizes)
    nxt = (seat + table.direction) % players
    threat = min(sizes[s] for s in range(players) if s != seat)
    next_close = sizes[nxt] <= 2
    options: dict[int, list[str]] = {}
    for action in legal:
        if action in ("draw", "keep"):
            continue
        parts = action.split(":")
        pos = len(hand) - 1 if parts[0] == "play-drawn" else int(parts[1])
        options.setdefault(pos, []).append(action)
    held_colors: dict[str | None, int] = {}
    for face in hand:
        color = split_face(face)[0]
        held_colors[color] = held_colors.get(color, 0) + 1
    best: int | None = None
    best_score = 0.0
    for pos in options:
        score = score_play(table, pos, next_close, held_colors)
        if score is None:
            continue
        score += rng.random() * 0.01
        if best is None or score > best_score:
            best, best_score = pos, score
    stay = "keep" if drawn else "draw"
    if best is None:
        return stay
    face = hand[best]
    if face == "wild" and len(hand) > 3 and threat > 2 and best_score < 0:
        return stay  # keep the Wild for when it is needed
    return finish_action(table, options[best], best, rng)


def score_play(table: TableReading, pos: int, next_close: bool, held_colors: dict[str | None, int]) -> float | None:
    """A play's score (higher is better; None: never); `held_colors`: color -> cards of
    the hand of that color."""
    hand = table.hand
    face = hand[pos]
    color, value = split_face(face)
    if len(hand) == 1:
        return 1000.0  # going out
    score = float(face_points(face))
    if value in ("wild-draw-two", "wild-draw-color"):
        rest = hand[:pos] + hand[pos + 1:]
        honest = not any(f == "wild" or split_face(f)[0] == table.color for f in rest)
        if not honest:
            return None  # never bluff
        score = 10.0 + (60.0 if next_close else 0.0)
    elif value == "wild":
        score = -50.0
    elif value in ("draw-one", "draw-five"):
        score += 40.0 if next_close else 5.0
    elif value in ("skip", "skip-everyone", "reverse"):
        score += 25.0 if next_close else 2.0
        if value == "skip-everyone":
            score += 5.0  # another go at once
    elif value == "flip":
        score += flip_gain(table, hand[:pos] + hand[pos + 1:])
    if color is not None:
        # keep control: prefer the color we still hold after this play (the rest of
        # the hand: this card is of that color too)
        score += 3.0 * (held_colors[color] - 1)
    return score


def flip_gain(table: TableReading, rest: list[str]) -> float:
    """How much better the table looks for us after a Flip (positive: flip)."""
    seat = table.seat
    held = [c for c in table.cards(seat) if c["face"] in rest]
    now = sum(face_points(c["face"]) for c in held)
    after = sum(face_points(c["back"]) for c in held if c["back"] is not None)
    gain = 0.3 * (now - after)
    # Opponents close to going out: after the Flip they hold the faces we see now.
    for other, size in enumerate(table.sizes):
        if other == seat or size > 2:
            continue
        cards = table.cards(other)
        backs = [c["back"] for c in cards if c["back"] is not None]
        faces = [c["face"] for c in cards if c["face"] is not None]
        if any(b in WILD_FACES for b in backs):
            gain -= 30.0
        elif len(faces) == len(cards) and any(f in WILD_FACES for f in faces):
            gain += 30.0
    return gain


def finish_action(table: TableReading, actions: list[str], pos: int, rng: random.Random) -> str:
    """Pick the color (if the card is wild) and the UNO call among one card's actions."""
    uno = [a for a in actions if a.endswith(":uno")]
    actions = uno or actions
    if len(actions) == 1:
        return actions[0]
    color = best_color(table, rng, table.hand[:pos] + table.hand[pos + 1:])
    for action in actions:
        if f":{color}" in action:
            return action
    return actions[0]


def best_color(table: TableReading, rng: random.Random, hand: list[str] | None = None) -> str:
    """The color to name: the one held most (by count, then points), avoiding colors the
    next player is known to hold; `hand` instead of the table's (the card being played
    left out)."""
    if hand is None:
        hand = table.hand
    nxt = (table.seat + table.direction) % len(table.sizes)
    known_next = [c["face"] for c in table.cards(nxt) if c["face"] is not None]
    scores: dict[str, float] = {}
    for color in COLORS[table.side]:
        held = [f for f in hand if split_face(f)[0] == color]
        score = 10.0 * len(held) + sum(face_points(f) for f in held) * 0.1
        score -= 6.0 * sum(1 for f in known_next if split_face(f)[0] == color)
        scores[color] = score + rng.random() * 0.01
    return max(scores, key=scores.__getitem__)
