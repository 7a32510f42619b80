"""`arena validate`: the entry check an organiser runs on a bot submission.

Given the name of an installed bot, `validate_installed` checks it in this
environment. Given a path (a project folder, a wheel or an sdist),
`validate_path` treats it as a tournament treats a submission
(`arena.submissions`): it is copied, built by pip into a throwaway virtualenv
inside a sandbox, its plugins are listed by a probe inside a sandbox, and its
bots play inside sandboxes; none of its code ever runs in this process.

The checks, per bot:

- its declared rulesets are installed ("*" means every installed ruleset);
- N games per ruleset (2 to 4 players where the ruleset allows) against the
  ruleset's built-in bots, taken from the plugin registry, seated and seeded as
  a tournament seats and seeds them (display names, deal seeds, bot seeds and
  seat rotations from `arena.seeding` as in `arena.tournament.Schedule`), so a
  bot cannot tell a validation game from a real one. The bot runs with the
  tournament limits in its sandbox (`isolation="sandbox"`, the default; or its
  own process for an installed bot): any fault (crash, timeout, error, garbage,
  out of memory, illegal action) fails it, with the fault's detail and the end
  of the bot's stderr;
- determinism: the same games again, in a fresh sandbox, must give the same
  decisions (a bot takes its randomness from ``self.rng`` only). A bot class with
  ``time_dependent = True`` is reported, not failed;
- time per decision (p50/p99/max, measured around each request to the bot, so
  it includes the pipe and JSON) and peak memory (the high-water resident set of
  its processes, VmHWM): reported, with a warning when p99 exceeds the
  per-decision limit or the peak nears the memory limit.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.bot import Bot
from arena.build_space import Quota, tree_size
from arena.match import Entrant, FaultPolicy, play_game
from arena.plugins import BotEntry, Origin, Registry, load_registry
from arena.records import FaultKind, OnFault
from arena.seats import BotHost, InlineHost, Limits, ProcessHost, limit_problem
from arena.seeding import bot_seed, derive_seed

ARENA_DISTRIBUTION = "flip-arena"
PLAYER_COUNTS = (2, 3, 4)

Echo = Callable[[str], None]


def _quiet(_line: str) -> None:
    pass


@dataclass(frozen=True)
class Settings:
    """How hard validate looks: games per ruleset, seed, and the limits in force."""

    games: int = 10
    seed: int = 0
    time_per_decision: float = Limits.time_per_decision
    time_bank: float = Limits.time_bank
    memory_mb: int = Limits.memory_mb
    rulesets: tuple[str, ...] = ()
    """Only these of the bot's rulesets (default: all it declares)."""

    def limits(self) -> Limits:
        return Limits(time_per_decision=self.time_per_decision, time_bank=self.time_bank,
                      memory_mb=self.memory_mb)

    def policy(self) -> FaultPolicy:
        return FaultPolicy(on_fault=OnFault.RANDOM, time_per_decision=self.time_per_decision,
                           time_bank=self.time_bank)

    def argv(self) -> list[str]:
        return ["--games", str(self.games), "--seed", str(self.seed),
                "--time-per-decision", repr(self.time_per_decision), "--time-bank", repr(self.time_bank),
                "--memory-mb", str(self.memory_mb), *(f"--ruleset={r}" for r in self.rulesets)]


# -- measuring a bot process ---------------------------------------------------


class MeasuredHost(BotHost):
    """A host (a `ProcessHost`, or an `InlineHost` for a local file) whose every `act` is
    timed and whose process's memory high-water mark is sampled after each game and
    before it closes (not for an inline bot: it shares this process)."""

    def __init__(self, inner: BotHost):
        self.inner = inner
        self.hands_over_objects = inner.hands_over_objects
        self.times: list[float] = []
        self.peak_kb: int | None = None

    def start_game(self, seed, params, info):
        self.inner.start_game(seed, params, info)

    def act(self, observation, timeout):
        started = time.perf_counter()
        try:
            return self.inner.act(observation, timeout)
        finally:
            self.times.append(time.perf_counter() - started)

    def end_game(self, outcome):
        self.sample_memory()  # before the end: a sandboxed game's processes are gone after it
        self.inner.end_game(outcome)

    def take_log(self) -> str:
        return self.inner.take_log()

    def sample_memory(self) -> None:
        for pid in self.inner.processes():  # a sandbox's: every process of the bot
            kb = peak_rss_kb(pid)
            if kb is not None:
                self.peak_kb = max(self.peak_kb or 0, kb)

    def close(self) -> None:
        self.sample_memory()
        self.inner.close()


def peak_rss_kb(pid: int) -> int | None:
    """The high-water resident set of a live process, in KiB (Linux: VmHWM)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def percentiles_ms(times: Sequence[float]) -> dict[str, float | None]:
    """p50, p99 and max of `times` (seconds), in milliseconds (nearest-rank)."""
    if not times:
        return {"p50": None, "p99": None, "max": None}
    ordered = sorted(times)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, int(-(-q * len(ordered) // 1)) - 1))]

    return {"p50": round(rank(0.50) * 1000, 3), "p99": round(rank(0.99) * 1000, 3),
            "max": round(ordered[-1] * 1000, 3)}


# -- validating installed bots -------------------------------------------------


@dataclass
class Check:
    check: str
    ruleset: str | None
    status: str  # "pass", "fail", "warn" or "skip"
    detail: str


@dataclass
class RulesetRun:
    id: str
    games: int = 0
    decisions: int = 0
    faults: list[dict[str, Any]] = field(default_factory=list)
    illegal: int = 0
    time_ms: dict[str, float | None] = field(default_factory=dict)
    deterministic: bool | None = None
    difference: str | None = None
    log: str | None = None
    stopped_early: bool = False
    times: list[float] = field(default_factory=list, repr=False)


@dataclass(frozen=True)
class PlannedGame:
    """One validation game, seated and seeded as a tournament game would be."""

    deal_seed: int
    players: int
    seat: int  # the validated bot's
    bot_seeds: tuple[int, ...]
    opponents: tuple[str, ...]  # registered names, by seat (the validated bot's seat left out)


def opponent_pool(registry: Registry, ruleset_id: str, exclude: str = "") -> list[str]:
    """The built-in bots (registered by flip-arena itself) written for `ruleset_id`, and
    `random`; the generic search bots (rulesets "*", like ismcts) are left out: they
    would make validation slow and test the submission no better."""
    return [name for name, entry in registry.bots.items()
            if entry.origin.package == ARENA_DISTRIBUTION and name != exclude
            and (ruleset_id in entry.cls.rulesets if entry.cls.rulesets != "*" else name == "random")]


def game_plan(ruleset: Any, settings: Settings, registry: Registry | None = None, ruleset_index: int = 0,
              exclude: str = "") -> list[PlannedGame]:
    """The validation games of `ruleset`: game g is table g of a tournament's schedule
    (deal 0, seat rotation g mod players), its seeds derived as `Schedule` derives them,
    against built-in opponents taken in turn from `opponent_pool`."""
    registry = registry if registry is not None else load_registry()
    counts = [p for p in PLAYER_COUNTS if ruleset.min_players <= p <= ruleset.max_players] or [ruleset.min_players]
    pool = opponent_pool(registry, ruleset.id, exclude) or ["random"]
    plan = []
    for game in range(settings.games):
        players = counts[game % len(counts)]
        rotation = game % players
        deal_seed = derive_seed(settings.seed, "deal", ruleset_index, game, 0)
        seeds = tuple(bot_seed(deal_seed, seat, rotation) for seat in range(players))
        opponents = tuple(pool[(game + k) % len(pool)] for k in range(players - 1))
        plan.append(PlannedGame(deal_seed, players, rotation, seeds, opponents))
    return plan


def _play(entry: BotEntry, ruleset: Any, item: PlannedGame, host: "MeasuredHost", settings: Settings,
          registry: Registry) -> Any:
    entrants: list[Entrant] = []
    hosts: list[BotHost] = []
    shown: dict[str, int] = {entry.name: 1}
    opponents = iter(item.opponents)
    for seat in range(item.players):
        if seat == item.seat:
            entrants.append(Entrant(entry.cls, {}, entry.name, entry.origin.package, entry.origin.version))
            hosts.append(host)
            continue
        opponent = registry.bot(next(opponents))
        shown[opponent.name] = shown.get(opponent.name, 0) + 1  # as a tournament's `as` would tell them apart
        display = opponent.name if shown[opponent.name] == 1 else f"{opponent.name}-{shown[opponent.name]}"
        entrants.append(Entrant(opponent.cls, {}, display, opponent.origin.package, opponent.origin.version))
        hosts.append(InlineHost(opponent.cls))
    return play_game(ruleset, entrants, deal_seed=item.deal_seed, bot_seeds=item.bot_seeds, hosts=hosts,
                     policy=settings.policy())


def bot_host(entry: BotEntry, settings: Settings, isolation: str = "sandbox", env: dict[str, str] | None = None,
             submission: Any = None) -> BotHost:
    """The host a validated bot plays in: a sandbox (a submission's always), or its own process."""
    if submission is not None or isolation == "sandbox":
        from arena.sandbox import SandboxHost

        if submission is not None:
            return SandboxHost.for_bot(entry.name, settings.limits(), python=submission.python,
                                       read_only=submission.read_only())
        return SandboxHost.for_bot(entry.name, settings.limits(), env=env)
    return ProcessHost.for_bot(entry.name, settings.limits(), env=env)


def validate_bot(entry: BotEntry, registry: Registry, settings: Settings = Settings(),
                 env: dict[str, str] | None = None, echo: Echo = _quiet, isolation: str = "sandbox",
                 submission: Any = None, make_host: Callable[[], BotHost] | None = None) -> dict[str, Any]:
    """Check one bot (installed, or of a built `submission`, or run by the hosts
    `make_host` makes: a local file's or a protocol program's); its report (plain data,
    see `format_report`)."""
    cls = entry.cls
    time_dependent = getattr(cls, "time_dependent", False) is True
    checks, playable = _ruleset_checks(cls, registry, settings)
    if make_host is None:
        def make_host() -> BotHost:
            return bot_host(entry, settings, isolation, env, submission)
    host = MeasuredHost(make_host())
    second = MeasuredHost(make_host())
    fresh = ("instance" if isolation == "inline"
             else "process" if isolation == "process" and submission is None else "sandbox")
    games = _ValidationGames(entry, registry, settings, echo)
    try:
        runs = [games.first(ruleset_id, host) for ruleset_id in playable]
        # Determinism: the same games again, in a fresh process.
        for run in runs:
            if not run.faults:
                games.again(run, second, fresh)
    finally:
        host.close()
        second.close()

    all_times = host.times + second.times
    for run in runs:
        run.time_ms = percentiles_ms(run.times)
    for run in runs:
        checks.append(_play_check(run))
    checks.append(_determinism_check(runs, time_dependent))
    timing = percentiles_ms(all_times)
    checks.append(_timing_check(timing, len(all_times), settings))
    peaks = [kb for kb in (host.peak_kb, second.peak_kb) if kb is not None]
    peak_mb = round(max(peaks) / 1024, 1) if peaks else None
    checks.append(_memory_check(peak_mb, settings, inline=isinstance(host.inner, InlineHost)))
    passed = all(c.status != "fail" for c in checks)
    return {
        "name": entry.name, "package": entry.origin.package, "version": entry.origin.version,
        "time_dependent": time_dependent, "passed": passed,
        "checks": [asdict(c) for c in checks],
        "rulesets": [{k: v for k, v in asdict(r).items() if k != "times"} for r in runs],
        "time_ms": timing, "decisions": len(all_times), "peak_memory_mb": peak_mb,
    }


def _ruleset_checks(cls: type[Bot], registry: Registry, settings: Settings) -> tuple[list[Check], list[str]]:
    """The checks of the rulesets the bot declares, and the ones to play (installed, and asked for)."""
    checks: list[Check] = []
    declared = list(registry.rulesets) if cls.rulesets == "*" else list(cls.rulesets)
    unknown = [r for r in declared if r not in registry.rulesets]
    playable = [r for r in declared if r in registry.rulesets]
    if unknown:
        checks.append(Check("rulesets", None, "fail", f"declares {', '.join(unknown)}, not installed "
                            f"(installed: {', '.join(registry.rulesets) or 'none'})"))
    elif not playable:
        checks.append(Check("rulesets", None, "fail", "declares no ruleset"))
    else:
        star = ' ("*")' if cls.rulesets == "*" else ""
        checks.append(Check("rulesets", None, "pass", f"plays {', '.join(playable)}{star}"))
    if settings.rulesets:
        undeclared = [r for r in settings.rulesets if r not in playable]
        playable = [r for r in playable if r in settings.rulesets]
        if undeclared:
            checks.append(Check("rulesets", None, "warn", f"asked to check {', '.join(undeclared)}, "
                                                           "which it does not play: skipped"))
    return checks, playable


class _ValidationGames:
    """The games `validate_bot` plays: each ruleset's plan once, then again in a fresh host."""

    def __init__(self, entry: BotEntry, registry: Registry, settings: Settings, echo: Echo):
        self.entry, self.registry, self.settings, self.echo = entry, registry, settings, echo
        self.plans: dict[str, list[PlannedGame]] = {}
        self.first_records: dict[str, list[list[Any]]] = {}

    def first(self, ruleset_id: str, host: MeasuredHost) -> RulesetRun:
        """Play `ruleset_id`'s plan in `host`, up to the first game with a fault of the bot's."""
        entry, registry, settings = self.entry, self.registry, self.settings
        ruleset = registry.ruleset(ruleset_id).cls
        run = RulesetRun(ruleset_id)
        self.plans[ruleset_id] = plan = game_plan(ruleset, settings, registry, len(self.plans), entry.name)
        records = self.first_records[ruleset_id] = []
        self.echo(f"{entry.name}: playing {len(plan)} games of {ruleset_id} against "
                  f"{', '.join(opponent_pool(registry, ruleset_id, entry.name)) or 'random'}")
        before = len(host.times)
        for index, item in enumerate(plan):
            result = _play(entry, ruleset, item, host, settings, registry)
            run.games += 1
            records.append(result.record["decisions"])
            if _note_faults(run, result, index, item):
                run.stopped_early = index + 1 < len(plan)
                break
        run.decisions = len(host.times) - before
        run.times += host.times[before:]
        return run

    def again(self, run: RulesetRun, second: MeasuredHost, fresh: str) -> None:
        """Play `run`'s games again in `second` (a fresh `fresh`): the bot's decisions must be the same."""
        entry, registry, settings = self.entry, self.registry, self.settings
        ruleset = registry.ruleset(run.id).cls
        self.echo(f"{entry.name}: playing the {run.games} games of {run.id} again in a fresh {fresh}")
        run.deterministic = True
        before = len(second.times)
        for index, item in enumerate(self.plans[run.id][: run.games]):
            result = _play(entry, ruleset, item, second, settings, registry)
            if _note_faults(run, result, index, item, again=True):
                run.deterministic = None
                break
            difference = _first_difference(self.first_records[run.id][index], result.record["decisions"],
                                           item.seat)
            if difference is not None:
                run.deterministic = False
                run.difference = (f"game {index} (deal seed {item.deal_seed}, {item.players} players, seat "
                                  f"{item.seat}): {difference}")
                break
        run.times += second.times[before:]


def _note_faults(run: RulesetRun, result: Any, index: int, item: PlannedGame, again: bool = False) -> bool:
    """Record the bot's faults in this game; True if there were any."""
    deal_seed, players, seat = item.deal_seed, item.players, item.seat
    faults = [f for f in result.record["faults"] if f["seat"] == seat]
    for fault in faults:
        run.faults.append(dict(fault, game=index, deal_seed=deal_seed, players=players, rerun=again))
        run.illegal += fault["kind"] == FaultKind.ILLEGAL
    if faults and run.log is None:
        lines = [line for line in (result.logs[seat] or "").splitlines() if line.strip()]
        run.log = "\n".join(lines[-8:]) or None
    return bool(faults)


def _first_difference(first: list[list[Any]], second: list[list[Any]], seat: int) -> str | None:
    if first == second:
        return None
    for number, (a, b) in enumerate(zip(first, second)):
        if a != b:
            who = "your bot" if a[0] == seat else f"seat {a[0]}"
            return f"decision {number + 1} ({who}) was {a[1]!r} the first time and {b[1]!r} the second"
    return f"the game lasted {len(first)} decisions the first time and {len(second)} the second"


def _play_check(run: RulesetRun) -> Check:
    if not run.faults:
        return Check("play", run.id, "pass", f"{run.games} games, {run.decisions} decisions, no faults")
    kinds: dict[str, int] = {}
    for fault in run.faults:
        kinds[fault["kind"]] = kinds.get(fault["kind"], 0) + 1
    first = run.faults[0]
    where = (f"game {first['game']}{' (second run)' if first['rerun'] else ''}, deal seed {first['deal_seed']}, "
             f"{first['players']} player{'' if first['players'] == 1 else 's'}, seat {first['seat']}")
    summary = ", ".join(f"{n} {kind} fault{'' if n == 1 else 's'}" for kind, n in sorted(kinds.items()))
    stop = "; stopped at the first faulty game" if run.stopped_early else ""
    detail = f"{summary} ({where}): {first['detail']}{stop}"
    if run.log:
        detail += "\nend of its stderr:\n" + run.log
    return Check("play", run.id, "fail", detail)


def _determinism_check(runs: list[RulesetRun], time_dependent: bool) -> Check:
    differing = [r for r in runs if r.deterministic is False]
    checked = [r for r in runs if r.deterministic is not None]
    if differing:
        detail = "; ".join(f"{r.id}: {r.difference}" for r in differing)
        if time_dependent:
            return Check("determinism", None, "warn", f"declared time-dependent; the same seeds gave different "
                                                       f"decisions: {detail}")
        return Check("determinism", None, "fail", "the same seeds gave different decisions in a fresh process "
                     f"(take all randomness from self.rng; never depend on time, hash or set order): {detail}")
    if not checked:
        return Check("determinism", None, "skip", "not checked: no ruleset was played without faults")
    games = sum(r.games for r in checked)
    return Check("determinism", None, "pass",
                 f"{games} games played twice, the second time in a fresh process: identical decisions")


def _timing_check(timing: dict[str, float | None], decisions: int, settings: Settings) -> Check:
    p99 = timing["p99"]
    if timing["p50"] is None or p99 is None:  # (all three are set together)
        return Check("time per decision", None, "skip", "the bot was never asked to decide")
    text = (f"p50 {timing['p50']:.3g} ms, p99 {timing['p99']:.3g} ms, max {timing['max']:.3g} ms "
            f"over {decisions} decisions (limit {settings.time_per_decision:g} s per decision "
            f"+ {settings.time_bank:g} s bank per game)")
    if p99 > settings.time_per_decision * 1000:
        return Check("time per decision", None, "warn", text + "; p99 is over the per-decision limit")
    return Check("time per decision", None, "pass", text)


def _memory_check(peak_mb: float | None, settings: Settings, inline: bool = False) -> Check:
    if peak_mb is None:
        why = ("the bot runs in this process (a local file)" if inline
               else "the bot process never lived to the end of a game" if sys.platform.startswith("linux")
               else "needs Linux /proc")
        return Check("peak memory", None, "skip", f"not measured: {why}")
    text = f"{peak_mb:g} MB resident at most (limit {settings.memory_mb} MB of address space)"
    if peak_mb > 0.75 * settings.memory_mb:
        return Check("peak memory", None, "warn", text + "; close to the limit")
    return Check("peak memory", None, "pass", text)


def validate_installed(names: Sequence[str] | None = None, settings: Settings = Settings(),
                       registry: Registry | None = None, env: dict[str, str] | None = None,
                       echo: Echo = _quiet, exclude_package: str | None = None,
                       isolation: str = "sandbox") -> dict[str, Any]:
    """Validate installed bots by name; with no names, every bot not from
    `exclude_package` (what a submission installed next to arena)."""
    errors: list[str] = []
    if registry is None:
        try:
            registry = load_registry()
        except Exception as exc:  # e.g. the submission registers a name arena already has
            return _report(", ".join(names or ()) or "installed bots", [], [f"{type(exc).__name__}: {exc}"],
                           settings)
    for broken in registry.broken:
        if broken.package != exclude_package:
            errors.append(f"plugin {broken.plugin} is broken: {broken.error}")
    if names:
        entries = [registry.bot(name) for name in names]
    else:
        entries = [e for e in registry.bots.values() if e.origin.package != exclude_package]
        if not entries and not errors:
            errors.append("no bot is registered: the package must declare an entry point in the group "
                          "`arena` whose module registers a bot with @arena.hookimpl register_bots")
    bots = [validate_bot(entry, registry, settings, env, echo, isolation) for entry in entries]
    return _report(", ".join(names) if names else "installed bots", bots, errors, settings)


def validate_local(spec: str, settings: Settings = Settings(), registry: Registry | None = None,
                   echo: Echo = _quiet) -> dict[str, Any]:
    """Validate the bot in a local file, ``PATH.py:ClassName`` (`arena.api.bot_from_file`),
    run in this process: it is the caller's own code. The same games and checks as an
    installed bot's, but for memory (not measured inline) and limits (not enforced inline)."""
    from arena.api import bot_from_file

    cls = bot_from_file(spec)
    entry = BotEntry(cls, Origin(f"local:{spec}", "local", "-"))
    registry = registry if registry is not None else load_registry()
    report = validate_bot(entry, registry, settings, None, echo, "inline", make_host=lambda: InlineHost(cls))
    return _report(spec, [report], [], settings)


def validate_command(argv: Sequence[str], settings: Settings = Settings(), registry: Registry | None = None,
                     echo: Echo = _quiet, isolation: str = "sandbox", name: str = "command") -> dict[str, Any]:
    """Validate a program speaking the bot protocol (docs/protocol.md), run by `argv` in
    its own sandbox (or process) with the tournament limits. It declares no rulesets:
    it is checked on every installed ruleset, or on `settings.rulesets`."""
    from arena.bot import Bot

    stand_in = type("CommandBot", (Bot,), {"name": name, "rulesets": "*"})
    entry = BotEntry(stand_in, Origin(f"command:{' '.join(argv)}", "command", "-"))
    registry = registry if registry is not None else load_registry()

    def make_host() -> BotHost:
        if isolation == "sandbox":
            from arena.sandbox import SandboxHost

            return SandboxHost.for_command(list(argv), settings.limits(), name)
        return ProcessHost(list(argv), settings.limits(), name=name)

    report = validate_bot(entry, registry, settings, None, echo, isolation, make_host=make_host)
    return _report(" ".join(argv), [report], [], settings)


def _report(target: str, bots: list[dict[str, Any]], errors: list[str], settings: Settings,
            **extra: Any) -> dict[str, Any]:
    return {"target": target, "passed": not errors and bool(bots) and all(b["passed"] for b in bots),
            "errors": errors, "bots": bots, "settings": asdict(settings), **extra}


# -- validating a path: built, probed and played in sandboxes ---------------------


def arena_source() -> str:
    """Where the running arena was installed from: its source folder (an editable or
    local install), else its requirement ``flip-arena==VERSION``. (Submissions use the
    harness's own arena, read-only; this only says which one it is.)"""
    import arena

    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(ARENA_DISTRIBUTION)
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        url = direct.get("url", "")
        if url.startswith("file:") and "dir_info" in direct:
            candidates.append(Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path)))
    except (importlib.metadata.PackageNotFoundError, json.JSONDecodeError):
        pass
    candidates.append(Path(arena.__file__).resolve().parent.parent)
    for folder in candidates:
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and (folder / "arena" / "__init__.py").is_file() \
                and f'name = "{ARENA_DISTRIBUTION}"' in pyproject.read_text(encoding="utf-8"):
            return str(folder)
    return f"{ARENA_DISTRIBUTION}=={arena.__version__}"


def is_submission_path(target: str) -> bool:
    """True if `target` names a file or folder rather than a bot (see the CLI)."""
    return "/" in target or os.sep in target or target in (".", "..") or \
        target.endswith((".whl", ".tar.gz", ".zip"))


def validate_path(path: Path | str, settings: Settings = Settings(), echo: Echo = _quiet,
                  keep: bool = False, wheelhouse: Path | str | None = None, network: bool = False,
                  registry: Registry | None = None, quota: Quota = Quota()) -> dict[str, Any]:
    """Build the submission at `path` (folder, wheel or sdist) into a throwaway
    virtualenv in a sandbox, within `quota`, list its bots in a sandbox and validate each
    of them, playing in sandboxes, as a tournament would enter it (`arena.submissions`).
    The report's ``install`` says what the build left (``folder_bytes``, ``folder_files``)
    and how it was bounded."""
    from arena import submissions as sub

    path = Path(path).resolve()
    target = str(path)
    problem = sub.source_problem(path)
    if problem:
        return _report(target, [], [problem], settings)
    if wheelhouse is not None and not Path(wheelhouse).is_dir():
        return _report(target, [], [f"wheelhouse {wheelhouse} is not a folder"], settings)
    house = str(Path(wheelhouse).resolve()) if wheelhouse is not None else None
    workdir = Path(tempfile.mkdtemp(prefix="arena-validate-"))
    os.chmod(workdir, 0o755)
    install: dict[str, Any] = {"arena": arena_source(), "venv": str(workdir / "build" / "venv"),
                               "build_quota_mb": quota.mb, "build_quota_files": quota.files,
                               "build_quota": sub.quota_mechanism()}
    try:
        started = time.monotonic()
        try:
            sha256 = sub.build(path, workdir / "build", house, network, echo, quota)
            install["seconds"] = round(time.monotonic() - started, 1)
            size, files = tree_size(workdir / "build")
            install.update(folder_bytes=size, folder_files=files)
            report = sub.probe(workdir / "build" / "venv", None, {})
        except sub.SubmissionError as exc:
            install.setdefault("seconds", round(time.monotonic() - started, 1))
            return _report(target, [], [str(exc)], settings, install=install)
        install["sha256"] = sha256
        errors = [f"its plugins failed to load: {e}" for e in report["errors"]]
        if not report["bots"] and not errors:
            errors.append("no bot is registered: the package must declare an entry point in the group "
                          "`arena` whose module registers a bot with @arena.hookimpl register_bots")
        registry = registry if registry is not None else load_registry()
        bots = []
        for found in report["bots"]:
            submission = sub.Submission(target, sha256, str(workdir / "build"), tuple(report["bots"]), found.name,
                                        house, network, quota)
            entry = BotEntry(submission.stand_in(), Origin(f"{found.package}:submission", found.package,
                                                           submission.version))
            echo(f"validating {found.name} ({found.package} {found.version}) in sandboxes")
            bots.append(validate_bot(entry, registry, settings, None, echo, "sandbox", submission))
        return _report(target, bots, errors, settings, install=install)
    finally:
        if keep:
            echo(f"kept {workdir}")
        else:
            sub.remove_tree(workdir)


# -- the report ------------------------------------------------------------------


def format_report(report: dict[str, Any]) -> str:
    """The report as text: per bot, a pass/fail table of checks and a table per ruleset."""
    from tabulate import tabulate

    out: list[str] = []
    install = report.get("install") or {}
    if "folder_bytes" in install:
        out.append(f"built in {install['seconds']:g} s: its folder holds {_mib(install['folder_bytes'])} in "
                   f"{install['folder_files']:,} files (build quota {install['build_quota_mb']:,} MiB and "
                   f"{install['build_quota_files']:,} files: {install['build_quota']})")
        out.append("")
    for bot in report["bots"]:
        verdict = "PASS" if bot["passed"] else "FAIL"
        flag = ", declared time-dependent" if bot["time_dependent"] else ""
        out.append(f"{bot['name']} ({bot['package']} {bot['version']}{flag}): {verdict}")
        out.append(tabulate([[c["check"], c["ruleset"] or "-", c["status"].upper() if c["status"] == "fail"
                              else c["status"], c["detail"]] for c in bot["checks"]],
                            headers=["check", "ruleset", "result", "detail"], maxcolwidths=[None, None, None, 90]))
        if bot["rulesets"]:
            rows = []
            for run in bot["rulesets"]:
                t = run["time_ms"]
                rows.append([run["id"], run["games"], run["decisions"], len(run["faults"]), run["illegal"],
                             _ms(t.get("p50")), _ms(t.get("p99")), _ms(t.get("max")),
                             {True: "yes", False: "NO", None: "-"}[run["deterministic"]]])
            out.append("")
            out.append(tabulate(rows, headers=["ruleset", "games", "decisions", "faults", "illegal",
                                               "p50 ms", "p99 ms", "max ms", "deterministic"]))
        out.append("")
    for error in report["errors"]:
        out.append(f"FAIL: {error}")
    verdict = "PASS" if report["passed"] else "FAIL"
    count = len(report["bots"])
    out.append(f"validate {report['target']}: {verdict} ({count} bot{'s' if count != 1 else ''}, "
               f"{report['settings']['games']} games per ruleset)")
    return "\n".join(out)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MiB" if size >= 1 << 20 else f"{size / 1024:,.0f} KiB"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


# -- `python -m arena.validate`: the validator inside a throwaway virtualenv -----


def _limit(name: str, kind: type) -> Callable[[str], Any]:
    """An argparse type: a `kind` value within limit `name`'s bounds (`arena.seats.LIMIT_BOUNDS`)."""

    def parse(text: str) -> Any:
        value = kind(text)
        if problem := limit_problem(name, value):
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.validate",
                                     description="Validate installed bots (what `arena validate PATH` runs "
                                                 "inside its throwaway virtualenv).")
    parser.add_argument("names", nargs="*", help="bot names (default: every bot not from --exclude-package)")
    parser.add_argument("--games", type=int, default=Settings.games)
    parser.add_argument("--seed", type=int, default=Settings.seed)
    parser.add_argument("--time-per-decision", type=_limit("time_per_decision", float),
                        default=Settings.time_per_decision)
    parser.add_argument("--time-bank", type=_limit("time_bank", float), default=Settings.time_bank)
    parser.add_argument("--memory-mb", type=_limit("memory_mb", int), default=Settings.memory_mb)
    parser.add_argument("--ruleset", action="append", default=[], help="only this ruleset (repeatable)")
    parser.add_argument("--exclude-package", default=None)
    parser.add_argument("--json-out", type=Path, default=None, help="write the report here as JSON")
    args = parser.parse_args(argv)
    settings = Settings(args.games, args.seed, args.time_per_decision, args.time_bank, args.memory_mb,
                        tuple(args.ruleset))
    report = validate_installed(args.names or None, settings, exclude_package=args.exclude_package,
                                echo=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    else:
        print(format_report(report))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
