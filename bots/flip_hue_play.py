"""How `flip-hue-heuristic` judges boards and picks its moves (bots/flip_hue_heuristic.py
says what it plays and why): `HueJudge`, made for one decision, and `simulate`.

A board is a list of `Hand`s, one per seat, relative to each holder (`hand_of` makes one
from (face, back) pairs, None = unknown). A judge's value of a hand's side depends only on
how many of each symbol the side shows, its tally, so values are kept by tally.

Its own module, of plain classes and functions, so that ismcts's playouts run it
compiled in a compiled install (docs/compiled.md); the bot class stays Python.
"""

from __future__ import annotations

import random
from typing import Any

FLIP = "flip"
HAND = 5

# A tally counts each symbol (a color, FLIP, or None: unknown) of one side of a hand in a
# field of its own: the symbol's unit is 1 << (FIELD * its field), a side's tally the sum of
# its cards' units. Fields are given out as symbols first appear (FLIP and None first) and
# never change, so a tally means the same in every judge.
FIELD = 8
COUNT = (1 << FIELD) - 1   # one field's mask: a hand holds at most 64 cards
_UNITS: dict[str | None, int] = {}
_SYMBOLS: list[str | None] = []


def unit(symbol: str | None) -> int:
    """The tally unit of `symbol`: 1 in its field."""
    found = _UNITS.get(symbol)
    if found is None:
        found = _UNITS[symbol] = 1 << (FIELD * len(_SYMBOLS))
        _SYMBOLS.append(symbol)
    return found


unit(FLIP)   # field 0: a side's Flip cards are `tally & COUNT`
unit(None)   # field 1; colors from field 2 on


class Hand:
    """A hand: `cards`, (face unit, back unit) pairs relative to the holder, and the tallies
    of its `faces` and `backs`."""

    __slots__ = ("cards", "faces", "backs")

    def __init__(self, cards: tuple[tuple[int, int], ...], faces: int, backs: int) -> None:
        self.cards = cards
        self.faces = faces
        self.backs = backs


def hand_of(pairs: list[tuple[str | None, str | None]]) -> Hand:
    """The hand of these (face, back) symbols."""
    cards = tuple([(unit(face), unit(back)) for face, back in pairs])
    return Hand(cards, sum([face for face, _ in cards]), sum([back for _, back in cards]))


def without(hand: Hand, pos: int) -> Hand:
    """`hand` without its card at `pos`."""
    cards = hand.cards
    face, back = cards[pos]
    return Hand(cards[:pos] + cards[pos + 1:], hand.faces - face, hand.backs - back)


def with_turned(hand: Hand, card: tuple[int, int]) -> Hand:
    """`hand` with `card` (of another holder's hand) added turned around, as passed cards go."""
    face, back = card
    return Hand(hand.cards + ((back, face),), hand.faces + back, hand.backs + face)


def flipped(hand: Hand) -> Hand:
    """`hand` with every card turned around."""
    return Hand(tuple([(back, face) for face, back in hand.cards]), hand.backs, hand.faces)


class HueJudge:
    """One decision's judge: the bot's seat and table, its two faction colors (`colors`),
    each seat's visible one (`tops`), its weights, and the caches it shares across
    decisions (`memo`: a side's tally -> `side_values`, for these colors and tops; `lines`:
    `line`'s arguments -> its value). All its chance is `rng`'s (ties broken by tiny noise)."""

    def __init__(self, me: int, players: int, active: Any, colors: tuple[Any, Any], tops: tuple[Any, ...],
                 memo: dict[int, tuple[float, ...]], lines: dict[tuple[Any, ...], float], unknown: float,
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

    def best(self, board: list[Hand], legal: list[str]) -> str:
        scored = [(self.score(simulate(board, self.me, action)) + self.rng.random() * 1e-6, action)
                  for action in legal]
        return max(scored)[1]

    def push(self, board: list[Hand], legal: list[str]) -> str:
        me = self.me
        first: list[tuple[float, str, list[Hand]]] = []
        for action in legal:
            after = simulate(board, me, action)
            first.append((self.score(after) + self.rng.random() * 1e-6, action, after))
        first.sort(reverse=True)
        best_value: float | None = None
        best_action = first[0][1]
        for value, action, after in first[:self.push_breadth]:
            pulled = self.best_pull(after)
            if pulled is not None:
                value = pulled
            if best_value is None or value > best_value:
                best_value, best_action = value, action
        return best_action

    def best_pull(self, board: list[Hand]) -> float | None:
        """The best score of a pull on `board` (assuming it goes through), None if none is
        possible. A pull changes two hands' tallies and nothing else `score` reads, so each
        is rated off the tallies, once for each kind of card in each hand."""
        me = self.me
        values = self.side_values_of
        faces = [values(hand.faces) for hand in board]
        backs = [values(hand.backs) for hand in board]
        mine = board[me]
        best: float | None = None
        for holder in range(self.players):
            if holder == me:
                continue
            hand = board[holder]
            held = faces[holder], backs[holder]
            scored: list[tuple[int, int]] = []
            for card in hand.cards:
                if card in scored:
                    continue
                scored.append(card)
                face, back = card   # the puller gets it turned around: its back as a face
                faces[holder], backs[holder] = values(hand.faces - face), values(hand.backs - back)
                faces[me], backs[me] = values(mine.faces + back), values(mine.backs + face)
                value = self.rate(faces, backs, (mine.faces + back) & COUNT)
                if best is None or value > best:
                    best = value
            faces[holder], backs[holder] = held
        return best

    def answer(self, board: list[Hand], legal: list[str], pull: dict[str, Any]) -> str:
        puller, pos = pull["seat"], pull["pos"]
        best: tuple[float, str] | None = None
        me = self.me
        for action in legal:
            after = list(board)
            if action == "allow":
                after[me] = without(board[me], pos)
                after[puller] = with_turned(board[puller], board[me].cards[pos])
            else:
                after[me] = without(board[me], int(action.split(":")[1]))
                after[puller] = flipped(board[puller])
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

    def side_values_of(self, tally: int) -> tuple[float, ...]:
        """`side_values(tally)`, kept in `memo`."""
        found = self.memo.get(tally)
        if found is None:
            found = self.memo[tally] = self.side_values(tally)
        return found

    def score(self, board: list[Hand]) -> float:
        values = self.side_values_of
        return self.rate([values(hand.faces) for hand in board], [values(hand.backs) for hand in board],
                         board[self.me].faces & COUNT)

    def rate(self, faces: list[tuple[float, ...]], backs: list[tuple[float, ...]], flips: int) -> float:
        """A board's score from each hand's `side_values` of its faces and of its backs, and
        the number of Flip faces this bot holds."""
        me, players = self.me, self.players
        # the same sums and maxima, in the same order, as over the raw line values
        progress = 0.0
        spread = 0.0
        mine = faces[me]
        for c in (0, 1):
            value = mine[c]
            if value > progress:
                progress = value
            spread += value
            for other in range(players):
                if other != me:
                    value = backs[other][c]
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
                side = faces[holder] if holder == opponent else backs[holder]
                value = side[2 + opponent]
                if value > known:
                    known = value
                value = side[2 + players + opponent]
                if value > secret:
                    secret = value
            threat = max(threat, known, 0.2 * secret)
        return progress + 0.05 * spread - self.threat_weight * threat + self.flip_value * min(flips, 2)

    def side_values(self, tally: int) -> tuple[float, ...]:
        """The line values `score` reads off one side of a hand (its faces or its backs),
        from its `tally`: of each of this bot's two faction colors; of each seat's visible
        faction color (`tops`); and per seat the best line of a color seen there other than
        that seat's top (0 if none). A color not seen on the side counts as all unknown."""
        unknown = (tally >> FIELD) & COUNT
        size = (tally & COUNT) + unknown
        counts: list[tuple[Any, int]] = []
        rest = tally >> (2 * FIELD)
        field = 2
        while rest:
            count = rest & COUNT
            if count:
                counts.append((_SYMBOLS[field], count))
                size += count
            rest >>= FIELD
            field += 1
        lines = self.lines
        values: dict[Any, float] = {}
        # the two largest (value, color), as the head of sorted(..., reverse=True)
        best: tuple[float, Any] = (0.0, None)
        second: tuple[float, Any] = (0.0, None)
        exact = unknown == 0
        for color, count in counts:
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
        return tuple([get(color, base) for color in self.colors] + [get(top, base) for top in self.tops]
                     + [best[0] if best[1] != top else second[0] for top in self.tops])


def simulate(board: list[Hand], me: int, action: str) -> list[Hand]:
    """The board after `me` plays `action` (give, flip, pull - assuming the pull goes
    through - or discard); the hands it does not change are shared with `board`."""
    parts = action.split(":")
    kind = parts[0]
    after = list(board)
    if kind == "give":
        pos, target = int(parts[1]), int(parts[2])
        after[me] = without(board[me], pos)
        after[target] = with_turned(board[target], board[me].cards[pos])
    elif kind == "flip":
        pos, target = int(parts[1]), int(parts[2])
        after[me] = without(board[me], pos)
        after[target] = flipped(after[target])
    elif kind == "pull":
        holder, pos = int(parts[1]), int(parts[2])
        after[holder] = without(board[holder], pos)
        after[me] = with_turned(board[me], board[holder].cards[pos])
    elif kind == "discard":
        after[me] = without(board[me], int(parts[1]))
    return after
