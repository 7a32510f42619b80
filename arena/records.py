"""The typed contracts of a game between the harness's parts: fault kinds, end reasons,
the fault policy's choices, and the schema of a game record and of its outcome.

A game record is plain JSON data in memory and on disk (its transcript hash and the
stored bytes are computed from that data, and an outcome carries its ruleset's own keys
beyond `Outcome`'s). The Structs here are its schema: the match builds a record as a
`GameRecord` (`GameRecord.plain`) and the runner a plan as a `Plan`, and they are checked
where they cross a boundary: `check_record` for a record read from a store or a file,
`check_outcome` for an engine's outcome entering the match, `plan_problem` for a stored plan. `RECORD_FORMAT` is the record's schema version
(its ``format`` key): a record without one is of format 1, a newer format is refused.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Mapping

import msgspec

RECORD_FORMAT = 1
"""The schema version of the game records this harness writes (a record's ``format``)."""
READABLE_FORMATS = (1,)


class FaultKind(StrEnum):
    """What a bot did wrong (a `arena.seats.BotFault`'s kind, a recorded fault's ``kind``)."""

    CRASH = "crash"
    """Its process died, exited or could not start."""
    TIMEOUT = "timeout"
    """No answer in time, or over its CPU time."""
    GARBAGE = "garbage"
    """An answer that is not the protocol."""
    ILLEGAL = "illegal"
    """An answer that is not one of the legal actions."""
    MEMORY = "memory"
    """Out of memory."""
    ERROR = "error"
    """The bot raised."""


class EndReason(StrEnum):
    """Why a game of a built-in ruleset ended (its outcome's ``reason``). The engines
    produce these as plain strings; another ruleset may end for a reason of its own."""

    WIN = "win"
    """A player won (a single round, or the last player standing)."""
    TARGET = "target"
    """A player reached the target score."""
    MAX_TURNS = "max_turns"
    """The turn limit: everyone tied."""
    MAX_ROUNDS = "max_rounds"
    """The round limit: everyone tied."""
    UNFINISHED = "unfinished"
    """Not over yet (an outcome asked of an unfinished Flip 7 game)."""


class OnFault(StrEnum):
    """What a match does when a bot faults (`arena.match.FaultPolicy`)."""

    RAISE = "raise"
    RANDOM = "random"
    FORFEIT = "forfeit"

    @property
    def help(self) -> str:
        return _ON_FAULT_HELP[self]


_ON_FAULT_HELP = {
    OnFault.RAISE: "stop the game with an error naming the bot (arena match, tests)",
    OnFault.RANDOM: "record the fault and play a random legal action in its place",
    OnFault.FORFEIT: "record the fault, play random legal actions for the seat for the rest of the game "
                     "and rank it last",
}

TOURNAMENT_ON_FAULT = (OnFault.FORFEIT, OnFault.RANDOM)
"""The policies a tournament may use (a tournament never stops for one bot); the first is the default."""


def on_fault_problem(value: Any, allowed: tuple[OnFault, ...] = tuple(OnFault)) -> str | None:
    """Why `value` is not one of the `allowed` policies (one line), or None."""
    if isinstance(value, str) and value in allowed:
        return None
    names = [f'"{policy.value}"' for policy in allowed]
    choices = " or ".join(names) if len(names) == 2 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"must be {choices}, not {value!r}"


class Fault(msgspec.Struct, frozen=True, omit_defaults=True):
    """One fault as a record keeps it: the seat, the decision (None: outside a decision,
    e.g. in `start`), what kind, the first 500 characters of what happened, and whether
    it silenced the seat (its host was gone: the seat was not asked again that game and
    played replacement actions; written only when true, and only by records made since
    it was added, so older records lack it)."""

    seat: int
    decision: int | None
    kind: FaultKind
    detail: str
    fatal: bool = False


class Outcome(msgspec.Struct):
    """The part of a finished game's outcome every ruleset gives: ``standing[seat]``
    (1 = first, ties share), ``scores[seat]`` and the ``reason`` it ended (an
    `EndReason` for the built-in rulesets). A ruleset may add keys of its own."""

    standing: list[int]
    scores: list[float]
    reason: str = ""  # (the oldest stored records lack it)


class RulesetRef(msgspec.Struct):
    """Which ruleset a record is of: id, version, and every option's value."""

    id: str
    version: str
    options: dict[str, Any]


class SeatRecord(msgspec.Struct):
    """Who sat in a seat: the bot's registered name, its display name, package,
    version and params (defaults: what records of tests may leave out)."""

    bot: str = "?"
    display: str = "?"
    package: str = "?"
    version: str = "?"
    params: dict[str, Any] = {}


class GameRecord(msgspec.Struct, kw_only=True):
    """The schema of a game record, its keys in the order `arena.match.play_game` writes them.

    ``decisions`` are ``[seat, action]`` pairs; ``faults`` are `Fault`s (the oldest
    records held per-seat counts instead, still read); ``logs`` (seat -> stderr text)
    is added by a tournament's worker when a bot wrote any (unset: not written). Defaults:
    what older records (and records made by hand in tests) may leave out."""

    format: int = RECORD_FORMAT
    ruleset: RulesetRef
    players: int
    deal_seed: int
    bot_seeds: list[int] = []
    seats: list[SeatRecord] = []
    decisions: list[tuple[int, str]]
    outcome: Outcome
    faults: list[Fault | int] = []
    forfeited: list[int] = []
    transcript_hash: str
    logs: dict[str, str] | msgspec.UnsetType = msgspec.UNSET

    def plain(self, outcome: Mapping[str, Any]) -> dict[str, Any]:
        """This record as the plain JSON data that is hashed, stored and replayed, with the
        engine's whole `outcome` (its `Outcome` and the ruleset's own keys, in its order)
        in place of the typed one."""
        record = msgspec.to_builtins(self)
        for key in ("ruleset", "seats"):  # options and params: any plain data, tuples as lists
            record[key] = _lists(record[key])
        record["decisions"] = [[seat, action] for seat, action in record["decisions"]]
        record["outcome"] = _lists(outcome)
        return record


def _lists(value: Any) -> Any:
    """A deep copy of plain data with its tuples as lists (what a record read back holds)."""
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


class _RecordShape(GameRecord, kw_only=True):
    """A GameRecord whose decisions `record_problem` checks by hand: converting each pair
    to a tuple would cost more than the rest of the record together."""

    decisions: list[Any]


MAX_PLAYERS = 1000
"""More seats than any record may have (a bound on what a record file can make the replay allocate)."""


def check_record(record: Any) -> GameRecord:
    """`record` (plain JSON data) as a `GameRecord`, checked against the schema and across
    its fields (seats below ``players``, one standing and score per player, a readable
    format); ValueError naming the first problem by its key path ("decisions[3]: ...")."""
    problem = record_problem(record)
    if problem:
        raise ValueError(problem)
    return msgspec.convert(record, GameRecord)


def record_problem(record: Any, decisions: bool = True) -> str | None:
    """What makes `record` not a game record ("decisions: missing", "players: must be an
    integer, not 'two'", ...), or None. `decisions=False` leaves its decisions to the
    caller (a store that built them from a checked table of pairs)."""
    if type(record) is not dict:
        return f"a record is a JSON object, not {type(record).__name__}"
    try:
        typed = msgspec.convert(record, _RecordShape)
    except msgspec.ValidationError as exc:
        return _schema_problem(str(exc), record)
    players = typed.players
    if typed.format not in READABLE_FORMATS:
        return (f"format: {typed.format} is a newer record format; this arena reads format "
                f"{', '.join(map(str, READABLE_FORMATS))}")
    if not 1 <= players <= MAX_PLAYERS:
        return f"players: must be from 1 to {MAX_PLAYERS}, not {players}"
    if decisions:
        for index, decision in enumerate(typed.decisions):
            if not (type(decision) is list and len(decision) == 2 and type(decision[0]) is int
                    and 0 <= decision[0] < players and type(decision[1]) is str):
                return _decision_problem(index, decision, players)
    outcome = typed.outcome
    for key, values in (("standing", outcome.standing), ("scores", outcome.scores)):
        if len(values) != players:
            return f"outcome.{key}: must have one entry per player ({players}), not {len(values)}"
    faults = typed.faults
    counts = all(type(f) is int for f in faults)
    if counts and faults and len(faults) != players or not counts and not all(
            type(f) is Fault and 0 <= f.seat < players for f in faults):
        return f"faults: must list faults with a seat below {players}"
    if not all(0 <= seat < players for seat in typed.forfeited):
        return f"forfeited: must list seats below {players}"
    return None


class PlanEntry(msgspec.Struct, kw_only=True):
    """A bot entry of a tournament as its store keeps it (`bot` is its display name)."""

    bot: str
    uses: str
    package: str
    version: str
    params: dict[str, Any] = {}
    files_sha256: str | None = None


class PlanRuleset(msgspec.Struct, kw_only=True):
    """A ruleset entry of a tournament as its store keeps it: `entries` are the indices
    of the bot entries that play it, `games` its games in the schedule."""

    label: str
    id: str
    version: str
    package: str = "?"
    package_version: str = "?"
    players: int
    options: dict[str, Any] = {}
    draw_probability: float
    entries: list[int]
    games: int | None = None


class PlanStop(msgspec.Struct, kw_only=True):
    """A tournament's `stop` as its store keeps it (`arena.tournament.Stop`)."""

    kind: str
    confidence: float
    margin: float
    bot: int | None
    baseline: int | None
    alpha: float
    beta: float


class Plan(msgspec.Struct, kw_only=True):
    """What a results store keeps about its tournament (``meta`` "plan", made by
    `arena.runner.make_plan`, its keys in this order): enough to rate, publish and verify
    without plugins. ``seed_derivation``: how deal seeds are derived (older stores: 1);
    ``look_every``: deals between a `stop`'s looks (None without one); ``intervals``: the
    family of intervals and stopping tests (`arena.pairwise.INTERVALS`; absent, older stores:
    the classic ones, so they rank as they did); ``luck``: the luck mode and each ruleset's
    correction method (`arena.tournament.Tournament.luck_plan`; absent: raw). A stored plan may
    hold more keys (an extended store's ``seed_history``)."""

    name: str
    format: str
    seed_derivation: int = 1
    challengers: list[int] = []
    stop: PlanStop | None = None
    look_every: int | None = None
    intervals: str | None = None
    luck: dict[str, Any] | None = None
    deals: int
    max_games: int | None = None
    total_games: int
    max_faults: int | None = None
    entries: list[PlanEntry]
    rulesets: list[PlanRuleset]


def plan_problem(plan: Any) -> str | None:
    """What makes `plan` unfit to rate and publish from ("rulesets[0].players: missing"), or None."""
    if type(plan) is not dict:
        return "no plan object" if plan is None else f"a {type(plan).__name__}, not an object"
    try:
        typed = msgspec.convert(plan, Plan)
    except msgspec.ValidationError as exc:
        return _schema_problem(str(exc), plan)
    if not typed.rulesets:
        return "rulesets: empty"
    for i, ruleset in enumerate(typed.rulesets):
        if not all(0 <= entry < len(typed.entries) for entry in ruleset.entries):
            return f"rulesets[{i}].entries: names an entry that is not in entries"
    return None


def check_outcome(outcome: Any, players: int) -> Outcome:
    """An engine's `outcome` as an `Outcome` (its own keys ignored), checked to have one
    standing and score per player; ValueError naming the problem otherwise."""
    try:
        typed = msgspec.convert(outcome, Outcome)
    except msgspec.ValidationError as exc:
        raise ValueError(_schema_problem(str(exc), outcome, "outcome")) from None
    if not len(typed.standing) == len(typed.scores) == players:
        raise ValueError(f"outcome: {len(typed.standing)} standings and {len(typed.scores)} scores for "
                         f"{players} players")
    return typed


_TYPE_NAMES = {"int": "an integer", "str": "a string", "object": "an object", "array": "a list",
               "float": "a number", "int | null": "an integer or null", "bool": "true or false"}


def _schema_problem(message: str, data: Any, root: str = "") -> str:
    """msgspec's validation `message` as "key.path: problem, not <value>"."""
    text, _, where = message.partition(" - at `$")
    path = where.rstrip("`")
    if text.startswith("Object missing required field `"):
        field = text.split("`")[1]
        path = f"{path}.{field}" if path else f".{field}"
        return f"{_key(root, path)}: missing"
    value = _at(data, path)
    decision = _decision_index(path)
    if decision is not None and isinstance(data, Mapping) and type(data.get("players")) is int:
        return _decision_problem(decision, value if path.count("[") == 1 else data["decisions"][decision],
                                 data["players"])
    if text.startswith("Expected `"):
        kind = text.split("`")[1]
        return f"{_key(root, path)}: must be {_TYPE_NAMES.get(kind, kind)}, not {_short(value)}"
    if text.startswith("Invalid enum value"):
        choices = ", ".join(kind.value for kind in FaultKind)
        return f"{_key(root, path)}: must be one of {choices}, not {_short(value)}"
    return f"{_key(root, path)}: {text}"


def _decision_problem(index: int, decision: Any, players: int) -> str:
    return f"decisions[{index}]: must be [seat, action] with a seat below {players}, not {_short(decision)}"


def _decision_index(path: str) -> int | None:
    if not path.startswith(".decisions["):
        return None
    return int(path[len(".decisions["):].split("]")[0])


def _key(root: str, path: str) -> str:
    key = (root + path).lstrip(".")
    return key or "record"


def _at(data: Any, path: str) -> Any:
    """The value at a msgspec path (".a[2].b") in `data`."""
    value = data
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."
