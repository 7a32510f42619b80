"""The `Scheduler` interface: what decides which games are played next.

One loop (arena.runner for a tournament; a ladder's server for a ladder) asks its
scheduler, again and again, what to play next. The scheduler sees a `SchedulerState`,
a small read-only view that the loop fills from wherever it keeps its games (a
tournament's SQLite store, a ladder's own database, or `MemoryState` in tests):

- the `field`: the entries that may play now (a ladder's changes while it runs: a new
  version joins, a replaced one leaves; a tournament's is fixed);
- the stored `results`, in the order they were stored, readable from a cursor on (so a
  scheduler can follow them without rereading everything);
- the games `in_flight`: handed out (leased) and not yet returned, by identity key;
- the `looks` recorded so far (a stopping scheduler's decisions, stored before they act).

It answers with a `Decision`: `Play(games)` (at most `room` games, none of them stored
or in flight), `WAIT` (nothing to hand out until a game in flight comes back or the field
changes), or `DONE` (nothing more to play, ever, for this field: the loop ends once the
games in flight are back).

Contracts, which every scheduler keeps and the loops rely on:

- Deterministic: the same state (and the same seed, given at construction) gives the
  same decision. It never reads the clock, the worker count or hash-ordered sets, so a
  run gives the same games on any number of workers, either backend, and after kill -9
  (the loop then starts a fresh scheduler over what is stored).
- A scheduler may cache what it read, but the state is the truth: nothing it holds
  in memory alone may change what it decides.
- `look(state)` is asked after each stored batch, before `next`; the looks it returns are
  recorded before anything acts on them, so a resumed run sees them in `state.looks()`: by
  the loop, or (the tournament's `StoppingScheduler`, whose state is the store it writes)
  by the scheduler itself, in the store, before it returns them.
- A game is named by its `GameIdentity` (arena.identity); `next` never returns a game
  whose key is stored or in flight, nor one game twice.

A new scheduler is one module implementing this protocol plus a registration (the
``register_schedulers`` hook, arena.hookspecs). Nothing here reads the harness's store
or tournament: a ladder implements `SchedulerState` over its own database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Mapping, NamedTuple, Protocol, Sequence, TypeVar, Union

from arena.identity import GameIdentity


class FieldEntry(NamedTuple):
    """An entry that may play now: its name and version (as in its games' identities)
    and the labels of the rulesets it plays."""

    name: str
    version: str
    rulesets: tuple[str, ...]


class StoredResult(NamedTuple):
    """One stored game's result: per seat (seat order, as in `identity.seats`) its place
    (0 = first; ties share a place), score and faults."""

    identity: GameIdentity
    standing: tuple[int, ...]
    scores: tuple[float, ...]
    faults: tuple[int, ...]


class LookRecord(NamedTuple):
    """A recorded look of a stopping scheduler at one ruleset: the `look`-th (1, 2, ...),
    over the ruleset's first `deals` deals; `stopped`: the ruleset plays no further deal;
    `detail`: what it found (JSON-able: verdicts, a test's state)."""

    ruleset: str
    look: int
    deals: int
    stopped: bool
    detail: Mapping[str, Any]


class SchedulerState(Protocol):
    """What a scheduler may read; the loop's view of its own storage (read-only to the scheduler)."""

    def field(self) -> Sequence[FieldEntry]:
        """The entries that may play now, in a stable order (a tournament: file order)."""

    def results(self, since: int = 0) -> Sequence[StoredResult]:
        """The stored results from the `since`-th on (0-based), in the order they were stored."""

    def result_count(self) -> int:
        """How many results are stored."""

    def is_stored(self, key: str) -> bool:
        """Whether the game with identity key `key` is stored."""

    def in_flight(self) -> frozenset[str]:
        """Identity keys of the games handed out and not yet returned."""

    def looks(self) -> Sequence[LookRecord]:
        """The looks recorded so far, by ruleset then look number."""


G = TypeVar("G")
"""What a scheduler hands out: anything the loop's backend plays, naming its `identity`
(a tournament: arena.scheduling's `ScheduledGame`; a ladder: its own game rows)."""


@dataclass(frozen=True)
class Play(Generic[G]):
    """Play these games next (at most the `room` asked for; none stored or in flight)."""

    games: tuple[G, ...]


class _Signal(NamedTuple):
    name: str

    def __repr__(self) -> str:
        return self.name


WAIT = _Signal("WAIT")
"""Nothing to hand out now: ask again when a game in flight comes back or the field changes."""

DONE = _Signal("DONE")
"""Nothing more to play for this field: the loop ends once the games in flight are back."""

Decision = Union[Play[G], _Signal]


class Scheduler(Protocol[G]):
    """Decides what to play next (see the module's docstring for the contracts)."""

    name: str
    """The scheduler's registered name (a tournament's ``format``, or a plugin's)."""

    def look(self, state: SchedulerState) -> Sequence[LookRecord]:
        """The looks now due (to be recorded by the loop before anything acts on them); () if none."""

    def next(self, state: SchedulerState, room: int) -> "Decision[G]":
        """What to play next: `Play` of 1..`room` games, `WAIT` or `DONE`. `room` >= 1."""


@dataclass
class MemoryState:
    """A `SchedulerState` held in memory: for tests, simulators, and a ladder that reads
    its database into it. The loop appends results and looks and sets `flying`."""

    entries: list[FieldEntry] = field(default_factory=list)
    stored_results: list[StoredResult] = field(default_factory=list)
    flying: set[str] = field(default_factory=set)
    recorded_looks: list[LookRecord] = field(default_factory=list)
    _keys: set[str] = field(default_factory=set, repr=False)

    def field(self) -> Sequence[FieldEntry]:
        return tuple(self.entries)

    def results(self, since: int = 0) -> Sequence[StoredResult]:
        return self.stored_results[since:]

    def result_count(self) -> int:
        return len(self.stored_results)

    def is_stored(self, key: str) -> bool:
        if len(self._keys) != len(self.stored_results):
            self._keys = {r.identity.key for r in self.stored_results}
        return key in self._keys

    def in_flight(self) -> frozenset[str]:
        return frozenset(self.flying)

    def looks(self) -> Sequence[LookRecord]:
        return sorted(self.recorded_looks, key=lambda look: (look.ruleset, look.look))

    def store(self, result: StoredResult) -> None:
        """Add a returned game: stored, no longer in flight (a game stored twice is an error)."""
        key = result.identity.key
        if self.is_stored(key):
            raise ValueError(f"game {key[:12]} is already stored")
        self.stored_results.append(result)
        self._keys.add(key)
        self.flying.discard(key)
