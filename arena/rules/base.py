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
import functools
import importlib
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence, cast

from arena.errors import OptionError, PlayerCountError
from arena.rules.game_state import GameState, OwnEventCopies, fresh_copy, plain_copy  # noqa: F401 (the rules API)
from arena.rules.text import Renderer

JSONScalar = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class Option:
    """One ruleset option: its default, its help text and the values it allows.

    The value's type is the default's type unless `kind` says otherwise. A
    ruleset checks what a type and range cannot express in `check_options`.
    A number option without a `minimum` or a `maximum` declares a `test_range`
    (low, high): the values the conformance kit tries in place of the missing bounds.
    """

    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    kind: type | tuple[type, ...] | None = None
    test_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.test_range is not None:
            low, high = self.test_range
            if not low <= high or (self.minimum is not None and low < self.minimum) or (
                    self.maximum is not None and high > self.maximum):
                raise ValueError(f"test_range {self.test_range} is not within the option's bounds "
                                 f"({self.minimum} to {self.maximum})")

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
        if self.minimum is not None and cast(float, value) < self.minimum:  # a number: its kind says so
            raise OptionError(f"option {name!r} must be at least {self.minimum}, not {value!r}")
        if self.maximum is not None and cast(float, value) > self.maximum:
            raise OptionError(f"option {name!r} must be at most {self.maximum}, not {value!r}")


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table", type(None): "null"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


CAPABILITIES: tuple[str, ...] = ("sample_state", "lay_out", "encoding", "evaluate", "chance_outcomes",
                                 "pairwise_value", "permute_unrevealed")
"""The optional parts a ruleset may declare (see `Ruleset.capabilities`): for tests, for the
environments and search bots (what a game tells them about itself), and for the luck-adjusted
scores."""


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
    when the class is made; callers ask `supports`). Three can be given as data, which the
    base's classmethods read: `encoding_function`, `sampler_function` and `deck_option`.

    - ``"sample_state"``: ``sample_state(observation, rng, events=None) -> GameState``, a
      full state consistent with what the observing seat knows, the rest drawn from
      `rng` (a determinization for search bots; the conformance kit checks it). A search
      samples one observation many times, so a sampler may keep what the observation
      fixes for the next call with the same view object and events list (the built-in
      ones do: `arena.rules.observation_cache`); a caller that changes a view in place
      between calls passes a copy.
    - ``"lay_out"``: ``lay_out(players, options=None, seed=0, **position) -> GameState``,
      a state with a position set by hand, for tests and puzzles. The keyword arguments
      of `position` are the game's own, documented on its `lay_out`; with none, it is
      `new_game`'s deal from `seed`.

    What the environments and search bots need of a game (the environments, `arena.envs`,
    take any ruleset declaring ``encoding`` and ``chance_outcomes``; the kit checks them):

    - ``"encoding"``: ``encoding(players, options) -> arena.rules.encoding.Encoding`` for a
      table (options resolved): the stable action index, the mask, the fixed-size
      ``float32`` array of one seat's observation (built from its ``seat`` and ``view``
      only) and the array's named blocks (``features``). Arrays need numpy, so a game
      imports no numpy where its rules load.
    - ``"evaluate"``: ``evaluate(state, me) -> list[float]``, a value in [0, 1] per seat of
      a full state (e.g. a search's determinization, cut off before the end) as seat `me`
      would judge it: near 1 for a seat sure to finish ahead of every other (ties a
      half). Fixed before play, and it reads nothing unrevealed: the order of hidden
      piles and the state's chance do not change it.
    - ``"chance_outcomes"``: ``chance_outcomes(players, options) -> int``, the most
      outcomes one chance draw of the engine can have at that table (the longest
      shuffle, or the largest ``below(n)``), at least 2 (OpenSpiel's
      ``max_chance_outcomes``).

    What the luck-adjusted scores need of a game (`arena.luck`):

    - ``"pairwise_value"``: ``pairwise_value(state) -> list[list[float]]``, for a full
      state, per ordered pair of seats (a, b), an estimate of P(a finishes ahead of b), a
      tie counting a half: ``V[b][a] == 1 - V[a][b]``, ``V[a][a] == 0.5``. Fixed before
      play (no learning during a tournament) and reading nothing unrevealed: it is
      unchanged by `permute_unrevealed` and by reseeding the state's chance (the kit checks
      both: `arena.testing.check_pairwise_value`). The luck-adjusted scores
      (`arena.luck`, docs/luck.md) subtract its changes at chance events. A ruleset that
      declares it names it in `pairwise_value_identity`.
    - ``"permute_unrevealed"``: ``permute_unrevealed(state, rng)``, reorder in place,
      uniformly from `rng`, exactly the *unrevealed* cards: those in places whose order no
      seat knows, whether or not their faces were ever seen (a pile below its visible top,
      a reshuffled discard pile, a card put back at a random place), with coin-given
      orientations where the game has them; nothing else changes and nothing is given
      away. Cards whose place some seat knows (a visible top, a card a player placed, a
      hand) stay. The kit checks that the cards the engine reveals next are distributed
      as this law says (`arena.testing.check_unrevealed_law`).
    """

    pairwise_value_identity: ClassVar[tuple[str, str] | None] = None
    """``(name, version)`` of the `pairwise_value` a ruleset declares: plans record it, and
    stored luck corrections made with another value or version are refused."""

    unrevealed_is_draw_pile: ClassVar[bool] = False
    """True when the unrevealed cards are exactly the draw pile's (`GameState.chance_pile`),
    its top included: the luck corrections then enumerate the next card drawn, each with
    its exact chance, instead of sampling clones."""

    if TYPE_CHECKING:  # the optional capabilities' types, for callers that asked `supports` first;
        # the type checker's only, so a ruleset that does not define one has no such attribute

        # `state` is the ruleset's own GameState subclass, which a ruleset names in its
        # signature (Any: a narrower parameter than the base's is no valid override)
        @classmethod
        def pairwise_value(cls, state: Any) -> list[list[float]]: ...

        @classmethod
        def permute_unrevealed(cls, state: Any, rng: random.Random) -> None: ...

    # Where three capabilities' code lives, as data (a ruleset may define the classmethod
    # itself instead): the base's classmethods below read these.

    encoding_function: ClassVar[str | None] = None
    """``"module:function"`` of the `encoding` capability, ``function(players, options)``,
    imported when an environment first asks (arrays need numpy, which rules never load)."""

    sampler_function: ClassVar[str | None] = None
    """``"module:function"`` of the `sample_state` capability, ``function(observation, rng,
    events)``, imported when a search bot first asks."""

    deck_option: ClassVar[str | None] = None
    """The option listing the cards in play: the `chance_outcomes` capability is then their
    number, and one (a shuffle's first pick, or a place in a pile)."""

    @classmethod
    def encoding(cls, players: int, options: Mapping[str, Any]) -> Any:
        """The table's action index and observation array (`encoding_function`'s;
        `arena.rules.encoding.Encoding`)."""
        return _capability_code(cls, "encoding", cls.encoding_function)(players, options)

    @classmethod
    def sample_state(cls, observation: Mapping[str, Any], rng: random.Random,
                     events: list[dict[str, Any]] | None = None) -> GameState:
        """A full state consistent with `observation` (`sampler_function`'s; see
        `capabilities`)."""
        return _capability_code(cls, "sample_state", cls.sampler_function)(observation, rng, events)

    @classmethod
    def chance_outcomes(cls, players: int, options: Mapping[str, Any]) -> int:
        """A bound on the outcomes of one chance draw: the cards of `deck_option`, and one."""
        if cls.deck_option is None:
            raise NotImplementedError(f"{cls.__name__} has no chance_outcomes: set deck_option "
                                      f"or define the classmethod")
        return len(options[cls.deck_option]) + 1

    # What the harness asks of a game, declared by the game (defaults: a game that declares
    # nothing); tables keyed by ruleset id elsewhere read these instead.

    search_hints: ClassVar[Mapping[str, Any]] = {}
    """How a search bot (ismcts) should search this game, as data naming no bot:
    ``playout_depth`` and ``random_playout_depth`` (decisions before the cut-off),
    ``playout_stop`` (an event type that also ends a playout), ``prior_weight`` (root bonus
    of the playout policy's choice), ``opponents`` ("tree": other seats' moves searched;
    "policy": played by the playout policy on each sampled deal). The cut-off value is the
    game's ``evaluate`` capability; the playout policy is bot knowledge, registered by the
    plugin that provides it (the ``register_playouts`` hook, `arena.hookspecs`)."""

    option_presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Named sets of options this game offers for a purpose (the rest of the options at their
    defaults): ``"learning"``, under which random play ends well before the turn limit
    (`arena.envs.presets`; ``"learning-<n>p"`` replaces it at n players), and ``"small"``, a 2-player variant small enough for OpenSpiel's
    exact methods (`arena.envs.small`). Readers hand out deep copies."""

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
        missing = sorted(name for name in cls.capabilities if not _defines(cls, name))
        if missing:
            raise TypeError(f"{cls.__name__} declares {missing} but does not define them")
        if "pairwise_value" in cls.capabilities and cls.pairwise_value_identity is None:
            raise TypeError(f"{cls.__name__} declares pairwise_value but no pairwise_value_identity")

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
    def how_to_play(cls) -> str | None:
        """The rules page's player-facing "How to play" section (a few lines for a person at
        the table; the kit requires it), or None for a page without one."""
        from arena.rules.page import how_to_play

        return how_to_play(cls)

    @classmethod
    def describe_event(cls, event: Mapping[str, Any]) -> str:
        """One plain line for a god-view event (`arena match --log`, the god view of
        `arena replay` and the site's replays): the game's `renderer` writes it
        (`Renderer.log_line`), beside its sentences for a seat's view."""
        return cls.renderer.log_line(event)


_CAPABILITY_DATA = {"encoding": "encoding_function", "sample_state": "sampler_function",
                    "chance_outcomes": "deck_option"}
"""The capabilities the base serves from data, and the class attribute each reads."""


def _defines(cls: type[Ruleset], capability: str) -> bool:
    """Whether `cls` provides `capability`: its own (or a parent's) classmethod, or the
    data the base's classmethod reads."""
    owner = next((k for k in cls.__mro__ if capability in k.__dict__), None)
    if owner is Ruleset:
        return getattr(cls, _CAPABILITY_DATA[capability]) is not None
    return callable(getattr(cls, capability, None))


@functools.cache
def _load_function(path: str) -> Callable[..., Any]:
    """The function named by ``"module:function"``."""
    module, _, name = path.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def _capability_code(cls: type[Ruleset], capability: str, path: str | None) -> Callable[..., Any]:
    """The function at `path`, or a one-line NotImplementedError naming what to set."""
    if path is None:
        raise NotImplementedError(f"{cls.__name__} has no {capability}: set {_CAPABILITY_DATA[capability]} "
                                  f"or define the classmethod")
    return _load_function(path)


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
