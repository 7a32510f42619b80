"""The worker side of a run: what a process that plays games needs, and does.

A `Job` is everything needed to play any game of a tournament (picklable, sent once
per worker); `play_batch` plays a batch of scheduled games into stored rows, with
the bot hosts of this process kept in a `HostPool` across games and batches. Every
backend (arena.backends, arena.ray_backend) runs `play_batch` in its workers.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing.util
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from arena.errors import ArenaError
from arena.luck import game_corrections
from arena.match import Entrant, FaultPolicy, play_game
from arena.rules.base import Ruleset
from arena.seats import BotHost, InlineHost, Limits, ProcessHost
from arena.store import StoredGame, encode, faults_per_seat

if TYPE_CHECKING:
    from arena.tournament import GameSpec, Tournament


class GameFailedError(ArenaError):
    """A game could not be played to its end (a bot or engine error): the run stops."""


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
    local: tuple[bool, ...] = ()  # per entrant: a class only this process can load (a local file): run inline
    luck: tuple[int | None, ...] = ()  # per ruleset: k for its luck corrections (arena.luck), None: raw
    files: tuple[str | None, ...] = ()  # per entrant: a tournament's bot in a file (absolute PATH.py:Class), or None


def make_job(tournament: Tournament, isolation: str | None = None, protected: tuple[str, ...] = (),
             luck: tuple[int | None, ...] | None = None) -> Job:
    """The job of `tournament`, its bots run under `isolation` (default: the file's),
    and no sandbox showing any of the `protected` paths; `luck`: per ruleset, k for its luck
    corrections or None (default: the file's; a run passes its store's plan's)."""
    limits = tournament.limits()
    policy = FaultPolicy(on_fault=tournament.on_fault, time_per_decision=tournament.time_per_decision,
                         time_bank=tournament.time_bank)
    return Job(tuple((r.cls, r.options) for r in tournament.rulesets),
               tuple(Entrant(b.cls, b.params, b.display, b.package, b.version) for b in tournament.bots),
               isolation or tournament.isolation, tuple(b.command for b in tournament.bots), limits, policy,
               tuple(getattr(b, "submission", None) for b in tournament.bots), protected,
               luck=luck if luck is not None else tuple(tournament.luck_clones(r) for r in tournament.rulesets),
               files=tuple(getattr(b, "file", None) for b in tournament.bots))


class HostPool:
    """The bot hosts of one worker process (or of `arena match`): one per entrant, made
    on first use and reused across games (bot instances stay fresh per game). A
    submission runs in its sandbox, a local class inline, a command in a sandbox
    (isolation "sandbox") or else its own process, an installed bot as the isolation says."""

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
                                                        read_only=submission.read_only(),
                                                        distributions=self._plugins(entry, submission.bot.package))
            elif job.files and (file := job.files[entry]) is not None:  # in a sandbox (folder read-only) or a process
                if self.isolation == "sandbox":
                    from arena.sandbox import SandboxHost

                    self.hosts[entry] = SandboxHost.for_file(file, job.limits, protected=job.protected,
                                                             distributions=self._plugins(entry, None))
                else:
                    self.hosts[entry] = ProcessHost.for_bot(file, job.limits)
            elif job.local and job.local[entry]:
                self.hosts[entry] = InlineHost(entrant.cls)
            elif command is not None and self.isolation != "sandbox":  # (a program cannot run inline)
                self.hosts[entry] = ProcessHost(command, job.limits, name=entrant.display_name)
            elif self.isolation == "sandbox":
                from arena.sandbox import SandboxHost

                self.hosts[entry] = (
                    SandboxHost.for_command(command, job.limits, name=entrant.display_name, protected=job.protected)
                    if command is not None else
                    SandboxHost.for_bot(entrant.cls.name, job.limits, protected=job.protected,
                                        distributions=self._installed_plugins(entry)))
            elif self.isolation == "process":
                self.hosts[entry] = ProcessHost.for_bot(entrant.cls.name, job.limits)
            else:
                self.hosts[entry] = InlineHost(entrant.cls)
        return self.hosts[entry]

    def _plugins(self, entry: int, package: str | None) -> tuple[str, ...]:
        """The distributions whose plugins entrant `entry`'s sandbox loads: `package` (its
        bot's; None: a bot from a file), and those of the rulesets it plays in this job and
        of their helpers (`Registry.sandbox_distributions`)."""
        import arena.rulesets

        bot = self.job.entrants[entry].cls
        in_play = [ruleset.id for ruleset, _ in self.job.rulesets if bot.plays(ruleset.id)]
        return arena.rulesets.registry().sandbox_distributions(package, in_play)

    def _installed_plugins(self, entry: int) -> tuple[str, ...] | None:
        """`_plugins` of an installed bot, from the distribution that registers it here;
        None (every installed plugin) if none does (a bot only its sandbox's path has)."""
        import arena.rulesets

        found = arena.rulesets.registry().bots.get(self.job.entrants[entry].cls.name)
        return None if found is None else self._plugins(entry, found.origin.package)

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


def forget_host_pool() -> None:
    """Forget (without closing) the host pool this process inherited: a forked worker
    must not own (and close) its parent's bot hosts."""
    global _current_pool
    _current_pool = None


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
    games: list[StoredGame] = []
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
        luck = None
        clones = job.luck[spec.ruleset] if job.luck else None
        if clones is not None:   # the corrections replay the record: made here, in parallel
            luck = encode(game_corrections(ruleset, record, clones).corrections)
        outcome = record["outcome"]
        seats = list(spec.seats)
        faults = faults_per_seat(record, len(seats))
        packed = encode([seats, outcome["standing"], outcome["scores"], faults])
        games.append(StoredGame(spec.index, spec.ruleset, spec.table, spec.deal, spec.rotation, packed,
                                record["transcript_hash"], encode(record),
                                None, luck))  # the store hashes the result with the game's identity
    return BatchResult(games, None, time.perf_counter() - started)


def watch_parent(parent: int) -> None:
    """Exit this child process when its parent (`parent`, a pid) is gone."""

    def watch() -> None:  # a killed (kill -9) main process leaves no children behind
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
