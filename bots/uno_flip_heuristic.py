"""`uno-flip-heuristic`: a rule-of-thumb UNO Flip player that reads the table.

It uses only its observation (and `self.rng` to break ties):

- Plays rather than draws; sheds high-point cards first, keeps the color it holds
  most of, and saves plain Wilds (and Wild Draws) for when nothing else plays.
- Never bluffs a Wild Draw (except as its last card); plays an honest one, and the
  Draw / Skip cards, first when the next player is close to going out.
- Judges a Flip by both faces of its own cards (it knows them all) and by the faces
  the opponents will hold after it (the inactive faces it sees now).
- Names the color it holds most of, avoiding colors the next player is known to hold.
- Challenges a Wild Draw when the faces it has seen make a bluff likely: a known
  matching card in the offender's hand, or else the chance, from the deck's fixed
  pairing of faces (the option ``deck`` of its observation), that the cards whose active
  face it has not seen match.
- Always calls UNO.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import arena
from arena.rules.uno_flip import COLORS, DEFAULT_DECK, POINTS

WILD_FACES = ("wild", "wild-draw-two", "wild-draw-color")
SIDES = {"light": 0, "dark": 1}
CHALLENGE_THRESHOLD = 0.4


@lru_cache(maxsize=1024)   # a deck has few distinct faces; playouts ask millions of times
def split_face(face):
    """(color or None, value) of a face string."""
    if face in WILD_FACES:
        return None, face
    color, _, value = face.partition("-")
    return color, value


@lru_cache(maxsize=1024)
def face_points(face):
    _, value = split_face(face)
    return POINTS.get(value) or int(value)


def _pairings(deck):
    """For each side: inactive face -> the active faces it is printed with (with repeats),
    from `deck` (option ``deck``: [light_face, dark_face] pairs)."""
    table = ({}, {})
    for light, dark in deck:
        table[0].setdefault(dark, []).append(light)
        table[1].setdefault(light, []).append(dark)
    return table


@dataclass(slots=True)
class TableReading:
    """What a play or color choice reads of the table, as `seat` knows it: its own faces
    (`hand`), every hand's size, the direction, the color to match, the active side (0
    light, 1 dark), and any hand's cards as ``{"face", "back"}`` on demand (`cards`).
    `reading_of` makes one from a view; a search may make one off its own sample."""

    seat: int
    hand: list
    sizes: list
    direction: int
    color: str | None
    side: int
    cards: Callable[[int], list]   # holder -> that hand's cards as `seat` knows them


def reading_of(view, seat):
    """The `TableReading` of `seat`'s view."""
    hands = view["hands"]
    return TableReading(seat, [card["face"] for card in hands[seat]], [len(hand) for hand in hands],
                        view["direction"], view["color"], SIDES[view["side"]], hands.__getitem__)


class UnoFlipHeuristicBot(arena.Bot):
    """Sheds points, saves wilds, punishes a player close to going out, reads faces."""

    name = "uno-flip-heuristic"
    rulesets = ("uno-flip",)

    _pairs = None   # per game (a fresh instance each game): the pairing of the game's deck

    def act(self, observation):
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        view = observation["view"]
        phase = view["phase"]
        if phase == "challenge":
            if self._pairs is None:
                # the game's deck; an observation made without options: the real deck
                self._pairs = _pairings((observation.get("options") or {}).get("deck") or DEFAULT_DECK)
            return "challenge" if self._bluff_likely(view) > CHALLENGE_THRESHOLD else "accept"
        reading = reading_of(view, observation["seat"])
        if phase == "color":
            return "color:" + self._best_color(reading)
        return self.play_or_draw(reading, legal, phase == "drawn")

    # -- playing ---------------------------------------------------------------

    def play_or_draw(self, table, legal, drawn):
        """The move in the play phase (`drawn`: after drawing a playable card), from the
        `TableReading` `table` and the legal actions (more than one)."""
        hand = table.hand
        seat = table.seat
        sizes = table.sizes
        players = len(sizes)
        nxt = (seat + table.direction) % players
        threat = min(sizes[s] for s in range(players) if s != seat)
        next_close = sizes[nxt] <= 2
        options = {}
        for action in legal:
            if action in ("draw", "keep"):
                continue
            parts = action.split(":")
            pos = len(hand) - 1 if parts[0] == "play-drawn" else int(parts[1])
            options.setdefault(pos, []).append(action)
        held_colors = {}
        for face in hand:
            color = split_face(face)[0]
            held_colors[color] = held_colors.get(color, 0) + 1
        best, best_score = None, None
        for pos, actions in options.items():
            score = self._score_play(table, pos, next_close, held_colors)
            if score is None:
                continue
            score += self.rng.random() * 0.01
            if best_score is None or score > best_score:
                best, best_score = pos, score
        stay = "keep" if drawn else "draw"
        if best is None:
            return stay
        face = hand[best]
        if face == "wild" and len(hand) > 3 and threat > 2 and best_score < 0:
            return stay  # keep the Wild for when it is needed
        return self._finish_action(table, options[best], best)

    def _score_play(self, table, pos, next_close, held_colors):
        """A play's score (higher is better; None: never); `held_colors`: color -> cards
        of the hand of that color."""
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
            score += self._flip_gain(table, hand[:pos] + hand[pos + 1:])
        if color is not None:
            # keep control: prefer the color we still hold after this play (the rest of
            # the hand: this card is of that color too)
            score += 3.0 * (held_colors[color] - 1)
        return score

    def _flip_gain(self, table, rest):
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

    def _finish_action(self, table, actions, pos):
        """Pick the color (if the card is wild) and the UNO call among one card's actions."""
        uno = [a for a in actions if a.endswith(":uno")]
        actions = uno or actions
        if len(actions) == 1:
            return actions[0]
        color = self._best_color(table, hand=table.hand[:pos] + table.hand[pos + 1:])
        for action in actions:
            if f":{color}" in action:
                return action
        return actions[0]

    def _best_color(self, table, hand=None):
        if hand is None:
            hand = table.hand
        nxt = (table.seat + table.direction) % len(table.sizes)
        known_next = [c["face"] for c in table.cards(nxt) if c["face"] is not None]
        scores = {}
        for color in COLORS[table.side]:
            held = [f for f in hand if split_face(f)[0] == color]
            score = 10.0 * len(held) + sum(face_points(f) for f in held) * 0.1
            score -= 6.0 * sum(1 for f in known_next if split_face(f)[0] == color)
            scores[color] = score + self.rng.random() * 0.01
        return max(scores, key=scores.get)

    # -- challenging ------------------------------------------------------------

    def _bluff_likely(self, view):
        """The chance that the offender held a card of the prior color or a Wild."""
        pending = view["pending"]
        prior = pending["prior_color"]
        side = SIDES[view["side"]]
        pairs = self._pairs[side]
        clean = 1.0
        for card in view["hands"][pending["offender"]]:
            if card["face"] is not None:
                if card["face"] == "wild" or split_face(card["face"])[0] == prior:
                    return 1.0
                continue
            candidates = pairs.get(card["back"], ())
            if candidates:
                match = sum(1 for f in candidates if f == "wild" or split_face(f)[0] == prior)
                clean *= 1.0 - match / len(candidates)
        return 1.0 - clean

