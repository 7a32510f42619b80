"""Running a tournament: play the schedule through a backend into the store.

`run_tournament` holds the results folder's lock, opens (or creates, or extends:
arena.extend) the results store, skips the games already stored, cuts the rest into
small batches (`Batcher` sizes them; arena.stopping's `Feed` releases them, up to a
`stop`'s next look) for a backend (arena.backends; arena.ray_backend), stores each
batch as it comes back (one transaction), takes the looks that are due
(arena.stopping.Looks), rates the stored games while play goes on
(arena.live_ratings; a stopping run rates at the end), and returns a `RunSummary`.
It neither publishes nor draws progress: it tells a `RunObserver` what happens, and
the caller's observer does that (arena.run_and_publish, as `arena run` does). What a
worker does with a batch is arena.worker.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec

import arena
from arena.backends import Backend, make_backend
from arena.errors import ConfigError
from arena.records import Plan, PlanEntry, PlanRuleset, PlanStop
from arena.results_folder import seed_commitment
from arena.live_ratings import RatingFollowers
from arena.pairwise import BETTING
from arena.ratings import rate_store
from arena.seats import Limits, privilege_notice
from arena.stopping import Feed, Looks
from arena.store import Store, StoreError, store_path
from arena.tournament import SEED_DERIVATION, GameSpec, Schedule, Tournament
from arena.luck import planned_clones
from arena.worker import BatchResult, GameFailedError, make_job

# Importable from here as before the backends and the worker side had modules of their own.
from arena.backends import InProcessBackend, LocalPoolBackend, cpu_count  # noqa: F401
from arena.store import faults_per_seat  # noqa: F401
from arena.worker import HostPool, Job, play_batch  # noqa: F401


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


# -- the store's plan --------------------------------------------------------------


def make_plan(tournament: Tournament, seed: int) -> dict[str, Any]:
    """What the store keeps about the tournament: enough to rate and publish without plugins."""
    counts = tournament.schedule(seed).counts
    total = sum(counts)
    memo: dict[Any, str | None] = {}
    stop = tournament.stop
    plan = Plan(
        name=tournament.name,
        format=tournament.format,
        seed_derivation=SEED_DERIVATION,
        challengers=list(tournament.challengers),
        stop=None if stop is None else PlanStop(kind=stop.kind, confidence=stop.confidence, margin=stop.margin,
                                                bot=stop.bot, baseline=stop.baseline, alpha=stop.alpha,
                                                beta=stop.beta),
        look_every=tournament.look_every if stop is not None else None,
        intervals=BETTING,
        luck=tournament.luck_plan(),
        deals=tournament.deals,
        max_games=tournament.max_games,
        total_games=total,
        max_faults=tournament.max_faults,
        entries=[PlanEntry(bot=b.display, uses=b.uses, package=b.package, version=b.version, params=b.params,
                           files_sha256=_files_sha256(b, memo)) for b in tournament.bots],
        rulesets=[PlanRuleset(label=r.label, id=r.id, version=r.version, package=r.package,
                              package_version=r.package_version, players=r.players, options=r.options,
                              draw_probability=r.draw_probability, entries=list(r.entries), games=games)
                  for r, games in zip(tournament.rulesets, counts)],
    )
    return msgspec.to_builtins(plan)


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
    top_name, top_file = getattr(top, "__name__", ""), getattr(top, "__file__", None)
    for folder in getattr(top, "__path__", None) or ():  # a package: every file under it
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and path.suffix != ".pyc" and "__pycache__" not in path.parts:
                files.setdefault(f"{top_name}/{path.relative_to(folder).as_posix()}", path)
    if top is not None and getattr(top, "__path__", None) is None and top_file:
        files.setdefault(Path(top_file).name, Path(top_file))
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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _extend(store: Store, tournament: Tournament, plan: dict[str, Any], echo: Callable[[str], None]) -> None:
    """The file changed: if it only adds entries, rulesets or deals, renumber the store to
    it and say what is added (arena.extend); ConfigError otherwise."""
    from arena.extend import apply_extension, plan_extension

    n = store.count()
    try:
        extension = plan_extension(store, tournament, plan)
    except ConfigError as exc:
        raise ConfigError(f"{exc}; rerun with --restart to discard its {n:,} stored games, or use --out for a new "
                          "results folder") from None
    stored = store.plan()
    echo(f"extending {store.path.parent}: {'; '.join(extension.added) or 'nothing new to play'}: keeping its "
         f"{n:,} stored games, {plan['total_games'] - n:,} new games to play (of {plan['total_games']:,}, "
         f"was {stored['total_games']:,})")
    fresh = apply_extension(store, extension, tournament)
    if fresh:
        echo(f"its secret seed was revealed: the new games are dealt from a fresh secret seed, commitment "
             f"sha256:{fresh}")


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
    old_luck, new_luck = stored.get("luck") or {}, current.get("luck") or {}
    for old, new, ruleset in zip(old_luck.get("rulesets") or [], new_luck.get("rulesets") or [], current["rulesets"]):
        if old and new and (old["value"], old["version"]) != (new["value"], new["version"]):
            changes.append(f"ruleset {ruleset['id']!r}'s pairwise value was {old['value']} {old['version']}, "
                           f"is now {new['value']} {new['version']} (its luck corrections would not match)")
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
    provenance: dict[str, Any] | None = None  # set by a publishing observer, as are the files
    written: list[Path] = field(default_factory=list)
    elapsed: float = 0.0  # the whole run
    play_seconds: float = 0.0  # from the first batch sent to the last game stored
    rating_tail: float = 0.0  # rating left to do once the last game was stored


def open_store(tournament: Tournament, out: Path, restart: bool,
               echo: Callable[[str], None]) -> tuple[Store, str | None]:
    """Open the store in `out` for `tournament`, or create it; and say which: "created",
    "extended" (the file only adds to the store's: arena.extend) or None. Refuses
    (ConfigError) a store made from another tournament file or other bot/ruleset versions
    unless `restart`."""
    path = store_path(out)
    if path.exists() and restart:
        Store.remove(path)
        echo(f"--restart: removed the previous results store {path}")
    if path.exists():
        store = Store.open(path, migrate=True)
        stored_hash = store.get("tournament_sha256")
        seed = store.get("seed")
        if store.plan().get("seed_derivation", 1) != SEED_DERIVATION:
            store.close()
            raise ConfigError(f"{path} was made by an older arena (deal seeds by file position, seed derivation 1); "
                              "rerun with --restart to play it again, or use --out for a new results folder")
        current = make_plan(tournament, seed)
        extended = stored_hash != tournament.sha256
        if extended:
            try:
                _extend(store, tournament, current, echo)
            except BaseException:
                store.close()
                raise
        try:
            changes = _changes(store.plan(), current)
        except StoreError:
            store.close()
            raise
        if changes:
            store.close()
            raise ConfigError(f"installed bots or rulesets changed since {path} was created: {'; '.join(changes)}; "
                              "rerun with --restart to start again, or use --out for a new results folder")
        return store, "extended" if extended else None
    secret: dict[str, Any]
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
    return store, "created"


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


class RunObserver:
    """What a run tells its caller, in this order: `opened` once the store is open
    (`created`: "created", "extended" or None); `play_started` (`will_play`: False when
    nothing is left to play); `stored` after each batch is stored, `total_changed` when a
    stopping run's looks shrink the schedule; `interrupting` on a Ctrl-C (`abandon`: the
    second one); `play_ended` (always, even on an error); `completed` once the standings
    are rated, with the store still open and locked. `line`s for the user come at any
    time. This base passes the lines to `echo` and ignores the rest; arena.run_and_publish's
    observer draws the bar and publishes."""

    def __init__(self, echo: Callable[[str], None] = print):
        self.echo = echo

    def line(self, text: str) -> None:
        self.echo(text)

    def opened(self, store: Store, created: str | None, summary: "RunSummary") -> None:
        pass

    def play_started(self, store: Store, total: int, stored_before: int, will_play: bool) -> None:
        pass

    def stored(self, games: list[Any]) -> None:
        pass

    def total_changed(self, total: int) -> None:
        pass

    def interrupting(self, text: str, abandon: bool) -> None:
        self.line(text)

    def play_ended(self) -> None:
        pass

    def completed(self, store: Store, summary: "RunSummary") -> None:
        pass


def run_tournament(tournament: Tournament, out: Path, workers: int | None = None, restart: bool = False,
                   backend: Backend | None = None, batch_size: int | None = None,
                   observer: RunObserver | None = None) -> RunSummary:
    """Play every game of `tournament` not yet in the store at `out` and rate them when the
    schedule is complete; tell `observer` (default: one that prints the lines) what happens.
    With a `stop`, each ruleset ends where its looks say (arena.stopping). Raises
    GameFailedError when a game cannot be played (the stored games stay)."""
    out = Path(out)
    lock = _lock(out)
    try:
        return _run(tournament, out, workers, restart, backend, batch_size, observer or RunObserver())
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


def _run(tournament: Tournament, out: Path, workers: int | None, restart: bool, backend: Backend | None,
         batch_size: int | None, observer: RunObserver) -> RunSummary:
    echo = observer.line
    store, created = open_store(tournament, out, restart, echo)
    started = time.perf_counter()
    try:
        seed = store.get("seed")
        schedule: Schedule = tournament.schedule(seed, store.plan().get("seed_history"))
        total = schedule.total
        done = store.done_mask(total)
        stored_before = sum(bin(byte).count("1") for byte in done)
        looks = Looks(tournament, schedule, store)
        looks.look(echo)  # a resumed run first takes the looks its stored games allow
        remaining = (looks.counted_total() if looks.all_stopped() else total) - stored_before
        workers = workers if workers is not None else tournament.workers
        workers = workers or cpu_count()
        workers = max(1, min(workers, remaining or 1))
        summary = RunSummary(out, total, stored_before)

        echo(f"{tournament.name}: {total:,} games ({tournament.format}, seed "
             f"{'secret' if store.get('seed_secret') else seed})")
        for line in schedule.describe():
            echo(f"  {line}")
        if tournament.stop is not None:
            echo(f"  {tournament.stop.describe(tournament.bots)}, looking every {tournament.look_every} deals")
        if store.get("seed_secret"):
            echo(f"secret seed commitment: sha256:{store.get('seed_commitment')} "
                 "(revealed in the provenance when the tournament is complete)")
        observer.opened(store, created, summary)
        if stored_before:
            echo(f"resuming: {stored_before:,} games already stored, {remaining:,} to play")
        if remaining:
            shown = backend.workers if backend is not None else workers
            most = "up to " if tournament.stop is not None and not looks.all_stopped() else ""
            echo(f"playing {most}{remaining:,} games with {shown} worker{'s' if shown > 1 else ''}, "
                 f"results in {out}")
            isolation, fallback = effective_isolation(tournament, echo)
            if isolation == "process" and (notice := privilege_notice()):
                echo(f"note: {notice}")
            store.set("isolation", {"requested": tournament.isolation, "used": isolation, "fallback": fallback,
                                    "limits": _limits_in_force(isolation, tournament.limits()),
                                    "submissions": {b.display: b.submission.footprint() for b in tournament.bots
                                                    if getattr(b, "submission", None) is not None}})

        run_number = store.max_run() + 1
        backend = backend or make_backend(workers)
        feed = Feed(schedule, done, looks, Batcher(iter(()), batch_size), ahead=1 if backend.workers == 1 else 2)
        in_flight: dict[Future, int] = {}  # batch -> its ruleset
        max_in_flight = 1 if backend.workers == 1 else backend.workers * 2
        exhausted = remaining == 0 or feed.finished()
        stopping = False
        failure: str | None = None
        # Live rating follows the store in schedule order; a stopping run moves games out of
        # it when a ruleset stops, so it rates once play is over instead.
        followers = RatingFollowers(store.path, store.plan()) if tournament.stop is None else None
        if not exhausted:
            try:
                source = Path(tournament.path)
                protected = tuple(str(p.resolve()) for p in (source, out) if p.exists())
                # corrections as the store's plan says (an older store's plan: raw)
                backend.start(make_job(tournament, isolation, protected, luck=planned_clones(store.plan())))
            except BaseException:
                if followers is not None:
                    followers.stop()
                raise
        play_started = time.perf_counter()
        try:
            observer.play_started(store, total, stored_before, not exhausted)
            while True:
                try:
                    while not (stopping or exhausted) and len(in_flight) < max_in_flight:
                        batch = feed.next_batch()
                        if batch is None:
                            exhausted = feed.finished()
                            break
                        in_flight[backend.submit(batch)] = batch[0].ruleset
                    if not in_flight:
                        if not (stopping or exhausted):  # cannot happen: every look due was taken
                            raise RuntimeError("no game may be played and none is in flight, but the schedule "
                                               "is not finished")
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
                        feed.sizer.learn(ruleset, len(result.games), result.seconds)
                        if result.games:
                            cut = looks.cut[ruleset]
                            store.add(result.games, run_number)
                            if cut is None or result.games[0].deal < cut:  # else: in flight at the stop
                                summary.played += len(result.games)
                                observer.stored(result.games)
                            if looks.look(echo):
                                observer.total_changed(looks.counted_total())
                        if result.failure and failure is None:
                            failure = result.failure
                            stopping = True
                except KeyboardInterrupt:
                    if stopping and failure is None:
                        observer.interrupting("stopping now: abandoning the games in flight", abandon=True)
                        backend.stop(abandon=True)
                        in_flight.clear()
                        break
                    stopping = True
                    for future in list(in_flight):
                        if future.cancel():  # not started yet
                            del in_flight[future]
                    observer.interrupting(f"stopping: finishing the {len(in_flight)} batches in flight "
                                          "(Ctrl-C again to abandon them)", abandon=False)
        except BaseException:
            if followers is not None:
                followers.stop()
            raise
        finally:
            summary.play_seconds = time.perf_counter() - play_started
            observer.play_ended()
            backend.stop(abandon=bool(in_flight))
        stored = store.count()
        total = summary.total = looks.counted_total() if tournament.stop is not None else total
        finished_all = tournament.stop is None or looks.all_stopped()
        if (failure is not None or stored != total or not finished_all) and followers is not None:
            followers.stop()
        if failure is not None:
            raise GameFailedError(f"{failure}; {stored:,} of {total:,} games are stored "
                                  f"(rerun the same command to resume)")
        summary.complete = stored == total and finished_all
        summary.interrupted = not summary.complete
        if summary.interrupted:
            summary.elapsed = time.perf_counter() - started
            echo(f"interrupted: {stored:,} of {total:,} games stored; run the same command to resume")
            return summary
        if store.get("finished_at") is None:
            store.set("finished_at", _now())
        tail_started = time.perf_counter()
        if followers is None:
            summary.standings = rate_store(store)
        else:
            try:
                summary.standings = followers.finish()
            finally:
                followers.stop()
        summary.rating_tail = time.perf_counter() - tail_started
        observer.completed(store, summary)
        summary.elapsed = time.perf_counter() - started
        return summary
    finally:
        store.close()
