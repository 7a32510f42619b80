"""Bot hosts: where a seat's bot runs, in-process or in its own subprocess.

Both kinds have one interface (`BotHost`) and are reused across games, with a
fresh bot instance per game. A host of a process is a launcher paired with the
protocol channel (`arena.channel`): `ProcessHost` is a `ProcessLauncher`, whose
child process has a scrubbed environment, an empty temporary working directory,
memory and CPU limits, its own process group (killed whole with it) and, when
the harness runs as root and it can, an unprivileged user, and a `Channel`
speaking `arena.protocol` to it (`arena.sandbox.SandboxHost` pairs the same channel
with a sandbox's launcher). Problems a bot causes are raised as `BotFault`
(`arena.faults`) with a `kind`; the match applies the fault policy.

Limits are enforced on Linux (resource limits, process groups). Elsewhere the
time limit still holds; memory and CPU limits may not.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arena.bot import Bot
from arena.channel import Channel, reply_fault
from arena.errors import ConfigError
from arena.faults import FAULT_KINDS, BotFault, exit_fault
from arena.protocol import PROTOCOL_VERSION
from arena.records import FaultKind
from arena.rules.observation import Observation

PR_SET_PDEATHSIG = 1  # Linux prctl option
LIBC = ctypes.CDLL(None, use_errno=True)
"""The C library, loaded once: a child between fork and exec must not import anything
(another thread may hold the import lock at the fork)."""
FILE_LIMIT = 64 << 20  # bytes a bot process may write to any one file

__all__ = ["FAULT_KINDS", "BotFault", "BotHost", "InlineHost", "Limits", "ProcessHost", "ProcessLauncher",
           "defer_stop", "forget_stop", "limit_problem", "pending_stops", "privilege_notice",
           "settle_stops"]


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process."""

    time_per_decision: float = 1.0
    """Wall-clock seconds per decision before the time bank is drawn on."""
    time_bank: float = 10.0
    """Extra wall-clock seconds per game, spent by slow decisions."""
    memory_mb: int = 1024
    """Address-space limit of the bot process."""
    cpu_seconds: int = 3600
    """CPU-time limit over the life of a bot process (hosts are restarted past it)."""
    log_bytes: int = 8192
    """How much of a game's stderr is kept."""
    startup_seconds: float = 30.0
    """Time allowed for a new process to answer the handshake."""
    time_for_start: float = 30.0
    """Wall-clock seconds for the bot's `start(info)` (long enough to load a model)."""
    time_for_end: float = 5.0
    """Wall-clock seconds for the bot's `end(outcome)`."""
    cpu_per_game: float = 600.0
    """CPU seconds all of a sandboxed bot's processes may use in one game."""
    max_processes: int = 64
    """Processes and threads a sandboxed bot may have at once, all together."""
    tmp_mb: int = 64
    """Size of a sandboxed bot's private writable /tmp (it also counts as memory)."""


LIMIT_BOUNDS: dict[str, tuple[float, float]] = {
    "time_per_decision": (0.001, 3600.0),
    "time_bank": (0.0, 86400.0),
    "memory_mb": (64, 1 << 20),
    "time_for_start": (0.1, 3600.0),
    "time_for_end": (0.1, 600.0),
    "cpu_per_game": (0.1, 86400.0),
    "max_processes": (1, 4096),
    "tmp_mb": (1, 1 << 16),
}
"""The sane range, inclusive, of each limit a tournament file or command line may set
(seconds; MiB for memory_mb). The one place these bounds live: tournament files are
checked against them (`arena.tournament`) and tournaments/README.md lists them."""


def limit_problem(name: str, value: float) -> str | None:
    """Why `value` is not a usable value of limit `name` (see LIMIT_BOUNDS), or None."""
    low, high = LIMIT_BOUNDS[name]
    if math.isnan(value) or not low <= value <= high:
        unit = {"memory_mb": "MiB", "tmp_mb": "MiB", "max_processes": "processes"}.get(name, "seconds")
        return f"must be from {_number(low)} to {_number(high)} ({unit}), not {value!r}"
    if name == "memory_mb" and (machine := machine_memory_mb()) is not None and value > machine:
        return f"{value:,} MiB is more than this machine's memory ({machine:,} MiB)"
    return None


def machine_memory_mb() -> int | None:
    """This machine's physical memory in MiB, or None where it cannot be read."""
    try:
        return (os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) >> 20
    except (ValueError, OSError, AttributeError):
        return None


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


pending_stops: dict[int, tuple[object, Callable[[], None]]] = {}
"""Stops signalled but not yet verified, by the id of their host, in the order signalled
(mutated in place, never rebound: a hot path may test it before calling `settle_stops`)."""


def defer_stop(host: object, settle: Callable[[], None]) -> None:
    """`host`'s bot was just sent its stop; `settle` verifies it, and runs before any
    other bot of this process is asked anything (`settle_stops`). The stop takes effect
    while the engine plays the move and makes the next observation, and a bot asked
    again at once is resumed without its stop ever being waited for."""
    pending_stops[id(host)] = (host, settle)


def forget_stop(host: object) -> None:
    """`host` is about to resume its bot: its own unverified stop needs no verification."""
    pending_stops.pop(id(host), None)


def settle_stops(asking: object | None = None) -> None:
    """Verify every stop signalled but not yet verified (`defer_stop`) but that of
    `asking`, the host about to ask its own bot: no bot is asked anything while another
    may still run. Every host calls it before asking its bot, and the match loop before
    it starts a decision's clock (a slow verification is charged to no one)."""
    if not pending_stops:
        return
    for key, (host, settle) in list(pending_stops.items()):
        if host is not asking and pending_stops.pop(key, None) is not None:  # each verified once
            settle()


class BotHost(ABC):
    """Runs one bot, game after game, with a fresh instance per game."""

    hands_over_objects = True
    """Whether the bot receives the observation object itself, which must then be a
    fresh copy of everything in it; False for a host that only serialises it."""

    @abstractmethod
    def start_game(self, seed: int, params: dict[str, Any], info: dict[str, Any]) -> None:
        """Make a fresh bot with `params`, seed its rng, call its `start(info)`."""

    @abstractmethod
    def act(self, observation: Observation, timeout: float | None) -> Any:
        """The bot's answer to `observation` (not yet checked for legality)."""

    @abstractmethod
    def end_game(self, outcome: dict[str, Any]) -> None:
        """Call the bot's `end(outcome)`."""

    def take_log(self) -> str:
        """What the bot wrote to stderr since the last call (truncated)."""
        return ""

    def processes(self) -> list[int]:
        """The ids of the bot's running processes (none for a bot in this process)."""
        return []

    def close(self) -> None:
        """Stop the host for good."""


class InlineHost(BotHost):
    """The bot runs in the harness's own process: fast, for trusted bots. Time
    limits are not enforced inline (a bot cannot be interrupted)."""

    def __init__(self, cls: type[Bot]):
        self.cls = cls
        self.bot: Bot | None = None

    def start_game(self, seed, params, info):
        try:
            self.bot = self.cls(**params)
        except TypeError as exc:
            raise ConfigError(f"bot {self.cls.name!r} does not accept params {params!r}: {exc}") from exc
        except Exception as exc:
            raise BotFault(FaultKind.ERROR, f"could not be created: {type(exc).__name__}: {exc}", fatal=True) from exc
        self.bot.rng = random.Random(seed)
        self._call("start", info)

    def act(self, observation, timeout):
        return self._call("act", observation)

    def end_game(self, outcome):
        self._call("end", outcome)
        self.bot = None

    def _call(self, method: str, argument: Any) -> Any:
        if pending_stops:
            settle_stops(self)
        try:
            return getattr(self.bot, method)(argument)
        except SystemExit as exc:  # a bot may not end the harness's process
            raise BotFault(FaultKind.CRASH, f"called exit() in {method}()", fatal=True) from exc
        except MemoryError as exc:
            raise BotFault(FaultKind.MEMORY, f"ran out of memory in {method}()") from exc
        except Exception as exc:
            raise BotFault(FaultKind.ERROR, f"raised in {method}(): {type(exc).__name__}: {exc}") from exc


class BotLog:
    """A bot process's stderr: a temporary file that the harness reads and empties."""

    def __init__(self, limit: int):
        self.file = tempfile.TemporaryFile(prefix="arena-bot-log-")
        self.limit = limit

    def fileno(self) -> int:
        return self.file.fileno()

    def take(self) -> tuple[bytes, int]:
        """The log's first `limit` bytes and its size; the log is emptied."""
        size = os.fstat(self.file.fileno()).st_size
        self.file.seek(0)
        data = self.file.read(self.limit)
        self.file.truncate(0)
        self.file.seek(0)
        return data, size

    def close(self) -> None:
        self.file.close()


def log_text(taken: tuple[bytes, int], limit: int) -> str:
    """A log's text from `BotLog.take`'s (first bytes, size), saying how much was cut."""
    data, size = taken
    text = data[:limit].decode("utf-8", "replace")
    cut = size - limit
    return text + (f"\n[... {cut} more bytes cut]" if cut > 0 else "")


class Launched:
    """What a launcher knows of the process it started (`popen`, set by `launch`)."""

    popen: subprocess.Popen[bytes] | None = None

    @property
    def started(self) -> bool:
        return self.popen is not None

    @property
    def pid(self) -> int | None:
        """The started process's pid (for a sandbox, bwrap's: its outermost process)."""
        return None if self.popen is None else self.popen.pid

    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None


class ProcessLauncher(Launched):
    """Starts a bot's command as a process of its own (see `ProcessHost`), and ends it:
    a scrubbed environment, an empty temporary working directory, resource limits,
    its own process group, an unprivileged user where there is one. The `Process` at
    the other end of a `Channel`."""

    watch_fd = None  # the channel closing is the only sign that it ended

    def __init__(self, argv: Sequence[str], limits: Limits, env: dict[str, str] | None = None):
        self.argv = list(argv)
        self.limits = limits
        self.extra_env = dict(env or {})
        self.popen: subprocess.Popen[bytes] | None = None
        self._workdir: str | None = None
        self._log: BotLog | None = None

    def launch(self) -> tuple[int, int]:
        """Start the process (a fatal "crash" fault if it cannot be); the descriptors
        of its input and output, for its `Channel`."""
        self._cleanup()
        self._workdir = tempfile.mkdtemp(prefix="arena-bot-")
        self._log = BotLog(self.limits.log_bytes)
        user = unprivileged_user()
        if user is not None:
            shutil.chown(self._workdir, user=user)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self._workdir, "TMPDIR": self._workdir,
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update(self.extra_env)
        try:
            self.popen = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log.file,
                cwd=self._workdir, env=env, start_new_session=True, close_fds=True,
                preexec_fn=functools.partial(_limit_child, self.limits) if sys.platform.startswith("linux") else None,
                user=user, bufsize=0)
        except OSError as exc:
            self._cleanup()
            raise BotFault(FaultKind.CRASH, f"could not start {self.argv[0]!r}: {exc}", fatal=True) from exc
        assert self.popen.stdin is not None and self.popen.stdout is not None  # both PIPE
        return self.popen.stdin.fileno(), self.popen.stdout.fileno()

    def take_log(self) -> tuple[bytes, int]:
        """What the process wrote to stderr since the last call: (first bytes, size)."""
        return (b"", 0) if self._log is None else self._log.take()

    def pids(self) -> list[int]:
        return [self.popen.pid] if self.running() and self.popen is not None else []

    def kill(self) -> None:
        """Kill the process group: the bot and every child it left behind."""
        kill_process_group(self.popen)
        self.popen = None

    def death(self) -> BotFault:
        """The fault of a bot whose channel closed: killed first (a bot that closed its
        stdout but runs on is stopped, not waited for), then its exit status read."""
        popen = self.popen
        self.kill()
        return exit_fault(popen.returncode if popen is not None else None)

    def close(self, grace: float = 0.0) -> None:
        """Give the process `grace` seconds to exit (after a shutdown), then kill it and
        remove its files."""
        if grace and self.running():
            assert self.popen is not None
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        self._cleanup()

    def _cleanup(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None


def _limit_child(limits: Limits) -> None:
    """In the child, before exec: die with the harness (even if it is killed -9), and
    the resource limits."""
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # No file it writes (its stderr log included) may outgrow this: a chatty bot
    # cannot fill the disk; past it the bot dies of SIGXFSZ, a crash fault.
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def kill_process_group(popen: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL `popen`'s process group (it leads one), reap it, close its pipes."""
    if popen is None:
        return
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        popen.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (popen.stdin, popen.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


class ProcessHost(BotHost):
    """The bot runs in its own process behind the line protocol: a `ProcessLauncher`
    paired with a `Channel`.

    `argv` is the command: ``python -m arena.host NAME`` for a registered bot
    (`for_bot`), or any executable that speaks the protocol. The process is
    started lazily and restarted after a fatal fault.
    """

    hands_over_objects = False  # observations are encoded onto the pipe, never shared

    def __init__(self, argv: Sequence[str], limits: Limits = Limits(), env: dict[str, str] | None = None,
                 name: str = "bot"):
        self.launcher = ProcessLauncher(argv, limits, env)
        self.limits = limits
        self.name = name
        self.bot_name: str | None = None
        self.channel: Channel | None = None

    @classmethod
    def for_bot(cls, bot_name: str, limits: Limits = Limits(), env: dict[str, str] | None = None) -> ProcessHost:
        """A host for a registered bot, run by this Python in a fresh interpreter that
        sees the same import path, so it finds the same plugins."""
        child_env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        child_env.update(env or {})
        return cls([sys.executable, "-m", "arena.host", bot_name], limits, child_env, name=bot_name)

    def _start(self) -> None:
        self.channel = Channel(self.launcher, *self.launcher.launch())
        reply = self.channel.request({"type": "hello", "protocol": PROTOCOL_VERSION}, self.limits.startup_seconds)
        if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise BotFault(FaultKind.GARBAGE, f"bad handshake: {reply!r}", fatal=True)
        self.bot_name = str(reply.get("bot", "?"))

    def _channel(self) -> Channel:
        if self.channel is None:
            raise BotFault(FaultKind.CRASH, "is not running", fatal=True)
        return self.channel

    def start_game(self, seed, params, info):
        settle_stops(self)
        if not self.launcher.running():
            self.launcher.kill()
            self._start()
        self.launcher.take_log()  # what came before this game is not its log
        reply = self._channel().request({"type": "start", "seed": seed, "params": params, "info": info},
                                        self.limits.time_for_start)
        if reply.get("type") != "ok":
            raise reply_fault(reply, "start")

    def act(self, observation, timeout):
        settle_stops(self)
        reply = self._channel().request({"type": "act", "observation": observation}, timeout)
        if reply.get("type") == "action":
            return reply.get("action")
        raise reply_fault(reply, "act")

    def end_game(self, outcome):
        settle_stops(self)
        reply = self._channel().request({"type": "end", "outcome": outcome}, self.limits.time_for_end)
        if reply.get("type") != "ok":
            raise reply_fault(reply, "end")

    def take_log(self) -> str:
        return log_text(self.launcher.take_log(), self.limits.log_bytes)

    def processes(self) -> list[int]:
        return self.launcher.pids()

    def close(self) -> None:
        asked = self.channel is not None and self.launcher.running() and self.channel.tell({"type": "shutdown"})
        self.launcher.close(grace=0.2 if asked else 0.0)
        self.channel = None


@functools.cache
def unprivileged_user() -> str | None:
    """The user to run bot processes as: "nobody" when the harness runs as root on
    Linux and that user can run this Python and import arena; else None (bots run
    as the harness's user; `privilege_notice` says why)."""
    return _probe_unprivileged_user()[0]


def privilege_notice() -> str | None:
    """A one-line notice when bots will run as root, or None: what it means and what to do."""
    user, reason = _probe_unprivileged_user()
    if user is None and reason:
        return (f"bots run as root under process isolation, so a bot can read and change anything on this "
                f"machine (run only bots you trust). arena runs them as user 'nobody' when it can, but 'nobody' "
                f"cannot run {sys.executable} ({reason}). To contain bots: keep the virtualenv where every user "
                f"can read it (not under /root), or run arena as an ordinary user, or use isolation = \"sandbox\" "
                f"(the default, where bubblewrap works: `arena run` says when it does not).")
    return None


@functools.cache
def _probe_unprivileged_user() -> tuple[str | None, str]:
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return None, ""
    try:
        probe = subprocess.run([sys.executable, "-c", "import arena.host"], user="nobody", cwd="/",
                               capture_output=True, timeout=30)
        if probe.returncode == 0:
            return "nobody", ""
        lines = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, lines[-1] if lines else f"exit code {probe.returncode}"
    except (OSError, subprocess.SubprocessError, KeyError) as exc:
        return None, str(exc)
