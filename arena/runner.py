"""Running a tournament: one loop, scheduler -> backend -> store -> observers.

`run_tournament` locks the results folder and opens (or creates, or extends) its store
(arena.results_folder), asks a scheduler what to play (arena.scheduling: the file's
format or stop picks a built-in one, a plugin may register others), hands each batch to
a backend (arena.backends; arena.ray_backend), stores each batch as it comes back (one
transaction), lets the scheduler take the looks now due (a `stop`'s, arena.stopping),
rates the stored games while play goes on (arena.live_ratings; a stopping run rates at
the end), and returns a `RunSummary`. The loop knows no scheduler and no observer: it
calls the run's hooks (arena.run_hooks), which the caller's observer implements (a
`RunObserver`: arena.run_and_publish's draws the bar and publishes, as `arena run` does)
and so may plugins' observers. What a worker does with a batch is arena.worker.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from arena.backends import Backend, make_backend
from arena.errors import ConfigError
from arena import results_folder
from arena.results_folder import ResultsFolder
# Importable from here as before the results folder had a module of its own.
from arena.results_folder import LOCK_NAME, _lock, bot_files_sha256, make_plan, open_store  # noqa: F401
from arena.seeding import seed_commitment  # noqa: F401
from arena.live_ratings import RatingFollowers
from arena.ratings import rate_with_history
from arena.seats import Limits, privilege_notice
from arena.run_hooks import RunHooks
from arena.scheduling.base import DONE, Play
from arena.scheduling.tournament import (BUILTIN_SCHEDULERS, StoreState, TournamentContext, identities,
                                         scheduler_name)
from arena.stopping import Looks
from arena.store import Store
from arena.tournament import GameSpec, Schedule, Tournament
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
    history: dict[str, Any] | None = None  # the rating history, from the pass that rated the standings


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
    time. These methods implement the run's hooks (arena.run_hooks). This base passes the
    lines to `echo` and ignores the rest; arena.run_and_publish's observer draws the bar
    and publishes."""

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
                   observer: RunObserver | None = None, scheduler: str | None = None,
                   registry: Any = None) -> RunSummary:
    """Play the games of `tournament` its scheduler hands out (by default the one its file
    asks for: `scheduling.tournament.scheduler_name`; else `scheduler`, a built-in or a
    plugin's name) into the store at `out`, and rate them when the scheduler is done; tell
    `observer` (default: one that prints the lines) and the run observers of `registry`'s
    plugins what happens (arena.run_hooks). With a `stop`, each ruleset ends where its looks
    say (arena.stopping). Raises GameFailedError when a game cannot be played (the stored
    games stay)."""
    out = Path(out)
    observers = [entry.factory(tournament, out) for entry in registry.observers] if registry is not None else []
    hooks = RunHooks(*observers, observer or RunObserver())
    with ResultsFolder(out) as folder:
        return _run(folder, tournament, _Options(workers, restart, backend, batch_size, scheduler, registry), hooks)


@dataclass
class _Options:
    workers: int | None
    restart: bool
    backend: Backend | None
    batch_size: int | None
    scheduler: str | None
    registry: Any


@dataclass
class _Run:
    """One run's state, as the loop goes."""

    tournament: Tournament
    out: Path
    store: Store
    schedule: Schedule
    looks: Looks
    summary: RunSummary
    hooks: RunHooks
    remaining: int
    workers: int
    isolation: str = "inline"
    scheduler: Any = None
    state: StoreState | None = None
    backend: Any = None
    followers: RatingFollowers | None = None
    in_flight: dict[Future, tuple[int, list[str]]] = field(default_factory=dict)  # batch -> ruleset, its keys
    failure: str | None = None
    stopping: bool = False
    exhausted: bool = False
    run_number: int = 1
    sizer: Any = None

    def echo(self, text: str) -> None:
        self.hooks.hook.line(text=text)


def _run(folder: ResultsFolder, tournament: Tournament, options: _Options, hooks: RunHooks) -> RunSummary:
    out = folder.out
    store, created = folder.open_store(tournament, options.restart, lambda text: hooks.hook.line(text=text))
    started = time.perf_counter()
    try:
        run = _prepare(tournament, out, store, options, hooks)
        hooks.hook.opened(store=store, created=created, summary=run.summary)
        _announce_play(run, options)
        _start(run, options)
        _play(run)
        return _finish(run, started)
    finally:
        store.close()


def _prepare(tournament: Tournament, out: Path, store: Store, options: _Options, hooks: RunHooks) -> _Run:
    """The schedule, the looks a resumed run can take, what is left: and say so."""
    seed = store.get("seed")
    schedule: Schedule = tournament.schedule(seed, store.plan().get("seed_history"))
    total = schedule.total
    stored_before = sum(bin(byte).count("1") for byte in store.done_mask(total))
    looks = Looks(tournament, schedule, store)
    run = _Run(tournament, out, store, schedule, looks, RunSummary(out, total, stored_before), hooks, 0, 1)
    looks.look(run.echo)  # a resumed run first takes the looks its stored games allow
    run.summary.stored_before = stored_before = store.count()
    run.remaining = (looks.counted_total() if looks.all_stopped() else total) - stored_before
    workers = options.workers if options.workers is not None else tournament.workers
    run.workers = max(1, min(workers or cpu_count(), run.remaining or 1))
    run.echo(f"{tournament.name}: {total:,} games ({tournament.format}, seed "
             f"{'secret' if store.get('seed_secret') else seed})")
    for line in schedule.describe():
        run.echo(f"  {line}")
    if tournament.stop is not None:
        run.echo(f"  {tournament.stop.describe(tournament.bots)}, looking every {tournament.look_every} deals")
    if store.get("seed_secret"):
        run.echo(f"secret seed commitment: sha256:{store.get('seed_commitment')} "
                 "(revealed in the provenance when the tournament is complete)")
    return run


def _announce_play(run: _Run, options: _Options) -> None:
    """Say what is left to play, and with what isolation (recorded in the store)."""
    tournament, store = run.tournament, run.store
    if run.summary.stored_before:
        run.echo(f"resuming: {run.summary.stored_before:,} games already stored, {run.remaining:,} to play")
    if not run.remaining:
        return
    shown = options.backend.workers if options.backend is not None else run.workers
    most = "up to " if tournament.stop is not None and not run.looks.all_stopped() else ""
    run.echo(f"playing {most}{run.remaining:,} games with {shown} worker{'s' if shown > 1 else ''}, "
             f"results in {run.out}")
    run.isolation, fallback = effective_isolation(tournament, run.echo)
    if run.isolation == "process" and (notice := privilege_notice()):
        run.echo(f"note: {notice}")
    store.set("isolation", {"requested": tournament.isolation, "used": run.isolation, "fallback": fallback,
                            "limits": _limits_in_force(run.isolation, tournament.limits()),
                            "submissions": {b.display: b.submission.footprint() for b in tournament.bots
                                            if getattr(b, "submission", None) is not None}})


def make_scheduler(name: str, context: TournamentContext, registry: Any = None) -> Any:
    """The scheduler called `name`: a built-in one, or a plugin's (`register_schedulers`)."""
    if name in BUILTIN_SCHEDULERS:
        return BUILTIN_SCHEDULERS[name](context)
    if registry is None:
        from arena.plugins import load_registry

        registry = load_registry()
    entry = registry.schedulers.get(name)
    if entry is None:
        known = ", ".join([*BUILTIN_SCHEDULERS, *registry.schedulers])
        raise ConfigError(f"unknown scheduler {name!r} (known: {known})")
    return entry.factory(context)


def _start(run: _Run, options: _Options) -> None:
    """The scheduler, the backend and (without a stop) the live rating processes."""
    store, tournament = run.store, run.tournament
    run.run_number = store.max_run() + 1
    run.backend = options.backend or make_backend(run.workers)
    ahead = 1 if run.backend.workers == 1 else 2
    run.sizer = Batcher(iter(()), options.batch_size)
    context = TournamentContext(tournament, run.schedule, store, run.looks, store.done_mask(run.schedule.total),
                                run.sizer, ahead, run.echo)
    run.scheduler = make_scheduler(options.scheduler or scheduler_name(tournament), context, options.registry)
    run.state = StoreState(store, tournament)
    run.exhausted = run.remaining == 0 and options.scheduler is None and tournament.scheduler is None
    # Live rating follows the store in schedule order; a stopping run leaves games out of
    # it when a ruleset stops, so it rates once play is over instead.
    run.followers = RatingFollowers(store.path, store.plan()) if tournament.stop is None else None
    if run.exhausted:
        return
    try:
        source = Path(tournament.path)
        protected = tuple(str(p.resolve()) for p in (source, run.out) if p.exists())
        # corrections as the store's plan says (an older store's plan: raw)
        run.backend.start(make_job(tournament, run.isolation, protected, luck=planned_clones(store.plan())))
    except BaseException:
        if run.followers is not None:
            run.followers.stop()
        raise


def _play(run: _Run) -> None:
    """The loop: scheduler -> backend -> store -> observers, until the scheduler is done
    and nothing is in flight, a game fails, or Ctrl-C."""
    play_started = time.perf_counter()
    try:
        run.hooks.hook.play_started(store=run.store, total=run.summary.total,
                                    stored_before=run.summary.stored_before, will_play=not run.exhausted)
        while True:
            try:
                _deal(run)
                if not run.in_flight:
                    break
                finished, _ = wait(list(run.in_flight), return_when=FIRST_COMPLETED)
                for future in finished:
                    _land(run, future)
            except KeyboardInterrupt:
                if _interrupt(run):
                    break
    except BaseException:
        if run.followers is not None:
            run.followers.stop()
        raise
    finally:
        run.summary.play_seconds = time.perf_counter() - play_started
        run.hooks.hook.play_ended()
        run.backend.stop(abandon=bool(run.in_flight))


def _deal(run: _Run) -> None:
    """Hand the backend what the scheduler has to play, while there is room."""
    max_in_flight = 1 if run.backend.workers == 1 else run.backend.workers * 2
    while not (run.stopping or run.exhausted) and len(run.in_flight) < max_in_flight:
        assert run.state is not None
        decision = run.scheduler.next(run.state, MAX_BATCH)
        if decision is DONE:
            run.exhausted = True
        if not isinstance(decision, Play):
            break
        keys = list(identities(run.schedule, decision.games, run.store.placement()))
        run.state.flying.update(keys)
        run.in_flight[run.backend.submit(list(decision.games))] = (decision.games[0].ruleset, keys)
    if not run.in_flight and not (run.stopping or run.exhausted):  # cannot happen: every look due was taken
        raise RuntimeError("no game may be played and none is in flight, but the scheduler is not done")


def _land(run: _Run, future: Future) -> None:
    """Store a finished batch, tell the observers, take the looks now due."""
    assert run.state is not None
    ruleset, keys = run.in_flight.pop(future)
    run.state.flying.difference_update(keys)
    try:
        result: BatchResult = future.result()
    except BrokenProcessPool:  # a worker was killed (kill -9, the OOM killer)
        if run.failure is None:
            run.failure = ("a worker process died while playing (killed by a signal, or out of memory); the "
                           "games it was playing are not stored")
        run.stopping = True
        return
    run.sizer.learn(ruleset, len(result.games), result.seconds)
    if result.games:
        cut = run.looks.cut[ruleset]
        run.store.add(result.games, run.run_number)
        if cut is None or result.games[0].deal < cut:  # else: in flight at the stop, stored but not counted
            run.summary.played += len(result.games)
            run.hooks.hook.stored(games=result.games)
        if any(look.stopped for look in run.scheduler.look(run.state)):
            run.hooks.hook.total_changed(total=run.looks.counted_total())
    if result.failure and run.failure is None:
        run.failure = result.failure
        run.stopping = True


def _interrupt(run: _Run) -> bool:
    """A Ctrl-C: the first finishes the batches in flight, the second abandons them (True: stop now)."""
    if run.stopping and run.failure is None:
        run.hooks.hook.interrupting(text="stopping now: abandoning the games in flight", abandon=True)
        run.backend.stop(abandon=True)
        run.in_flight.clear()
        return True
    run.stopping = True
    for future in list(run.in_flight):
        if future.cancel():  # not started yet
            del run.in_flight[future]
    run.hooks.hook.interrupting(text=f"stopping: finishing the {len(run.in_flight)} batches in flight "
                                     "(Ctrl-C again to abandon them)", abandon=False)
    return False


def _finish(run: _Run, started: float) -> RunSummary:
    """Rate a complete run (or say it was interrupted, or raise its failure)."""
    store, summary, tournament = run.store, run.summary, run.tournament
    stored = store.count()
    total = summary.total = run.looks.counted_total() if tournament.stop is not None else summary.total
    finished_all = tournament.stop is None or run.looks.all_stopped()
    # Complete: every scheduled game stored, or the scheduler done (one that chooses its games)
    complete = finished_all and (stored == total or (run.exhausted and not run.stopping))
    if (run.failure is not None or not complete) and run.followers is not None:
        run.followers.stop()
    if run.failure is not None:
        raise GameFailedError(f"{run.failure}; {stored:,} of {total:,} games are stored "
                              f"(rerun the same command to resume)")
    summary.complete = complete
    if complete and stored < total:
        summary.total = stored   # the games the scheduler chose to play
    summary.interrupted = not summary.complete
    if summary.interrupted:
        summary.elapsed = time.perf_counter() - started
        run.echo(f"interrupted: {stored:,} of {total:,} games stored; run the same command to resume")
        return summary
    if store.get("finished_at") is None:
        store.set("finished_at", results_folder.now())
    tail_started = time.perf_counter()
    # One rating pass: the standings and the history the site draws (live, or now for a stop)
    if run.followers is None:
        summary.standings, summary.history = rate_with_history(store)
    else:
        try:
            summary.standings, summary.history = run.followers.finish()
        finally:
            run.followers.stop()
    summary.rating_tail = time.perf_counter() - tail_started
    run.hooks.hook.completed(store=store, summary=summary)
    summary.elapsed = time.perf_counter() - started
    return summary
