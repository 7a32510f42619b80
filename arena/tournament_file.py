"""The shape of a tournament file: its tables, keys, types and defaults as msgspec Structs.

`decode_file` turns the parsed TOML into a `TournamentFile`, refusing unknown keys and
values of the wrong type with a `KeyProblem` whose one-line message names the key by its
path (``rulesets[1].players: must be an integer, not 'three'``, 0-based like JSON paths).
What depends on other keys or on the installed plugins (names, bounds, which bots play
which rulesets) is checked after decoding, by `arena.tournament`. tournaments/README.md
documents every key; a key whose presence matters (``deals`` is not used with ``stop``)
defaults to ``UNSET``.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

import msgspec
from msgspec import UNSET, Meta, UnsetType

from arena.build_space import Quota
from arena.seats import Limits

Number = Union[int, float]
"""A number as written: an integer stays one (so a message quotes it as written)."""
NonEmptyStrings = Annotated[list[Annotated[str, Meta(min_length=1)]], Meta(min_length=1)]


class KeyProblem(Exception):
    """What is wrong with one key of a tournament file: its path and a one-line message."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class _Table(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    problems: ClassVar[dict[str, str]] = {}
    """The message for a key whose value is not of its type, where the generic one
    ("must be a list, not ...") would not say what the key wants."""
    missing: ClassVar[dict[str, str]] = {}
    """The message for a required key that is missing, where "missing" would not do."""


class StopSprt(_Table, frozen=True):
    """``stop = { test = "sprt", ... }``: stop a ruleset at the SPRT's decision between `bot`
    and `baseline` (display names); H1 is a mean paired score of 1/2 + `margin`."""

    test: Literal["sprt"]
    bot: str
    baseline: str
    margin: Number = 0.05
    alpha: Number = 0.05
    beta: Number = 0.05


class TournamentSection(_Table, frozen=True):
    """The ``[tournament]`` table. Limits default to `arena.seats.Limits`'."""

    problems: ClassVar[dict[str, str]] = {
        "challengers": 'must be a non-empty list of bot names (their "as")',
        "stop": 'must be "settled" or a table { test = "sprt", bot = ..., baseline = ... }',
    }

    name: str
    seed: int | None = None
    format: Literal["round-robin", "sampled", "gauntlet"] = "round-robin"
    scheduler: str | UnsetType = UNSET  # a plugin's scheduler (register_schedulers); not with stop
    deals: int | UnsetType = UNSET  # 1 without stop; not used with it
    max_games: int | UnsetType = UNSET  # only (and always) with format = "sampled"
    challengers: NonEmptyStrings | UnsetType = UNSET  # only (and always) with format = "gauntlet"
    stop: Literal["settled"] | StopSprt | UnsetType = UNSET
    confidence: Number | UnsetType = UNSET  # 0.95, with stop = "settled" only
    margin: Number | UnsetType = UNSET  # 0.05, with stop = "settled" only
    max_deals: int | UnsetType = UNSET  # 1000, with stop only
    look_every: int | UnsetType = UNSET  # 4, with stop only
    isolation: Literal["sandbox", "process", "inline"] = "sandbox"
    luck: Literal["adjusted", "raw"] | UnsetType = UNSET  # "adjusted" where a ruleset declares a pairwise value
    time_per_decision: Number = Limits.time_per_decision
    workers: int = 0
    time_bank: Number = Limits.time_bank
    memory_mb: int = Limits.memory_mb
    on_fault: str = "forfeit"  # checked against arena.records.TOURNAMENT_ON_FAULT
    max_faults: int = 0
    time_for_start: Number = Limits.time_for_start
    time_for_end: Number = Limits.time_for_end
    cpu_per_game: Number = Limits.cpu_per_game
    max_processes: int = Limits.max_processes
    tmp_mb: int = Limits.tmp_mb
    wheelhouse: str | None = None
    build_quota_mb: int = Quota.mb  # what a submission's build may write (arena.build_space)
    build_quota_files: int = Quota.files


class BotEntry(_Table, frozen=True):
    """One ``[[bots]]`` entry: a registered bot (`use`), a `command` speaking the bot
    protocol, or a `submission` built in a sandbox; `as` its display name."""

    problems: ClassVar[dict[str, str]] = {
        "command": "must be a non-empty list of strings",
        "rulesets": "must be a non-empty list of ruleset labels",
        "submission": "must be a path (a project folder, a wheel or an sdist)",
    }

    use: str | UnsetType = UNSET
    command: NonEmptyStrings | UnsetType = UNSET
    submission: Annotated[str, Meta(min_length=1)] | UnsetType = UNSET
    as_: str | UnsetType = msgspec.field(default=UNSET, name="as")
    params: dict[str, Any] = {}
    rulesets: NonEmptyStrings | UnsetType = UNSET  # labels of this tournament's rulesets it is limited to


class RulesetEntry(_Table, kw_only=True, frozen=True):
    """One ``[[rulesets]]`` entry: a registered ruleset (`use`) under a label (`as`)."""

    use: str
    as_: str | UnsetType = msgspec.field(default=UNSET, name="as")
    players: int
    options: dict[str, Any] = {}
    draw_probability: Number | UnsetType = UNSET  # the ruleset's own default for its table size


class TournamentFile(_Table, frozen=True):
    """A whole tournament file."""

    problems: ClassVar[dict[str, str]] = {
        "bots": "must be an array of tables ([[bots]] ...)",
        "rulesets": "must be an array of tables ([[rulesets]] ...)",
    }
    missing: ClassVar[dict[str, str]] = {
        "tournament": "missing (add a [tournament] table)",
        "bots": "missing: add at least one [[bots]] table",
        "rulesets": "missing: add at least one [[rulesets]] table",
    }

    tournament: TournamentSection
    bots: list[BotEntry]
    rulesets: list[RulesetEntry]


def decode_file(doc: dict[str, Any]) -> TournamentFile:
    """The parsed TOML `doc` as a `TournamentFile`; KeyProblem naming the first key that is
    unknown, missing or of the wrong type."""
    try:
        file = msgspec.convert(doc, TournamentFile)
    except msgspec.ValidationError as exc:
        raise _problem(str(exc), doc) from None
    tables = [("tournament", file.tournament), ("tournament.stop", file.tournament.stop),
              *((f"rulesets[{i}]", entry) for i, entry in enumerate(file.rulesets))]
    for where, table in tables:
        for f in msgspec.structs.fields(table) if isinstance(table, _Table) else ():
            value = getattr(table, f.name)
            if isinstance(value, float) and math.isnan(value):
                raise KeyProblem(f"{where}.{f.encode_name}", "must be a number, not nan")
    return file


_TYPE_NAMES = {"int": "an integer", "str": "a string", "object": "a table", "array": "a list", "float": "a number",
               "int | float": "a number", "int | null": "an integer", "str | null": "a string",
               "bool": "true or false", "str | object": "a string or a table"}


def _problem(message: str, doc: dict[str, Any]) -> KeyProblem:
    """msgspec's validation `message` ("Expected `int`, got `str` - at `$.tournament.seed`")
    as a KeyProblem in the file's words."""
    text, _, where = message.partition(" - at `$")
    parts = _parts(where.rstrip("`"))
    if text.startswith(("Object missing required field `", "Object contains unknown field `")):
        key = text.split("`")[1]
        table = _table_at(parts)
        if text.startswith("Object missing"):
            return KeyProblem(_path(parts + [key]), table.missing.get(key, "missing"))
        known = ", ".join(f.encode_name for f in msgspec.structs.fields(table))
        return KeyProblem(_path(parts + [key]), f"unknown key (known here: {known})")
    # A key with a message of its own answers for anything wrong in its value (a list's items too).
    for end in range(1, len(parts) + 1):
        last = parts[end - 1]
        if (isinstance(last, str) and all(isinstance(p, int) for p in parts[end:])
                and last in _table_at(parts[:end - 1]).problems):
            value = _at(doc, parts[:end])
            return KeyProblem(_path(parts[:end]),
                              f"{_table_at(parts[:end - 1]).problems[last]}, not {value!r}")
    value = _at(doc, parts)
    if text.startswith("Expected `"):
        kind = text.split("`")[1]
        return KeyProblem(_path(parts), f"must be {_TYPE_NAMES.get(kind, kind)}, not {value!r}")
    if text.startswith("Invalid enum value"):
        choices = get_args(_field_type(_table_at(parts[:-1]), str(parts[-1])))
        choices = get_args(choices[0]) if choices and get_origin(choices[0]) is Literal else choices
        if len(choices) == 1:
            return KeyProblem(_path(parts), f'must be "{choices[0]}", not {value!r}')
        return KeyProblem(_path(parts), f"must be one of {', '.join(map(repr, choices))}, not {value!r}")
    return KeyProblem(_path(parts), text)


def _parts(path: str) -> list[str | int]:
    """A msgspec path (".bots[2].as") as its keys and indices (["bots", 2, "as"])."""
    parts: list[str | int] = []
    for piece in path.replace("[", ".[").split("."):
        if piece:
            parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts


def _path(parts: list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _at(doc: Any, parts: list[str | int]) -> Any:
    value = doc
    for part in parts:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _field_type(table: type[_Table], key: str) -> Any:
    for f in msgspec.structs.fields(table):
        if f.encode_name == key:
            return f.type
    return None


def _table_at(parts: list[str | int]) -> type[_Table]:
    """The Struct of the table at `parts` (list indices skipped), for its keys and messages."""
    table: type[_Table] = TournamentFile
    for part in parts:
        if isinstance(part, int):
            continue
        kind = _field_type(table, part)
        struct = next((k for k in _flatten(kind) if isinstance(k, type) and issubclass(k, _Table)), None)
        if struct is None:
            break
        table = struct
    return table


def _flatten(kind: Any) -> list[Any]:
    """The types a field's type is made of (a union's members, a list's items)."""
    if get_origin(kind) is Annotated:
        return _flatten(get_args(kind)[0])
    if get_origin(kind) in (Union, list) or type(kind).__name__ == "UnionType":
        return [k for arg in get_args(kind) for k in _flatten(arg)]
    return [kind]
