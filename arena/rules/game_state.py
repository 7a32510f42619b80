"""`GameState`: one game in progress, the engine every ruleset deals (see `Ruleset`).

Its own module (a base class and the event copies it makes) so that it can be compiled
apart from `Ruleset`. Imports nothing of the harness, like every rules module.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

import msgspec

from arena.errors import IllegalActionError
from arena.rules.chance import Chance, draw_distribution

if TYPE_CHECKING:
    from arena.rules.base import Ruleset


class GameState(ABC):
    """One game in progress. Engine state: mutable, never handed to a bot.

    Events: the engine emits plain-data events as each seat witnessed them;
    `take_events(seat)` hands a seat its events since it last took them, as
    fresh copies. Every event is also appended to `god_log` as the all-seeing
    observer saw it (for logs and replay viewers).
    """

    ruleset: ClassVar[type[Ruleset]]

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int):
        """`rng`: the game's chance, a seeded Random or an int seed (see `Chance`)."""
        self.players = players
        self.options = dict(options)
        self.chance = Chance(rng)
        self.god_log: list[dict[str, Any]] = []
        self._pending: list[list[dict[str, Any]]] = [[] for _ in range(players)]

    # -- the decision loop ---------------------------------------------------

    @abstractmethod
    def current_seat(self) -> int | None:
        """The seat whose decision it is, or None when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[str]:
        """The current seat's legal actions, in a deterministic order. Never empty
        while the game is not over."""

    @abstractmethod
    def apply(self, action: str) -> None:
        """Apply the current seat's `action`; raise IllegalActionError if not legal."""

    @abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """What `seat` sees now, with perfect recall: fresh plain JSON data."""

    def is_terminal(self) -> bool:
        return self.current_seat() is None

    @abstractmethod
    def outcome(self) -> dict[str, Any]:
        """For a finished game: ``{"standing", "scores", "reason"}`` (may add
        ruleset-specific keys, e.g. "rounds")."""

    @abstractmethod
    def clone(self) -> GameState:
        """An independent copy for search. Pending events and the god log are not
        copied: the clone starts with empty ones (see `_reset_events`)."""

    def god_view(self, seat: int) -> dict[str, Any]:
        """`seat`'s view of a copy of this state in which every seat has seen every face
        of every card: the whole table, laid out as the ruleset lays out a view (for
        replays and spectators; never for a bot). The default reveals a `table` that is
        a `TwoFacedTable`; a ruleset that hides things elsewhere overrides it."""
        from arena.rules.cards import TwoFacedTable

        twin = self.clone()
        table = getattr(twin, "table", None)
        if isinstance(table, TwoFacedTable):
            table.reveal_all()
        return twin.view(seat)

    # -- chance (see rules/chance.py) ----------------------------------------

    @property
    def rng(self) -> random.Random:
        """The `random.Random` behind `chance`; setting it gives the state a new `Chance`."""
        return self.chance.rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self.chance = Chance(rng)

    def chance_pile(self) -> tuple[list[Any], Callable[[Any], str]] | None:
        """The draw pile the next draw takes its card from (the engine's own list, top
        last) and the name of a card on it; None for a game without one. A ruleset
        with a draw pile overrides it; `draw_outcomes` and `lay_on_top` use it."""
        return None

    def draw_outcomes(self, depth: int = 0) -> list[tuple[str, float]]:
        """The chance of the card `depth` cards below the draw pile's top (0: the next
        card drawn), the cards above it set aside: ``[(name, probability), ...]``,
        sorted by name ([] without a draw pile, or when it holds no card that deep)."""
        found = self.chance_pile()
        if found is None:
            return []
        pile, name = found
        return draw_distribution([name(card) for card in pile[:max(len(pile) - depth, 0)]])

    def lay_on_top(self, name: str, depth: int = 0) -> None:
        """Choose a draw's outcome: put a card named `name` (from `draw_outcomes(depth)`)
        `depth` cards below the draw pile's top, swapping it with the card there.
        ValueError if no such card lies that deep."""
        found = self.chance_pile()
        if found is None:
            raise ValueError(f"lay_on_top: {self.ruleset.id} has no draw pile")
        pile, card_name = found
        place = len(pile) - 1 - depth
        for i in range(place, -1, -1):
            if card_name(pile[i]) == name:
                pile[i], pile[place] = pile[place], pile[i]
                if depth == 0:
                    self._draw_top_changed()
                return
        raise ValueError(f"lay_on_top: no {name!r} in the draw pile at depth {depth} or below")

    def _draw_top_changed(self) -> None:
        """Hook after `lay_on_top` changed the draw pile's top card: a game whose pile
        shows its top card marks it seen."""

    # -- events --------------------------------------------------------------

    flat_events: ClassVar[frozenset[str]] = frozenset()
    """Event types whose values are all scalars: a seat's copy of one is a shallow copy."""

    @staticmethod
    def copy_event(event: dict[str, Any]) -> dict[str, Any]:
        """A seat's copy of an event not in `flat_events`: a deep copy of plain JSON data
        (a ruleset that knows its events' shapes may copy them faster)."""
        return plain_copy(event)

    def take_events(self, seat: int) -> list[dict[str, Any]]:
        """`seat`'s events since it last took them, as fresh copies (the one event-copy
        mechanism: `flat_events` shallowly, the others by `copy_event`; without
        `flat_events`, one JSON round trip of the lot)."""
        pending = self._pending[seat]
        if not pending:
            return []
        self._pending[seat] = []
        flat = self.flat_events
        if not flat:
            return fresh_copy(pending)
        copy = self.copy_event
        return [event.copy() if event["type"] in flat else copy(event) for event in pending]

    def drop_events(self, seat: int) -> list[dict[str, Any]]:
        """Forget `seat`'s pending events and return them uncopied (shared with the god
        log and other seats: read them, never change them). For a search reading the
        events of its own sampled state; what a bot is sent is `take_events`'s copies."""
        pending = self._pending[seat]
        self._pending[seat] = []
        return pending

    def emit(self, event: dict[str, Any], to: Sequence[int] | None = None) -> None:
        """Record `event` as witnessed identically by `to` (default: every seat)."""
        if to is None:
            for pending in self._pending:
                pending.append(event)
        else:
            for seat in to:
                self._pending[seat].append(event)
        self.god_log.append(event)

    def emit_split(self, seat: int, mine: dict[str, Any], others: dict[str, Any] | None,
                   god: dict[str, Any] | None = None) -> None:
        """Record an event that `seat` saw as `mine` and every other seat as
        `others` (None: the others saw nothing). The god log gets `god` or `mine`."""
        self._pending[seat].append(mine)
        if others is not None:
            for other in range(self.players):
                if other != seat:
                    self._pending[other].append(others)
        self.god_log.append(god if god is not None else mine)

    def emit_each(self, events: Sequence[dict[str, Any] | None], god: dict[str, Any]) -> None:
        """Record one event as each seat saw it (`events[seat]`; None: that seat saw
        nothing) and as the god view saw it."""
        for seat, event in enumerate(events):
            if event is not None:
                self._pending[seat].append(event)
        self.god_log.append(god)

    def _reset_events(self) -> None:
        """For `clone` implementations: give this copy its own empty queues."""
        self._pending = [[] for _ in range(self.players)]
        self.god_log = []

    def _illegal(self, action: str) -> IllegalActionError:
        legal = self.legal_actions()
        shown = ", ".join(legal[:12]) + (", ..." if len(legal) > 12 else "")
        return IllegalActionError(
            f"{action!r} is not a legal action for seat {self.current_seat()} (legal: {shown})")


class OwnEventCopies(GameState):
    """A GameState whose seat queues hold objects of their own, copied at `emit`, so
    that `take_events` hands a queue over without copying it (a hot path).

    The copies are made as `take_events` would make them (`flat_events`, `copy_event`),
    only earlier. A subclass's own per-seat emitters (`emit_each`, or events it builds
    seat by seat) must queue objects it holds nowhere else.
    """

    def emit(self, event: dict[str, Any], to: Sequence[int] | None = None) -> None:
        flat = event["type"] in self.flat_events
        copy = self.copy_event
        for seat in range(self.players) if to is None else to:
            self._pending[seat].append(event.copy() if flat else copy(event))
        self.god_log.append(event)

    def emit_split(self, seat: int, mine: dict[str, Any], others: dict[str, Any] | None,
                   god: dict[str, Any] | None = None) -> None:
        copy = self.copy_event
        self.emit_each([copy(mine) if s == seat else None if others is None else copy(others)
                        for s in range(self.players)], god if god is not None else mine)

    def emit_varying(self, event: dict[str, Any], key: str, per_seat: Sequence[Any], god: Any) -> None:
        """Emit `event` with `key` set to ``per_seat[seat]`` for each seat (values it
        holds nowhere else) and to `god` in the god log."""
        for pending, value in zip(self._pending, per_seat):
            pending.append({**event, key: value})
        self.god_log.append({**event, key: god})

    def take_events(self, seat: int) -> list[dict[str, Any]]:
        pending = self._pending[seat]
        if not pending:
            return []
        self._pending[seat] = []
        return pending


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


def fresh_copy(value: Any) -> Any:
    """A deep copy of plain JSON data, made by a JSON round trip in C (several
    times faster than `plain_copy`); tuples become lists."""
    return _decoder.decode(_encoder.encode(value))


def plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists, scalars); tuples become lists."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_copy(v) for v in value]
    return value


# -- copying a built-in state without a __dict__ (a compiled one) ---------------------------
# The built-in states define `__deepcopy__` and `__reduce__` with these (OpenSpiel deep-copies
# and pickles states): a compiled state has no __dict__ for the defaults to copy, and cannot
# be made without running its constructor. Plugins' states keep the defaults.


def deep_copy_by_clone(state: Any, memo: dict[int, Any], shared: Sequence[str] = ()) -> Any:
    """What the default deep copy of `state` makes: its `clone`, with the event queues
    (which a clone starts empty) and the fields named in `shared` (which a clone shares
    with its original) deep-copied."""
    twin = state.clone()
    for name in ("_pending", "god_log", *shared):
        setattr(twin, name, copy.deepcopy(getattr(state, name), memo))
    return twin


def rebuilt_state(cls: Any, players: int, options: Mapping[str, Any], fields: Sequence[str],
                  values: Sequence[Any]) -> Any:
    """The state of class `cls` whose `fields` (every field but `players` and `options`)
    hold `values`: what a built-in state's `__reduce__` pickles,
    ``(rebuilt_state, (cls, players, options, FIELDS, [its values]))``."""
    state = cls(players, options, 0, fresh=False)
    for name, value in zip(fields, values):
        setattr(state, name, value)
    return state
