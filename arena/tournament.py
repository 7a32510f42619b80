"""Tournament files: reading and checking them, and expanding them into a schedule of games.

A tournament file is TOML (documented key by key in ``tournaments/README.md``)::

    [tournament]
    name = "quickstart"
    seed = 20261129          # omit it for a secret seed
    format = "round-robin"   # or "sampled", with max_games
    deals = 4

    [[bots]]
    use = "random"
    as = "random-1"

    [[rulesets]]
    use = "flip-7"
    players = 2

`load_tournament` checks everything before anything runs: a problem is a
ConfigError whose one-line message names the key by its path
(``rulesets[1].players``, 0-based like JSON paths) and says what is wrong. The
file's shape (keys, types, defaults) is declared in `arena.tournament_file`; the
rules across keys and against the installed plugins are checked here.

`Schedule` is the list of games as a pure function of the file and the seed,
produced lazily: for each ruleset (file order), each table (a combination of
distinct entries, in `itertools.combinations` order, or chosen by the sampler),
each deal, each seat rotation. Rotation ``r`` seats entry ``table[(seat + r) % k]``
in ``seat``, so over the k rotations every entry holds every seat's cards of the
deal (duplicate format). Every seed comes from `arena.seeding.derive_seed`.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import random
import re
import shutil
import tomllib
import unicodedata
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from msgspec import UNSET

from arena.bot import Bot
from arena.errors import ArenaError, ConfigError
from arena.plugins import Registry
from arena.rules.base import Ruleset
from arena.records import TOURNAMENT_ON_FAULT, OnFault, on_fault_problem
from arena.build_space import QUOTA_BOUNDS, Quota, quota_problem
from arena.seats import LIMIT_BOUNDS, Limits, limit_problem
from arena.seeding import SEED_BITS, bot_seed, derive_seed, table_deal_seed
from arena.tournament_file import BotEntry, RulesetEntry, StopSprt, TournamentFile, TournamentSection, decode_file
from arena.tournament_file import KeyProblem as _KeyProblem

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
RESERVED_LABELS = ("overall",)

SEED_DERIVATION = 2
"""How deal seeds are derived (recorded in the store's plan): 1, from the game's position in
the file (ruleset and table numbers); 2, from its content (ruleset label, the table's entry
names, deal index), so that adding entries, rulesets or deals leaves every stored game's deal."""

MAX_GAMES = 1_000_000_000
"""The most games one tournament may schedule."""
MAX_NUMBER = 2 ** 53
"""The largest magnitude of a number in params and options (exact in JSON everywhere)."""
BOUNDS: dict[str, tuple[float, float]] = {
    **LIMIT_BOUNDS,
    **QUOTA_BOUNDS,
    "deals": (1, 1_000_000),
    "max_games": (1, MAX_GAMES),
    "workers": (0, 1024),
    "max_faults": (0, 1_000_000),
    "max_deals": (1, 1_000_000),
    "look_every": (1, 1_000_000),
}
"""The range, inclusive, of every numeric `[tournament]` key (tournaments/README.md lists
them); `seed` is 0 to 2**63 - 1."""


# -- the checked file -----------------------------------------------------------


@dataclass(frozen=True)
class BotSpec:
    """One `[[bots]]` entry, checked: a registered bot under a display name."""

    index: int
    display: str
    uses: str
    cls: type[Bot]
    params: dict[str, Any]
    package: str
    version: str
    only: tuple[str, ...] | None = None  # ruleset labels it is limited to, or None for all it plays
    command: tuple[str, ...] | None = None  # an executable speaking docs/protocol.md, instead of `uses`
    submission: Any = None  # an arena.submissions.Submission: built and probed in a sandbox, never imported
    file: str | None = None  # a bot in a file, absolute PATH.py:Class: played in a sandbox, never imported here


@dataclass(frozen=True)
class RulesetSpec:
    """One `[[rulesets]]` entry, checked: a registered ruleset, its table size and options."""

    index: int
    label: str
    id: str
    cls: type[Ruleset]
    version: str
    package: str
    package_version: str
    players: int
    options: dict[str, Any]  # resolved: every option with its value
    draw_probability: float
    entries: tuple[int, ...]  # indices of the bot entries that play it, in file order


@dataclass(frozen=True)
class Stop:
    """When a ruleset stops before `Tournament.deals` (its most deals): `kind` "settled"
    (every adjacent pair of its ranking separated or within 1/2 +- `margin`, at
    `confidence` over all pairs and looks) or "sprt" (entry `bot` against `baseline`: H0
    mean paired score 1/2, H1 1/2 + `margin`, error rates `alpha` and `beta`)."""

    kind: str
    confidence: float = 0.95
    margin: float = 0.05
    bot: int | None = None
    baseline: int | None = None
    alpha: float = 0.05
    beta: float = 0.05

    def describe(self, bots: tuple["BotSpec", ...]) -> str:
        if self.kind == "settled":
            return f"stop when settled (confidence {self.confidence}, margin {self.margin})"
        assert self.bot is not None and self.baseline is not None  # an sprt stop names both
        return (f"stop at the SPRT's decision: {bots[self.bot].display} against {bots[self.baseline].display}, "
                f"H1 = 0.5 + {self.margin}, alpha {self.alpha}, beta {self.beta}")


@dataclass(frozen=True)
class Tournament:
    """A checked tournament file. With a `stop`, `deals` is the most deals per table
    (`max_deals`) and the run looks every `look_every` deals."""

    path: str
    text: str
    sha256: str
    name: str
    seed: int | None
    format: str
    deals: int
    max_games: int | None
    isolation: str
    time_per_decision: float
    workers: int
    bots: tuple[BotSpec, ...]
    rulesets: tuple[RulesetSpec, ...]
    time_bank: float = Limits.time_bank
    memory_mb: int = Limits.memory_mb
    on_fault: OnFault = TOURNAMENT_ON_FAULT[0]
    max_faults: int = 0
    time_for_start: float = Limits.time_for_start
    time_for_end: float = Limits.time_for_end
    cpu_per_game: float = Limits.cpu_per_game
    max_processes: int = Limits.max_processes
    tmp_mb: int = Limits.tmp_mb
    challengers: tuple[int, ...] = ()  # gauntlet: the entries of which every table holds exactly one
    stop: Stop | None = None
    look_every: int = 4
    scheduler: str | None = None
    """A plugin's scheduler by name (the `register_schedulers` hook), which then chooses the
    games from the schedule's tables; None: the built-in one of the format or stop."""
    luck: str = "adjusted"
    """The file's `luck`: "adjusted" (the default) scores a ruleset that declares a pairwise
    value net of the luck of the draw (arena.luck, docs/luck.md); "raw" as played."""

    def luck_clones(self, ruleset: "RulesetSpec") -> int | None:
        """k for `ruleset`'s luck corrections, or None where its scores are raw."""
        from arena.luck import DEFAULT_CLONES, supports_luck

        return DEFAULT_CLONES if self.luck == "adjusted" and supports_luck(ruleset.cls) else None

    def luck_plan(self) -> dict[str, Any]:
        """What the plan records of `luck`: the mode and, per ruleset, the method of its
        corrections (`arena.luck.LuckMethod.record`) or None (raw)."""
        from arena.luck import method_for

        return {"mode": self.luck,
                "rulesets": [None if (k := self.luck_clones(r)) is None else method_for(r.cls, k).record()
                             for r in self.rulesets]}

    def schedule(self, seed: int, history: Any = ()) -> "Schedule":
        """The games of this tournament dealt from `seed` (the file's, or the secret one);
        `history`: the earlier seeds of an extended store (see `epoch_seed`)."""
        return Schedule(self, seed, tuple(history or ()))

    def limits(self) -> Limits:
        """The limits of every bot host of this tournament (the file's, defaults for the rest)."""
        return Limits(**{f.name: getattr(self, f.name) for f in fields(Limits) if hasattr(self, f.name)})


def load_tournament(path: str | Path, registry: Registry, submissions: Any = None) -> Tournament:
    """Read and check a tournament file; ConfigError (one line, naming the key) if it is bad.
    `submissions` (an `arena.submissions.Builder`) builds and probes `submission` entries
    in sandboxes; without it a file with one is refused."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    return parse_tournament(data, registry, str(path), submissions)


def parse_tournament(data: bytes | str, registry: Registry, source: str = "<tournament>",
                     submissions: Any = None) -> Tournament:
    """Check the text of a tournament file against the registry (see `load_tournament`)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        text = raw.decode("utf-8")
        doc = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    try:
        return _check(doc, registry, source, text, hashlib.sha256(raw).hexdigest(), submissions)
    except _KeyProblem as problem:
        raise ConfigError(f"{source}: {problem.path}: {problem.message}") from None


def _check(doc: dict[str, Any], registry: Registry, source: str, text: str, sha256: str,
           submissions: Any = None) -> Tournament:
    """The tournament of a parsed file: its shape decoded (`arena.tournament_file`), each
    section checked on its own, then the submissions built, then the rules across sections;
    each problem a one-line _KeyProblem. Nothing is built before every entry is parsed."""
    file = decode_file(doc)
    base = Path(source).parent
    head = _check_head(file.tournament, base)
    _check_scheduler(head.scheduler, registry)
    if not file.bots:
        raise _KeyProblem("bots", "empty: add at least one [[bots]] table")
    if not file.rulesets:
        raise _KeyProblem("rulesets", "empty: add at least one [[rulesets]] table")
    labels = _ruleset_labels(file.rulesets, registry)  # first: bot entries may name them in `rulesets`
    bots = _BotsSection(file, labels, registry, head.isolation, base)
    bots.check(submissions is not None)
    tables = [_ruleset_spec(i, table, label, registry) for i, (table, label) in enumerate(zip(file.rulesets, labels))]
    for i in bots.unbuilt():  # every section parsed: now the builds
        built = _submission(file.bots[i], f"bots[{i}]", base, head.name, head.wheelhouse, registry, submissions,
                            head.quota)
        bots.add_submission(i, built)
    entries = bots.entries()
    rulesets = [_ruleset_entries(ruleset, entries) for ruleset in tables]
    return _check_field(head, file.tournament, entries, rulesets, tuple(labels), (source, text, sha256))


# -- the [tournament] section ---------------------------------------------------------


@dataclass(frozen=True)
class _Head:
    """The `[tournament]` section, checked on its own."""

    name: str
    seed: int | None
    format: str
    deals: int
    look_every: int
    max_games: int | None
    isolation: str
    limits: dict[str, Any]
    on_fault: OnFault
    max_faults: int
    workers: int
    quota: Quota
    wheelhouse: Path | None
    luck: str
    scheduler: str | None


def _check_head(head: TournamentSection, base: Path) -> _Head:
    """The `[tournament]` section's keys, checked against their bounds and each other."""
    if not NAME.match(head.name):
        raise _KeyProblem("tournament.name", f"{head.name!r} is not a usable name (letters, digits, '.', '_', '-'; "
                          "it names the results folder)")
    if head.seed is not None and not 0 <= head.seed < 2 ** SEED_BITS:
        raise _KeyProblem("tournament.seed", f"must be from 0 to 2**{SEED_BITS} - 1, not {head.seed}")
    deals, look_every = _head_deals(head)
    _head_format(head)
    max_games = _bounded("max_games", head.max_games, None)
    limits = {key: _bounded(key, getattr(head, key), None) for key in LIMIT_BOUNDS}
    if problem := on_fault_problem(head.on_fault, TOURNAMENT_ON_FAULT):
        raise _KeyProblem("tournament.on_fault", problem)
    max_faults = _bounded("max_faults", head.max_faults, None)
    workers = _bounded("workers", head.workers, None)
    quota_mb = _bounded("build_quota_mb", head.build_quota_mb, None)
    quota_files = _bounded("build_quota_files", head.build_quota_files, None)
    if problem := quota_problem(quota_mb, quota_files):
        raise _KeyProblem("tournament.build_quota_files", problem)
    wheelhouse = None
    if head.wheelhouse is not None:
        wheelhouse = (base / head.wheelhouse).resolve()
        if not wheelhouse.is_dir():
            raise _KeyProblem("tournament.wheelhouse", f"{str(wheelhouse)!r} is not a folder")
    return _Head(head.name, head.seed, head.format, deals, look_every, max_games, head.isolation, limits,
                 OnFault(head.on_fault), max_faults, workers, Quota(quota_mb, quota_files), wheelhouse,
                 "adjusted" if head.luck is UNSET else head.luck, _head_scheduler(head))


def _head_deals(head: TournamentSection) -> tuple[int, int]:
    """(deals, look_every): `deals` without a stop; with one, `max_deals` and `look_every`."""
    if head.stop is UNSET:
        for key in ("confidence", "margin", "max_deals", "look_every"):
            if getattr(head, key) is not UNSET:
                raise _KeyProblem(f"tournament.{key}", "only used with stop")
        deals = _bounded("deals", head.deals, 1)
    else:
        if head.deals is not UNSET:
            raise _KeyProblem("tournament.deals", "not used with stop: give max_deals (the most deals a table "
                              "gets) and look_every (deals between looks)")
        deals = _bounded("max_deals", head.max_deals, 1000)
    return deals, _bounded("look_every", head.look_every, 4)


def _head_scheduler(head: TournamentSection) -> str | None:
    """`scheduler`, a plugin's: its name is checked against the registry with the bots."""
    if head.scheduler is UNSET:
        return None
    if head.stop is not UNSET:
        raise _KeyProblem("tournament.scheduler", "not used with stop (a plugin's scheduler chooses the games "
                          "itself): remove one")
    return head.scheduler


def _check_scheduler(name: str | None, registry: Registry) -> None:
    """A file's `scheduler` names one a plugin registered (built-in ones are chosen by
    `format` and `stop`)."""
    if name is not None and name not in registry.schedulers:
        known = ", ".join(registry.schedulers) or "none is installed"
        raise _KeyProblem("tournament.scheduler", f"no plugin registers a scheduler called {name!r} (plugins' "
                          f"schedulers: {known}; the built-in ones are chosen by format and stop)")


def _head_format(head: TournamentSection) -> None:
    """`challengers` exactly with a gauntlet, `max_games` exactly with the sampled format."""
    fmt = head.format
    if head.challengers is not UNSET and fmt != "gauntlet":
        raise _KeyProblem("tournament.challengers", 'only used with format = "gauntlet"')
    if fmt == "gauntlet" and head.challengers is UNSET:
        raise _KeyProblem("tournament.challengers", 'missing: format = "gauntlet" needs challengers (bot names)')
    if fmt == "sampled" and head.max_games is UNSET:
        raise _KeyProblem("tournament.max_games", 'missing: format = "sampled" needs max_games')
    if fmt != "sampled" and head.max_games is not UNSET:
        raise _KeyProblem("tournament.max_games", 'only used with format = "sampled"')


# -- the [[rulesets]] section ---------------------------------------------------------


def _ruleset_labels(tables: list[RulesetEntry], registry: Registry) -> dict[str, int]:
    """Every `[[rulesets]]` entry's label (its `as`, else its `use`), in file order, to its index:
    each a registered ruleset, each label usable and entered once."""
    labels: dict[str, int] = {}
    for i, table in enumerate(tables):
        where = f"rulesets[{i}]"
        if table.use not in registry.rulesets:
            raise _KeyProblem(f"{where}.use", _unknown("ruleset", table.use, registry.rulesets, registry))
        label = table.use if table.as_ is UNSET else table.as_
        if not NAME.match(label) or label in RESERVED_LABELS:
            raise _KeyProblem(f"{where}.as", f"{label!r} is not usable as a ruleset label")
        if label in labels:
            raise _KeyProblem(f"{where}.as" if table.as_ is not UNSET else f"{where}.use",
                              f"{label!r} is entered twice (also rulesets[{labels[label]}]); "
                              'give one of them another label with "as"')
        labels[label] = i
    return labels


def _ruleset_spec(i: int, table: RulesetEntry, label: str, registry: Registry) -> RulesetSpec:
    """One `[[rulesets]]` entry, checked on its own: its table size against the ruleset, its
    options, its draw probability; its `entries` are left to `_ruleset_entries`."""
    where = f"rulesets[{i}]"
    use, players = table.use, table.players
    reg = registry.rulesets[use]
    ruleset_cls = reg.cls
    if players < 2:
        raise _KeyProblem(f"{where}.players", f"a table of {players} is not a tournament table: "
                          "use at least 2 players")
    if not ruleset_cls.min_players <= players <= ruleset_cls.max_players:
        raise _KeyProblem(f"{where}.players", f"{use} takes {ruleset_cls.min_players} to "
                          f"{ruleset_cls.max_players} players, not {players}")
    options = _ruleset_options(table, where, ruleset_cls)
    draw = table.draw_probability
    if draw is UNSET:
        from arena.ratings import default_draw_probability
        draw = default_draw_probability(ruleset_cls, players)
    elif not 0 <= draw < 1:
        raise _KeyProblem(f"{where}.draw_probability", f"must be at least 0 and below 1, not {draw}")
    return RulesetSpec(i, label, use, ruleset_cls, str(ruleset_cls.version), reg.origin.package,
                       reg.origin.version, players, options, float(draw), ())


def _ruleset_entries(ruleset: RulesetSpec, entries: list[BotSpec]) -> RulesetSpec:
    """`ruleset` with the entries that play it (file order): at least a table's worth."""
    use, players = ruleset.id, ruleset.players
    playing = tuple(b.index for b in entries if b.cls.plays(use) and (b.only is None or ruleset.label in b.only))
    if len(playing) < players:
        names = ", ".join(entries[b].display for b in playing) or "none"
        raise _KeyProblem(f"rulesets[{ruleset.index}].players", f"a table of {players} needs {players} entries "
                          f"that play {use}; this file has {len(playing)} ({names})")
    return replace(ruleset, entries=playing)


def _ruleset_options(table: RulesetEntry, where: str, ruleset_cls: type[Ruleset]) -> dict[str, Any]:
    """The entry's options, each known to the ruleset and checked, resolved with the defaults."""
    for key, value in table.options.items():
        if key not in ruleset_cls.options:
            known = ", ".join(ruleset_cls.options) or "none"
            raise _KeyProblem(f"{where}.options.{key}", f"unknown option for {table.use} (known: {known})")
        try:
            ruleset_cls.options[key].check(key, value)
        except ArenaError as exc:
            raise _KeyProblem(f"{where}.options.{key}", str(exc)) from None
    try:
        options = ruleset_cls.resolve_options(table.options)
    except ArenaError as exc:
        raise _KeyProblem(f"{where}.options", str(exc)) from None
    _plain_json(options, f"{where}.options")
    return options


# -- the [[bots]] section ---------------------------------------------------------------


@dataclass(frozen=True)
class _Source:
    """Where a `[[bots]]` entry's bot comes from: a registered bot, a command, a bot in a
    file, or a built submission."""

    uses: str
    cls: type[Bot]
    package: str
    version: str
    command: tuple[str, ...] | None = None
    file: str | None = None
    submission: Any = None


class _BotsSection:
    """The `[[bots]]` entries, checked in file order without building anything: a submission
    entry gets the checks that need no build, and the rest once `add_submission` gives it
    its build (so a problem anywhere in the file is found before any build starts)."""

    def __init__(self, file: TournamentFile, labels: dict[str, int], registry: Registry, isolation: str,
                 base: Path):
        self.file, self.labels, self.registry, self.isolation, self.base = file, labels, registry, isolation, base
        self.specs: dict[int, BotSpec] = {}
        self.displays: dict[str, tuple[int, str]] = {}  # display_key -> (entry, display as written)
        self.pending: list[int] = []

    def check(self, can_build: bool) -> None:
        """Check every entry that needs no build; note the submissions (`can_build`: a builder is given)."""
        for i, table in enumerate(self.file.bots):
            where = f"bots[{i}]"
            command = _command({} if table.command is UNSET else {"command": table.command}, where, self.base)
            if table.submission is UNSET:
                self._add(i, _bot_source(table, where, command, self.base, self.isolation, self.registry))
                continue
            if command is not None:
                raise _KeyProblem(f"{where}.submission", 'give either "command" or "submission", not both')
            _submission_precheck(table, where, self.isolation, can_build)
            if table.as_ is not UNSET:  # else its name is the built bot's
                self._check_display(i, table.as_)
            self._check_only(i, None)
            self.pending.append(i)

    def unbuilt(self) -> list[int]:
        """The submission entries still to build, in file order."""
        return list(self.pending)

    def add_submission(self, i: int, submission: Any) -> None:
        """Entry `i` with its built `submission`, checked like any other entry."""
        self.pending.remove(i)
        self._add(i, _Source(submission.chosen, submission.stand_in(), submission.bot.package, submission.version,
                             submission=submission))

    def entries(self) -> list[BotSpec]:
        """Every entry, checked, in file order (once every submission is built)."""
        assert not self.pending, "build every submission before taking the entries"
        return [self.specs[i] for i in range(len(self.file.bots))]

    def _add(self, i: int, source: _Source) -> None:
        table, where = self.file.bots[i], f"bots[{i}]"
        display = (source.cls.name if source.file else source.uses) if table.as_ is UNSET else table.as_
        self._check_display(i, display)
        params = table.params
        _plain_json(params, f"{where}.params")
        if source.command is None and source.submission is None and source.file is None:  # others run sandboxed
            try:
                source.cls(**params)
            except Exception as exc:  # a constructor is the bot's own check of its params
                raise _KeyProblem(f"{where}.params", f"bot {source.uses!r} does not accept {params!r}: "
                                  f"{type(exc).__name__}: {exc}") from None
        only = self._check_only(i, source)
        self.specs[i] = BotSpec(i, display, source.uses, source.cls, params, source.package, source.version, only,
                                source.command, source.submission, source.file)

    def _check_display(self, i: int, display: str) -> None:
        """`display` usable as entry `i`'s display name, and like no other entry's (`display_key`);
        of two alike, the later entry is the one at fault."""
        if not display.strip() or len(display) > 100 or any(unicodedata.category(c)[0] == "C" for c in display):
            raise _KeyProblem(f"bots[{i}].as", f"{display!r} is not usable as a display name (1 to 100 characters, "
                              "no control or format characters)")
        key = display_key(display)
        if key in self.displays and self.displays[key][0] != i:
            j, shown = self.displays[key]
            (first, earlier), (second, later) = sorted([(i, display), (j, shown)])
            alike = "" if earlier == later else f" (as {earlier!r}, the same but for case or whitespace)"
            where = f"bots[{second}]"
            raise _KeyProblem(f"{where}.as" if self.file.bots[second].as_ is not UNSET else f"{where}.use",
                              f"display name {later!r} is used twice (also bots[{first}]{alike}); "
                              'give each entry its own "as"')
        self.displays[key] = (i, display)

    def _check_only(self, i: int, source: _Source | None) -> tuple[str, ...] | None:
        """The entry's `rulesets` (labels it is limited to): each of this file and, once its
        bot is known (`source`), one it plays; None where it has none."""
        table, where = self.file.bots[i], f"bots[{i}]"
        if table.rulesets is UNSET:
            return None
        for j, label in enumerate(table.rulesets):
            if label not in self.labels:
                raise _KeyProblem(f"{where}.rulesets[{j}]", f"{label!r} is not a ruleset of this tournament "
                                  f"(it has: {', '.join(self.labels) or 'none'})")
            ruleset_id = self.file.rulesets[self.labels[label]].use
            if source is not None and not source.cls.plays(ruleset_id):
                raise _KeyProblem(f"{where}.rulesets[{j}]", f"bot {source.uses!r} does not play {ruleset_id}")
        return tuple(dict.fromkeys(table.rulesets))


def _bot_source(table: BotEntry, where: str, command: tuple[str, ...] | None, base: Path, isolation: str,
                registry: Registry) -> _Source:
    """The bot of an entry that is not a submission: a bot in a file, a command or a registered bot."""
    if table.use is not UNSET and command is None and ".py:" in table.use:
        from arena.api import bot_name
        from arena.submissions import SubmittedBot, stand_in

        in_file = _local_file(table.use, where, base, isolation)
        cls = stand_in(SubmittedBot(bot_name(in_file.rpartition(":")[2]), "*", "file", ""))
        return _Source(table.use, cls, "file", _command_version((in_file.rpartition(":")[0],)), file=in_file)
    if command is not None:
        if table.use is not UNSET:
            raise _KeyProblem(f"{where}.command", 'give either "use" (a registered bot) or "command", not both')
        if table.as_ is UNSET:
            raise _KeyProblem(f"{where}.as", 'missing: a "command" entry needs a display name in "as"')
        if isolation == "inline":
            raise _KeyProblem(f"{where}.command", 'a "command" bot needs isolation = "sandbox" or "process"')
        return _Source("command", CommandBot, "command", _command_version(command), command=command)
    if table.use is UNSET:
        raise _KeyProblem(f"{where}.use", "missing")
    if table.use not in registry.bots:
        raise _KeyProblem(f"{where}.use", _unknown("bot", table.use, registry.bots, registry))
    reg = registry.bots[table.use]
    return _Source(table.use, reg.cls, reg.origin.package, reg.origin.version)


# -- across sections --------------------------------------------------------------------


def _check_field(head: _Head, section: TournamentSection, entries: list[BotSpec], rulesets: list[RulesetSpec],
                 labels: tuple[str, ...], origin: tuple[str, str, str]) -> Tournament:
    """The tournament of the checked sections (`origin`: its source, text and sha256), once
    the rules across them hold: challengers and stop name its bots, every format's tables
    exist, every entry plays, the schedule is not too long."""
    # (challengers are set exactly for a gauntlet: `_head_format`)
    challengers = _challengers(section.challengers, entries) if section.challengers is not UNSET else ()
    stop = None if section.stop is UNSET else _stop(section, entries)
    if stop is not None and stop.kind == "sprt" and head.format == "sampled":
        raise _KeyProblem("tournament.stop", 'the SPRT needs format = "round-robin" or "gauntlet" (tables holding '
                          'both its bots)')
    _check_tables(head.format, challengers, stop, entries, rulesets)
    for bot in entries:
        if not any(bot.index in r.entries for r in rulesets):
            raise _KeyProblem(f"bots[{bot.index}].use", f"{bot.uses!r} plays none of this tournament's rulesets "
                              f"({', '.join(labels)})")
    limits = head.limits
    tournament = Tournament(*origin, head.name, head.seed, head.format, head.deals, head.max_games, head.isolation,
                            float(limits["time_per_decision"]), head.workers, tuple(entries), tuple(rulesets),
                            float(limits["time_bank"]), limits["memory_mb"], head.on_fault, head.max_faults,
                            float(limits["time_for_start"]), float(limits["time_for_end"]),
                            float(limits["cpu_per_game"]), limits["max_processes"], limits["tmp_mb"],
                            challengers=challengers, stop=stop, look_every=head.look_every, luck=head.luck,
                            scheduler=head.scheduler)
    _check_size(tournament)
    return tournament


def _check_tables(fmt: str, challengers: tuple[int, ...], stop: Stop | None, entries: list[BotSpec],
                  rulesets: list[RulesetSpec]) -> None:
    """A gauntlet's or an SPRT's filter leaves every ruleset at least one table."""
    if not (fmt == "gauntlet" or (stop is not None and stop.kind == "sprt")):
        return
    keep = _table_filter(fmt, challengers, stop)
    for ruleset in rulesets:
        if not any(keep(t) for t in itertools.combinations(ruleset.entries, ruleset.players)):
            if fmt == "gauntlet" or stop is None or stop.bot is None or stop.baseline is None:
                need = "exactly one challenger"
            else:  # an sprt stop (it names both)
                need = f"both {entries[stop.bot].display} and {entries[stop.baseline].display}"
            raise _KeyProblem(f"rulesets[{ruleset.index}].players",
                              f"no table of {ruleset.players} of {ruleset.label}'s entries holds {need}")


def _check_size(tournament: Tournament) -> None:
    """A full schedule of at most MAX_GAMES games; with the sampled format, at least one table
    of every ruleset within its share of `max_games`."""
    deals = tournament.deals
    if tournament.format != "sampled":
        games = sum(_table_count(tournament, r) * deals * r.players for r in tournament.rulesets)
        if games > MAX_GAMES:
            raise _KeyProblem("tournament.deals", f"{deals:,} deals make {games:,} games, more than the "
                              f"{MAX_GAMES:,} a tournament may have (use fewer deals, or format = \"sampled\")")
        return
    for ruleset, tables in zip(tournament.rulesets, _sampled_tables(tournament)):
        if tables < 1:
            per_table = deals * ruleset.players
            raise _KeyProblem("tournament.max_games", f"{tournament.max_games} games are too few: {ruleset.label} "
                              f"gets {_budgets(tournament)[ruleset.index]}, and one table of it is "
                              f"{per_table} games ({deals} deals x {ruleset.players} rotations)")


def _challengers(chosen: list[str], entries: list[BotSpec]) -> tuple[int, ...]:
    """The gauntlet's challengers (entry indices, file order) from `challengers`: bot display names."""
    names = {b.display: b.index for b in entries}
    for j, name in enumerate(chosen):
        if name not in names:
            raise _KeyProblem(f"tournament.challengers[{j}]", f"{name!r} is not a bot of this tournament")
    if len(set(chosen)) == len(entries):
        raise _KeyProblem("tournament.challengers", "every bot is a challenger: a gauntlet needs a field to play")
    return tuple(sorted(names[n] for n in set(chosen)))


def _stop(head: TournamentSection, entries: list[BotSpec]) -> Stop:
    """The checked `stop` (with `confidence` and `margin` for "settled")."""
    value = head.stop
    if value == "settled":
        confidence = 0.95 if head.confidence is UNSET else head.confidence
        if not 0.5 <= confidence < 1:
            raise _KeyProblem("tournament.confidence", f"must be at least 0.5 and below 1, not {confidence!r}")
        margin = 0.05 if head.margin is UNSET else head.margin
        if not 0 <= margin < 0.5:
            raise _KeyProblem("tournament.margin", f"must be at least 0 and below 0.5, not {margin!r}")
        return Stop("settled", float(confidence), float(margin))
    assert isinstance(value, StopSprt)  # the file's schema allows "settled" or an sprt table; _stop is given a stop
    for key in ("confidence", "margin"):
        if getattr(head, key) is not UNSET:
            raise _KeyProblem(f"tournament.{key}", f'only used with stop = "settled" (the SPRT has its own '
                              'margin, alpha and beta in stop)')
    names = {b.display: b.index for b in entries}
    chosen = []
    for key in ("bot", "baseline"):
        name = getattr(value, key)
        if name not in names:
            raise _KeyProblem(f"tournament.stop.{key}", f"{name!r} is not a bot of this tournament")
        chosen.append(names[name])
    if chosen[0] == chosen[1]:
        raise _KeyProblem("tournament.stop.baseline", "must be another bot than stop.bot")
    for key in ("margin", "alpha", "beta"):
        if not 0 < getattr(value, key) < 0.5:
            raise _KeyProblem(f"tournament.stop.{key}", f"must be above 0 and below 0.5, not {getattr(value, key)!r}")
    return Stop("sprt", 0.95, float(value.margin), chosen[0], chosen[1], float(value.alpha), float(value.beta))


def _table_filter(fmt: str, challengers: tuple[int, ...], stop: Stop | None) -> Any:
    """Which tables (entry tuples) the schedule keeps: a gauntlet's hold exactly one
    challenger; an SPRT's hold both its bots."""
    if fmt == "gauntlet":
        chosen = frozenset(challengers)
        keep = lambda table: sum(1 for e in table if e in chosen) == 1  # noqa: E731
    else:
        keep = lambda table: True  # noqa: E731
    if stop is not None and stop.kind == "sprt":
        both = (stop.bot, stop.baseline)
        return lambda table: keep(table) and both[0] in table and both[1] in table
    return keep


def display_key(display: str) -> str:
    """What two display names must not share: a name without its whitespace, case-folded
    (NFKC first, so full-width and other compatibility forms count as the letters they show)."""
    return "".join(unicodedata.normalize("NFKC", display).casefold().split())


def _bounded(key: str, value: Any, default: Any) -> Any:
    """`[tournament]` key `key`'s `value` (`default` if UNSET), checked to be within BOUNDS[key]."""
    if value is UNSET:
        value = default
    if value is None:
        return None
    low, high = BOUNDS[key]
    if key in LIMIT_BOUNDS:
        problem = limit_problem(key, value)
    elif not low <= value <= high:
        problem = f"must be from {low:,} to {high:,}, not {value!r}"
    else:
        problem = None
    if problem:
        raise _KeyProblem(f"tournament.{key}", problem)
    return value


def _unknown(kind: str, name: str, known: dict[str, Any], registry: Registry) -> str:
    message = f"unknown {kind} {name!r} (known: {', '.join(known) or 'none'})"
    if registry.broken:
        message += f"; broken plugins: {', '.join(b.plugin for b in registry.broken)}"
    return message


class CommandBot(Bot):
    """Stands for a `command` entry in records: a program speaking the bot protocol."""

    name = "command"
    rulesets = "*"


def _command(table: dict[str, Any], where: str, base: Path) -> tuple[str, ...] | None:
    """A checked `command` (a non-empty list of strings), or None when there is none.

    The program must exist: a path ("./mybot") is taken from the tournament file's
    folder, a bare name is looked up on PATH. Arguments naming files in that folder
    (["python3", "bot.py"]) become absolute, since the bot runs in an empty directory.
    Paths are made absolute without following symbolic links: a virtualenv's
    ``bin/python`` is a link to the base interpreter, and only when started by the
    link's own path does it find its ``pyvenv.cfg`` and so the virtualenv's packages."""
    if "command" not in table:
        return None
    command = table["command"]
    if not isinstance(command, list) or not command or not all(isinstance(a, str) and a for a in command):
        raise _KeyProblem(f"{where}.command", f"must be a non-empty list of strings, not {command!r}")
    program = command[0]
    if "/" in program:
        path = os.path.abspath(base / program)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise _KeyProblem(f"{where}.command", f"{program!r} is not an executable file ({path})")
        program = path
    elif shutil.which(program) is None:
        raise _KeyProblem(f"{where}.command", f"{program!r} is not a program on PATH")
    arguments = [os.path.abspath(base / a) if not Path(a).is_absolute() and (base / a).is_file() else a
                 for a in command[1:]]
    return (program, *arguments)


def _submission_precheck(table: BotEntry, where: str, isolation: str, can_build: bool) -> None:
    """What a `submission` entry must be before it is built: sandboxed, in a run that builds
    (`can_build`), with plain JSON params."""
    key = f"{where}.submission"
    if isolation != "sandbox":
        raise _KeyProblem(key, 'a submission runs only in a sandbox: isolation must be "sandbox"')
    if not can_build:
        raise _KeyProblem(key, "submissions are built by `arena run` (in a sandbox), not here")
    _plain_json(table.params, f"{where}.params")


def _submission(table: BotEntry, where: str, base: Path, name: str, wheelhouse: Path | None, registry: Registry,
                submissions: Any, quota: Quota = Quota()) -> Any:
    """Build (in a sandbox) and probe the entry's `submission` (checked by
    `_submission_precheck`); its Submission. Every problem is a one-line _KeyProblem naming
    the entry's key."""
    path = table.submission
    assert path is not UNSET  # called for an entry with a submission
    use = None if table.use is UNSET else table.use
    from arena.submissions import SubmissionError

    try:
        submission = submissions.resolve(base / path, name, wheelhouse, use, table.params, quota)
    except SubmissionError as exc:
        failed = "use" if "registers no bot " in str(exc) and use is not None else "submission"
        raise _KeyProblem(f"{where}.{failed}", f"{path}: {exc}") from None
    declared = submission.bot.rulesets
    unknown = [r for r in declared if r not in registry.rulesets] if declared != "*" else []
    if unknown:
        raise _KeyProblem(f"{where}.submission", f"{path}: bot {submission.chosen!r} declares rulesets not "
                          f"installed here: {', '.join(unknown)} (installed: {', '.join(registry.rulesets)})")
    return submission


def _local_file(use: str, where: str, base: Path, isolation: str) -> str:
    """A ``use = "PATH.py:Class"`` entry's bot as an absolute ``PATH.py:Class`` (the path
    relative to the tournament file's folder); one-line problems name the key."""
    path_text, _, attribute = use.rpartition(":")
    if not path_text.endswith(".py") or not attribute.isidentifier():
        raise _KeyProblem(f"{where}.use", f"{use!r}: a bot in a file is written PATH.py:ClassName, e.g. ./policy.py:MyBot")
    path = (base / path_text).resolve()
    if not path.is_file():
        raise _KeyProblem(f"{where}.use", f"{use!r}: no file {path} (the path is relative to the tournament file)")
    if isolation == "inline":
        raise _KeyProblem(f"{where}.use", f"{use!r}: a bot in a file plays in a sandbox (or its own process), "
                          'not inline: isolation must be "sandbox" or "process"')
    return f"{path}:{attribute}"


def _command_version(command: tuple[str, ...]) -> str:
    """A command bot's "version": a hash of the files its command names (the program
    and any file arguments, e.g. a script), so a changed bot is noticed on resume like
    a changed package version."""
    digest = hashlib.sha256()
    for part in command:
        path = Path(part)
        if path.is_absolute() and path.is_file():
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(part.encode())
        else:
            digest.update(part.encode())
    return "sha256:" + digest.hexdigest()[:16]


def _plain_json(value: Any, path: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _plain_json(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _plain_json(item, f"{path}[{i}]")
    elif isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise _KeyProblem(path, f"{value!r} is not a JSON value")
    elif problem := number_problem(value):
        raise _KeyProblem(path, problem)
    elif not (value is None or isinstance(value, (str, int, float, bool))):
        raise _KeyProblem(path, f"{value!r} is not a JSON value (a {type(value).__name__})")


def number_problem(value: Any) -> str | None:
    """Why a number in params or options is out of range (beyond +-2**53), or None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
        return f"{value!r} is out of range (numbers here are at most 2**53 in size)"
    return None


def check_plain_values(values: dict[str, Any], where: str) -> None:
    """ConfigError naming `where` and the key if `values` (params or options from a command
    line) hold a number out of range or a value that is not JSON data."""
    try:
        for key, value in values.items():
            _plain_json(value, f"{where} {key}")
    except _KeyProblem as problem:
        raise ConfigError(f"{problem.path}: {problem.message}") from None


# -- the schedule -----------------------------------------------------------------


class GameSpec(NamedTuple):
    """One scheduled game: where it sits in the schedule and everything needed to play it."""

    index: int  # type: ignore[assignment]  # (shadows tuple.index) position in the schedule: ratings apply games in this order
    ruleset: int  # index into Tournament.rulesets
    table: int  # table number within the ruleset
    deal: int
    rotation: int
    seats: tuple[int, ...]  # bot entry index by seat
    deal_seed: int
    bot_seeds: tuple[int, ...]


@dataclass
class Schedule:
    """The games of a tournament, lazily, in schedule order. A pure function of the
    file and the seed: the same file and seed give the same games in the same order.

    Order: ruleset by ruleset (file order); within one, deal by deal, and for each deal
    every table (in `tables` order), every rotation. So the first d deals of a ruleset
    are a prefix of its games, which is where a stopping run looks. A deal's seed is
    keyed by content (`deal_seed`), not by position in the file."""

    tournament: Tournament
    seed: int
    history: tuple[dict[str, Any], ...] = ()  # earlier seeds of an extended store (`epoch_seed`)
    counts: list[int] = field(init=False)  # games per ruleset
    table_counts: list[int] = field(init=False)  # tables per ruleset

    def __post_init__(self) -> None:
        t = self.tournament
        if t.format == "sampled":
            self.table_counts = _sampled_tables(t)
        else:
            self.table_counts = [_table_count(t, r) for r in t.rulesets]
        self.counts = [tables * t.deals * r.players for r, tables in zip(t.rulesets, self.table_counts)]

    def __len__(self) -> int:
        return sum(self.counts)

    @property
    def total(self) -> int:
        return sum(self.counts)

    def offsets(self) -> list[int]:
        """The schedule index of each ruleset's first game (and the total, last)."""
        out = [0]
        for count in self.counts:
            out.append(out[-1] + count)
        return out

    def tables(self, ruleset: RulesetSpec) -> Iterator[tuple[int, ...]]:
        """The tables of `ruleset` (entry indices, ascending), lazily, in schedule order."""
        t = self.tournament
        if t.format == "sampled":
            return balanced_tables(ruleset.entries, ruleset.players, self.table_counts[ruleset.index],
                                   random.Random(derive_seed(self.seed, "sample", ruleset.label)))
        keep = _table_filter(t.format, t.challengers, t.stop)
        return (table for table in itertools.combinations(ruleset.entries, ruleset.players) if keep(table))

    def deal_seed(self, ruleset: RulesetSpec, table: tuple[int, ...], deal: int) -> int:
        """The seed of `deal` at `table` of `ruleset`: keyed by the ruleset's label, the
        table's entry names and the deal index (seed derivation 2), so a game keeps its
        cards when entries, rulesets or deals are added to the file."""
        names = [self.tournament.bots[e].display for e in table]
        return table_deal_seed(epoch_seed(self.history, self.seed, ruleset.label, names, deal), ruleset.label,
                               names, deal)

    def ruleset_games(self, ruleset: RulesetSpec, first_deal: int = 0,
                      end_deal: int | None = None) -> Iterator[GameSpec]:
        """The games of `ruleset` with deal in [first_deal, end_deal), in schedule order."""
        t = self.tournament
        k = ruleset.players
        tables_per_deal = self.table_counts[ruleset.index]
        base = self.offsets()[ruleset.index]
        end_deal = t.deals if end_deal is None else min(end_deal, t.deals)
        for deal in range(first_deal, end_deal):
            index = base + deal * tables_per_deal * k
            for table_number, table in enumerate(self.tables(ruleset)):
                deal_seed = self.deal_seed(ruleset, table, deal)
                for rotation in range(k):
                    seats = tuple(table[(seat + rotation) % k] for seat in range(k))
                    seeds = tuple(bot_seed(deal_seed, seat, rotation) for seat in range(k))
                    yield GameSpec(index, ruleset.index, table_number, deal, rotation, seats, deal_seed, seeds)
                    index += 1

    def __iter__(self) -> Iterator[GameSpec]:
        for ruleset in self.tournament.rulesets:
            yield from self.ruleset_games(ruleset)

    def position(self, ruleset: int, table: int, deal: int, rotation: int) -> int:
        """The schedule index of a game given by its coordinates."""
        k = self.tournament.rulesets[ruleset].players
        return self.offsets()[ruleset] + (deal * self.table_counts[ruleset] + table) * k + rotation

    def describe(self) -> list[str]:
        """One line per ruleset: how its games come about."""
        t = self.tournament
        lines = []
        for ruleset, count, tables in zip(t.rulesets, self.counts, self.table_counts):
            how = ("table" if tables == 1 else "tables") if t.format != "sampled" else \
                ("sampled table" if tables == 1 else "sampled tables")
            most = "at most " if t.stop is not None else ""
            lines.append(f"{ruleset.label}: {len(ruleset.entries)} entries, {ruleset.players} players, "
                         f"{tables:,} {how} x {most}{t.deals} deals x {ruleset.players} rotations = "
                         f"{most}{count:,} games")
        return lines


def epoch_seed(history: Any, seed: int, label: str, names: list[str] | tuple[str, ...], deal: int) -> int:
    """The tournament seed a game is dealt from. A secret-seed tournament extended after its
    seed was revealed deals its new games from a fresh secret seed (arena.extend); each
    earlier seed stays in `history` (the plan's ``seed_history``) with the games it covers:
    ``deals`` and, per ruleset label, the entry names then playing it. A game whose ruleset,
    table and deal an earlier seed covers is dealt from the first such seed; others from `seed`."""
    for epoch in history or ():
        covered = epoch["rulesets"].get(label)
        if covered is not None and deal < epoch["deals"] and all(name in covered for name in names):
            return epoch["seed"]
    return seed


def plan_tables(plan: dict[str, Any], ruleset: int, seed: int) -> Iterator[tuple[int, ...]]:
    """The tables of ruleset `ruleset` of a store's plan (seed derivation 2), as
    `Schedule.tables` makes them from the file: for checking a store without the file."""
    r = plan["rulesets"][ruleset]
    entries, players = tuple(r["entries"]), r["players"]
    if plan["format"] == "sampled":
        count = r["games"] // (plan["deals"] * players) if plan["deals"] and players else 0
        return balanced_tables(entries, players, count, random.Random(derive_seed(seed, "sample", r["label"])))
    stop = plan.get("stop")
    keep = _table_filter(plan["format"], tuple(plan.get("challengers") or ()), Stop(**stop) if stop else None)
    return (table for table in itertools.combinations(entries, players) if keep(table))


def _table_count(t: Tournament, ruleset: RulesetSpec) -> int:
    """How many tables `ruleset` has (round-robin or gauntlet, with an SPRT's filter)."""
    n, k = len(ruleset.entries), ruleset.players
    if t.stop is None or t.stop.kind != "sprt":
        if t.format == "round-robin":
            return math.comb(n, k)
        field_size = sum(1 for e in ruleset.entries if e not in t.challengers)
        return (n - field_size) * math.comb(field_size, k - 1)
    keep = _table_filter(t.format, t.challengers, t.stop)
    if t.format == "round-robin":
        both = t.stop.bot in ruleset.entries and t.stop.baseline in ruleset.entries
        return math.comb(n - 2, k - 2) if both else 0
    return sum(1 for table in itertools.combinations(ruleset.entries, k) if keep(table))


def _budgets(t: Tournament) -> list[int]:
    """Sampled format: max_games split evenly over the rulesets (file order gets the remainder)."""
    assert t.max_games is not None
    share, extra = divmod(t.max_games, len(t.rulesets))
    return [share + (1 if i < extra else 0) for i in range(len(t.rulesets))]


def _sampled_tables(t: Tournament) -> list[int]:
    """Sampled format: how many tables each ruleset gets (whole tables of deals x rotations)."""
    return [budget // (t.deals * r.players) for r, budget in zip(t.rulesets, _budgets(t))]


def balanced_tables(entries: tuple[int, ...], size: int, count: int, rng: random.Random) -> Iterator[tuple[int, ...]]:
    """`count` tables of `size` distinct entries, chosen so every pair meets about
    equally often: greedily, the next table starts with an entry that has played
    least, then adds the entry that has met the chosen ones least (then: played
    least). Ties are broken by `rng`, so the tables are a function of its seed."""
    n = len(entries)
    meets = [[0] * n for _ in range(n)]
    played = [0] * n
    order = list(range(n))
    for _ in range(count):
        rng.shuffle(order)
        first = min(order, key=played.__getitem__)
        table = [first]
        while len(table) < size:
            best = None
            best_key = None
            for e in order:
                if e in table:
                    continue
                key = (sum(meets[e][x] for x in table), played[e])
                if best_key is None or key < best_key:
                    best, best_key = e, key
            assert best is not None  # size <= n: an entry is always left
            table.append(best)
        for a in table:
            played[a] += 1
            for b in table:
                if a != b:
                    meets[a][b] += 1
        yield tuple(entries[i] for i in sorted(table))
