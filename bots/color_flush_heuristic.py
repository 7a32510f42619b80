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

from collections import Counter, defaultdict
from functools import lru_cache

import arena

WHITE = "white"
BLACK = "black"
GOOD_BACK, UNKNOWN_BACK, BAD_BACK, UNKNOWN_FACE = 1.0, 1.3, 1.6, 0.8
SHORT = 0.3  # per missing good face below 4
OPPONENT_WEIGHT = 0.6
CERTAIN_WIN = 1e-9
_NOT_COLORS = frozenset((None, WHITE, BLACK))


def settle(hand):
    """The hand after forced flips, as far as known: (face, back) pairs, None unknown."""
    for face, _ in hand:
        if face == BLACK:
            break
    else:
        return hand
    flipped = [(back, face) for face, back in hand]
    return [(back, face) if face == BLACK else (face, back) for face, back in flipped]


def distance(hand):
    """How far a hand is from a flush (0: it wins)."""
    return _distance(tuple(hand))


@lru_cache(maxsize=1 << 16)
def _distance(hand):
    """`distance` of a hand given as a tuple (memoized: search bots score the same hands
    over and over)."""
    colors = set()
    add = colors.add
    for face, back in hand:
        add(face)
        add(back)
    colors -= _NOT_COLORS   # min over the colors below: their order does not matter
    if not colors:
        unknown = sum(face is None for face, _ in hand)
        return UNKNOWN_FACE * unknown
    best = float("inf")
    for color in colors:
        cost = 0.0
        good = 0
        for face, back in hand:
            if face == color or face == WHITE:
                good += 1
            elif face is None:
                cost += UNKNOWN_FACE
            elif back == color or back == WHITE:
                cost += GOOD_BACK
            elif back is None:
                cost += UNKNOWN_BACK
            else:
                cost += BAD_BACK
        if good < 4:
            cost += SHORT * (4 - good)
        if cost < best:
            best = cost
    return best


def wins(hand):
    """True if every face is known, none black, and they are one color (whites any)."""
    return _wins(tuple(hand))


@lru_cache(maxsize=1 << 16)
def _wins(hand):
    """`wins` of a hand given as a tuple (memoized like `_distance`)."""
    colors = set()
    for face, _ in hand:
        if face is None or face == BLACK:
            return False
        if face != WHITE:
            colors.add(face)
    return len(colors) <= 1


def wins_without_each(hand):
    """Per position: `wins` of `hand` without that card (all at once)."""
    bad = 0   # unknown or black faces
    colors = {}
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


def take_wins(hand):
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


def taken_face_wins(rule, face):
    """`wins(settle(hand + [card]))` for a card whose face toward us is `face` (not black),
    from ``rule = take_wins(hand)`` (not None)."""
    possible, color = rule
    return possible and face is not None and (face == WHITE or color is None or face == color)


def back_odds(deck):
    """face -> [(other side, probability)] over the deck's cards showing that face."""
    counts = defaultdict(Counter)
    for a, b in deck:
        counts[a][b] += 1
        counts[b][a] += 1
    return {face: [(other, n / sum(c.values())) for other, n in sorted(c.items())]
            for face, c in counts.items()}


class ColorFlushHeuristicBot(arena.Bot):
    """Aims at its closest color, flips what it knows, takes and gives with the table in mind."""

    name = "color-flush-heuristic"
    rulesets = ("color-flush",)

    def start(self, info):
        self._odds = back_odds(info["options"]["deck"])

    # -- the decision -------------------------------------------------------------------

    def act(self, observation):
        if not hasattr(self, "_odds"):
            self._odds = back_odds(observation["options"]["deck"])
        legal = observation["legal_actions"]
        view = observation["view"]
        me = observation["seat"]
        players = observation["players"]
        hands = [[(c["face"], c["back"]) for c in hand] for hand in view["hands"]]
        opp = {s: self._threat(hands[s]) for s in range(players) if s != me}

        if view["awaiting"] == "swap":
            return self._choose_swap(legal, hands, me, opp)

        top = view["draw_pile"]["top"]
        pile_card = None if top is None else (top["up"], top["down"])
        mine = hands[me]
        # whether our hand wins after a give or place (per position), or after a take
        wins_without, takes = wins_without_each(mine), take_wins(mine)
        certain = {}   # action -> its score, where the result for our own hand is known
        for action in legal:
            score = self._certain_score(action, hands, me, pile_card, wins_without, takes)
            if score is not None:
                if score <= CERTAIN_WIN:
                    return action
                certain[action] = score
        # only the first kind present is ever played, so only its actions are scored
        for kind in ("flip", "take", ("give", "place")):
            group = [a for a in legal if a.startswith(kind)]
            if group:
                scores = [certain[a] if a in certain else self._score(a, hands, me, opp, players, pile_card)
                          for a in group]
                best = min(scores)
                ties = [a for a, s in zip(group, scores) if s <= best + 1e-9]
                return ties[0] if len(ties) == 1 else self.rng.choice(ties)
        return self.rng.choice(legal)

    # -- scoring ------------------------------------------------------------------------

    def _threat(self, hand):
        """An opponent's distance as we know their faces (their backs do not matter to them)."""
        return _distance(tuple([(face, None) for face, _ in hand]))

    def _opponent_delta(self, before, after_hand):
        """Positive when the change brings that opponent closer to a flush, weighted by
        how close they are; huge when it hands them the win."""
        settled = settle(after_hand)
        if wins(settled):
            return 1000.0
        after = self._threat(settled)
        return OPPONENT_WEIGHT * (before - after) / (0.5 + before)

    def _certain_score(self, action, hands, me, pile_card, wins_without, takes):
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
            if parts[1] == "pile":
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

    def _score(self, action, hands, me, opp, players, pile_card):
        """The score of an action `_certain_score` could not settle (lower is better)."""
        mine = hands[me]
        parts = action.split(":")
        kind = parts[0]
        if kind == "flip":   # a card whose back we do not know
            pos = int(parts[1])
            face = mine[pos][0]
            total = 0.0
            for other, p in self._odds.get(face, ((None, 1.0),)):
                new = settle(mine[:pos] + [(other, face)] + mine[pos + 1:])
                total += p * distance(new)
            return total
        if kind == "take":
            if parts[1] == "pile":
                return distance(settle(mine + [pile_card]))
            victim, pos = int(parts[1]), int(parts[2])
            theirs = hands[victim]
            face, back = theirs[pos]
            new = settle(mine + [(back, face)])
            rest = theirs[:pos] + theirs[pos + 1:]
            return distance(new) + self._opponent_delta(opp[victim], rest)
        if kind == "give":
            pos, receiver = int(parts[1]), int(parts[2])
            face, back = mine[pos]
            new = mine[:pos] + mine[pos + 1:]
            theirs = hands[receiver] + [(back, face)]
            return distance(new) + self._opponent_delta(opp[receiver], theirs)
        # place
        pos = int(parts[1])
        face, back = mine[pos]
        new = mine[:pos] + mine[pos + 1:]
        if face == WHITE:
            return min(self._swap_score(new, hands[s], opp[s]) for s in range(players) if s != me)
        nxt = (me + 1) % players
        nxt_hand = [(f, None) for f, _ in hands[nxt]]
        helps_next = self._threat(nxt_hand + [(face, None)]) < opp[nxt]
        return distance(new) + (0.2 * OPPONENT_WEIGHT / (0.5 + opp[nxt]) if helps_next else 0.0)

    def _swap_score(self, mine, theirs, threat):
        new_mine = settle([(back, face) for face, back in theirs])
        new_theirs = settle([(back, face) for face, back in mine])
        if wins(new_mine):
            return 0.0  # the active player wins ties
        own = distance(new_mine)
        return own + self._opponent_delta(threat, new_theirs)

    def _choose_swap(self, legal, hands, me, opp):
        mine = hands[me]
        best, choice = float("inf"), None
        for action in legal:
            if action == "no-swap":
                score = distance(mine)
            else:
                seat = int(action.split(":")[1])
                score = self._swap_score(mine, hands[seat], opp[seat])
            if score < best - 1e-9:
                best, choice = score, action
        return choice
