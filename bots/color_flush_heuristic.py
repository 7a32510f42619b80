"""`color-flush-heuristic`: a rule-of-thumb Color Flush bot that uses only its observation.

What it does, every decision:

- It scores a hand by its *distance* to a flush: for the color it is closest to,
  every face that is neither that color nor white costs 1 if the card's back is
  known to be good (one flip fixes it), 1.3 if the back is unknown, 1.6 if the
  back is known to be bad (the card has to go), plus a little when fewer than 4
  good faces remain. Black faces are settled the way the rules do (whole-hand
  flip, then single flips), as far as the bot knows the other sides.
- A legal action whose known result wins at once is played at once.
- Otherwise it does its actions in the order flip, take, give: the flip first
  (it learns the back, and a failed flip can still be given away), the take
  next (a bad card taken can still be given away), the give last.
- Flip: the card that lowers the distance most in expectation (an unknown back
  is weighed by the deck's other sides of that face, from the public deck option).
- Take: the card whose visible back (the side that will face it) helps most; from
  a player it prefers cards that player needs, and never takes the one card that
  lets that player win.
- Give or place: the card whose loss helps most; the receiver is the opponent the
  card's other side (when known) hurts most, weighted by how close they are to
  winning; it never hands a player a winning card, and it does not place a face
  the next player needs. Placing a white face is weighed by the best hand swap it
  buys: the bot's new faces are the victim's backs, which it can see.
"""

from __future__ import annotations

import arena
# the evaluation and the play, as functions (bots/color_flush_play.py); these names importable from here too
from arena_bots.color_flush_play import (BAD_BACK, BLACK, CERTAIN_WIN, GOOD_BACK, OPPONENT_WEIGHT,  # noqa: F401
                                         SHORT, UNKNOWN_BACK, UNKNOWN_FACE, WHITE, back_odds, distance, move,
                                         settle, take_wins, taken_face_wins, wins, wins_without_each)


class ColorFlushHeuristicBot(arena.Bot):
    """Aims at its closest color, flips what it knows, takes and gives with the table in mind."""

    name = "color-flush-heuristic"
    rulesets = ("color-flush",)

    def start(self, info):
        self._odds = back_odds(info["options"]["deck"])

    def act(self, observation):
        if not hasattr(self, "_odds"):
            self._odds = back_odds(observation["options"]["deck"])
        return move(observation, self._odds, self.rng)
