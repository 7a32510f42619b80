"""The fork server that runs inside a Python bot's sandbox:
``python -m arena.sandbox.zygote BOT_NAME TMP_MB [--plugins-of DISTRIBUTION ...]``.

It loads the bot once (imports are the slow part of starting a bot), then plays
each game in a fresh process forked from that loaded state, so a game starts in
a few milliseconds and nothing one game does can reach another:

- before each fork it checks that it is still as the import left it: one thread,
  no other process in its sandbox, no descriptors but the protocol's (each still
  the file or pipe it was before the import), no shared writable mapping, and not
  dumpable (no game can write into its memory). A failed check is reported to the
  harness as the bot's fault;
- the game process gets new user, PID, mount and IPC namespaces (`_fork_game`): it cannot see or
  signal the zygote or any earlier game, System V IPC starts empty, `/tmp` (its
  working directory) and `/dev/shm` are fresh, size-capped tmpfs, `/proc` is empty;
  then it drops every capability, becomes undumpable and adds the game's seccomp
  filter (no new namespaces, no mounts, no socket but a unix one: it shares the
  sandbox's network namespace, loopback only, where nothing of it can outlive it).

It imports `arena` and the plugins of the distributions named after ``--plugins-of``
only (the bot's, its rulesets' and their helpers', `arena.plugins.restrict`), or
every installed plugin when none are named; a bot from a file (``PATH.py:Class``)
is imported from its file.

Import-time code runs in this interpreter and could rewrite these checks, so the
harness does not rely on them alone: it stops the zygote for the whole game and
checks it and the game process from outside (`arena.sandbox.checks`) before the game
starts, then kills the game's processes before it lets the zygote run again.

The protocol is `arena.protocol`'s, with messages of its own. The harness sends
`hello` once (with ``"pause": true`` when it stops and checks every game from
outside, and resumes the zygote after it). The zygote keeps the next game's process
ready (forked with one `clone` into its namespaces and set up before its game
starts). With `pause` the game process tells the zygote on a private pipe, and the
zygote says ``{"type": "ready"}`` (the harness then stops the zygote and the game
process, checks both and holds them: nothing here stops itself, so no stop of its
own can land after the harness resumed it); without, the game process says it. The
game process then reads the game's `start` and answers it and the game's `act` and
`end` messages itself on the same channel. When it has ended (the harness kills it
after `end`) the zygote reports ``{"type": "exit", "code": C}`` (C: None with
`pause`, where the kernel reaps the game process and its end is not the zygote's
to see) and forks the next one when the harness sends ``{"type": "next"}``
(with `pause`: it reads `next` first, then reports).
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
import random
import signal
import stat
import sys
import time
import traceback

from arena.sandbox import mappings, seccomp

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 0x1, 0x2, 0x4, 0x8, 0x20, 0x1000, 0x4000
PR_SET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 3, 4, 38
CAPABILITY_VERSION_3 = 0x20080522
CHANNEL_IN, CHANNEL_OUT = 3, 4  # the protocol's private descriptors

_libc = ctypes.CDLL(None, use_errno=True)
_GAME_FILTER = seccomp.game_program()
_GAME_NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | (CLONE_NEWNET if _GAME_FILTER is None else 0)
"""A game's own namespaces: a network one only where no filter keeps it to unix sockets."""
_CLONE = seccomp.ABIS.get(platform.machine(), [(0, {})])[0][1].get("clone")
"""The number of this machine's `clone` system call (None: not known here, `_fork_game` forks twice).
Not `clone3`: the sandbox's filter refuses it (its flags are out of a filter's reach)."""
_syscall = ctypes.PyDLL(None, use_errno=True).syscall  # a PyDLL call keeps the GIL, as os.fork does
_syscall.restype = ctypes.c_long


class SandboxCheckError(Exception):
    """The zygote is no longer fit to fork a clean game process."""


_IDENTITIES: dict[int, tuple[int, int, int]] = {}
"""What descriptors 0-4 were before the bot was imported: (device, inode, rdev)."""


def _identity(fd: int) -> tuple[int, int, int] | None:
    try:
        found = os.fstat(fd)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_rdev


def _private_channel() -> None:
    """Move the protocol to fds 3 and 4; fd 0 reads /dev/null, fd 1 goes to the log."""
    os.dup2(0, CHANNEL_IN)
    os.dup2(1, CHANNEL_OUT)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


class Channel:
    """Line-delimited messages on the private descriptors."""

    def __init__(self) -> None:
        self.buffer = b""

    def read(self) -> dict | None:
        from arena.protocol import decode

        while b"\n" not in self.buffer:
            chunk = os.read(CHANNEL_IN, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return decode(line)

    @staticmethod
    def send(message: dict) -> None:
        from arena.protocol import encode

        data = encode(message)
        while data:
            data = data[os.write(CHANNEL_OUT, data):]


def check_fit_to_fork(wait: float = 2.0) -> None:
    """Raise SandboxCheckError unless nothing of this process can outlive a game
    (`wait`: seconds other processes of the sandbox get to finish exiting)."""
    tasks = os.listdir("/proc/self/task")
    if len(tasks) != 1:
        raise SandboxCheckError(f"{len(tasks)} threads are running (import-time code started threads)")
    deadline = time.monotonic() + wait  # the last game's processes were killed, and may be exiting
    while (others := _other_processes()) and time.monotonic() < deadline:
        time.sleep(0.0005)
    if others:
        raise SandboxCheckError(f"other processes run in the sandbox (pids {others[:5]})")
    listed = sorted(int(f) for f in os.listdir("/proc/self/fd"))
    extra = [fd for fd in listed if fd not in (0, 1, 2, CHANNEL_IN, CHANNEL_OUT) and _is_open(fd)]
    if extra:
        raise SandboxCheckError(f"descriptors {extra[:5]} are open besides the protocol's")
    for fd, before in sorted(_IDENTITIES.items()):
        if _identity(fd) not in (before, None):
            raise SandboxCheckError(f"descriptor {fd} was replaced (it is now {_describe(fd)})")
    if (mapping := mappings.shared_writable("/proc/self/maps")) is not None:
        raise SandboxCheckError(f"a shared writable mapping is open: {mapping}")
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if _libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SandboxCheckError("cannot make the zygote non-dumpable")


def import_plugins_checked() -> str | None:
    """Import the module of every `arena` entry point this process loads (those of the
    distributions `arena.plugins.restrict` named, else all), in the order `load_registry`
    loads them, checking after each one that this process is still fit to fork;
    returns the distribution after whose import it first was not (None: none). Then
    `load_registry` finds them imported. A plugin that fails to import is left for
    `load_registry` to report."""
    import importlib

    from arena.plugins import entry_points_of

    check = check_fit_to_fork  # as it is before any plugin runs
    for entry_point in entry_points_of():
        try:
            importlib.import_module(entry_point.module)
        except Exception:  # noqa: BLE001 - reported by load_registry
            continue
        try:
            check(wait=0.0)
        except SandboxCheckError:
            return entry_point.dist.name if entry_point.dist else entry_point.value
    return None


def _describe(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")[:100]
    except OSError:
        return "unreadable"


def _other_processes() -> list[int]:
    """Live processes of this user in the sandbox besides its init (pid 1) and this one
    (the harness keeps one of its own here: `arena.sandbox.pid_counter`)."""
    return sorted(int(p) for p in os.listdir("/proc")
                  if p.isdigit() and int(p) not in (1, os.getpid()) and _mine(int(p)) and _alive(int(p)))


def _mine(pid: int) -> bool:
    try:
        return os.stat(f"/proc/{pid}").st_uid == os.getuid()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    """Whether `pid` is a process that can still run (not a zombie awaiting its reaper)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _is_open(fd: int) -> bool:
    """Whether `fd` is open (the listing's own descriptor is closed once listed)."""
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")


def _fork_game(pause: bool) -> int:
    """Fork the game's process into new user, PID, mount and IPC namespaces (the init of
    its PID namespace): 0 in it, its pid in the zygote. Not a network namespace (making
    and later freeing one cost 1.5-2 ms of CPU a game): the sandbox's own (loopback only)
    is shared by its games, which the game's seccomp filter lets open unix sockets only
    (`seccomp.SOCKET_RULES`); a new one where this machine has no filter.

    One `clone` system call (a fork of the loaded bot costs ~1.5 ms of CPU: one, not two).
    The zygote's child. With `pause` the zygote ignores SIGCHLD first, so the kernel reaps
    the game process at its end (nothing is left for `wait4`: the zygote learns nothing of
    how it ended, not even its resource usage), and the game process takes SIGCHLD back
    (the harness checks both from outside: `checks`). Its parent is stopped for the whole
    game, so the game's stops and resumptions wake no one: a child of the sandbox's init,
    waiting in `wait()`, woke it twice a decision. Without `pause` the zygote reports the
    game's exit code. Where the `clone` number is not known: fork, `unshare`, fork again;
    the middle process exits at once with `pause` (its child goes to the sandbox's init),
    else it waits and passes on the game's exit code. Either way the game process writes
    its own uid and gid maps (`_write_id_maps`)."""
    if _CLONE is not None:
        if pause:
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        ctypes.pythonapi.PyOS_BeforeFork()  # what os.fork does around fork(): locks, at-fork hooks
        pid = _syscall(ctypes.c_long(_CLONE), ctypes.c_ulong(_GAME_NAMESPACES | signal.SIGCHLD), None, None, None,
                       None)
        if pid == 0:
            ctypes.pythonapi.PyOS_AfterFork_Child()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the init of its PID namespace reaps its own
            return 0
        error = ctypes.get_errno()
        ctypes.pythonapi.PyOS_AfterFork_Parent()
        if pid < 0:
            raise OSError(error, f"clone: {os.strerror(error)}")
        return pid
    middle = os.fork()
    if middle != 0:
        if pause:
            os.waitpid(middle, 0)  # it ended at once
        return middle
    status = 70
    try:
        _check(_libc.unshare(_GAME_NAMESPACES), "unshare")
        game = os.fork()
        if game == 0:
            return 0
        status = 0 if pause else os.waitstatus_to_exitcode(os.waitpid(game, 0)[1])
        status = status if status >= 0 else 128 - status
    except BaseException:
        traceback.print_exc()
    finally:
        if os.getpid() != 1:  # not the game process: the middle one ends here
            sys.stderr.flush()
            os._exit(status)
    return 0


def _write_id_maps(uid: int, gid: int) -> None:
    """In the game process, in its new user namespace: its uid and gid are the zygote's."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def bound_under_tmp() -> list[str]:
    """What the sandbox binds below /tmp (code on the import path), outermost first: a
    game process binds it again on its fresh /tmp. Read once, before any bot code runs:
    a zygote that changed its mounts since gets no other binds (and the harness's outside
    check still finds a game's /tmp fresh, or fails)."""
    with open("/proc/self/mountinfo") as mountinfo:
        return sorted({line.split()[4] for line in mountinfo if line.split()[4].startswith("/tmp/")}, key=len)


class _CapabilityHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapabilityData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _fresh_files(tmp_mb: int, under_tmp: list[str]) -> None:
    """Fresh tmpfs on /tmp and /dev/shm (`under_tmp`, code the sandbox bound below /tmp,
    is bound again on top, read-only), an empty read-only /proc (the sandbox's shows the
    zygote), then no capabilities at all, and not dumpable."""
    kept = [(path, os.open(path, os.O_PATH)) for path in under_tmp]
    options = f"size={tmp_mb << 20},mode=1777".encode()
    for target in (b"/tmp", b"/dev/shm"):
        if os.path.isdir(target):
            _check(_libc.mount(b"tmpfs", target, b"tmpfs", MS_NOSUID | MS_NODEV, options), f"mount {target!r}")
    for path, fd in kept:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.makedirs(path, exist_ok=True)
        else:  # a module file, bound on its own
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o444))
        source = f"/proc/self/fd/{fd}".encode()
        _check(_libc.mount(source, path.encode(), None, MS_BIND | MS_REC, None), f"bind {path}")
        _check(_libc.mount(None, path.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
                           None), f"read-only {path}")
        os.close(fd)
    os.chdir("/tmp")
    _check(_libc.mount(b"tmpfs", b"/proc", b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       b"size=4k,mode=555"), "hide /proc")
    _check(_libc.capset(ctypes.byref(_CapabilityHeader(CAPABILITY_VERSION_3, 0)), (_CapabilityData * 2)()), "capset")
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if _GAME_FILTER is not None:
        seccomp.install(_GAME_FILTER, _libc)


def play_game(bot_cls: type, start: dict, channel: Channel) -> int:
    """Answer one game's messages, from its `start` to its `end`; the exit code."""
    bot = None
    message: dict | None = start
    while message is not None:
        kind = message.get("type")
        try:
            if kind == "start":
                bot = bot_cls(**message.get("params", {}))
                bot.rng = random.Random(message["seed"])
                bot.start(message["info"])
                channel.send({"type": "ok"})
            elif kind == "act":
                if bot is None:  # its start failed (was an AttributeError on None)
                    raise RuntimeError("'act' before a game's start")
                channel.send({"type": "action", "action": bot.act(message["observation"])})
            elif kind == "end":
                try:
                    if bot is None:
                        raise RuntimeError("'end' before a game's start")
                    bot.end(message["outcome"])
                finally:
                    channel.send({"type": "ok"})
                return 0
            else:
                channel.send({"type": "error", "message": f"unexpected message type {kind!r} in a game"})
        except Exception as exc:
            traceback.print_exc()
            channel.send({"type": "error", "message": f"{type(exc).__name__}: {exc}"})
        message = channel.read()
    return 0


def _game_process(bot_cls: type, channel: Channel, tmp_mb: int, under_tmp: list[str], ids: tuple[int, int],
                  ready: tuple[int, int]) -> None:
    """In the game process (`_fork_game`'s child, in its new namespaces, with the zygote's
    uid and gid `ids`): make its id maps and fresh files, say it is ready, then wait for
    the game's `start` and play it. With `pause`, it says so to the zygote alone, on the
    pipe `ready` (read end, write end), whose ends it closes (it keeps no descriptor of
    it); else to the harness, on the channel."""
    said, told = ready
    code = 70
    try:
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # until its maps and files are set up (/proc/self)
        if said < 0:  # the zygote's child: its namespace dies with the zygote
            _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
        _write_id_maps(*ids)
        _fresh_files(tmp_mb, under_tmp)
        if said >= 0:  # the harness hears from the zygote, then stops and checks both
            from arena.protocol import encode

            encode({"type": "ready"})  # what replying first touches is copied now, not in its start
            os.close(said)
            os.write(told, b"r")
            os.close(told)
        else:
            channel.send({"type": "ready"})  # the harness checks this process, then starts it
        start = channel.read()
        code = 0 if start is None or start.get("type") != "start" else play_game(bot_cls, start, channel)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)


def _said_ready(said: int, told: int) -> bool:
    """In the zygote: whether the game process said on the pipe that it is ready (read
    until it closed its end, so that it holds no descriptor of it)."""
    os.close(told)
    word = b""
    while chunk := os.read(said, 16):
        word += chunk
    os.close(said)
    return word == b"r"


def _serve_game(bot_cls: type, channel: Channel, tmp_mb: int, under_tmp: list[str], pause: bool) -> dict | None:
    """Fork one game's process, report its end (``exit``); the harness's next message."""
    sys.stderr.flush()
    ids = os.getuid(), os.getgid()
    ready = os.pipe() if pause else (-1, -1)
    pid = _fork_game(pause)
    if pid == 0:
        _game_process(bot_cls, channel, tmp_mb, under_tmp, ids, ready)
    channel.buffer = b""  # what was read ahead is the game process's (its `start`)
    if pause:
        # Reaped by the kernel (SIGCHLD ignored): the harness ends it, then lets this zygote
        # read `next`; its end is not this zygote's to see (None). The harness stops this zygote once it hears
        # `ready` and keeps it stopped for the game: nothing here stops itself.
        if _said_ready(*ready):
            channel.send({"type": "ready"})
            message = channel.read()
            channel.send({"type": "exit", "code": None})
            return message
        channel.send({"type": "exit", "code": None})
        return channel.read()
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code > 128 and _CLONE is None:
        code = 128 - code  # the game process died of signal code-128 (the middle process's word): -N
    channel.send({"type": "exit", "code": code})
    return channel.read()


def serve(bot_name: str, tmp_mb: int, distributions: list[str] | None = None) -> int:
    """Load the bot (the plugins of `distributions` only; None: every installed plugin),
    then keep one game process ready: fork it, report how it ended (``exit``), and fork
    the next when the harness says ``next``."""
    _private_channel()
    under_tmp = bound_under_tmp()
    _IDENTITIES.update({fd: identity for fd in (0, 1, 2, CHANNEL_IN, CHANNEL_OUT)
                        if (identity := _identity(fd)) is not None})
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    channel = Channel()
    hello = channel.read()
    if hello is None:
        return 0
    from arena.protocol import PROTOCOL_VERSION

    try:
        import arena.rulesets
        from arena.plugins import restrict

        restrict(distributions)
        culprit = import_plugins_checked()
        registry = arena.rulesets.registry()  # loaded once here: every game process inherits it
        if ".py:" in bot_name:  # a bot in a file (absolute PATH.py:Class), its folder bound read-only
            from arena.api import bot_from_file

            bot_cls = bot_from_file(bot_name)
        else:
            bot_cls = registry.bot(bot_name).cls
    except Exception as exc:
        traceback.print_exc()
        channel.send({"type": "error", "message": f"cannot load bot {bot_name!r}: {type(exc).__name__}: {exc}"})
        return 1
    channel.send({"type": "hello", "protocol": PROTOCOL_VERSION, "bot": bot_cls.name})
    pause = hello.get("pause") is True  # the harness resumes this zygote after each game
    # What the import made stays put in every game process: a collection there would walk
    # (and so copy, page by page, from the zygote) every object of it.
    gc.collect()
    gc.freeze()
    while True:
        try:
            check_fit_to_fork()
        except SandboxCheckError as exc:
            blame = f" (first seen after importing the distribution {culprit!r})" if culprit else ""
            channel.send({"type": "error", "message": f"sandbox check failed: {exc}{blame}"})
            return 1
        message = _serve_game(bot_cls, channel, tmp_mb, under_tmp, pause)
        if message is None or message.get("type") == "shutdown":
            return 0
        if message.get("type") != "next":
            channel.send({"type": "error", "message": f"expected next, not {message.get('type')!r}"})
            return 1


def probe() -> None:
    """Exit 0 if a game process can be made here (the harness's one-time check)."""
    ids = os.getuid(), os.getgid()
    pid = _fork_game(pause=False)
    if pid == 0:
        try:
            _write_id_maps(*ids)
            _fresh_files(1, bound_under_tmp())
            os._exit(0)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0:
        sys.exit(f"cannot make a game process's namespaces (exit code {code})")


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 2 or (args[2:] and args[2] != "--plugins-of"):
        print("usage: python -m arena.sandbox.zygote BOT_NAME TMP_MB [--plugins-of DISTRIBUTION ...]",
              file=sys.stderr)
        sys.exit(2)
    sys.exit(serve(args[0], int(args[1]), args[3:] if args[2:] else None))


if __name__ == "__main__":
    main()
