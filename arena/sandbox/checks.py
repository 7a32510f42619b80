"""Checking a zygote and its game process from outside, through /proc.

The zygote checks itself before every fork, but it runs in the interpreter that
imported the bot: import-time code could rewrite those checks. So the harness
checks again, from outside, once the zygote is stopped (it stays stopped for the
whole game) and before the game starts: nothing the bot's code does can change what
is read here. A game may start only if:

- the zygote runs one thread, maps nothing shared and writable, and is not
  dumpable (so no process of its uid can read or write its memory);
- every descriptor of both is what the harness made (`Descriptors`),
  compared by what it points to, not by its number: 0 is /dev/null, 1 and 2 the
  bot's log (write-only, append-only), 3 and 4 the harness's pipes. Anything else
  (a file of the zygote's /tmp moved onto descriptor 0, say) would carry notes
  from one game to the next;
- the zygote cannot learn how the game process ends: it is the game's parent only
  with SIGCHLD ignored (the kernel reaps the game), and shares no memory with it;
- the game process has no capability left (and cannot gain one), runs under more
  seccomp filters than the zygote, the game's own (`seccomp.game_program`, read back
  through ptrace) among them,
  maps nothing shared and writable, is in user, PID, mount and IPC namespaces of
  its own (the network one is the sandbox's: its filter allows unix sockets only;
  where there is no filter, a network namespace of its own too), sees a /tmp that is
  not the zygote's and an empty /proc,
  and can write into no filesystem the zygote can reach (every writable mount it
  sees is one it made). The zygote's filesystems are the sandbox's own, read once
  (`SandboxMounts`), while it is in the sandbox's mount namespace, where nothing of
  the bot can mount; a zygote in a namespace of its own has its mounts read each time.

Where the harness may not read another process's /proc files (a harness that is
not root), the checks it cannot make are skipped; docs/security.md says so.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import re
import signal
import stat
import time
from dataclasses import dataclass
from typing import NamedTuple

from arena.sandbox import mappings, seccomp

PROTOCOL_FDS = frozenset({0, 1, 2, 3, 4})
NAMESPACES = ("user", "pid", "mnt", "ipc") + (("net",) if seccomp.game_program() is None else ())
"""A game's own. It shares its zygote's network namespace (the sandbox's, loopback only),
where its seccomp filter lets it open unix sockets only (`seccomp.SOCKET_RULES`), unless
this machine has no filter: then it has a network namespace of its own too."""
DEV_NULL = os.makedev(1, 3)
SHARED_DEVICES = ("devtmpfs", "devpts")
"""Filesystems a game may share with its zygote: device nodes (/dev/null and the
like) keep nothing, and a pseudo-terminal dies with the game that opened it."""


@dataclass(frozen=True)
class Descriptors:
    """What the harness gave a sandbox's processes: the log file (device, inode)
    and the inodes of the pipes it reads (3) and writes (4) through."""

    log: tuple[int, int]
    channel_in: int
    channel_out: int

    def problem(self, pid: int) -> str | None:
        """What is wrong with `pid`'s descriptors, naming the first one that is not
        what the harness made, or None."""
        for fd in sorted(_fds(pid)):
            link = f"/proc/{pid}/fd/{fd}"
            try:
                target = os.stat(link)
            except FileNotFoundError:  # closed while listed
                continue
            if fd == 0 and stat.S_ISCHR(target.st_mode) and target.st_rdev == DEV_NULL:
                continue
            if fd in (1, 2) and (target.st_dev, target.st_ino) == self.log and _write_append_only(pid, fd):
                continue
            if stat.S_ISFIFO(target.st_mode) and (fd, target.st_ino) in ((3, self.channel_in), (4, self.channel_out)):
                continue
            expected = {0: "/dev/null", 1: "its log, write-only", 2: "its log, write-only",
                        3: "the harness's pipe", 4: "the harness's pipe"}.get(fd, "nothing")
            return f"has descriptor {fd} open on {_describe(link)} (expected {expected})"
        return None


FLAGS = re.compile(rb"^flags:\s+([0-7]+)$", re.MULTILINE)


def _write_append_only(pid: int, fd: int) -> bool:
    found = FLAGS.search(_read(f"/proc/{pid}/fdinfo/{fd}"))
    flags = int(found.group(1), 8) if found else os.O_RDWR
    return flags & os.O_ACCMODE == os.O_WRONLY and bool(flags & os.O_APPEND)


def _describe(link: str) -> str:
    try:
        return os.readlink(link)[:120]
    except OSError:
        return "something that closed while it was read"


class Unreadable(Exception):
    """A /proc file the harness may not read (it is not root)."""


def _read(path: str, limit: int = 1 << 20) -> bytes:
    """A /proc file's first `limit` bytes (all of it), read without a buffer between."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except PermissionError as exc:
        raise Unreadable(path) from exc
    try:
        chunks, size = [], 0
        while size < limit and (chunk := os.read(fd, min(limit - size, 1 << 16))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


STATUS_FIELD = re.compile(rb"^(Threads|SigIgn|CapPrm|CapEff|NoNewPrivs|Seccomp_filters):\s*(\S+)$", re.MULTILINE)
SIGCHLD_IGNORED = 1 << (signal.SIGCHLD - 1)  # its bit in SigIgn
KCMP = seccomp.ABIS.get(platform.machine(), [(0, {})])[0][1].get("kcmp")
KCMP_VM = 1


def _status(pid: int) -> dict[str, str]:
    """The fields of /proc/PID/status the checks use (`STATUS_FIELD`), one read."""
    return {key.decode(): value.decode() for key, value in STATUS_FIELD.findall(_read(f"/proc/{pid}/status"))}


def _fds(pid: int) -> set[int]:
    try:
        return {int(fd) for fd in os.listdir(f"/proc/{pid}/fd")}
    except PermissionError as exc:
        raise Unreadable(f"/proc/{pid}/fd") from exc


def _shared_writable(pid: int) -> str | None:
    try:
        return mappings.shared_writable(f"/proc/{pid}/maps")
    except PermissionError as exc:
        raise Unreadable(f"/proc/{pid}/maps") from exc


def _dumpable(pid: int) -> bool:
    # The kernel gives a non-dumpable process's /proc files to root.
    return os.stat(f"/proc/{pid}/mem").st_uid != 0


class Mount(NamedTuple):
    """One line of /proc/PID/mountinfo. `device` names the filesystem (one tmpfs,
    wherever it is mounted or bound); mount ids differ between namespaces."""

    id: str
    parent: str
    device: str
    point: str
    writable: bool
    fstype: str


def _mounts(pid: int) -> list[Mount]:
    """The mounts `pid` sees, in mount order."""
    found = []
    for line in _read(f"/proc/{pid}/mountinfo").decode("utf-8", "replace").splitlines():
        fields = line.split()  # a mount point's spaces are escaped (\040): one field each
        if "-" in fields[6:-1]:  # the optional fields end at "-", then the filesystem type
            fstype = fields[fields.index("-", 6) + 1]
            found.append(Mount(fields[0], fields[1], fields[2], fields[4], "rw" in fields[5].split(","), fstype))
    return found


def _devices(pid: int) -> set[str]:
    """The filesystems (major:minor) of every mount `pid` sees."""
    return {line.split(b" ", 3)[2].decode() for line in _read(f"/proc/{pid}/mountinfo").splitlines() if line}


@dataclass(frozen=True)
class SandboxMounts:
    """The filesystems of a sandbox's own mount namespace, read once from its init (bwrap's),
    for the checks of all its games: no process of the bot can change that namespace's
    mounts (it has no capability there), so a zygote still in it sees exactly these. A
    zygote in a namespace of its own (import-time code can make one, and mount in it)
    has its mounts read at every check."""

    namespace: str
    devices: frozenset[str]

    @classmethod
    def of(cls, init: int) -> "SandboxMounts | None":
        try:
            return cls(os.readlink(f"/proc/{init}/ns/mnt"), frozenset(_devices(init)))
        except (OSError, Unreadable):
            return None

    def devices_of(self, zygote: int) -> set[str] | frozenset[str]:
        """The filesystems `zygote` sees: these, if it is in this namespace."""
        try:
            if os.readlink(f"/proc/{zygote}/ns/mnt") == self.namespace:
                return self.devices
        except PermissionError:
            pass
        return _devices(zygote)


def wait_stopped(pids: list[int], seconds: float = 2.0) -> bool:
    """Whether every one of `pids` (sent SIGSTOP) is now stopped, or gone."""
    deadline = time.monotonic() + seconds
    while True:
        states = []
        for pid in pids:
            try:
                states.append(_read(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()[0])
            except (OSError, Unreadable, IndexError):
                states.append(b"X")
        if all(state in b"TtXZ" for state in states):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0002)


def problem(zygote: int, game: int, descriptors: Descriptors | None = None,
            sandbox: SandboxMounts | None = None) -> str | None:
    """Why the game process may not start, or None. Without `descriptors` (what the
    harness made), only the descriptors' numbers are checked; `sandbox`: the sandbox's
    own mounts, read once (else the zygote's are read)."""
    try:
        return _problem(zygote, game, descriptors, sandbox)
    except OSError:  # ENOENT, or ESRCH from a /proc file of a process that died while read
        return "a process of the sandbox ended while it was being checked"


def _problem(zygote: int, game: int, descriptors: Descriptors | None, sandbox: SandboxMounts | None) -> str | None:
    statuses = {pid: _status_or_none(pid) for pid in (zygote, game)}  # each read once
    return (_processes_problem(zygote, game, descriptors, statuses) or _reaping_problem(zygote, game, statuses[zygote])
            or _privileges_problem(statuses[zygote], statuses[game], game)
            or _namespaces_problem(zygote, game) or _mounts_problem(zygote, game, sandbox))


def _status_or_none(pid: int) -> dict[str, str] | None:
    try:
        return _status(pid)
    except Unreadable:
        return None


def _processes_problem(zygote: int, game: int, descriptors: Descriptors | None,
                       statuses: dict[int, dict[str, str] | None]) -> str | None:
    """Threads, descriptors and shared mappings of both (`statuses`: their status
    fields, None where unreadable); whether the zygote is dumpable."""
    fd_check = _descriptors if descriptors is None else descriptors.problem
    for pid, who in ((zygote, "zygote"), (game, "game process")):
        status = statuses[pid]
        threads = None if status is None or status.get("Threads") == "1" else status.get("Threads", "?")
        if threads is not None:
            return f"its {who} runs {threads} threads"
        for check in (fd_check, _mappings):
            try:
                if (found := check(pid)) is not None:
                    return f"its {who} {found}"
            except Unreadable:
                pass
    if os.geteuid() == 0 and _dumpable(zygote):
        return "its zygote is dumpable (its memory could be written through /proc)"
    return None


def _reaping_problem(zygote: int, game: int, zygote_status: dict[str, str] | None) -> str | None:
    """The zygote can learn nothing of how its game process ends: it is the game process's
    parent only with SIGCHLD ignored and a game that exits with SIGCHLD (then the kernel
    reaps the game: `wait4` and RUSAGE_CHILDREN tell the zygote nothing, not its CPU time,
    peak memory or exit code); else the game's parent is the sandbox's init (`admit_game`).
    Nothing else can change the zygote's SIGCHLD while it is stopped: only a process
    sharing its memory could share its signal handlers, and the game process shares none."""
    fields = _read(f"/proc/{game}/stat").rsplit(b")", 1)[1].split()
    if int(fields[1]) == zygote and zygote_status is not None and not (
            int(zygote_status.get("SigIgn", "0"), 16) & SIGCHLD_IGNORED and int(fields[35]) == signal.SIGCHLD):
        return "its zygote could reap its game process (SIGCHLD is not ignored) and learn how it ended"
    if _same_memory(zygote, game):
        return "its game process shares the zygote's memory"
    return None


def _same_memory(one: int, other: int) -> bool:
    """Whether two processes share one address space (kcmp; False where it cannot be asked)."""
    if KCMP is None or os.geteuid() != 0:
        return False
    libc = _ptrace_libc()
    return libc.syscall(KCMP, one, other, KCMP_VM, 0, 0) == 0


def _privileges_problem(zygote_status: dict[str, str] | None, status: dict[str, str] | None,
                        game: int) -> str | None:
    """The game process's capabilities, no_new_privs and seccomp filters (from its and the
    zygote's status fields, None where unreadable)."""
    if zygote_status is None or status is None:
        return None
    try:
        if int(status.get("CapEff", "1"), 16) or int(status.get("CapPrm", "1"), 16):
            return "its game process kept capabilities"
        if status.get("NoNewPrivs") != "1":
            return "its game process could gain privileges (no_new_privs is off)"
        filters = int(zygote_status.get("Seccomp_filters", "0"))
        total = int(status.get("Seccomp_filters", "0"))
        if total - filters <= 0:
            return "its game process runs without the game's seccomp filter"
        expected = seccomp.game_program()
        if expected is not None and os.geteuid() == 0 and not _has_filter(game, total, expected):
            return "its game process runs without the game's seccomp filter (another filter is in its place)"
    except ValueError:
        pass
    return None


def _namespaces_problem(zygote: int, game: int) -> str | None:
    try:
        for name in NAMESPACES:
            if os.readlink(f"/proc/{game}/ns/{name}") == os.readlink(f"/proc/{zygote}/ns/{name}"):
                return f"its game process shares the zygote's {name} namespace"
    except PermissionError:
        pass
    return None


def _mounts_problem(zygote: int, game: int, sandbox: SandboxMounts | None) -> str | None:
    """A fresh /tmp, an empty /proc, and no writable filesystem the zygote also has."""
    try:
        zygote_devices = _devices(zygote) if sandbox is None else sandbox.devices_of(zygote)
        game_mounts = _mounts(game)
    except Unreadable:
        return None
    covered = {(mount.parent, mount.point) for mount in game_mounts}
    visible = {mount.point: mount for mount in game_mounts if (mount.id, mount.point) not in covered}
    tmp = visible.get("/tmp")
    if tmp is None or tmp.fstype != "tmpfs" or tmp.device in zygote_devices:
        return "its game process sees the zygote's /tmp, not a fresh one"
    proc = visible.get("/proc")
    if proc is None or proc.fstype != "tmpfs" or proc.device in zygote_devices:
        return "its game process can see /proc"
    for mount in visible.values():
        if mount.writable and mount.device in zygote_devices and mount.fstype not in SHARED_DEVICES:
            return f"its game process can write into the zygote's {mount.fstype} at {mount.point[:100]}"
    return None


PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH, PTRACE_SECCOMP_GET_FILTER = 0x4206, 0x4207, 17, 0x420C
WALL = 0x40000000


@functools.cache
def _ptrace_libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    libc.syscall.restype = ctypes.c_long
    return libc


def _has_filter(pid: int, count: int, code: bytes) -> bool:
    """Whether one of the `count` seccomp filters of `pid` is exactly `code` (then it is
    in force: every filter of a process runs, the strictest answer wins). The count alone
    does not tell: code in the zygote could install any filter in the game's place. Read
    back through ptrace (root only): attach, interrupt, read, detach. Where the machine
    forbids that (Yama's ptrace_scope 3, a kernel without PTRACE_SECCOMP_GET_FILTER), the
    count stands alone: True."""
    libc = _ptrace_libc()
    if libc.ptrace(PTRACE_SEIZE, pid, None, None) != 0:
        if ctypes.get_errno() == errno.ESRCH:
            raise ProcessLookupError(pid)  # ended while checked: problem() says so
        return True  # not allowed here
    try:
        # A stopped process is in a ptrace stop once seized (the kernel moves it there before
        # PTRACE_SEIZE returns): its filters can be read at once. Else interrupt it first.
        if libc.ptrace(PTRACE_SECCOMP_GET_FILTER, pid, ctypes.c_void_p(0), None) < 0 \
                and ctypes.get_errno() == errno.ESRCH:
            if libc.ptrace(PTRACE_INTERRUPT, pid, None, None) != 0:
                raise ProcessLookupError(pid)
            os.waitpid(pid, WALL)
        buffer = ctypes.create_string_buffer(len(code))
        for index in range(count):
            length = libc.ptrace(PTRACE_SECCOMP_GET_FILTER, pid, ctypes.c_void_p(index), None)
            if length < 0:
                if ctypes.get_errno() in (errno.EINVAL, errno.EACCES, errno.EPERM, errno.EIO) and index == 0:
                    return True  # this kernel cannot show filters
                return False
            if length * 8 == len(code) and libc.ptrace(PTRACE_SECCOMP_GET_FILTER, pid, ctypes.c_void_p(index),
                                                        buffer) == length and buffer.raw == code:
                return True
        return False
    except ChildProcessError as exc:
        raise ProcessLookupError(pid) from exc
    finally:
        libc.ptrace(PTRACE_DETACH, pid, None, None)


def _descriptors(pid: int) -> str | None:
    extra = sorted(_fds(pid) - PROTOCOL_FDS)
    return None if not extra else f"holds descriptors {extra[:5]} besides the protocol's"


def _mappings(pid: int) -> str | None:
    line = _shared_writable(pid)
    return None if line is None else f"maps memory shared and writable ({line})"
