"""What `color-flush-heuristic` plays, and how it scores a Color Flush hand.

Functions of the hands as the bot knows them (``(face, back)`` pairs, None unknown), the
deck's back odds and the bot's `rng` (its only chance), so that a compiled install
(docs/compiled.md) can compile them; `move` reads them off an observation. The bot
(bots/color_flush_heuristic.py) says what the play is and why. It scores hands by the
game's `distance` (arena/rules/color_flush/evaluation.py), which Color Flush's `evaluate`
also uses.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any

# a hand's distance to a flush is the game's evaluation (its `evaluate`), shared with the bot
from arena.rules.color_flush.evaluation import (BAD_BACK, BLACK, GOOD_BACK, SHORT, UNKNOWN_BACK,  # noqa: F401
                                                UNKNOWN_FACE, WHITE, Card, Face, tuple_distance, distance)

Odds = dict[Face, list[tuple[Face, float]]]

OPPONENT_WEIGHT = 0.6
CERTAIN_WIN = 1e-9
UNKNOWN_ODDS: list[tuple[Face, float]] = [(None, 1.0)]   # a face the deck does not show: back unknown

# the action kinds in the order the bot does them; only the first kind legal is played
KIND_ORDER: tuple[tuple[str, ...], ...] = (("flip",), ("take",), ("give", "place"))


# -- hands --------------------------------------------------------------------------------


def settle(hand: list[Card]) -> list[Card]:
    """The hand after forced flips, as far as known: (face, back) pairs, None unknown."""
    for face, _ in hand:
        if face == BLACK:
            break
    else:
        return hand
    flipped = [(back, face) for face, back in hand]
    return [(back, face) if face == BLACK else (face, back) for face, back in flipped]


def wins(hand: list[Card]) -> bool:
    """True if every face is known, none black, and they are one color (whites any)."""
    return _wins(tuple(hand))


@lru_cache(maxsize=1 << 16)
def _wins(hand: tuple[Card, ...]) -> bool:
    """`wins` of a hand given as a tuple (memoized like `tuple_distance`)."""
    colors: set[str] = set()
    for face, _ in hand:
        if face is None or face == BLACK:
            return False
        if face != WHITE:
            colors.add(face)
    return len(colors) <= 1


def wins_without_each(hand: list[Card]) -> list[bool]:
    """Per position: `wins` of `hand` without that card (all at once)."""
    bad = 0   # unknown or black faces
    colors: dict[str, int] = {}
    for face, _ in hand:
        if face is None or face == BLACK:
            bad += 1
        elif face != WHITE:
            colors[face] = colors.get(face, 0) + 1
    out = []
    for face, _ in hand:
        if face is None or face == BLACK:
            out.append(bad == 1 and len(colors) <= 1)
        elif face == WHITE:
            out.append(bad == 0 and len(colors) <= 1)
        else:
            out.append(bad == 0 and len(colors) - (colors[face] == 1) <= 1)
    return out


def take_wins(hand: list[Card]) -> tuple[bool, Face] | None:
    """How a taken card can make `hand` win, for `taken_face_wins`: None when `hand` shows
    a black face (the forced flips decide: ask `wins`); else (possible, color): whether any
    card can, and the one color its face must have (None: any color; white always)."""
    faces = [face for face, _ in hand]
    if BLACK in faces:
        return None
    if None in faces:
        return False, None
    colors = set(faces)
    colors.discard(WHITE)
    if len(colors) > 1:
        return False, None
    return True, (colors.pop() if colors else None)


def taken_face_wins(rule: tuple[bool, Face], face: Face) -> bool:
    """`wins(settle(hand + [card]))` for a card whose face toward us is `face` (not black),
    from ``rule = take_wins(hand)`` (not None)."""
    possible, color = rule
    return possible and face is not None and (face == WHITE or color is None or face == color)


def back_odds(deck: list[Any]) -> Odds:
    """face -> [(other side, probability)] over the deck's cards showing that face."""
    counts: defaultdict[Face, Counter[Face]] = defaultdict(Counter)
    for a, b in deck:
        counts[a][b] += 1
        counts[b][a] += 1
    return {face: [(other, n / sum(c.values())) for other, n in sorted(c.items())]
            for face, c in counts.items()}


# -- the decision ---------------------------------------------------------------------------


def move(observation: dict[str, Any], odds: Odds, rng: random.Random) -> str | None:
    """The bot's action from its observation (`odds`: `back_odds` of the game's deck)."""
    view = observation["view"]
    hands: list[list[Card]] = [[(c["face"], c["back"]) for c in hand] for hand in view["hands"]]
    top = view["draw_pile"]["top"]
    pile_card: Card | None = None if top is None else (top["up"], top["down"])
    return choose(observation["legal_actions"], hands, observation["seat"], observation["players"],
                  view["awaiting"] == "swap", pile_card, odds, rng)


def choose(legal: list[str], hands: list[list[Card]], me: int, players: int, swapping: bool,
           pile_card: Card | None, odds: Odds, rng: random.Random) -> str | None:
    """The bot's action among `legal`, from every hand as seat `me` knows it, whether it
    is choosing a swap, and the draw pile's top card (None: empty)."""
    opp = {s: threat(hands[s]) for s in range(players) if s != me}

    if swapping:
        return choose_swap(legal, hands, me, opp)

    mine = hands[me]
    # whether our hand wins after a give or place (per position), or after a take
    wins_without, takes = wins_without_each(mine), take_wins(mine)
    certain: dict[str, float] = {}   # action -> its score, where the result for our own hand is known
    for action in legal:
        score = certain_score(action, hands, me, pile_card, wins_without, takes)
        if score is not None:
            if score <= CERTAIN_WIN:
                return action
            certain[action] = score
    # only the first kind present is ever played, so only its actions are scored
    for kind in KIND_ORDER:
        group = [a for a in legal if a.startswith(kind)]
        if group:
            scores = [certain[a] if a in certain else uncertain_score(a, hands, me, opp, players, pile_card, odds)
                      for a in group]
            best = min(scores)
            ties = [a for a, s in zip(group, scores) if s <= best + 1e-9]
            return ties[0] if len(ties) == 1 else rng.choice(ties)
    return rng.choice(legal)


# -- scoring --------------------------------------------------------------------------------


def threat(hand: list[Card]) -> float:
    """An opponent's distance as we know their faces (their backs do not matter to them)."""
    return tuple_distance(tuple([(face, None) for face, _ in hand]))


def opponent_delta(before: float, after_hand: list[Card]) -> float:
    """Positive when the change brings that opponent closer to a flush, weighted by
    how close they are; huge when it hands them the win."""
    settled = settle(after_hand)
    if wins(settled):
        return 1000.0
    after = threat(settled)
    return OPPONENT_WEIGHT * (before - after) / (0.5 + before)


def certain_score(action: str, hands: list[list[Card]], me: int, pile_card: Card | None,
                  wins_without: list[bool], takes: tuple[bool, Face] | None) -> float | None:
    """`action`'s score when its result for our own hand is known: 0.0 when it wins at
    once; a flip of a card whose back we know, its distance; else None. `wins_without`
    and `takes`: `wins_without_each` and `take_wins` of our hand."""
    mine = hands[me]
    parts = action.split(":")
    kind = parts[0]
    if kind == "flip":
        pos = int(parts[1])
        face, back = mine[pos]
        if back is None:
            return None
        new = settle(mine[:pos] + [(back, face)] + mine[pos + 1:])
        return 0.0 if wins(new) else distance(new)
    if kind == "take":
        card: Card
        if parts[1] == "pile":
            assert pile_card is not None, "take:pile with an empty draw pile"
            card = pile_card   # the up face ends toward the taker
        else:
            face, back = hands[int(parts[1])][int(parts[2])]
            card = (back, face)   # the back we see ends toward us
        if takes is not None and card[0] != BLACK:   # no forced flip: no need to settle
            won = taken_face_wins(takes, card[0])
        else:
            won = wins(settle(mine + [card]))
        return 0.0 if won else None   # the active player wins ties
    return 0.0 if wins_without[int(parts[1])] else None   # give or place


def uncertain_score(action: str, hands: list[list[Card]], me: int, opp: dict[int, float], players: int,
                    pile_card: Card | None, odds: Odds) -> float:
    """The score of an action `certain_score` could not settle (lower is better)."""
    mine = hands[me]
    parts = action.split(":")
    kind = parts[0]
    if kind == "flip":   # a card whose back we do not know
        pos = int(parts[1])
        face = mine[pos][0]
        total = 0.0
        for other, p in odds.get(face, UNKNOWN_ODDS):
            new = settle(mine[:pos] + [(other, face)] + mine[pos + 1:])
            total += p * distance(new)
        return total
    if kind == "take":
        if parts[1] == "pile":
            assert pile_card is not None, "take:pile with an empty draw pile"
            return distance(settle(mine + [pile_card]))
        victim, pos = int(parts[1]), int(parts[2])
        theirs = hands[victim]
        face, back = theirs[pos]
        new = settle(mine + [(back, face)])
        rest = theirs[:pos] + theirs[pos + 1:]
        return distance(new) + opponent_delta(opp[victim], rest)
    if kind == "give":
        pos, receiver = int(parts[1]), int(parts[2])
        face, back = mine[pos]
        new = mine[:pos] + mine[pos + 1:]
        theirs = hands[receiver] + [(back, face)]
        return distance(new) + opponent_delta(opp[receiver], theirs)
    # place
    pos = int(parts[1])
    face, back = mine[pos]
    new = mine[:pos] + mine[pos + 1:]
    if face == WHITE:
        return min(swap_score(new, hands[s], opp[s]) for s in range(players) if s != me)
    nxt = (me + 1) % players
    nxt_hand: list[Card] = [(f, None) for f, _ in hands[nxt]]
    helps_next = threat(nxt_hand + [(face, None)]) < opp[nxt]
    return distance(new) + (0.2 * OPPONENT_WEIGHT / (0.5 + opp[nxt]) if helps_next else 0.0)



def swap_score(mine: list[Card], theirs: list[Card], before: float) -> float:
    """The score of trading our hand `mine` for `theirs` (whose holder's threat is `before`)."""
    new_mine = settle([(back, face) for face, back in theirs])
    new_theirs = settle([(back, face) for face, back in mine])
    if wins(new_mine):
        return 0.0  # the active player wins ties
    own = distance(new_mine)
    return own + opponent_delta(before, new_theirs)


def choose_swap(legal: list[str], hands: list[list[Card]], me: int, opp: dict[int, float]) -> str | None:
    """The swap (or "no-swap") with the lowest score, the first of equals."""
    mine = hands[me]
    best, choice = float("inf"), None
    for action in legal:
        if action == "no-swap":
            score = distance(mine)
        else:
            seat = int(action.split(":")[1])
            score = swap_score(mine, hands[seat], opp[seat])
        if score < best - 1e-9:
            best, choice = score, action
    return choice
