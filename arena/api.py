"""The arena from Python: `arena.play(ruleset, bots, seed=..., options=...)` plays one game.

A bot is given as any of:

- a subclass of `arena.Bot` (registered or not: a class defined in a notebook is fine);
- the name of an installed bot, e.g. ``"random"`` (`arena.bots.get`);
- any callable ``observation -> action``: a function bot. If it takes an argument named
  ``rng`` it is called as ``fn(observation, rng=rng)`` with a `random.Random` seeded for
  that game and seat exactly as a bot's ``self.rng`` is.

Everything runs in this process (inline hosts, as `isolation = "inline"`), through the
same match loop as `arena match` and tournaments (`arena.match.play_game`), so a game
played here has the same record, transcript hash and replay as anywhere else.

>>> import arena
>>> def first_legal(observation):
...     return observation["legal_actions"][0]
>>> result = arena.play("flip-7", [first_legal, "random"], seed=7)
>>> result.names
['first-legal', 'random']
>>> result.standing, result.returns
([1, 2], [1.0, -1.0])
>>> result.record["transcript_hash"] == arena.play("flip-7", [first_legal, "random"], seed=7).record["transcript_hash"]
True
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

from arena.bot import BOT_NAME, Bot
from arena.errors import ConfigError
from arena.match import Entrant, FaultPolicy, play_game
from arena.returns import returns as returns_of
from arena.rules.base import GameState, Ruleset

BotSpec = Union[type[Bot], str, Callable[..., str]]
"""A bot class, an installed bot's name, or a function ``observation -> action``."""


@dataclass(frozen=True)
class PlayResult:
    """One finished game, as `arena.play` returns it.

    `standing` (1 = first, ties sharing), `scores` and `reason` are the outcome's;
    `returns` is each seat's return (`arena.returns`); `record` is the game record
    (`arena.match.RECORD_FORMAT`, what `arena match --save` writes and `arena replay`
    reads); `replay` is the game as text from the god view.
    """

    ruleset: type[Ruleset]
    seed: int
    names: list[str]
    record: dict[str, Any]
    state: GameState = field(repr=False)

    @property
    def standing(self) -> list[int]:
        return list(self.record["outcome"]["standing"])

    @property
    def scores(self) -> list[Any]:
        return list(self.record["outcome"]["scores"])

    @property
    def reason(self) -> str:
        return self.record["outcome"]["reason"]

    @property
    def returns(self) -> list[float]:
        return returns_of(self.standing)

    @property
    def standings(self) -> list[dict[str, Any]]:
        """One row per seat, best first: position, seat, name, score, return."""
        rows = [{"position": self.standing[s], "seat": s, "name": self.names[s], "score": self.scores[s],
                 "return": self.returns[s]} for s in range(len(self.names))]
        return sorted(rows, key=lambda row: (row["position"], row["seat"]))

    @cached_property
    def replay(self) -> str:
        """The whole game, event by event and action by action, as every card was (god view)."""
        from arena.terminal import replay_lines
        from arena.render import Style

        return "\n".join(replay_lines(self.record, self.ruleset, None, Style(False)))

    def replay_for(self, seat: int) -> str:
        """The game as `seat` saw it: a frame per decision of its, as `arena replay --seat`."""
        from arena.terminal import replay_lines
        from arena.render import Style

        return "\n".join(replay_lines(self.record, self.ruleset, seat, Style(False)))


def play(ruleset: str | type[Ruleset], bots: Sequence[BotSpec], seed: int = 0,
         options: Mapping[str, Any] | None = None, on_fault: str = "raise") -> PlayResult:
    """Play one game of `ruleset` (an id or a Ruleset class) with one bot per seat, in
    seat order, dealt from `seed`; `options` are the ruleset's (defaults for the rest).

    A bot that raises or answers an illegal action stops the game with its error
    (`on_fault="raise"`); "random" or "forfeit" apply the tournament fault policy.
    """
    cls = ruleset_class(ruleset)
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise ConfigError(f"bots must be a list with one bot per seat, not {type(bots).__name__}")
    entrants = entrants_for(bots, cls.id)
    result = play_game(cls, entrants, deal_seed=_seed(seed), options=options, policy=FaultPolicy(on_fault))
    return PlayResult(cls, seed, [e.display_name for e in entrants], result.record, result.state)


def ruleset_class(ruleset: str | type[Ruleset]) -> type[Ruleset]:
    """The Ruleset class for an id (`arena.rulesets.get`) or a Ruleset class itself."""
    if isinstance(ruleset, type) and issubclass(ruleset, Ruleset):
        return ruleset
    if isinstance(ruleset, str):
        import arena.rulesets

        return arena.rulesets.get(ruleset)
    raise ConfigError(f"a ruleset is an id like 'flip-7' or a Ruleset class, not {ruleset!r}")


def entrants_for(bots: Sequence[BotSpec], ruleset_id: str) -> list[Entrant]:
    """One `Entrant` per seat; a name seated twice is told apart as in a tournament
    ("random", "random-2")."""
    entrants: list[Entrant] = []
    seen: dict[str, int] = {}
    for seat, spec in enumerate(bots):
        cls, package, version = _bot_class(spec, seat)
        if not cls.plays(ruleset_id):
            raise ConfigError(f"bot {cls.name!r} (seat {seat}) does not play {ruleset_id}")
        seen[cls.name] = seen.get(cls.name, 0) + 1
        display = cls.name if seen[cls.name] == 1 else f"{cls.name}-{seen[cls.name]}"
        entrants.append(Entrant(cls, {}, display, package, version))
    return entrants


def _bot_class(spec: Any, seat: int) -> tuple[type[Bot], str, str]:
    if isinstance(spec, str):
        import arena.rulesets

        entry = arena.rulesets.registry().bot(spec)
        return entry.cls, entry.origin.package, entry.origin.version
    if isinstance(spec, type) and issubclass(spec, Bot):
        if not BOT_NAME.match(spec.name or ""):
            spec = type(spec.__name__, (spec,), {"name": bot_name(spec.__name__), "__module__": spec.__module__})
        return spec, "inline", "-"
    if isinstance(spec, Bot):
        raise ConfigError(f"seat {seat}: give the bot's class ({type(spec).__name__}), not an instance: "
                          "every game makes a fresh one")
    if callable(spec):
        return function_bot(spec), "inline", "-"
    raise ConfigError(f"seat {seat}: a bot is a Bot subclass, an installed bot's name or a function "
                      f"observation -> action, not {spec!r}")


def bot_name(text: str) -> str:
    """`text` made a valid bot name: "MyBot" -> "my-bot", "play_first" -> "play-first"."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
    name = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    return name or "function"


def function_bot(fn: Callable[..., str], name: str | None = None) -> type[Bot]:
    """A Bot class whose `act` calls `fn(observation)`, or `fn(observation, rng=self.rng)`
    when `fn` takes an argument named ``rng``. Its name is `name` or made from `fn`'s."""
    try:
        takes_rng = "rng" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        takes_rng = False
    label = name or bot_name(getattr(fn, "__name__", "") or type(fn).__name__)
    if takes_rng:
        def act(self: Bot, observation: dict[str, Any]) -> str:
            return fn(observation, rng=self.rng)
    else:
        def act(self: Bot, observation: dict[str, Any]) -> str:
            return fn(observation)
    return type(f"FunctionBot[{label}]", (Bot,), {"name": label, "rulesets": "*", "act": act,
                                                  "__doc__": f"The function {label!r} as a bot."})


def bot_from_file(spec: str) -> type[Bot]:
    """The Bot class named by ``PATH.py:Class`` (or a function ``PATH.py:function``,
    made a bot by `function_bot`), imported from that file. The file runs in this
    process: it is the caller's own code, as a class defined in a notebook."""
    path_text, colon, attribute = spec.rpartition(":")
    if not colon or not path_text.endswith(".py") or not attribute.isidentifier():
        raise ConfigError(f"{spec!r}: a local bot is written PATH.py:ClassName, e.g. ./bot.py:MyBot")
    path = Path(path_text)
    if not path.is_file():
        raise ConfigError(f"{spec!r}: no file {path}")
    module_name = f"arena_local_bot_{bot_name(path.stem).replace('-', '_')}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:  # (a .py path always has one)
        raise ConfigError(f"{spec!r}: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module  # dataclasses and pickling look classes up there
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        raise ConfigError(f"{spec!r}: importing {path} failed: {type(exc).__name__}: {exc}") from None
    found = getattr(module, attribute, None)
    if found is None:
        raise ConfigError(f"{spec!r}: {path} defines no {attribute!r}")
    cls, _, _ = _bot_class(found, 0)
    return cls


def command_name(argv: Sequence[str]) -> str:
    """A display name for a protocol program: the first argument naming a file (the
    script, as in ``python3 bot.py``), else the program; "node bot.js" -> "bot"."""
    named = next((part for part in argv[1:] if Path(part).is_file()), argv[0])
    return bot_name(Path(named).stem if named != argv[0] else Path(named).name)


def is_local_bot(text: str) -> bool:
    """True if `text` names a bot in a file (``PATH.py:Name``) rather than an installed bot."""
    return ".py:" in text


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63:
        raise ConfigError(f"seed must be an integer from 0 to 2**63 - 1, not {seed!r}")
    return seed
