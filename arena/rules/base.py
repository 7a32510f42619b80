"""The ruleset interface every game implements, and the option model they share.

A `Ruleset` subclass is a game's definition as data (id, version, player range,
options) plus `new_game`, which deals a `GameState` from a seeded RNG. A
`GameState` is the engine: mutable, fast, never shown to a bot. Everything a bot
receives is built fresh by `GameState.view` and `GameState.take_events`.

Rules modules import nothing from the rest of arena but `arena.errors`, do no
I/O and never touch the global RNG: every random draw of an engine goes through
its state's `chance` (`rules/chance.py`), seeded from the RNG passed in.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

import msgspec

from arena.errors import IllegalActionError, OptionError, PlayerCountError
from arena.rules.chance import Chance, draw_distribution
from arena.rules.text import Renderer

JSONScalar = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class Option:
    """One ruleset option: its default, its help text and the values it allows.

    The value's type is the default's type unless `kind` says otherwise. A
    ruleset checks what a type and range cannot express in `check_options`.
    """

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    kind: type | tuple[type, ...] | None = None

    def check(self, name: str, value: Any) -> None:
        """Raise OptionError if `value` is not allowed for option `name`."""
        kind = self.kind or type(self.default)
        if kind is float:
            kind = (int, float)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int in Python; an int option must not take True.
        if isinstance(value, bool) and bool not in kinds:
            raise OptionError(f"option {name!r} must be {_kind_name(kinds)}, not {value!r}")
        if not isinstance(value, kinds):
            raise OptionError(f"option {name!r} must be {_kind_name(kinds)}, not {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise OptionError(f"option {name!r} must be one of {allowed}, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {name!r} must be at least {self.minimum}, not {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {name!r} must be at most {self.maximum}, not {value!r}")


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table", type(None): "null"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


CAPABILITIES = ("sample_state", "lay_out")
"""The optional parts a ruleset may declare (see `Ruleset.capabilities`)."""


class Ruleset(ABC):
    """A game: its identity and options as class data, and a factory of states."""

    id: ClassVar[str]
    """Stable ruleset id, e.g. "flip-7"."""
    version: ClassVar[str]
    """Bumped whenever a rule change can change a transcript."""
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[dict[str, Option]] = {}
    capabilities: ClassVar[frozenset[str]] = frozenset()
    """The optional parts this ruleset provides, each a classmethod of that name (checked
    when the class is made; callers ask `supports`):

    - ``"sample_state"``: ``sample_state(observation, rng, events=None) -> GameState``, a
      full state consistent with what the observing seat knows, the rest drawn from
      `rng` (a determinization for search bots; the conformance kit checks it).
    - ``"lay_out"``: ``lay_out(players, options=None, seed=0, **position) -> GameState``,
      a state with a position set by hand, for tests and puzzles. The keyword arguments
      of `position` are the game's own, documented on its `lay_out`; with none, it is
      `new_game`'s deal from `seed`.
    """

    # What the harness asks of a game, declared by the game (defaults: a game that declares
    # nothing); tables keyed by ruleset id elsewhere read these instead.

    search_hints: ClassVar[Mapping[str, Any]] = {}
    """How a search bot (ismcts) should search this game, as data: ``playout_bot``
    ("module:Class" of a heuristic bot for playouts), ``playout_depth`` and
    ``random_playout_depth`` (decisions before the cut-off), ``playout_stop`` (an event
    type that also ends a playout), ``prior_weight`` (root bonus of the heuristic's
    choice), ``opponents`` ("tree": other seats' moves searched; "policy": played by the
    playout bot on each sampled deal), ``evaluation`` ("module:function", ``(state, seat) -> value per seat in
    [0, 1]`` at the cut-off). Names, not imports: rules import nothing of the bots."""

    bot_example: ClassVar[str | None] = None
    """The body of a new bot's decision method for this game (`arena new-bot`): Python
    with `self`, `observation`, `view`, `legal` and `me` (the seat) in scope, returning a
    string of `legal`. None: a generic body."""

    renderer: ClassVar[type[Renderer]] = Renderer
    """How people see this game (`arena play`, `arena replay`, the site's replays): a
    `rules.text.Renderer` subclass laying out its view, actions and events; the generic
    one prints any view readably."""

    card_faces: ClassVar[Mapping[str, tuple[str, str]]] = {}
    """How the site draws a card face: ``face -> (colour, label)``, the colour a name
    the site's palette knows ("red", "wild", ...). A face not listed is drawn from its
    text (coloured by a leading colour word)."""

    site_view: ClassVar[Mapping[str, Any]] = {}
    """How the site's viewer lays out what is not a two-faced card (data; the viewer knows
    no game by id). ``one_sided``: ``{face: [kind, colour, glyph]}`` for cards a view holds
    as plain face strings, drawn one-sided: kind "modifier" or "action", in a palette colour
    with an optional glyph (a face not listed: kind "number", uncoloured). ``seat_rows``:
    ``{view key: [row keys]}``, a list of per-seat rows whose listed keys are lists of cards
    shown as one row, the other keys as facts. ``counted``: ``{view key: title}``, piles
    given as ``{face: count}`` drawn as cards with their counts."""

    @classmethod
    def draw_probability(cls, players: int) -> float:
        """TrueSkill's draw probability at a table of `players` (the ratings use it)."""
        return 0.05

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        unknown = sorted(set(cls.capabilities) - set(CAPABILITIES))
        if unknown:
            raise TypeError(f"{cls.__name__} declares unknown capabilities {unknown} "
                            f"(known: {', '.join(CAPABILITIES)})")
        missing = sorted(name for name in cls.capabilities if not callable(getattr(cls, name, None)))
        if missing:
            raise TypeError(f"{cls.__name__} declares {missing} but does not define them")

    @classmethod
    def supports(cls, capability: str) -> bool:
        """Whether this ruleset declares the optional `capability` (see `capabilities`)."""
        return capability in cls.capabilities

    @classmethod
    def resolve_options(cls, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return every option with its value: `given` validated, defaults for the rest."""
        given = dict(given or {})
        for name in given:
            if name not in cls.options:
                known = ", ".join(cls.options) or "none"
                raise OptionError(f"unknown option {name!r} for {cls.id} (known: {known})")
        resolved: dict[str, Any] = {}
        for name, option in cls.options.items():
            value = given.get(name, option.default)
            if name in given:
                option.check(name, value)
            resolved[name] = copy.deepcopy(value)
        cls.check_options(resolved)
        return resolved

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Raise OptionError for a combination of option values that is not allowed."""

    @classmethod
    def check_players(cls, players: int) -> None:
        """Raise PlayerCountError unless `players` may play this ruleset."""
        if not cls.min_players <= players <= cls.max_players:
            raise PlayerCountError(
                f"{cls.id} takes {cls.min_players} to {cls.max_players} players, not {players}")

    @classmethod
    @abstractmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> GameState:
        """Deal a new game. `options` are already resolved; `rng` is the game's chance."""

    @classmethod
    def describe_event(cls, event: Mapping[str, Any]) -> str:
        """One plain line for a god-view event (`arena match --log`, the god view of
        `arena replay` and the site's replays): the game's `renderer` writes it
        (`Renderer.log_line`), beside its sentences for a seat's view."""
        return cls.renderer.log_line(event)


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


def copy_rng(rng: random.Random) -> random.Random:
    """An independent `random.Random` in the same state as `rng`."""
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def winner_takes_all_draws(players: int) -> float:
    """A draw probability for "the winner first, all others tied second": of the table's
    pairs, those between two losers are draws; for two players only a stopped game is."""
    return max(0.1, (players - 2) / players)


def standing_from_scores(scores: Sequence[float], highest_first: bool = True) -> list[int]:
    """Finishing positions (1 = first) by score; equal scores share a position
    (competition ranking: 1, 1, 3)."""
    sign = -1 if highest_first else 1
    keyed = [sign * s for s in scores]
    return [1 + sum(1 for other in keyed if other < mine) for mine in keyed]


def winner_standing(players: int, winner: int | None) -> list[int]:
    """Standing where `winner` is first and everyone else ties second; all tied
    first when `winner` is None."""
    if winner is None:
        return [1] * players
    return [1 if seat == winner else 2 for seat in range(players)]


def forfeit_standing(standing: Sequence[int], forfeited: Sequence[int]) -> list[int]:
    """`standing` with the forfeited seats tied last and the others ranked among
    themselves in their original order (ties kept)."""
    keep = [s for s in range(len(standing)) if s not in forfeited]
    result = [len(keep) + 1] * len(standing)
    for seat in keep:
        result[seat] = 1 + sum(1 for other in keep if standing[other] < standing[seat])
    return result
