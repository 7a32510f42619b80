"""Bot hosts: where a seat's bot runs, in-process or in its own subprocess.

Both kinds have one interface (`BotHost`) and are reused across games, with a
fresh bot instance per game. `ProcessHost` speaks `arena.protocol` to a child
process that has a scrubbed environment, an empty temporary working directory,
memory and CPU limits, its own process group (killed whole with it) and, when
the harness runs as root and it can, an unprivileged user. Problems a bot causes
are raised as `BotFault` with a `kind`; the match applies the fault policy.

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
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Sequence

from arena.bot import Bot
from arena.errors import BotError, ConfigError
from arena.protocol import MAX_REPLY_BYTES, PROTOCOL_VERSION, ProtocolError, decode_reply, encode
from arena.records import FaultKind
from arena.rules.observation import Observation

PR_SET_PDEATHSIG = 1  # Linux prctl option
LIBC = ctypes.CDLL(None, use_errno=True)
"""The C library, loaded once: a child between fork and exec must not import anything
(another thread may hold the import lock at the fork)."""
FILE_LIMIT = 64 << 20  # bytes a bot process may write to any one file

FAULT_KINDS = tuple(kind.value for kind in FaultKind)  # (the old name of the kinds, as strings)


class BotFault(BotError):
    """A bot misbehaved; `kind` says how (ValueError for a kind that is not a `FaultKind`);
    `fatal` means its host is gone."""

    def __init__(self, kind: FaultKind | str, message: str, fatal: bool = False):
        super().__init__(message)
        self.kind = FaultKind(kind)
        self.fatal = fatal


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
        try:
            return getattr(self.bot, method)(argument)
        except SystemExit as exc:  # a bot may not end the harness's process
            raise BotFault(FaultKind.CRASH, f"called exit() in {method}()", fatal=True) from exc
        except MemoryError as exc:
            raise BotFault(FaultKind.MEMORY, f"ran out of memory in {method}()") from exc
        except Exception as exc:
            raise BotFault(FaultKind.ERROR, f"raised in {method}(): {type(exc).__name__}: {exc}") from exc


class ProcessHost(BotHost):
    """The bot runs in its own process behind the line protocol.

    `argv` is the command: ``python -m arena.host NAME`` for a registered bot
    (`for_bot`), or any executable that speaks the protocol. The process is
    started lazily and restarted after a fatal fault.
    """

    hands_over_objects = False  # observations are encoded onto the pipe, never shared

    def __init__(self, argv: Sequence[str], limits: Limits = Limits(), env: dict[str, str] | None = None,
                 name: str = "bot"):
        self.argv = list(argv)
        self.limits = limits
        self.extra_env = dict(env or {})
        self.name = name
        self.bot_name: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._workdir: str | None = None
        self._log_file: Any = None
        self._poller: tuple[Any, Any] | None = None  # ((fd, watch fd), select.poll) of the running process
        self._watch_fd: int | None = None
        """A descriptor that becomes readable when whatever answers has ended although the
        channel stays open (a subclass's; e.g. a pidfd): waiting for a reply stops then."""
        self._writer: tuple[Any, int, Any] | None = None  # (process, stdin fd made non-blocking, select.poll)

    @classmethod
    def for_bot(cls, bot_name: str, limits: Limits = Limits(), env: dict[str, str] | None = None) -> ProcessHost:
        """A host for a registered bot, run by this Python in a fresh interpreter that
        sees the same import path, so it finds the same plugins."""
        child_env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        child_env.update(env or {})
        return cls([sys.executable, "-m", "arena.host", bot_name], limits, child_env, name=bot_name)

    # -- lifecycle -------------------------------------------------------------

    def _spawn(self) -> None:
        self._cleanup()
        self._workdir = tempfile.mkdtemp(prefix="arena-bot-")
        self._log_file = tempfile.TemporaryFile(prefix="arena-bot-log-")
        user = unprivileged_user()
        if user is not None:
            shutil.chown(self._workdir, user=user)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self._workdir, "TMPDIR": self._workdir,
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}
        if "PYTHONPATH" in os.environ:
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update(self.extra_env)
        limits = self.limits

        def preexec() -> None:  # runs in the child, before exec
            # Die with the harness process, even if it is killed -9.
            LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            memory = limits.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            # No file it writes (its stderr log included) may outgrow this: a chatty bot
            # cannot fill the disk; past it the bot dies of SIGXFSZ, a crash fault.
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))

        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log_file,
                cwd=self._workdir, env=env, start_new_session=True, close_fds=True,
                preexec_fn=preexec if sys.platform.startswith("linux") else None,
                user=user, bufsize=0)
        except OSError as exc:
            self._cleanup()
            raise BotFault(FaultKind.CRASH, f"could not start {self.argv[0]!r}: {exc}", fatal=True) from exc
        self._buffer = b""
        reply = self._request({"type": "hello", "protocol": PROTOCOL_VERSION}, self.limits.startup_seconds)
        if reply.get("type") != "hello" or reply.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise BotFault(FaultKind.GARBAGE, f"bad handshake: {reply!r}", fatal=True)
        self.bot_name = str(reply.get("bot", "?"))

    def close(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            assert proc.stdin is not None  # started with stdin=PIPE
            try:
                proc.stdin.write(encode({"type": "shutdown"}))
                proc.stdin.flush()
                proc.wait(timeout=0.2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill_group()
        self._cleanup()

    def _kill_group(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the bot and every child it left behind
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._proc = None
        self._poller = None

    def _cleanup(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    # -- the protocol ----------------------------------------------------------

    def start_game(self, seed, params, info):
        if self._proc is None or self._proc.poll() is not None:
            self._kill_group()
            self._spawn()
        self._take_log_bytes()  # what came before this game is not its log
        self._expect_ok(self._request({"type": "start", "seed": seed, "params": params, "info": info},
                                      self.limits.time_for_start), "start")

    def act(self, observation, timeout):
        reply = self._request({"type": "act", "observation": observation}, timeout)
        if reply.get("type") == "action":
            return reply.get("action")
        self._raise_for(reply, "act")

    def end_game(self, outcome):
        self._expect_ok(self._request({"type": "end", "outcome": outcome}, self.limits.time_for_end), "end")

    def take_log(self) -> str:
        data, size = self._take_log_bytes()
        text = data[: self.limits.log_bytes].decode("utf-8", "replace")
        cut = size - self.limits.log_bytes
        return text + (f"\n[... {cut} more bytes cut]" if cut > 0 else "")

    def _take_log_bytes(self) -> tuple[bytes, int]:
        """The log's first bytes and its size; the log is emptied."""
        if self._log_file is None:
            return b"", 0
        size = os.fstat(self._log_file.fileno()).st_size
        self._log_file.seek(0)
        data = self._log_file.read(self.limits.log_bytes)
        self._log_file.truncate(0)
        self._log_file.seek(0)
        return data, size

    def _expect_ok(self, reply: dict[str, Any], what: str) -> None:
        if reply.get("type") != "ok":
            self._raise_for(reply, what)

    def _raise_for(self, reply: dict[str, Any], what: str) -> None:
        if reply.get("type") == "error":
            message = _clip(str(reply.get("message", "")), 400)
            kind = FaultKind.MEMORY if message.startswith("MemoryError") else FaultKind.ERROR
            raise BotFault(kind, f"raised in {what}(): {message}")
        raise BotFault(FaultKind.GARBAGE, f"answered {what} with {_clip(repr(reply), 200)}")

    def _request(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """Send `message` and read the one-line reply, both within `timeout` seconds
        (None: no limit). Whatever goes wrong on the way is the bot's BotFault: a write
        or a reply that does not finish in time ("timeout"), a closed channel ("crash"),
        a reply that is not one protocol message within the size and nesting limits of
        `arena.protocol.decode_reply` ("garbage"); all of them end the process."""
        proc = self._proc
        if proc is None:
            raise BotFault(FaultKind.CRASH, "is not running", fatal=True)
        deadline = None if timeout is None else time.monotonic() + timeout
        self._write(proc, encode(message), timeout, deadline)
        if b"\n" not in self._buffer:
            self._read_line(proc, timeout, deadline)
        line, self._buffer = self._buffer.split(b"\n", 1)
        # One reply per request: garbage, or bytes beyond the reply, would put every later
        # answer out of step with its request, so either ends this process.
        if self._buffer:
            self._kill_group()
            raise BotFault(FaultKind.GARBAGE, f"wrote more than one line in reply to {message['type']!r}", fatal=True)
        try:
            return decode_reply(line)
        except ProtocolError as exc:
            self._kill_group()
            raise BotFault(FaultKind.GARBAGE, str(exc), fatal=True) from None
        except Exception as exc:  # noqa: BLE001 - whatever a reply provokes is the bot's fault
            self._kill_group()
            raise BotFault(FaultKind.GARBAGE, f"undecodable reply ({type(exc).__name__})", fatal=True) from None

    def _write(self, proc: subprocess.Popen[bytes], data: bytes, timeout: float | None,
               deadline: float | None) -> None:
        """Write `data` to the bot's stdin, made non-blocking, by `deadline` (a
        time.monotonic() value, None for none): a bot that stops reading its input
        cannot hold the harness; past the deadline it is a fatal "timeout" fault."""
        writer = self._writer
        if writer is None or writer[0] is not proc:
            assert proc.stdin is not None  # started with stdin=PIPE
            fd = proc.stdin.fileno()
            os.set_blocking(fd, False)
            poller = select.poll()
            poller.register(fd, select.POLLOUT)
            writer = self._writer = (proc, fd, poller)
        fd = writer[1]
        try:
            written = os.write(fd, data)  # the usual case: the pipe has room for all of it
        except BlockingIOError:
            written = 0
        except OSError:  # EPIPE: it closed its input
            raise self._died() from None
        if written == len(data):
            return
        view = memoryview(data)
        poll = writer[2].poll
        while written < len(data):
            if deadline is None:
                events = poll()
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._kill_group()
                    raise BotFault(FaultKind.TIMEOUT, f"did not read its input within {timeout:.3g} s", fatal=True)
                events = poll(max(1, math.ceil(remaining * 1000)))
            if not events:
                continue
            try:
                written += os.write(fd, view[written:])
            except BlockingIOError:
                continue
            except OSError:
                raise self._died() from None

    def _read_line(self, proc: subprocess.Popen[bytes], timeout: float | None,
                   deadline: float | None = None) -> None:
        """Read from the bot until a whole line is buffered, by `deadline` (default:
        `timeout` seconds from now), at most MAX_REPLY_BYTES of it. One round trip per
        decision: the poll object lives as long as the process."""
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        assert proc.stdout is not None  # started with stdout=PIPE
        fd = proc.stdout.fileno()
        watch = self._watch_fd
        if self._poller is None or self._poller[0] != (fd, watch):
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if watch is not None:
                poller.register(watch, select.POLLIN)
            self._poller = ((fd, watch), poller)
        poll = self._poller[1].poll
        while True:
            if deadline is None:
                ready = poll()
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._kill_group()
                    raise BotFault(FaultKind.TIMEOUT, f"gave no answer within {timeout:.3g} s", fatal=True)
                ready = poll(max(1, math.ceil(remaining * 1000)))  # milliseconds, rounded up
            if not ready:
                continue
            if watch is not None and all(event_fd == watch for event_fd, _ in ready):
                raise self._died()  # what answers (see _watch_fd) is gone, and said nothing
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                raise self._died() from None
            if not chunk:
                raise self._died()
            self._buffer += chunk
            if b"\n" in chunk:
                return
            if len(self._buffer) > MAX_REPLY_BYTES:
                self._kill_group()
                raise BotFault(FaultKind.GARBAGE, f"sent more than {MAX_REPLY_BYTES >> 20} MiB without a newline",
                               fatal=True)

    def _died(self) -> BotFault:
        """The fault of a bot whose channel closed: killed first (a bot that closed its
        stdout but runs on is stopped, not waited for), then its exit status read."""
        proc = self._proc
        self._kill_group()
        code = proc.returncode if proc is not None else None
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            kind = FaultKind.TIMEOUT if -code == signal.SIGXCPU else FaultKind.CRASH  # SIGXCPU: the CPU-time limit
            return BotFault(kind, f"was killed by {name}", fatal=True)
        return BotFault(FaultKind.CRASH, f"exited with code {code}", fatal=True)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


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
