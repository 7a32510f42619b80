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

import arena
from arena.rules.uno_flip import DEFAULT_DECK
# the play itself, as functions (bots/uno_flip_play.py); these names importable from here too
from arena_bots.uno_flip_play import TableReading, best_color, face_points, play_or_draw, split_face  # noqa: F401

SIDES = {"light": 0, "dark": 1}
CHALLENGE_THRESHOLD = 0.4


Pairings = tuple[dict[str, list[str]], dict[str, list[str]]]


def _pairings(deck) -> Pairings:
    """For each side: inactive face -> the active faces it is printed with (with repeats),
    from `deck` (option ``deck``: [light_face, dark_face] pairs)."""
    table: Pairings = ({}, {})
    for light, dark in deck:
        table[0].setdefault(dark, []).append(light)
        table[1].setdefault(light, []).append(dark)
    return table


def reading_of(view, seat):
    """The `TableReading` of `seat`'s view."""
    hands = view["hands"]
    return TableReading(seat, [card["face"] for card in hands[seat]], [len(hand) for hand in hands],
                        view["direction"], view["color"], SIDES[view["side"]], hands.__getitem__)


class UnoFlipHeuristicBot(arena.Bot):
    """Sheds points, saves wilds, punishes a player close to going out, reads faces."""

    name = "uno-flip-heuristic"
    rulesets = ("uno-flip",)

    _pairs: Pairings | None = None   # per game (a fresh instance each game): the pairing of the game's deck

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
            return "challenge" if self._bluff_likely(view, self._pairs) > CHALLENGE_THRESHOLD else "accept"
        reading = reading_of(view, observation["seat"])
        if phase == "color":
            return "color:" + self._best_color(reading)
        return self.play_or_draw(reading, legal, phase == "drawn")

    # -- playing (bots/uno_flip_play.py) ------------------------------------------

    def play_or_draw(self, table, legal, drawn):
        """The move in the play phase (`drawn`: after drawing a playable card), from the
        `TableReading` `table` and the legal actions (more than one)."""
        return play_or_draw(table, legal, drawn, self.rng)

    def _best_color(self, table, hand=None):
        return best_color(table, self.rng, hand)

    # -- challenging ------------------------------------------------------------

    def _bluff_likely(self, view, pairings: Pairings):
        """The chance that the offender held a card of the prior color or a Wild (`pairings`:
        the game's deck's, `_pairings`)."""
        pending = view["pending"]
        prior = pending["prior_color"]
        side = SIDES[view["side"]]
        pairs = pairings[side]
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

