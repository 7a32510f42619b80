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

from typing import Any

import arena

FLIP = "flip"
HAND = 5


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

    def act(self, observation: dict[str, Any]) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        view = observation["view"]
        self.me = me = observation["seat"]
        self.players = observation["players"]
        self.active = view["turn"]
        factions = view["factions"]
        colors = (factions[me]["top"], factions[me]["bottom"])
        tops = tuple([f["top"] for f in factions])
        # a hand is a tuple of (face, back) pairs: hashable, so it is its own memo key
        board = [tuple([(c["face"], c["back"]) for c in hand]) for hand in view["hands"]]
        # hand -> _summary(hand), kept across decisions; one table per (colors, tops),
        # which a summary reads (a search's samples deal a rival other bottom colors)
        if len(getattr(self, "_memos", ())) > 20 or not hasattr(self, "_memos"):
            self._memos: dict[tuple, dict[tuple, list]] = {}
            self._lines: dict[tuple, float] = {}   # line's arguments -> its value
        self._memo = self._memos.setdefault((colors, tops), {})
        if len(self._memo) > 50_000:
            self._memo.clear()
        self.colors, self.tops = colors, tops
        step = view["step"]
        if step == "push":
            return self._push(board, legal)
        if step == "pull":
            return self._best(board, legal)
        if step == "answer":
            return self._answer(board, legal, view["pull"])
        # cleanup: which card to lose; it goes face up (nothing new is shown)
        return self._best(board, [a for a in legal if a.endswith(":face")])

    # -- choosing ------------------------------------------------------------------

    def _best(self, board, legal):
        scored = [(self.score(simulate(board, self.me, action)) + self.rng.random() * 1e-6, action)
                  for action in legal]
        return max(scored)[1]

    def _push(self, board, legal):
        me = self.me
        first = []
        for action in legal:
            after = simulate(board, me, action)
            first.append((self.score(after) + self.rng.random() * 1e-6, action, after))
        first.sort(reverse=True)
        best_value, best_action = None, first[0][1]
        for value, action, after in first[:self.push_breadth]:
            pulls = [f"pull:{s}:{p}" for s in range(self.players) if s != me for p in range(len(after[s]))]
            if pulls:
                value = max(self.score(simulate(after, me, pull)) for pull in pulls)
            if best_value is None or value > best_value:
                best_value, best_action = value, action
        return best_action

    def _answer(self, board, legal, pull):
        puller, pos = pull["seat"], pull["pos"]
        best = None
        me = self.me
        for action in legal:
            after = list(board)
            if action == "allow":
                face, back = board[me][pos]
                after[me] = board[me][:pos] + board[me][pos + 1:]
                after[puller] = board[puller] + ((back, face),)
            else:
                lost = int(action.split(":")[1])
                after[me] = board[me][:lost] + board[me][lost + 1:]
                after[puller] = tuple([(b, f) for f, b in board[puller]])
            value = self.score(after)
            if best is None or value > best[0]:
                best = (value, action)
        return best[1]

    # -- evaluating ---------------------------------------------------------------

    def line(self, count: float, unknown: int, size: int, exact: bool) -> float:
        """Value of a line with `count` sides of the color and `unknown` unseen sides."""
        if exact and size == HAND and count == HAND:
            return 1000.0
        k = count + self.unknown * unknown
        if size < HAND:
            k += self.unknown * (HAND - size)
        k = min(k, HAND)
        return 100.0 * (k / HAND) ** 4

    def score(self, board) -> float:
        me, players = self.me, self.players
        memo = self._memo
        stats = []
        for hand in board:
            found = memo.get(hand)
            if found is None:
                found = memo[hand] = self._summary(hand)
            stats.append(found)
        # the same sums and maxima, in the same order, as over the raw line values
        progress = 0.0
        spread = 0.0
        mine = stats[me][0][0]
        for c in (0, 1):
            value = mine[c]
            if value > progress:
                progress = value
            spread += value
            for other in range(players):
                if other != me:
                    value = stats[other][1][0][c]
                    if value > progress:
                        progress = value
                    spread += value
        if progress >= 1000.0 and self.active == me:
            return 1e6  # my check comes first in my own turn
        threat = 0.0
        for opponent in range(players):
            if opponent == me:
                continue
            known = secret = 0.0
            for holder in range(players):
                # the opponent's own faces, or another hand's backs
                side = stats[holder][0 if holder == opponent else 1]
                value = side[1][opponent]
                if value > known:
                    known = value
                value = side[2][opponent]
                if value > secret:
                    secret = value
            threat = max(threat, known, 0.2 * secret)
        flips = stats[me][2]
        return progress + 0.05 * spread - self.threat_weight * threat + self.flip_value * min(flips, 2)

    def _summary(self, hand):
        """Per side of a hand (faces, backs), the line values `score` reads: of each of
        this bot's two faction colors; of each seat's visible faction color (`tops`); and
        per seat the best line of a color seen there other than that seat's top (0 if
        none). A color not seen on the side counts as all unknown. Then the number of
        Flip faces."""
        size = len(hand)
        out = []
        flips = 0
        lines = self._lines
        for side in (0, 1):
            counts: dict[str, int] = {}
            unknown = 0
            for card in hand:
                color = card[side]
                if color is None:
                    unknown += 1
                elif color != FLIP:
                    counts[color] = counts.get(color, 0) + 1
                elif side == 0:
                    flips += 1
            values = {}
            # the two largest (value, color), as the head of sorted(..., reverse=True)
            best = second = (0.0, None)
            exact = unknown == 0
            for color, count in counts.items():
                key = (count, unknown, size, exact)
                value = lines.get(key)
                if value is None:
                    value = lines[key] = self.line(*key)
                values[color] = value
                ranked = (value, color)
                if best[1] is None or ranked > best:
                    best, second = ranked, best
                elif second[1] is None or ranked > second:
                    second = ranked
            key = (0, unknown, size, False)   # no count is 0 above: the keys cannot collide
            base = lines.get(key)
            if base is None:
                base = lines[key] = self.line(*key)
            get = values.get
            out.append(([get(color, base) for color in self.colors],
                        [get(top, base) for top in self.tops],
                        [best[0] if best[1] != top else second[0] for top in self.tops]))
        out.append(flips)
        return out


def simulate(board, me, action):
    """The board (a list of hands, each a tuple of (face, back) relative to its holder,
    None = unknown) after `me` plays `action` (give, flip, pull - assuming the pull goes
    through - or discard); the hands it does not change are shared with `board`."""
    parts = action.split(":")
    kind = parts[0]
    after = list(board)
    if kind == "give":
        pos, target = int(parts[1]), int(parts[2])
        face, back = board[me][pos]
        after[me] = board[me][:pos] + board[me][pos + 1:]
        after[target] = board[target] + ((back, face),)
    elif kind == "flip":
        pos, target = int(parts[1]), int(parts[2])
        after[me] = board[me][:pos] + board[me][pos + 1:]
        after[target] = tuple([(b, f) for f, b in after[target]])
    elif kind == "pull":
        holder, pos = int(parts[1]), int(parts[2])
        face, back = board[holder][pos]
        after[holder] = board[holder][:pos] + board[holder][pos + 1:]
        after[me] = board[me] + ((back, face),)
    elif kind == "discard":
        pos = int(parts[1])
        after[me] = board[me][:pos] + board[me][pos + 1:]
    return after
