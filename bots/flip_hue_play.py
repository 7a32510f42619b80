"""How `flip-hue-heuristic` judges boards and picks its moves (bots/flip_hue_heuristic.py
says what it plays and why): `HueJudge`, made for one decision, and `simulate`.

A board is a list of hands, each a tuple of (face, back) pairs relative to its holder (None:
unknown). Its own module, of plain classes and functions, so that ismcts's playouts run it
compiled in a compiled install (docs/compiled.md); the bot class stays Python.
"""

from __future__ import annotations

import random
from typing import Any

FLIP = "flip"
HAND = 5


class HueJudge:
    """One decision's judge: the bot's seat and table, its two faction colors (`colors`),
    each seat's visible one (`tops`), its weights, and the caches it shares across
    decisions (`memo`: hand -> `summary`, for these colors and tops; `lines`: `line`'s
    arguments -> its value). All its chance is `rng`'s (ties broken by tiny noise)."""

    def __init__(self, me: int, players: int, active: Any, colors: tuple[Any, Any], tops: tuple[Any, ...],
                 memo: dict[Any, list[Any]], lines: dict[tuple[Any, ...], float], unknown: float,
                 threat_weight: float, flip_value: float, push_breadth: int, rng: random.Random) -> None:
        self.me = me
        self.players = players
        self.active = active
        self.colors = colors
        self.tops = tops
        self.memo = memo
        self.lines = lines
        self.unknown = unknown
        self.threat_weight = threat_weight
        self.flip_value = flip_value
        self.push_breadth = push_breadth
        self.rng = rng

    def best(self, board: list[Any], legal: list[str]) -> str:
        scored = [(self.score(simulate(board, self.me, action)) + self.rng.random() * 1e-6, action)
                  for action in legal]
        return max(scored)[1]

    def push(self, board: list[Any], legal: list[str]) -> str:
        me = self.me
        first: list[tuple[float, str, list[Any]]] = []
        for action in legal:
            after = simulate(board, me, action)
            first.append((self.score(after) + self.rng.random() * 1e-6, action, after))
        first.sort(reverse=True)
        best_value: float | None = None
        best_action = first[0][1]
        for value, action, after in first[:self.push_breadth]:
            pulls = [f"pull:{s}:{p}" for s in range(self.players) if s != me for p in range(len(after[s]))]
            if pulls:
                value = max(self.score(simulate(after, me, pull)) for pull in pulls)
            if best_value is None or value > best_value:
                best_value, best_action = value, action
        return best_action

    def answer(self, board: list[Any], legal: list[str], pull: dict[str, Any]) -> str:
        puller, pos = pull["seat"], pull["pos"]
        best: tuple[float, str] | None = None
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
        assert best is not None   # legal is never empty
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

    def score(self, board: list[Any]) -> float:
        me, players = self.me, self.players
        memo = self.memo
        stats: list[Any] = []
        for hand in board:
            found = memo.get(hand)
            if found is None:
                found = memo[hand] = self.summary(hand)
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

    def summary(self, hand: tuple[Any, ...]) -> list[Any]:
        """Per side of a hand (faces, backs), the line values `score` reads: of each of
        this bot's two faction colors; of each seat's visible faction color (`tops`); and
        per seat the best line of a color seen there other than that seat's top (0 if
        none). A color not seen on the side counts as all unknown. Then the number of
        Flip faces."""
        size = len(hand)
        out: list[Any] = []
        flips = 0
        lines = self.lines
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
            values: dict[str, float] = {}
            # the two largest (value, color), as the head of sorted(..., reverse=True)
            best: tuple[float, Any] = (0.0, None)
            second: tuple[float, Any] = (0.0, None)
            exact = unknown == 0
            for color, count in counts.items():
                key = (count, unknown, size, exact)
                value = lines.get(key)
                if value is None:
                    value = lines[key] = self.line(*key)
                values[color] = value
                ranked: tuple[float, Any] = (value, color)   # compared with (0.0, None)
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

def simulate(board: list[Any], me: int, action: str) -> list[Any]:
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
