"""A tournament game's identity from its place in the plan's schedule, and its place from its identity.

A store keys its games by what was played (`arena.identity.GameIdentity`); ratings,
stopping and verification read them in the order of the store's current plan (the
schedule order: ruleset by ruleset, deal by deal, table by table, rotation by rotation),
numbered by schedule index. A `Placement` maps between the two with the plan and the
seed alone, so extending the file (a new plan) gives every stored game its new place
without touching a row.

A seat's version in the identity is the plan entry's ``version``. A sampled table drawn
again at the same deal is the n-th repeat of that table (`identity.sampled_deal_key`).
Stores of seed derivation 1 numbered games table-major (table, then deal); their places
are computed so.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.identity import GameIdentity, Seat, sampled_deal_key


class Place(NamedTuple):
    """Where a game sits in the plan's schedule."""

    index: int  # type: ignore[assignment]  # a NamedTuple field may shadow tuple.index
    ruleset: int
    table: int
    deal: int
    rotation: int


class _Ruleset(NamedTuple):
    label: str
    offset: int
    tables: list[tuple[int, ...]]   # table number -> entry indices (table order)
    repeats: list[int]              # table number -> its repeat among equal tables (0: first)
    numbers: dict[tuple[tuple[str, ...], int], int]  # (entry names in table order, repeat) -> table number
    players: int


class Placement:
    """The identities and places of a plan's games (the plan as `arena.runner.make_plan` makes it)."""

    def __init__(self, plan: dict[str, Any], seed: int):
        from arena.tournament import plan_tables

        self.names = [e["bot"] for e in plan["entries"]]
        self.versions = [str(e["version"]) for e in plan["entries"]]
        self.entry_of = {name: i for i, name in enumerate(self.names)}
        self.deals = plan["deals"]
        self.table_major = plan.get("seed_derivation", 1) < 2
        self.rulesets: list[_Ruleset] = []
        self.by_label: dict[str, int] = {}
        offset = 0
        for r, ruleset in enumerate(plan["rulesets"]):
            tables = list(plan_tables(plan, r, seed))
            if ruleset.get("games") is not None:  # (a hand-made plan may leave it out: every table)
                tables = tables[:ruleset["games"] // (self.deals * ruleset["players"]) if self.deals else 0]
            games = len(tables) * self.deals * ruleset["players"]
            repeats: list[int] = []
            numbers: dict[tuple[tuple[str, ...], int], int] = {}
            seen: dict[tuple[int, ...], int] = {}
            for number, table in enumerate(tables):
                repeat = seen.get(table, 0)
                seen[table] = repeat + 1
                repeats.append(repeat)
                numbers[tuple(self.names[e] for e in table), repeat] = number
            self.rulesets.append(_Ruleset(ruleset["label"], offset, tables, repeats, numbers, ruleset["players"]))
            self.by_label[ruleset["label"]] = r
            offset += games
        self.total = offset

    def identity(self, ruleset: int, table: int, deal: int, rotation: int) -> GameIdentity:
        """The identity of the game at these coordinates of the schedule."""
        r = self.rulesets[ruleset]
        entries, k = r.tables[table], r.players
        seats = [entries[(seat + rotation) % k] for seat in range(k)]
        return GameIdentity(r.label, tuple(Seat(self.names[e], self.versions[e]) for e in seats),
                            sampled_deal_key(deal, r.repeats[table]), rotation)

    def table_names(self, ruleset: int, table: int) -> tuple[str, ...]:
        return tuple(self.names[e] for e in self.rulesets[ruleset].tables[table])

    def repeat(self, ruleset: int, table: int) -> int:
        return self.rulesets[ruleset].repeats[table]

    def place(self, label: str, table_names: tuple[str, ...], deal: int, repeat: int, rotation: int) -> Place | None:
        """The place of a game of ruleset `label` at the table of `table_names` (table
        order), the `repeat`-th draw of that table at deal `deal`; None if the plan has no such game."""
        r = self.by_label.get(label)
        if r is None:
            return None
        ruleset = self.rulesets[r]
        number = ruleset.numbers.get((tuple(table_names), repeat))
        if number is None or not 0 <= deal < self.deals or not 0 <= rotation < ruleset.players:
            return None
        k, tables = ruleset.players, len(ruleset.tables)
        within = (number * self.deals + deal) if self.table_major else (deal * tables + number)
        return Place(ruleset.offset + within * k + rotation, r, number, deal, rotation)
