"""Running a tournament: play the schedule through a backend into the store.

`run_tournament` opens (or creates) the results store, skips the games already
stored, sends the rest to a backend in small batches, stores each batch as it
comes back (one transaction), rates the stored games in schedule order while
play goes on (`RatingFollowers`: one process per independent rating chain,
reading the store), and publishes the standings when the schedule
is complete.

Backends (the seam where a Ray backend plugs in): anything with ``workers``,
``start(job)``, ``submit(batch) -> concurrent.futures.Future`` (whose result is
`play_batch`'s), and ``stop(abandon)``. `LocalPoolBackend` is a process pool;
`InProcessBackend` plays in this process (``--workers 1``). A backend only
needs `play_batch` and a `Job`, both picklable.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import multiprocessing
import multiprocessing.util
import os
import secrets
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence

import arena
from arena.errors import ArenaError, ConfigError
from arena.match import Entrant, FaultPolicy, play_game
from arena.site import write_site
from arena.seats import BotHost, InlineHost, Limits, ProcessHost, privilege_notice
from arena.ratings import Rater, assemble, scope_plan
from arena.rules.base import Ruleset
from arena.store import Store, StoredGame, StoreError, encode, faults_per_seat, record_result_hash, store_path
from arena.tournament import GameSpec, Schedule, Tournament


RUN_REPLAYS = 24
"""Replay files the web page gets when `arena run` publishes (`arena publish --replays N`
writes more; `arena serve` shows any game)."""


class GameFailedError(ArenaError):
    """A game could not be played to its end (a bot or engine error): the run stops."""


# -- what workers need -------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """Everything needed to play any game of a tournament: picklable, sent once per worker."""

    rulesets: tuple[tuple[type[Ruleset], dict[str, Any]], ...]
    entrants: tuple[Entrant, ...]
    isolation: str = "inline"
    commands: tuple[tuple[str, ...] | None, ...] = ()  # per entrant: its program, or None
    limits: Limits = Limits()
    policy: FaultPolicy = FaultPolicy()
    submissions: tuple[Any, ...] = ()  # per entrant: its arena.submissions.Submission, or None
    protected: tuple[str, ...] = ()  # paths no sandbox may show: the tournament file, the results folder


def make_job(tournament: Tournament, isolation: str | None = None, protected: tuple[str, ...] = ()) -> Job:
    """The job of `tournament`, its bots run under `isolation` (default: the file's),
    and no sandbox showing any of the `protected` paths."""
    limits = tournament.limits()
    policy = FaultPolicy(on_fault=tournament.on_fault, time_per_decision=tournament.time_per_decision,
                         time_bank=tournament.time_bank)
    return Job(tuple((r.cls, r.options) for r in tournament.rulesets),
               tuple(Entrant(b.cls, b.params, b.display, b.package, b.version) for b in tournament.bots),
               isolation or tournament.isolation, tuple(b.command for b in tournament.bots), limits, policy,
               tuple(getattr(b, "submission", None) for b in tournament.bots), protected)


def _limits_in_force(isolation: str, limits: Limits) -> dict[str, str]:
    """Each bound on bots and how it is enforced, as the provenance reports it."""
    if isolation == "sandbox":
        from arena.sandbox import enforcement

        return enforcement(limits)
    if isolation == "process":
        return {"isolation": "process", "memory": f"{limits.memory_mb} MiB per process (RLIMIT_AS)",
                "cpu": f"{limits.cpu_seconds} s per process (RLIMIT_CPU)", "processes": "not limited",
                "between_decisions": "not stopped"}
    return {"isolation": "inline", "time": "not enforced (an inline bot cannot be interrupted)"}


def effective_isolation(tournament: Tournament, echo: Callable[[str], None]) -> tuple[str, str | None]:
    """The isolation bots will run under, and why it differs from the file's, if it does.
    Where no sandbox can be made, installed plugins fall back to process isolation (the
    organiser installed and so trusts them); submissions never run outside a sandbox."""
    if tournament.isolation != "sandbox":
        return tournament.isolation, None
    from arena.sandbox import sandbox_unavailable

    reason = sandbox_unavailable()
    if reason is None:
        return "sandbox", None
    submitted = [b.display for b in tournament.bots if getattr(b, "submission", None)]
    if submitted:
        raise ConfigError(f"cannot run submissions {', '.join(submitted)}: they run only in a sandbox, and no "
                          f"sandbox can be made here ({reason})")
    note = f"no sandbox can be made here ({reason}); installed bots run with process isolation instead"
    echo(f"warning: {note}")
    return "process", note


class HostPool:
    """The bot hosts of one worker process: one per entrant, made on first use and
    reused across games (bot instances stay fresh per game)."""

    def __init__(self, job: Job):
        self.job = job
        self.hosts: dict[int, BotHost] = {}

    def host(self, entry: int) -> BotHost:
        if entry not in self.hosts:
            job = self.job
            entrant = job.entrants[entry]
            command = job.commands[entry] if job.commands else None
            submission = job.submissions[entry] if job.submissions else None
            if submission is not None:  # only ever in its sandbox, from its own virtualenv
                from arena.sandbox import SandboxHost
                from arena.submissions import ensure_built

                ensure_built(submission)
                self.hosts[entry] = SandboxHost.for_bot(entrant.cls.name, job.limits, python=submission.python,
                                                        read_only=submission.read_only())
            elif command is not None and self.isolation == "process":
                self.hosts[entry] = ProcessHost(command, job.limits, name=entrant.display_name)
            elif self.isolation == "sandbox":
                from arena.sandbox import SandboxHost

                self.hosts[entry] = (
                    SandboxHost.for_command(command, job.limits, name=entrant.display_name, protected=job.protected)
                    if command is not None else
                    SandboxHost.for_bot(entrant.cls.name, job.limits, protected=job.protected))
            elif self.isolation == "process":
                self.hosts[entry] = ProcessHost.for_bot(entrant.cls.name, job.limits)
            else:
                self.hosts[entry] = InlineHost(entrant.cls)
        return self.hosts[entry]

    @functools.cached_property
    def isolation(self) -> str:
        """How this worker hosts installed bots: the job's isolation, unless this node
        cannot make sandboxes (submissions never run outside one: they fail instead)."""
        isolation = self.job.isolation
        if isolation == "sandbox":
            from arena.sandbox import sandbox_unavailable

            if reason := sandbox_unavailable():  # this node cannot, although the driver's could (Ray)
                print(f"warning: no sandbox can be made on this node ({reason}); installed bots run with "
                      "process isolation here", file=sys.stderr)
                return "process"
        return isolation

    def close(self) -> None:
        for host in self.hosts.values():
            host.close()
        self.hosts.clear()


_current_pool: HostPool | None = None


def _close_current_pool() -> None:
    if _current_pool is not None:
        _current_pool.close()


def _host_pool(job: Job) -> HostPool:
    """This process's host pool for `job`; a new job closes the previous job's hosts.
    The last pool is closed when the process exits."""
    global _current_pool
    if _current_pool is None or _current_pool.job is not job:
        if _current_pool is None:
            # atexit in a main process; multiprocessing workers skip atexit and run these.
            atexit.register(_close_current_pool)
            multiprocessing.util.Finalize(None, _close_current_pool, exitpriority=10)
        else:
            _current_pool.close()
        _current_pool = HostPool(job)
    return _current_pool


@dataclass(frozen=True)
class BatchResult:
    games: list[StoredGame]
    failure: str | None = None  # the message of the game that failed, if one did
    seconds: float = 0.0  # time spent playing the batch


def play_batch(job: Job, batch: Sequence[GameSpec]) -> BatchResult:
    """Play `batch` (in order); stop at the first game that fails."""
    started = time.perf_counter()
    games = []
    for spec in batch:
        ruleset, options = job.rulesets[spec.ruleset]
        try:
            pool = _host_pool(job)
            result = play_game(ruleset, [job.entrants[e] for e in spec.seats], spec.deal_seed, options,
                               bot_seeds=spec.bot_seeds, hosts=[pool.host(e) for e in spec.seats],
                               policy=job.policy)
            record = result.record
            logs = {str(seat): text for seat, text in enumerate(result.logs) if text}
            if logs:
                record["logs"] = logs
        except Exception as exc:  # reported, with where it happened, by the main process
            where = (f"game {spec.index} ({ruleset.id}, table {spec.table}, deal {spec.deal}, rotation "
                     f"{spec.rotation}, deal seed {spec.deal_seed})")
            detail = str(exc) if isinstance(exc, ArenaError) else \
                f"{type(exc).__name__}: {exc} [{traceback.format_exc(limit=-1).strip().splitlines()[-3].strip()}]"
            return BatchResult(games, f"{where} failed: {detail}", time.perf_counter() - started)
        outcome = record["outcome"]
        seats = list(spec.seats)
        faults = faults_per_seat(record, len(seats))
        result = encode([seats, outcome["standing"], outcome["scores"], faults])
        games.append(StoredGame(spec.index, spec.ruleset, spec.table, spec.deal, spec.rotation, result,
                                record["transcript_hash"], encode(record),
                                record_result_hash(spec.index, seats, record, faults)))
    return BatchResult(games, None, time.perf_counter() - started)


# -- backends ----------------------------------------------------------------------


class Backend(Protocol):
    workers: int

    def start(self, job: Job) -> None: ...

    def submit(self, batch: list[GameSpec]) -> Future: ...

    def stop(self, abandon: bool = False) -> None: ...


class InProcessBackend:
    """Plays each batch in this process, at submit time."""

    workers = 1

    def start(self, job: Job) -> None:
        self.job = job

    def submit(self, batch: list[GameSpec]) -> Future:
        future: Future = Future()
        future.set_result(play_batch(self.job, batch))
        return future

    def stop(self, abandon: bool = False) -> None:
        pass


_worker_job: Job | None = None


def _init_worker(job: Job, parent: int) -> None:
    global _worker_job, _current_pool
    _worker_job = job
    _current_pool = None  # a forked worker must not own (and close) its parent's bot hosts
    # Ctrl-C is the main process's to handle: it lets in-flight batches finish.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(parent)


def _worker_play(batch: list[GameSpec]) -> BatchResult:
    assert _worker_job is not None
    return play_batch(_worker_job, batch)


class LocalPoolBackend:
    """A local process pool (the default: no server needed)."""

    def __init__(self, workers: int):
        self.workers = workers

    def start(self, job: Job) -> None:
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method),
                                        initializer=_init_worker, initargs=(job, os.getpid()))

    def submit(self, batch: list[GameSpec]) -> Future:
        return self.pool.submit(_worker_play, batch)

    def stop(self, abandon: bool = False) -> None:
        if not hasattr(self, "pool"):
            return
        if abandon:
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=not abandon, cancel_futures=True)


def make_backend(workers: int) -> Backend:
    return InProcessBackend() if workers == 1 else LocalPoolBackend(workers)


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# -- rating while playing -----------------------------------------------------------


def _watch_parent(parent: int) -> None:
    def watch() -> None:  # a killed (kill -9) main process leaves no children behind
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


# Followers run at the workers' priority: at a lower one they would only rate once
# play is over (all cores busy), and the whole rating would come after the last game.
FOLLOWER_NICENESS = 0


def _follow(path: str, chain: Any, conn: Any, parent: int) -> None:
    """A rating process: follows the store in schedule order while games are
    played; on "finish", rates the rest and sends back its part of the standings."""
    if FOLLOWER_NICENESS:
        try:
            os.nice(FOLLOWER_NICENESS)
        except (AttributeError, OSError):
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(parent)
    with Store.open(path) as store:
        rater = Rater(store.plan(), [chain])
        while True:
            more = rater.drain(store, budget=0.25, stop_at_gap=True)
            if conn.poll(0 if more else 0.05):
                conn.recv()
                rater.drain(store, stop_at_gap=False)
                conn.send(rater.parts())
                return


class RatingFollowers:
    """One process per independent rating chain (overall, each ruleset), rating
    the stored games while the workers play them: the rating is never what a
    tournament waits for, except for the last few games (see RunSummary.rating_tail)."""

    def __init__(self, path: Path, plan: dict[str, Any]):
        self.plan = plan
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        context = multiprocessing.get_context(method)
        self.processes = []
        for chain in scope_plan(plan):
            mine, theirs = context.Pipe()
            process = context.Process(target=_follow, args=(str(path), chain, theirs, os.getpid()), daemon=True,
                                      name=f"arena-rating-{chain}")
            process.start()
            theirs.close()
            self.processes.append((process, mine))

    def finish(self) -> dict[str, Any]:
        """Wait for the rating of every stored game; return the standings."""
        for _, conn in self.processes:
            conn.send("finish")
        parts: dict[str, Any] = {}
        for process, conn in self.processes:
            try:
                parts.update(conn.recv())
            except EOFError:
                raise ArenaError(f"rating process {process.name} died (exit code {process.exitcode})") from None
            process.join()
        return assemble(self.plan, parts)

    def stop(self) -> None:
        for process, conn in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
            conn.close()


# -- the store's plan --------------------------------------------------------------


def make_plan(tournament: Tournament, seed: int) -> dict[str, Any]:
    """What the store keeps about the tournament: enough to rate and publish without plugins."""
    counts = tournament.schedule(seed).counts
    total = sum(counts)
    memo: dict[Any, str | None] = {}
    return {
        "name": tournament.name,
        "format": tournament.format,
        "deals": tournament.deals,
        "max_games": tournament.max_games,
        "total_games": total,
        "max_faults": tournament.max_faults,
        "entries": [{"bot": b.display, "uses": b.uses, "package": b.package, "version": b.version,
                     "params": b.params, "files_sha256": _files_sha256(b, memo)} for b in tournament.bots],
        "rulesets": [{"label": r.label, "id": r.id, "version": r.version, "package": r.package,
                      "package_version": r.package_version, "players": r.players, "options": r.options,
                      "draw_probability": r.draw_probability, "entries": list(r.entries), "games": games}
                     for r, games in zip(tournament.rulesets, counts)],
    }


def _files_sha256(bot: Any, memo: dict[Any, str | None]) -> str | None:
    """An entry's `bot_files_sha256`, once per class (a command bot's version already hashes its files)."""
    if bot.command is not None:
        return bot.version
    if getattr(bot, "submission", None) is not None:  # its content hash names its files
        return "sha256:" + bot.submission.sha256
    if (bot.cls, bot.package) not in memo:
        memo[bot.cls, bot.package] = bot_files_sha256(bot.cls, bot.package)
    return memo[bot.cls, bot.package]


def bot_files_sha256(cls: type, package: str) -> str | None:
    """SHA-256 over the files a bot is made of, so that a bot changed without a new
    version is noticed: the files its distribution lists (``RECORD``, through
    importlib.metadata) and the source tree of the bot's top-level module (all an
    editable or RECORD-less install has), bytecode caches left out; one line
    ``<path>\0<sha256>`` per file (path relative to the install folder, ``/``-separated),
    in sorted order. None if no file can be found."""
    import importlib.metadata

    files: dict[str, Path] = {}
    try:
        dist = importlib.metadata.distribution(package)
        for listed in dist.files or ():
            if listed.suffix != ".pyc" and "__pycache__" not in listed.parts:
                files[listed.as_posix()] = Path(str(dist.locate_file(listed)))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        pass
    top = sys.modules.get(cls.__module__.split(".")[0])
    if top is not None and top.__name__ == "arena":  # a stand-in class of the harness: its version says it
        top = None
    for folder in getattr(top, "__path__", None) or ():  # a package: every file under it
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and path.suffix != ".pyc" and "__pycache__" not in path.parts:
                files.setdefault(f"{top.__name__}/{path.relative_to(folder).as_posix()}", path)
    if top is not None and getattr(top, "__path__", None) is None and getattr(top, "__file__", None):
        files.setdefault(Path(top.__file__).name, Path(top.__file__))
    digest = hashlib.sha256()
    found = False
    for name in sorted(files):
        try:
            content = files[name].read_bytes()
        except OSError:
            continue  # listed but absent (e.g. a script pip did not install): not part of the bot
        found = True
        digest.update(f"{name}\0{hashlib.sha256(content).hexdigest()}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest() if found else None


def seed_commitment(seed: int, salt: str) -> str:
    """The published commitment to a secret seed: SHA-256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _changes(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Installed bot and ruleset versions, and bots' files, that differ from the store's.
    (A store from before files were hashed has no files hash to compare.)"""
    changes = []
    for old, new in zip(stored["entries"], current["entries"]):
        if (old["package"], old["version"]) != (new["package"], new["version"]):
            changes.append(f"bot {new['uses']!r} was {old['package']} {old['version']}, "
                           f"is now {new['package']} {new['version']}")
        elif old.get("files_sha256") and old.get("files_sha256") != new.get("files_sha256"):
            changes.append(f"bot {new['uses']!r} ({new['package']} {new['version']}) has changed files "
                           f"(files sha256 {old['files_sha256'][:12]} -> {str(new.get('files_sha256'))[:12]})")
    for old, new in zip(stored["rulesets"], current["rulesets"]):
        if (old["version"], old["package"], old["package_version"]) != \
                (new["version"], new["package"], new["package_version"]):
            changes.append(f"ruleset {new['id']!r} was version {old['version']} ({old['package']} "
                           f"{old['package_version']}), is now {new['version']} ({new['package']} "
                           f"{new['package_version']})")
    return changes


# -- running -------------------------------------------------------------------------


@dataclass
class RunSummary:
    out: Path
    total: int
    stored_before: int
    played: int = 0
    complete: bool = False
    interrupted: bool = False
    standings: dict[str, Any] | None = None
    provenance: dict[str, Any] | None = None
    written: list[Path] = field(default_factory=list)
    elapsed: float = 0.0  # the whole run
    play_seconds: float = 0.0  # from the first batch sent to the last game stored
    rating_tail: float = 0.0  # rating left to do once the last game was stored


def open_store(tournament: Tournament, out: Path, restart: bool, echo: Callable[[str], None]) -> tuple[Store, bool]:
    """Open the store in `out` for `tournament`, or create it. Refuses (ConfigError) a store
    made from another tournament file or other bot/ruleset versions unless `restart`."""
    path = store_path(out)
    if path.exists() and restart:
        Store.remove(path)
        echo(f"--restart: removed the previous results store {path}")
    if path.exists():
        store = Store.open(path)
        stored_hash = store.get("tournament_sha256")
        if stored_hash != tournament.sha256:
            n = store.count()
            store.close()
            raise ConfigError(f"{tournament.path} changed since {path} was created (sha256 {stored_hash[:12]} -> "
                              f"{tournament.sha256[:12]}); rerun with --restart to discard its {n} stored games, "
                              f"or use --out for a new results folder")
        seed = store.get("seed")
        current = make_plan(tournament, seed)
        try:
            changes = _changes(store.plan(), current)
        except StoreError:
            store.close()
            raise
        if changes:
            store.close()
            raise ConfigError(f"installed bots or rulesets changed since {path} was created: {'; '.join(changes)}; "
                              "rerun with --restart to start again, or use --out for a new results folder")
        return store, False
    if tournament.seed is None:
        seed, salt = secrets.randbits(63), secrets.token_hex(16)
        secret = {"seed": seed, "seed_secret": True, "seed_salt": salt, "seed_commitment": seed_commitment(seed, salt)}
    else:
        secret = {"seed": tournament.seed, "seed_secret": False, "seed_salt": None, "seed_commitment": None}
    plan = make_plan(tournament, secret["seed"])
    store = Store.create(path, {
        "plan": plan, "tournament_file": tournament.path, "tournament_text": tournament.text,
        "tournament_sha256": tournament.sha256, "arena_version": arena.__version__,
        "started_at": _now(), "finished_at": None, **secret,
    })
    return store, True


BATCH_SECONDS = 0.25  # aim: a task long enough to hide its overhead, short enough to balance the tail
MAX_BATCH = 64


class Batcher:
    """Cuts the pending games into batches of one ruleset each, sized from the time
    that ruleset's games have taken so far (about `BATCH_SECONDS` per batch), or
    of a fixed `size`."""

    def __init__(self, specs: Iterator[GameSpec], size: int | None = None):
        self.specs = specs
        self.size = size
        self.per_game: dict[int, float] = {}  # ruleset -> seconds per game (moving average)
        self.pending: GameSpec | None = None

    def learn(self, batch_ruleset: int, games: int, seconds: float) -> None:
        if games:
            measured = seconds / games
            old = self.per_game.get(batch_ruleset)
            self.per_game[batch_ruleset] = measured if old is None else 0.7 * old + 0.3 * measured

    def size_for(self, ruleset: int) -> int:
        if self.size is not None:
            return self.size
        per_game = self.per_game.get(ruleset)
        if per_game is None:
            return 2  # a first measurement
        return max(1, min(MAX_BATCH, int(BATCH_SECONDS / max(per_game, 1e-6))))

    def __iter__(self) -> Iterator[list[GameSpec]]:
        return self

    def __next__(self) -> list[GameSpec]:
        first = self.pending if self.pending is not None else next(self.specs)
        self.pending = None
        batch = [first]
        limit = self.size_for(first.ruleset)
        while len(batch) < limit:
            spec = next(self.specs, None)
            if spec is None:
                break
            if spec.ruleset != first.ruleset:
                self.pending = spec
                break
            batch.append(spec)
        return batch


def run_tournament(tournament: Tournament, out: Path, workers: int | None = None, restart: bool = False,
                   progress: bool | None = None, echo: Callable[[str], None] = print,
                   backend: Backend | None = None, batch_size: int | None = None,
                   replays: int | None = RUN_REPLAYS) -> RunSummary:
    """Play every game of `tournament` not yet in the store at `out`; publish when complete
    (standings and the web page, with `replays` replay files: see `arena.site.write_site`)."""
    from arena import publish
    from tqdm import tqdm

    out = Path(out)
    lock = _lock(out)
    try:
        return _run(tournament, out, workers, restart, progress, echo, backend, batch_size, replays)
    finally:
        lock.close()  # releases the lock; the file stays (see _lock)


LOCK_NAME = ".lock"


def _lock(out: Path) -> Any:
    """Hold an exclusive `flock` on ``out/.lock`` for the run (released when the returned
    file is closed, or the process dies): two runs on one results folder would play the
    same games. The lock file is never deleted: a run that deleted it while holding it
    would let the next two runs each lock a different file. It holds the holder's pid."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / LOCK_NAME, "a+")
    except OSError as exc:
        raise ConfigError(f"{out}: cannot make a results folder there ({exc.strerror or exc})") from None
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip()[:20]
        handle.close()
        by = f" (pid {holder})" if holder.isdigit() else ""
        raise ConfigError(f"{out} is in use by another `arena run`{by}; wait for it or stop it") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _run(tournament: Tournament, out: Path, workers: int | None, restart: bool, progress: bool | None,
         echo: Callable[[str], None], backend: Backend | None, batch_size: int | None,
         replays: int | None) -> RunSummary:
    from arena import publish
    from tqdm import tqdm

    store, created = open_store(tournament, out, restart, echo)
    started = time.perf_counter()
    try:
        seed = store.get("seed")
        schedule: Schedule = tournament.schedule(seed)
        total = schedule.total
        done = store.done_mask(total)
        stored_before = sum(bin(byte).count("1") for byte in done)
        remaining = total - stored_before
        workers = workers if workers is not None else tournament.workers
        workers = workers or cpu_count()
        workers = max(1, min(workers, remaining or 1))
        summary = RunSummary(out, total, stored_before)

        echo(f"{tournament.name}: {total:,} games ({tournament.format}, seed "
             f"{'secret' if store.get('seed_secret') else seed})")
        for line in schedule.describe():
            echo(f"  {line}")
        if store.get("seed_secret"):
            echo(f"secret seed commitment: sha256:{store.get('seed_commitment')} "
                 "(revealed in the provenance when the tournament is complete)")
        if created:
            summary.written = publish.publish(out, store, Rater(store.plan()).standings())
        if stored_before:
            echo(f"resuming: {stored_before:,} games already stored, {remaining:,} to play")
        if remaining:
            shown = backend.workers if backend is not None else workers
            echo(f"playing {remaining:,} games with {shown} worker{'s' if shown > 1 else ''}, "
                 f"results in {out}")
            isolation, fallback = effective_isolation(tournament, echo)
            if isolation == "process" and (notice := privilege_notice()):
                echo(f"note: {notice}")
            store.set("isolation", {"requested": tournament.isolation, "used": isolation, "fallback": fallback,
                                    "limits": _limits_in_force(isolation, tournament.limits())})

        run_number = store.max_run() + 1
        pending = (spec for spec in schedule if not done[spec.index >> 3] >> (spec.index & 7) & 1)
        batches = Batcher(pending, batch_size)
        backend = backend or make_backend(workers)
        in_flight: dict[Future, int] = {}  # batch -> its ruleset
        max_in_flight = 1 if backend.workers == 1 else backend.workers * 2
        exhausted = remaining == 0
        stopping = False
        failure: str | None = None
        followers = RatingFollowers(store.path, store.plan())  # before the pool: fork without threads
        if remaining:
            try:
                source = Path(tournament.path)
                protected = tuple(str(p.resolve()) for p in (source, out) if p.exists())
                backend.start(make_job(tournament, isolation, protected))
            except BaseException:
                followers.stop()
                raise
        play_started = time.perf_counter()
        bar = tqdm(total=total, initial=stored_before, unit="game", disable=(not remaining) or (
            None if progress is None else not progress), dynamic_ncols=True, smoothing=0.05, file=sys.stderr)
        try:
            while True:
                try:
                    while not (stopping or exhausted) and len(in_flight) < max_in_flight:
                        batch = next(batches, None)
                        if batch is None:
                            exhausted = True
                            break
                        in_flight[backend.submit(batch)] = batch[0].ruleset
                    if not in_flight:
                        break
                    finished, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                    for future in finished:
                        ruleset = in_flight.pop(future)
                        try:
                            result: BatchResult = future.result()
                        except BrokenProcessPool:  # a worker was killed (kill -9, the OOM killer)
                            if failure is None:
                                failure = ("a worker process died while playing (killed by a signal, or out of "
                                           "memory); the games it was playing are not stored")
                            stopping = True
                            continue
                        batches.learn(ruleset, len(result.games), result.seconds)
                        if result.games:
                            store.add(result.games, run_number)
                            summary.played += len(result.games)
                            bar.update(len(result.games))
                        if result.failure and failure is None:
                            failure = result.failure
                            stopping = True
                except KeyboardInterrupt:
                    if stopping and failure is None:
                        bar.close()
                        echo("stopping now: abandoning the games in flight")
                        backend.stop(abandon=True)
                        in_flight.clear()
                        break
                    stopping = True
                    for future in list(in_flight):
                        if future.cancel():  # not started yet
                            del in_flight[future]
                    bar.clear()
                    echo(f"stopping: finishing the {len(in_flight)} batches in flight "
                         "(Ctrl-C again to abandon them)")
        except BaseException:
            followers.stop()
            raise
        finally:
            summary.play_seconds = time.perf_counter() - play_started
            bar.close()
            backend.stop(abandon=bool(in_flight))
        stored = store.count()
        if failure is not None or stored != total:
            followers.stop()
        if failure is not None:
            raise GameFailedError(f"{failure}; {stored:,} of {total:,} games are stored "
                                  f"(rerun the same command to resume)")
        summary.complete = stored == total
        summary.interrupted = not summary.complete
        if summary.interrupted:
            summary.elapsed = time.perf_counter() - started
            echo(f"interrupted: {stored:,} of {total:,} games stored; run the same command to resume")
            return summary
        if store.get("finished_at") is None:
            store.set("finished_at", _now())
        tail_started = time.perf_counter()
        try:
            summary.standings = followers.finish()
        finally:
            followers.stop()
        summary.rating_tail = time.perf_counter() - tail_started
        summary.written = publish.publish(out, store, summary.standings)
        summary.written.append(write_site(out, store, replays=replays, standings=summary.standings) / "index.html")
        summary.provenance = publish.provenance(store)
        summary.elapsed = time.perf_counter() - started
        return summary
    finally:
        store.close()
