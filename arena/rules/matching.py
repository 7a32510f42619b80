"""Dealing a deck of two-faced cards to slots that must fit what a seat has seen:
the card-matching search that the Color Flush and Flip Hue samplers share.

A slot is ``(toward, away)``: the faces a seat saw of the card there, each None
when unseen. `assign_cards` picks, at random but consistently with the deck's
multiset of face pairs, a card for every slot.
"""

from __future__ import annotations

import random
from typing import Any

from arena.rules.chance import sample, shuffle


class _Budget(Exception):
    pass


def assign_cards(deck, slots, rng: random.Random, allowed, kinds=None, budget: int = 300,
                 restarts: int = 1) -> list[tuple[str, str]]:
    """Give every slot a card of `deck` (a multiset of face pairs, each card either
    way round), oriented as ``(toward, away)``, matching each slot's known sides
    (``slots[i] = (toward or None, away or None)``) and ``allowed(kinds[i], pair)``
    (`kinds`: a hashable per slot, default 0 for all).

    Fully known slots take their card out of the multiset. Half-known slots are
    grouped into classes (same known side and value, same kind); a depth-first search
    fills one slot at a time, always from the class with the least slack (compatible
    copies left minus slots to fill), picking among the compatible card kinds with
    probability proportional to the copies left, and backtracks at a dead end; after
    `budget` steps in each of `restarts` attempts (a tight position, few cards left
    over) it falls back to `_flow_assign`. Each class's cards are then dealt to its
    slots in random order. Unknown slots get the remaining cards shuffled, each a random
    way round. Raises ValueError if no assignment exists (an observation
    inconsistent with the deck).
    """
    base: dict[tuple[str, str], int] = {}
    for a, b in deck:
        key = (a, b) if a <= b else (b, a)
        base[key] = base.get(key, 0) + 1
    by_face: dict[str, list[tuple[str, str]]] = {}
    for key in base:
        by_face.setdefault(key[0], []).append(key)
        if key[1] != key[0]:
            by_face.setdefault(key[1], []).append(key)
    result: list[tuple[str, str] | None] = [None] * len(slots)
    classes: dict[tuple[Any, ...], list[int]] = {}
    unknown: list[int] = []
    for i, (toward, away) in enumerate(slots):
        kind = kinds[i] if kinds is not None else 0
        if toward is not None and away is not None:
            key = (toward, away) if toward <= away else (away, toward)
            left = base.get(key, 0)
            if not left:
                raise ValueError(f"the observation shows more {key} cards than the deck holds")
            base[key] = left - 1
            result[i] = (toward, away)
        elif toward is None and away is None:
            unknown.append(i)
        else:
            classes.setdefault((toward, away, kind), []).append(i)
    # per class: its slots, its compatible (card kind, oriented pair) choices
    names = list(classes)
    members = [classes[name] for name in names]
    choices: list[list[tuple[tuple[str, str], tuple[str, str]]]] = []
    for toward, away, kind in names:
        known = toward if toward is not None else away
        row = []
        for key in by_face.get(known, ()):
            other = key[1] if key[0] == known else key[0]
            pair = (known, other) if toward is not None else (other, known)
            if allowed(kind, pair):
                row.append((key, pair))
        choices.append(row)
    holders: dict[tuple[str, str], list[int]] = {}
    for c, row in enumerate(choices):
        for key, _ in row:
            holders.setdefault(key, []).append(c)
    ncls = len(names)
    for attempt in range(restarts):
        counts = dict(base)
        supply = [sum(counts[key] for key, _ in row) for row in choices]
        demand = [len(m) for m in members]
        picked: list[list[tuple[str, str]]] = [[] for _ in range(ncls)]
        order = list(range(ncls))
        shuffle(order, rng)
        steps = [0]
        remaining = [sum(demand)]

        def take(key: tuple[str, str], delta: int) -> None:
            counts[key] -= delta
            for c in holders[key]:
                supply[c] -= delta

        def fill() -> bool:
            if not remaining[0]:
                return True
            best = -1
            slack = 1 << 30
            for c in order:
                if demand[c]:
                    room = supply[c] - demand[c]
                    if room < slack:
                        best, slack = c, room
            if slack < 0:
                return False
            row = [(counts[key], key, pair) for key, pair in choices[best] if counts[key]]
            demand[best] -= 1
            remaining[0] -= 1
            while row:
                steps[0] += 1
                if steps[0] > budget:
                    raise _Budget
                r = rng.randrange(sum(n for n, _, _ in row))
                j = 0
                while r >= row[j][0]:
                    r -= row[j][0]
                    j += 1
                _, key, pair = row.pop(j)
                take(key, 1)
                picked[best].append(pair)
                if fill():
                    return True
                picked[best].pop()
                take(key, -1)
            demand[best] += 1
            remaining[0] += 1
            return False

        try:
            if not fill():
                raise ValueError("no assignment of the deck's cards fits the observation")
        except _Budget:
            if attempt + 1 < restarts:
                continue
            # a tight position (few cards left over): a flow finds an assignment,
            # random exchanges then spread it (rarely needed)
            counts = dict(base)
            picked = _flow_assign(counts, members, choices, rng)
            if picked is None:
                raise ValueError("no assignment of the deck's cards fits the observation") from None
        for c in range(ncls):
            pairs = picked[c]
            shuffle(pairs, rng)
            for i, pair in zip(members[c], pairs):
                result[i] = pair
        pool = [key for key, n in counts.items() for _ in range(n)]
        if len(pool) != len(unknown):
            raise ValueError("the observation's card count does not match the deck")
        shuffle(pool, rng)
        ok = True
        for i, (a, b) in zip(unknown, pool):
            kind = kinds[i] if kinds is not None else 0
            pair = (a, b) if rng.getrandbits(1) else (b, a)
            if not allowed(kind, pair):
                pair = (pair[1], pair[0])
                if not allowed(kind, pair):
                    ok = False
                    break
            result[i] = pair
        if ok:
            return result  # type: ignore[return-value]
    raise ValueError("could not find an assignment of the deck's cards that fits the observation")


def _flow_assign(counts, members, choices, rng: random.Random, mixing: int = 30):
    """For tight positions: a maximum flow from slot classes to card kinds (random
    augmenting order) gives one assignment, then random exchanges of cards between
    two slots (or a slot and the leftover cards) that both still fit spread it over
    the possibilities. Returns per class the oriented pairs (``counts`` is left with
    the leftover cards) or None if none exists."""
    ncls = len(members)
    demand = [len(m) for m in members]
    pair_of = [dict(row) for row in choices]
    flow = [dict.fromkeys(pair_of[c], 0) for c in range(ncls)]
    for c0 in sample(range(ncls), ncls, rng):
        while demand[c0]:
            # breadth-first search for a card kind with a copy left, rerouting other classes
            # a node: ("c", slot class) or ("k", card kind, a face pair)
            parent: dict[Any, Any] = {("c", c0): None}
            queue: list[tuple[str, Any]] = [("c", c0)]
            found: tuple[str, Any] | None = None
            for node in queue:
                if node[0] == "c":
                    keys = list(pair_of[node[1]])
                    shuffle(keys, rng)
                    for key in keys:
                        if ("k", key) not in parent:
                            parent[("k", key)] = node
                            if counts[key]:
                                found = ("k", key)
                                break
                            queue.append(("k", key))
                    if found:
                        break
                else:
                    key = node[1]
                    for c in range(ncls):
                        if flow[c].get(key) and ("c", c) not in parent:
                            parent[("c", c)] = node
                            queue.append(("c", c))
            if found is None:
                return None
            counts[found[1]] -= 1
            node = found
            while parent[node] is not None:
                prev = parent[node]
                if prev[0] == "c":
                    flow[prev[1]][node[1]] += 1
                else:
                    flow[node[1]][prev[1]] -= 1
                node = prev
            demand[c0] -= 1
    # one card kind per slot, then random exchanges that keep every slot fitting
    cards = [(c, key) for c in range(ncls) for key, n in flow[c].items() for _ in range(n)]
    leftover = [key for key, n in counts.items() for _ in range(n)]
    if cards:
        for _ in range(mixing * len(cards)):
            i = rng.randrange(len(cards))
            c, key = cards[i]
            j = rng.randrange(len(cards) + len(leftover))
            if j < len(cards):
                d, other = cards[j]
                if other in pair_of[c] and key in pair_of[d]:
                    cards[i], cards[j] = (c, other), (d, key)
            else:
                other = leftover[j - len(cards)]
                if other in pair_of[c]:
                    cards[i] = (c, other)
                    leftover[j - len(cards)] = key
    counts.clear()
    for key in leftover:
        counts[key] = counts.get(key, 0) + 1
    picked: list[list[tuple[str, str]]] = [[] for _ in range(ncls)]
    for c, key in cards:
        picked[c].append(pair_of[c][key])
    return picked
