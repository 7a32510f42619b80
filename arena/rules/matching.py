"""Dealing a deck of two-faced cards to slots that must fit what a seat has seen:
the card-matching search that the Color Flush and Flip Hue samplers share.

A slot is ``(toward, away)``: the faces a seat saw of the card there, each None
when unseen. `CardMatching` picks, at random but consistently with the deck's
multiset of face pairs, a card for every slot, as many times as a sampler asks, working
out once what the slots fix.
"""

from __future__ import annotations

import random
from typing import Any

from arena.rules.chance import sample, shuffle


class _Budget(Exception):
    pass


class CardMatching:
    """Gives every slot a card of `deck` (a multiset of face pairs, each card either way
    round), oriented as ``(toward, away)``, matching each slot's known sides (``slots[i] =
    (toward or None, away or None)``) and ``allowed(kinds[i], pair)`` (`kinds`: a hashable
    per slot, default 0 for all). What the deck and the slots fix is worked out here, once
    (ValueError if a fully known card is not in the deck); `assign(rng)` then draws one
    assignment, as often as a sampler needs. `slots` and `kinds` are read, not kept.

    Fully known slots take their card out of the multiset. Half-known slots are
    grouped into classes (same known side and value, same kind); a depth-first search
    fills one slot at a time, always from the class with the least slack (compatible
    copies left minus slots to fill), picking among the compatible card kinds with
    probability proportional to the copies left, and backtracks at a dead end; after
    `budget` steps in each of `restarts` attempts (a tight position, few cards left
    over) it falls back to `_flow_assign`. Each class's cards are then dealt to its
    slots in random order. Unknown slots get the remaining cards shuffled, each a random
    way round. `assign` raises ValueError if no assignment exists (an observation
    inconsistent with the deck).
    """

    def __init__(self, deck, slots, allowed, kinds=None, budget: int = 300, restarts: int = 1) -> None:
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
        self.base = base
        self.result = result
        self.members = members
        self.choices = choices
        self.holders = holders
        self.unknown = unknown
        self.unknown_kinds = [kinds[i] if kinds is not None else 0 for i in unknown]
        self.allowed = allowed
        self.budget = budget
        self.restarts = restarts

    def assign(self, rng: random.Random) -> list[tuple[str, str]]:
        """A card for every slot, drawn with `rng` (the class says how)."""
        base, members, choices, unknown = self.base, self.members, self.choices, self.unknown
        allowed = self.allowed
        ncls = len(members)
        result = self.result.copy()
        for attempt in range(self.restarts):
            counts = dict(base)
            order = list(range(ncls))
            shuffle(order, rng)
            filling = _Filling(counts, choices, self.holders, [len(m) for m in members], order, rng, self.budget)
            try:
                if not filling.fill():
                    raise ValueError("no assignment of the deck's cards fits the observation")
                picked = filling.picked
            except _Budget:
                if attempt + 1 < self.restarts:
                    continue
                # a tight position (few cards left over): a flow finds an assignment,
                # random exchanges then spread it (rarely needed)
                counts = dict(base)
                flowed = _flow_assign(counts, members, choices, rng)
                if flowed is None:
                    raise ValueError("no assignment of the deck's cards fits the observation") from None
                picked = flowed
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
            for i, kind, (a, b) in zip(unknown, self.unknown_kinds, pool):
                pair = (a, b) if rng.getrandbits(1) else (b, a)
                if not allowed(kind, pair):
                    pair = (pair[1], pair[0])
                    if not allowed(kind, pair):
                        ok = False
                        break
                result[i] = pair
            if ok:
                return result  # type: ignore[return-value]  # every None slot is filled once ok
        raise ValueError("could not find an assignment of the deck's cards that fits the observation")


class _Filling:
    """`CardMatching`'s depth-first search over one attempt: `fill` gives every slot class
    (`demand[c]` slots left) a compatible card, the tightest class first, into `picked`
    (`counts`: copies left per card kind; `supply[c]`: compatible copies left for class c).
    A class, not nested functions: a recursive closure is a reference cycle, which would
    leave every attempt's tables to the cyclic garbage collector."""

    def __init__(self, counts: dict[tuple[str, str], int], choices: list[list[tuple[tuple[str, str], tuple[str, str]]]],
                 holders: dict[tuple[str, str], list[int]], demand: list[int], order: list[int],
                 rng: random.Random, budget: int) -> None:
        self.counts = counts
        self.choices = choices
        self.holders = holders
        self.supply = [sum(counts[key] for key, _ in row) for row in choices]
        self.demand = demand
        self.order = order
        self.rng = rng
        self.budget = budget
        self.steps = 0
        self.remaining = sum(demand)
        self.picked: list[list[tuple[str, str]]] = [[] for _ in choices]

    def take(self, key: tuple[str, str], delta: int) -> None:
        self.counts[key] -= delta
        supply = self.supply
        for c in self.holders[key]:
            supply[c] -= delta

    def fill(self) -> bool:
        """True once every slot has a card; False at a dead end (all undone); _Budget
        after `budget` picks."""
        if not self.remaining:
            return True
        demand, supply, counts = self.demand, self.supply, self.counts
        best = -1
        slack = 1 << 30
        for c in self.order:
            if demand[c]:
                room = supply[c] - demand[c]
                if room < slack:
                    best, slack = c, room
        if slack < 0:
            return False
        row = [(counts[key], key, pair) for key, pair in self.choices[best] if counts[key]]
        demand[best] -= 1
        self.remaining -= 1
        picked = self.picked[best]
        while row:
            self.steps += 1
            if self.steps > self.budget:
                raise _Budget
            r = self.rng.randrange(sum(n for n, _, _ in row))
            j = 0
            while r >= row[j][0]:
                r -= row[j][0]
                j += 1
            _, key, pair = row.pop(j)
            self.take(key, 1)
            picked.append(pair)
            if self.fill():
                return True
            picked.pop()
            self.take(key, -1)
        demand[best] += 1
        self.remaining += 1
        return False


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
            if not _augment(c0, counts, pair_of, flow, rng):
                return None
            demand[c0] -= 1
    # one card kind per slot, then random exchanges that keep every slot fitting
    cards = [(c, key) for c in range(ncls) for key, n in flow[c].items() for _ in range(n)]
    leftover = [key for key, n in counts.items() for _ in range(n)]
    if cards:
        _exchange(cards, leftover, pair_of, rng, mixing)
    counts.clear()
    for key in leftover:
        counts[key] = counts.get(key, 0) + 1
    picked: list[list[tuple[str, str]]] = [[] for _ in range(ncls)]
    for c, key in cards:
        picked[c].append(pair_of[c][key])
    return picked


def _augment(c0: int, counts, pair_of, flow, rng: random.Random) -> bool:
    """One more card for slot class `c0`: a breadth-first search for a card kind with a copy
    left, rerouting other classes, applied to `flow` and `counts`; False if there is none."""
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
            for c in range(len(flow)):
                if flow[c].get(key) and ("c", c) not in parent:
                    parent[("c", c)] = node
                    queue.append(("c", c))
    if found is None:
        return False
    counts[found[1]] -= 1
    node = found
    while parent[node] is not None:
        prev = parent[node]
        if prev[0] == "c":
            flow[prev[1]][node[1]] += 1
        else:
            flow[node[1]][prev[1]] -= 1
        node = prev
    return True


def _exchange(cards, leftover, pair_of, rng: random.Random, mixing: int) -> None:
    """`mixing` random exchanges per card (in place) between two slots, or a slot and the
    leftover cards, each made only where both cards still fit."""
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
