"""A tournament's schedulers, and the state they read from its results store.

`FixedScheduler` plays a fixed schedule (round-robin, gauntlet, sampled: the format
decides the tables, `arena.tournament.Schedule`); `StoppingScheduler` plays it deal by
deal and stops each ruleset where its looks say (settled, SPRT: `arena.stopping`).
Both hand out batches of one ruleset each (`arena.runner.Batcher` sizes them), skipping
games already stored. `StoreState` is the `SchedulerState` over a results store, for
schedulers that read results (a plugin's, such as the tests' king of the hill).

`BUILTIN_SCHEDULERS` names them by the tournament's format or stop; a plugin adds one
with the ``register_schedulers`` hook (arena.hookspecs), and a run picks it by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from arena.identity import GameIdentity
from arena.scheduling.base import DONE, WAIT, Decision, FieldEntry, LookRecord, Play, StoredResult
from arena.seeding import bot_seed
from arena.store import Store, read_looks
from arena.tournament import GameSpec, Schedule, Tournament


@dataclass
class TournamentContext:
    """What a tournament scheduler is made from (by its factory)."""

    tournament: Tournament
    schedule: Schedule
    store: Store
    looks: Any                   # arena.stopping.Looks (inert without a stop)
    done: bytearray              # the stored games, by schedule index (`Store.done_mask`)
    sizer: Any                   # arena.runner.Batcher: batch sizes per ruleset
    ahead: int                   # batches a stopping run may play past its last look
    echo: Callable[[str], None]


def spec_at(schedule: Schedule, ruleset: int, table_number: int, table: tuple[int, ...], deal: int,
            rotation: int) -> GameSpec:
    """The scheduled game at these coordinates (`table`: its entries, in table order)."""
    spec = schedule.tournament.rulesets[ruleset]
    k = spec.players
    deal_seed = schedule.deal_seed(spec, table, deal)
    return GameSpec(schedule.position(ruleset, table_number, deal, rotation), ruleset, table_number, deal, rotation,
                    tuple(table[(seat + rotation) % k] for seat in range(k)), deal_seed,
                    tuple(bot_seed(deal_seed, seat, rotation) for seat in range(k)))


class FixedScheduler:
    """The schedule's games in schedule order, each ruleset's in batches; with a stop,
    within the deals its looks allow (then `StoppingScheduler`, which also takes them)."""

    name = "round-robin"

    def __init__(self, context: TournamentContext):
        from arena.stopping import Feed

        self.context = context
        self.feed = Feed(context.schedule, context.done, context.looks, context.sizer, context.ahead)

    def look(self, state: Any) -> Sequence[LookRecord]:
        return ()

    def next(self, state: Any, room: int) -> Decision[GameSpec]:
        batch = self.feed.next_batch()
        if batch:
            return Play(tuple(batch[:room]))
        return DONE if self.feed.finished() else WAIT


class StoppingScheduler(FixedScheduler):
    """A `stop`'s schedule (settled or SPRT): deal by deal, each ruleset up to its stop. Its
    looks are recorded in the store as they are taken (`Looks.look`), before anything acts on them."""

    name = "settled"

    def look(self, state: Any) -> Sequence[LookRecord]:
        looks = self.context.looks
        before = list(looks.looks)
        looks.look(self.context.echo)
        labels = [r.label for r in self.context.tournament.rulesets]
        return [LookRecord(labels[r], looks.looks[r], looks.looked[r], looks.cut[r] is not None, looks.verdicts[r] or {})
                for r in range(len(before)) if looks.looks[r] != before[r]]


BUILTIN_SCHEDULERS: dict[str, Callable[[TournamentContext], Any]] = {
    "round-robin": FixedScheduler, "gauntlet": FixedScheduler, "sampled": FixedScheduler,
    "settled": StoppingScheduler, "sprt": StoppingScheduler}
"""The built-in schedulers by name: a tournament's format, or its stop's kind."""


def scheduler_name(tournament: Tournament) -> str:
    """The scheduler a tournament file asks for: its `scheduler` (a plugin's), else its
    stop's kind, else its format."""
    if tournament.scheduler is not None:
        return tournament.scheduler
    return tournament.stop.kind if tournament.stop is not None else tournament.format


class StoreState:
    """The `SchedulerState` of a tournament's results store: its entries, the stored results
    (in the order they were stored), the games in flight (`flying`, kept by the loop) and the looks."""

    def __init__(self, store: Store, tournament: Tournament):
        self.store = store
        self.tournament = tournament
        self.flying: set[str] = set()

    def field(self) -> Sequence[FieldEntry]:
        plan = self.store.plan()
        playing = [[r["label"] for r in plan["rulesets"] if i in r["entries"]] for i in range(len(plan["entries"]))]
        return tuple(FieldEntry(e["bot"], str(e["version"]), tuple(labels))
                     for e, labels in zip(plan["entries"], playing))

    def results(self, since: int = 0) -> Sequence[StoredResult]:
        rows = self.store._read("SELECT identity, result FROM games ORDER BY rowid LIMIT -1 OFFSET ?", (since,))
        return [_stored_result(identity, result) for identity, result in rows]

    def result_count(self) -> int:
        return self.store._read("SELECT COUNT(*) FROM games")[0][0]

    def is_stored(self, key: str) -> bool:
        return bool(self.store._read("SELECT 1 FROM games WHERE game_key = ?", (key,)))

    def in_flight(self) -> frozenset[str]:
        return frozenset(self.flying)

    def looks(self) -> Sequence[LookRecord]:
        labels = [r.label for r in self.tournament.rulesets]
        return [LookRecord(labels[look.ruleset], look.look, look.deals, look.stopped, look.detail)
                for look in read_looks(self.store)]


def _stored_result(identity: str, result: str) -> StoredResult:
    from arena.store import decode

    _, standing, scores, faults = decode(result)
    return StoredResult(GameIdentity.from_canonical(identity), tuple(standing), tuple(scores), tuple(faults))


def identities(schedule: Schedule, games: Sequence[GameSpec], placement: Any) -> Iterator[str]:
    """The identity keys of scheduled games (to mark them in flight)."""
    for spec in games:
        yield placement.identity(spec.ruleset, spec.table, spec.deal, spec.rotation).key
