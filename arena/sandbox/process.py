"""`SandboxLauncher`: one bot's sandbox as the process at the other end of a channel.

It starts the sandbox (bubblewrap, `launcher.command`) under the bot's own uid
(`uids`) in its own cgroup (`cgroups`), with the bot's stderr log opened for it
write-only and append-only; it stops the bot between requests and verifies the stop,
admits a zygote's game process after checking it from outside (`checks`), ends a
game's processes, and kills the whole sandbox. `SandboxHost` pairs it with the
protocol `Channel` and decides when each of these happens.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import subprocess
import time

from arena.faults import BotFault, exit_fault
from arena.records import FaultKind
from arena.sandbox import cgroups, checks, pid_counter, seccomp
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.launcher import SandboxSpec, bwrap_binary, command
from arena.sandbox.uids import UidLease
from arena.seats import FILE_LIMIT, LIBC, PR_SET_PDEATHSIG, BotLog, Launched, Limits, kill_process_group


class SandboxLauncher(Launched):
    """Starts, stops and ends one bot's sandbox; `zygote` says whether `spec.argv` is a
    zygote serving many games or a command serving one. A `channel.Process`."""

    def __init__(self, spec: SandboxSpec, limits: Limits, zygote: bool):
        self.spec = spec
        self.limits = limits
        self.zygote = zygote
        self.popen: subprocess.Popen[bytes] | None = None
        self.cgroup: BotCgroup | None = None
        self.watch_fd: int | None = None
        """The game process's pidfd while a zygote's game runs: readable once it ended."""
        self._ending_fd: int | None = None  # the killed game process's pidfd, until `resume_zygote`
        self.base: frozenset[int] = frozenset()  # bwrap, its init and the zygote: they run no bot code
        self._chain: tuple[int, ...] = ()  # the same in order (bwrap, init, zygote), as far as found
        self.keep: frozenset[int] = frozenset()  # those never stopped between decisions: the base
        self.stopped: set[int] = set()  # the bot's processes, stopped between its requests
        self._paused: list[int] = []  # the zygote, stopped for the whole game
        self._lease: UidLease | None = None
        self._log: BotLog | None = None
        self._descriptors: checks.Descriptors | None = None  # what the harness gave the sandbox
        self._mounts: checks.SandboxMounts | None = None  # the sandbox's own, read at its first game's check
        self._game_log: tuple[bytes, int] | None = None  # the last game's log, taken before the zygote ran on
        self._escaped: str | None = None  # why the bot is faulted at its next request (it escaped a stop)
        self._stopper: cgroups.Stopper | None = None
        self._held: tuple[tuple[int, ...], list[int]] | None = None  # the stopped pids, the cgroup's pids
        self._pid_counter: pid_counter.PidCounter | None = None  # the sandbox's, set back between games
        self._game_pid = 0  # the game process's pid in the sandbox's PID namespace (0: unknown)

    # -- start and end ------------------------------------------------------------

    def launch(self) -> tuple[int, int]:
        """Start the sandbox (a fatal "crash" fault if it cannot be); the descriptors of
        its input and output, for its `Channel`."""
        self._cleanup()
        self._log = BotLog(self.limits.log_bytes)
        if os.geteuid() == 0 and self._lease is None:
            self._lease = UidLease()
        if self.cgroup is None:
            self.cgroup = BotCgroup.make(self.limits.memory_mb, self.limits.max_processes)
        uid = self._lease.uid if self._lease else None
        filter_fd = seccomp.program_file(game=not self.zygote)
        argv = command(self.spec, bwrap_binary() or "bwrap", uid, filter_fd)
        # The bot writes its log through a descriptor of its own, write-only and append-only:
        # it can neither read what an earlier game wrote nor rewrite it. Mode 0200: not even
        # a bot of the harness's own uid can open it again for reading.
        bot_log = os.open(f"/proc/self/fd/{self._log.fileno()}", os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        os.fchmod(self._log.fileno(), 0o200)
        try:
            self.popen = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=bot_log, cwd="/",
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, start_new_session=True, close_fds=True,
                pass_fds=() if filter_fd is None else (filter_fd,), preexec_fn=self._child_setup(uid), bufsize=0)
        except (OSError, subprocess.SubprocessError) as exc:  # the latter: its preexec_fn failed
            self._cleanup()
            raise BotFault(FaultKind.CRASH, f"could not start its sandbox: {exc}", fatal=True) from exc
        finally:
            os.close(bot_log)
            if filter_fd is not None:
                os.close(filter_fd)
        stdin, stdout = self.popen.stdin, self.popen.stdout
        assert stdin is not None and stdout is not None  # both PIPE
        log = os.fstat(self._log.fileno())
        self._descriptors = checks.Descriptors((log.st_dev, log.st_ino), os.fstat(stdin.fileno()).st_ino,
                                               os.fstat(stdout.fileno()).st_ino)
        return stdin.fileno(), stdout.fileno()

    def _child_setup(self, uid: int | None):
        """What the child runs before exec, as the harness's user: join the cgroup, die
        with the harness, and the resource limits."""
        limits, group = self.limits, self.cgroup

        def preexec() -> None:
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

        return preexec

    def note_started(self) -> None:
        """After the handshake: a zygote's sandbox processes are known; a command bot is
        stopped until its first request."""
        self._chain = self._sandbox_processes() if self.zygote else ()
        self.base = frozenset(self._chain)
        self.keep = self.base
        if not self.zygote:
            self.stop()

    def _sandbox_processes(self) -> tuple[int, ...]:
        """bwrap (outside), its init (inside) and the zygote, in that order, as far as they
        are found: they run no bot code. The zygote is the init's child in the init's PID
        namespace (a game process, where the zygote forks twice its sibling, is in one of its own)."""
        if self.cgroup is None or self.popen is None:
            return ()
        parents = {pid: parent_of(pid) for pid in self.cgroup.procs()}
        inits = [pid for pid, parent in parents.items() if parent == self.popen.pid]
        if len(inits) != 1:
            return (self.popen.pid,)
        depth = _namespace_depth(inits[0])
        zygotes = [pid for pid, parent in parents.items() if parent == inits[0] and _namespace_depth(pid) == depth]
        return (self.popen.pid, *inits, *(zygotes if len(zygotes) == 1 else []))

    def kill(self) -> None:
        """Kill every process of the sandbox."""
        if self._pid_counter is not None:  # first: the sandbox's init cannot end before it is reaped
            self._pid_counter.close()
            self._pid_counter = None
        if self.popen is not None:
            if self.cgroup is not None:
                self.cgroup.kill_all()
            try:
                self.popen.kill()  # bwrap: its namespace, and everything in it, dies with it
            except ProcessLookupError:
                pass
        kill_process_group(self.popen)
        self.popen = None
        self._mounts = None  # a new sandbox's namespace may get this one's number
        self._end_watch()
        self._end_stopper()
        self.stopped = set()
        self._paused = []
        self._held = None

    def interrupt(self) -> None:
        """Kill the sandbox (bwrap: everything in its namespace dies with it) without
        touching this launcher's state, from a thread other than the one using it: that
        one sees the sandbox end, and ends it as its own code does (`kill`)."""
        popen = self.popen
        if popen is not None:
            popen.kill()  # Popen.kill checks that it was not reaped: no other process is signalled

    def death(self) -> BotFault:
        """Kill the sandbox whose channel closed; the fault saying how it ended."""
        game_ended = self.watch_fd is not None and readable(self.watch_fd)
        popen = self.popen
        self.kill()
        if self.ran_out_of_memory():
            return BotFault(FaultKind.MEMORY, "ran out of memory (its processes were over the limit together)",
                            fatal=True)
        if game_ended:
            return BotFault(FaultKind.CRASH, "its game process ended", fatal=True)
        return exit_fault(popen.returncode if popen is not None else None)

    def close(self) -> None:
        self.kill()
        self._cleanup()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def _cleanup(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def take_log(self) -> tuple[bytes, int]:
        """The log's first bytes and its size; the log is emptied. After a game of a
        zygote: that game's log, as taken when it ended."""
        if self._game_log is not None:
            taken, self._game_log = self._game_log, None
            self._take_log()  # what the zygote wrote since is no game's
            return taken
        return self._take_log()

    def _take_log(self) -> tuple[bytes, int]:
        return (b"", 0) if self._log is None else self._log.take()

    def pids(self) -> list[int]:
        """Every process of the bot (of its cgroup; bwrap's alone without one)."""
        if not self.running() or self.popen is None:
            return []
        return list(self.cgroup.procs()) if self.cgroup is not None else [self.popen.pid]

    def ran_out_of_memory(self) -> bool:
        return self.cgroup is not None and self.cgroup.ran_out_of_memory()

    def cpu_seconds(self) -> float | None:
        """CPU seconds used by all of the bot's processes so far (None: no cgroup)."""
        return None if self.cgroup is None else self.cgroup.cpu_seconds()

    # -- stopped between requests -------------------------------------------------

    def stop(self, verify: bool = True) -> bool:
        """Stop every process of the bot but `keep` (`cgroups.Stopper`), verified before
        any rival is asked: now, or with `verify` False by `settle`, which the caller
        must see run first (`arena.seats.defer_stop`). Whether a verification is left."""
        stopper = self._stopper  # None since the last kill (or game's end), or made for another `keep`
        if stopper is None or stopper.keep is not self.keep:
            if self.cgroup is None or self.popen is None:
                return False
            self._end_stopper()
            stopper = self._stopper = cgroups.Stopper(self.cgroup, self.keep)
        self.stopped |= stopper.stop()
        if verify:
            self._verify_stop()
        return not verify and bool(self.stopped)

    def settle(self) -> None:
        """Verify the stop that `stop(verify=False)` signalled (`_verify_stop`)."""
        self._verify_stop()

    def _verify_stop(self, seconds: float = 5.0) -> None:
        """Wait until every thread of the bot but `keep`'s is stopped; one that still
        runs after `seconds` escaped the stop: the bot is killed, and faulted when it
        is next asked."""
        stopper = self._stopper  # only while the sandbox runs (`kill` ends it)
        if stopper is None or not self.stopped or (running := stopper.unstopped()) == []:
            return  # the usual case: every thread stopped at the first look
        began = time.monotonic()
        deadline, again = began + seconds, began + 0.001
        while running != []:
            now = time.monotonic()
            if now > deadline:
                self.kill()
                self._escaped = f"kept running after it was stopped (threads {(running or [])[:3]})"
                return
            if running is None:  # a task came or went: signal everything again, list anew
                self.stopped |= stopper.stop(relist=True)
            elif now > again:  # not stopped 1 ms after its signal: perhaps resumed by a sibling
                stopper.stop_again(running)
                again = now + 0.001
            os.sched_yield()  # on a busy machine, let its processes take their stop
            running = stopper.unstopped()

    def check_escape(self) -> None:
        """The fault of a bot that escaped its last stop (killed then), if it did."""
        if self._escaped is not None:
            why, self._escaped = self._escaped, None
            raise BotFault(FaultKind.CRASH, why, fatal=True)

    def cont(self) -> None:
        """Let the bot run (for a request); the fault of a bot that escaped its last stop."""
        if self._escaped is not None:
            self.check_escape()
        # No process can start while all are stopped: the set stopped last is the whole bot.
        for pid in self.stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.stopped = set()

    def _end_stopper(self) -> None:
        if self._stopper is not None:
            self._stopper.close()
            self._stopper = None

    # -- a zygote's games ---------------------------------------------------------

    def admit_game(self) -> None:
        """Stop the zygote for the whole game (it runs the bot's imported code too, and
        must learn nothing of the game) and check it and the game process from outside
        (`checks`); a fatal fault, the sandbox killed, if the check fails. The game process
        is the zygote's child (or, where the zygote forks twice, the sandbox's init's:
        `zygote._fork_game`); `checks` verifies that the zygote cannot reap it."""
        if self.cgroup is None:
            return  # no cgroup to find them by (a harness that is not root): the zygote's own checks only
        if len(self._chain) != 3:  # told to pause, its zygote reads the game's channel until stopped
            self.kill()
            raise BotFault(FaultKind.CRASH, "sandbox check failed: its zygote could not be found", fatal=True)
        _, init, zygote = self._chain
        others = [pid for pid in self.cgroup.procs() if pid not in self.base]
        if len(others) != 1 or parent_of(others[0]) not in (zygote, init):
            self.kill()
            raise BotFault(FaultKind.CRASH, f"sandbox check failed: expected one game process, found {len(others)} "
                                            "processes", fatal=True)
        game = others[0]
        send_signal(zygote, signal.SIGSTOP)  # one that is gone fails the check below
        why = None if checks.wait_stopped([zygote]) else "its zygote could not be stopped"
        if self._mounts is None:
            self._mounts = checks.SandboxMounts.of(init)
        if self._pid_counter is None and not why:
            try:
                self._pid_counter = _counter_of(init)
            except OSError as exc:
                why = f"its PID namespace's counter cannot be set back ({exc})"
        self._game_pid = _pid_in_sandbox(game)
        why = why or (None if self._game_pid else "its game process's pid could not be read")
        why = why or checks.problem(zygote, game, self._descriptors, self._mounts)
        if why:
            self.kill()
            raise BotFault(FaultKind.CRASH, f"sandbox check failed: {why}", fatal=True)
        self._paused = [zygote]
        self.keep = self.base
        try:
            self.watch_fd = os.pidfd_open(game)
        except (AttributeError, OSError):
            self.watch_fd = None
        self._hold(game)

    def _hold(self, game: int) -> None:
        """Keep the admitted game process stopped until its hand-over (its `start`):
        from here to there nothing of the bot runs, which `hand_over` verifies. No other
        process may have come meanwhile (one forked before the check would have missed it)."""
        send_signal(game, signal.SIGSTOP)
        if not checks.wait_stopped([game]) or _state(game) != "T":
            self.kill()
            raise BotFault(FaultKind.CRASH, "sandbox check failed: its game process could not be stopped",
                           fatal=True)
        procs = sorted(self.cgroup.procs()) if self.cgroup else []
        if self.cgroup is not None and set(procs) != self.base | {game}:
            self.kill()
            raise BotFault(FaultKind.CRASH, "sandbox check failed: a process came beside its game process "
                                            "before its game", fatal=True)
        self.stopped = {game}  # `cont` lets it run at its first request, the game's start
        self._held = (tuple(self._paused) + (game,), procs)
        if self.cgroup is not None:  # its threads listed now, off the game's path: nothing of the bot runs
            stopper = cgroups.Stopper(self.cgroup, self.keep)
            stopper.watch()
            self._end_stopper()
            self._stopper = stopper

    def held(self) -> list[int]:
        """The processes kept stopped from the check of the next game's process to its
        hand-over (the zygote, the game process), or [] when none is."""
        return [] if self._held is None else list(self._held[0])

    def hand_over(self) -> None:
        """Before the held game process gets its game: the check at admission still holds
        (every process of the bot stopped since, and no process came or went); else a
        fatal fault, the sandbox killed."""
        if self._held is None:
            return
        held, procs = self._held
        self._held = None
        changed = [pid for pid in held if _state(pid) != "T"]
        if changed or self.cgroup is None or sorted(self.cgroup.procs()) != procs:
            self.kill()
            what = f"process {changed[0]} ran" if changed else "its processes changed"
            raise BotFault(FaultKind.CRASH, f"sandbox check failed: {what} between the check of its next game's "
                                            "process and the game's start", fatal=True)

    def end_game(self) -> None:
        """Kill the game's processes, the zygote still stopped, so nothing of the game
        outlives it and the zygote learns nothing of how it ended; take the game's log;
        then let the zygote run again (`kill_game`, then `resume_zygote`)."""
        self.kill_game()
        self.resume_zygote()

    def kill_game(self) -> None:
        """SIGKILL the game's processes (none of them runs the bot's code again) and take
        the game's log: the part of `end_game` a game's end waits for. The zygote stays
        stopped until `resume_zygote`. Every process of the game is signalled at once, so
        none runs on while rivals are asked; the game process first, through its pidfd: it
        is the init of its own PID namespace (`zygote._fork_game`), so the kernel also kills
        anything the listing misses, and ends it only once the rest are gone, which
        `resume_zygote` waits for."""
        if self.cgroup is not None:
            if self.watch_fd is not None:
                _pidfd_kill(self.watch_fd)
            self.cgroup.signal_all(signal.SIGKILL, self.base)
        self._ending_fd, self.watch_fd = self.watch_fd, None
        self._end_stopper()
        self._game_log = self._take_log()  # before the zygote runs again

    def resume_zygote(self) -> None:
        """Once the killed game's processes are gone, set the sandbox's PID counter back
        (`pid_counter`) and let the zygote run again (a fatal fault, the sandbox killed, if
        either cannot be done). Gone: the game process ended (its pidfd, so every other
        process of its PID namespace ended before it) and the cgroup lists none but the
        sandbox's base (one listing); else every process left is killed and waited for,
        listing by listing (`BotCgroup.kill_all`)."""
        if self.cgroup is not None:
            # Wait until they are gone, not only signalled: a process with SIGKILL pending
            # that is entering a read of the shared channel can still take the `next`
            # the host writes next (the zygote would then wait for it forever).
            ended = self._ending_fd is not None and _ended(self._ending_fd, 5.0)
            if not (ended and all(pid in self.base for pid in self.cgroup.procs())) \
                    and not self.cgroup.kill_all(keep=self.base):
                self.kill()
                raise BotFault(FaultKind.CRASH, "its last game's processes could not be killed", fatal=True)
        self._end_watch()
        if self._pid_counter is not None:  # else the zygote's next pid tells how many processes the game made
            try:
                self._pid_counter.set_back(self._game_pid)
            except OSError as exc:
                self.kill()
                raise BotFault(FaultKind.CRASH, f"sandbox check failed: {exc}", fatal=True) from exc
        for pid in self._paused:
            send_signal(pid, signal.SIGCONT)
        self.keep, self.stopped, self._paused, self._held = self.base, set(), [], None

    def _end_watch(self) -> None:
        """Close the game process's pidfd (and a killed one's)."""
        for fd in (self.watch_fd, self._ending_fd):
            if fd is not None:
                os.close(fd)
        self.watch_fd = self._ending_fd = None


def _counter_of(init: int) -> pid_counter.PidCounter:
    """The counter of the PID namespace of the sandbox's `init`."""
    namespace = pid_counter.namespace_of(init)
    try:
        return pid_counter.PidCounter(namespace)
    finally:
        os.close(namespace)


def send_signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _state(pid: int) -> str:
    """The state letter of `pid` (T: stopped), "X" when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "X"


def readable(fd: int) -> bool:
    return _ended(fd, 0.0)


def _ended(pidfd: int, seconds: float) -> bool:
    """Whether the process of `pidfd` ended (waiting up to `seconds` for it)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(int(seconds * 1000)))


def _pidfd_kill(pidfd: int) -> None:
    """SIGKILL the process of `pidfd` (no other process, even if its pid was reused)."""
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it ended already


def _nspid(pid: int) -> list[int]:
    """`pid`'s number in each PID namespace it is in, the harness's first (its NSpid; [] when
    it is gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"NSpid:"):
                    return [int(number) for number in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


def _pid_in_sandbox(pid: int) -> int:
    """`pid`'s number in the sandbox's PID namespace, one below the harness's (0 when it is gone)."""
    numbers = _nspid(pid)
    return numbers[1] if len(numbers) > 1 else 0


def _namespace_depth(pid: int) -> int:
    """How many PID namespaces `pid` is in (0 when it is gone)."""
    return len(_nspid(pid))


def parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0
