"""The ladder's first scheduler, on the `arena.scheduling.base.Scheduler` interface:
new versions first, then the games round-robin would play next among current versions.

The field is the bots' current versions in the order they entered (passed the gate).
For each ruleset, the tables are every combination of `players` current versions that
play it; a table's rank is the entry of its newest member, newest first (a version
that just entered has all its tables ahead of the older ones'); within a table, deal
by deal, every rotation. `next` hands out the first games of that order that are
neither stored nor in flight. It reads no clock and no hash-ordered set, so the same
database state gives the same games (the ladder's part 2 replaces it with an
information-driven one).
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple, Sequence

from arena.identity import GameIdentity
from arena.ladder.games import entry_names
from arena.scheduling.base import DONE, WAIT, Decision, FieldEntry, LookRecord, Play, SchedulerState


class LadderGame(NamedTuple):
    """A game the scheduler chose: ruleset label, the table's entries (table order), deal, rotation."""

    ruleset: str
    table: tuple[FieldEntry, ...]
    deal: int
    rotation: int

    @property
    def identity(self) -> GameIdentity:
        names = entry_names([entry.name for entry in self.table])
        k = len(self.table)
        seats = [(names[(s + self.rotation) % k], self.table[(s + self.rotation) % k].version) for s in range(k)]
        return GameIdentity.of(self.ruleset, seats, self.deal, self.rotation)


class RoundRobinFirst:
    """New versions first, then round-robin among current versions (see the module docstring)."""

    name = "ladder-round-robin"

    def __init__(self, rulesets: Sequence[tuple[str, int]], deals_per_table: int):
        self.rulesets = list(rulesets)  # (label, players), in the config's order
        self.deals = deals_per_table

    def look(self, state: SchedulerState) -> Sequence[LookRecord]:
        return ()

    def tables(self, field: Sequence[FieldEntry], label: str, players: int) -> list[tuple[FieldEntry, ...]]:
        """The tables of ruleset `label`, newest member first (see the module docstring)."""
        playing = [(i, e) for i, e in enumerate(field) if label in e.rulesets]
        combos = list(itertools.combinations(playing, players))
        combos.sort(key=lambda combo: (-max(i for i, _ in combo), [-i for i, _ in combo]))
        return [tuple(e for _, e in combo) for combo in combos]

    def order(self, field: Sequence[FieldEntry]) -> list[tuple[int, str, tuple[FieldEntry, ...]]]:
        """Every table of every ruleset, in the order they are played: newest member first,
        then the config's ruleset order."""
        ranked = []
        for position, (label, players) in enumerate(self.rulesets):
            for table in self.tables(field, label, players):
                newest = max(field.index(e) for e in table)
                ranked.append((-newest, position, label, table))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return [(players_of, label, table) for _, players_of, label, table in ranked]

    def next(self, state: SchedulerState, room: int) -> Decision[Any]:
        flying, chosen = state.in_flight(), []
        pending = False
        for _, label, table in self.order(list(state.field())):
            for deal in range(self.deals):
                for rotation in range(len(table)):
                    game = LadderGame(label, table, deal, rotation)
                    key = game.identity.key
                    if key in flying:
                        pending = True
                    elif not state.is_stored(key):
                        chosen.append(game)
                        if len(chosen) == room:
                            return Play(tuple(chosen))
        if chosen:
            return Play(tuple(chosen))
        return WAIT if pending else DONE
