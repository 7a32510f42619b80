"""`flip-hue-heuristic`: a one-to-two-ply evaluator for Flip Hue.

The bot reads only its observation (the view has perfect recall: its own backs from
the deal and from drawn cards, every back of the other hands, any face it has seen).
It simulates each legal action on what it knows of the hands and scores the result:

- progress: for each of its two faction colors, the nearest line to five of that
  color, either its own faces or the backs of another player's hand (an unknown side
  counts as a small chance of the color); lines near five weigh much more;
- threat: for each opponent, the same for the opponent's visible faction color (and,
  discounted, for the secret one: any color), over the opponent's faces as far as
  known and the backs of the other hands (its own backs as remembered);
- a Flip card kept in hand is worth something (it can block a pull or flip a hand
  that is about to win).

Push is chosen two-ply (each push followed by its best pull, for the most promising
pushes); a pull is chosen one-ply (pulling a card whose back is a faction color gives
that color as a face); when pulled, it blocks with a Flip card if the pull or the
puller's progress matters more than keeping the Flip card; in cleanup it discards the
card whose loss hurts least, face up.
"""

from __future__ import annotations

import arena
from arena.rules.observation import Observation
# how it judges boards (bots/flip_hue_play.py); these names importable from here too
from arena_bots.flip_hue_play import FLIP, HAND, HueJudge, hand_of, simulate  # noqa: F401


class FlipHueHeuristicBot(arena.Bot):
    """Pursues the nearest faction-color line, pulls useful backs, flips threats."""

    name = "flip-hue-heuristic"
    rulesets = ("flip-hue",)

    unknown = 0.15
    """Chance that a side the bot has not seen shows a given color."""
    threat_weight = 0.7
    flip_value = 4.0
    """What keeping one Flip card in hand is worth (two at most count)."""
    push_breadth = 4
    """How many of the best pushes are looked at together with their best pull."""

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        view = observation["view"]
        me = observation["seat"]
        factions = view["factions"]
        colors = (factions[me]["top"], factions[me]["bottom"])
        tops = tuple([f["top"] for f in factions])
        board = [hand_of([(c["face"], c["back"]) for c in hand]) for hand in view["hands"]]
        # a side's tally -> HueJudge.side_values, kept across decisions; one table per (colors,
        # tops), which the values read (a search's samples deal a rival other bottom colors)
        if len(getattr(self, "_memos", ())) > 20 or not hasattr(self, "_memos"):
            self._memos: dict[tuple, dict[int, tuple]] = {}
            self._lines: dict[tuple, float] = {}   # line's arguments -> its value
        memo = self._memos.setdefault((colors, tops), {})
        if len(memo) > 50_000:
            memo.clear()
        judge = HueJudge(me, observation["players"], view["turn"], colors, tops, memo, self._lines, self.unknown,
                         self.threat_weight, self.flip_value, self.push_breadth, self.rng)
        step = view["step"]
        if step == "push":
            return judge.push(board, legal)
        if step == "pull":
            return judge.best(board, legal)
        if step == "answer":
            return judge.answer(board, legal, view["pull"])
        # cleanup: which card to lose; it goes face up (nothing new is shown)
        return judge.best(board, [a for a in legal if a.endswith(":face")])
