"""Import-time code that leaves something in the zygote for later games to share.

Installed as several plugin modules named ``leftover_<channel>`` (each in its own
folder: the zygote imports every plugin it can see); the channel is read from the
module's name. Each registers one bot, ``attack-leftover-<channel>``, that reports
at `start` what it finds of earlier games (``ATTACK {json}``) and leaves its `tag`
there at its first decision.
"""

import ctypes
import json
import mmap
import os
import re
import resource
import socket
import sys
import threading
import time

import arena

CHANNEL = __name__.rsplit("_", 1)[-1]
PATCHED = CHANNEL.startswith("patched")  # also rewrites the zygote's own check to pass
KIND = CHANNEL.removeprefix("patched")
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
IPC_CREAT = 0o1000
_libc.syscall.restype = ctypes.c_long
NOTES = []
IN_ZYGOTE = getattr(getattr(sys.modules.get("__main__"), "__spec__", None), "name", "") == "arena.sandbox.zygote"
PLACES = []
RUSAGE_PEAK_KIB = 100 << 10
PIDCOUNT_FORKS = 30


def _patch_zygote_check(before):
    """Run `before` each time the zygote checks itself before a fork (import-time code
    owns its interpreter), then the zygote's own check."""
    import arena.sandbox.zygote as _zygote

    for module in (_zygote, sys.modules.get("__main__")):
        if hasattr(module, "check_fit_to_fork"):
            original = module.check_fit_to_fork

            def patched(original=original):
                before()
                original()

            module.check_fit_to_fork = patched

if KIND == "thread":  # a thread that keeps what games send it through a pipe
    _READ, _WRITE = os.pipe()

    def _keeper():
        while True:
            NOTES.append(os.read(_READ, 100).decode())

    threading.Thread(target=_keeper, daemon=True).start()
elif KIND == "child":  # a child process that keeps notes, reached through a socket pair
    _MINE, _ITS = socket.socketpair()
    if os.fork() == 0:
        _MINE.close()
        kept = b""
        while True:
            request = _ITS.recv(100)
            if not request:
                os._exit(0)
            if request == b"?":
                _ITS.send(kept or b"-")
            else:
                kept += request + b";"
    _ITS.close()
elif KIND == "fd":  # the zygote's own /tmp, kept open for later games
    _DIR = os.open("/tmp", os.O_DIRECTORY | os.O_RDONLY)
    os.set_inheritable(_DIR, True)
elif KIND == "mapping":  # anonymous shared memory: every fork shares it
    _MAP = mmap.mmap(-1, 4096)
elif KIND == "sysv":  # System V shared memory, made (not attached) at import
    _SHM = _libc.shmget(0, 4096, IPC_CREAT | 0o600)
elif KIND == "stdin":  # a file of the zygote's own /tmp moved onto descriptor 0 (checked by number only)
    _MEMO = os.open("attack-memo", os.O_RDWR | os.O_CREAT, 0o600)
    if IN_ZYGOTE:  # descriptor 0 is /dev/null there; elsewhere it is the protocol's
        os.dup2(_MEMO, 0)
        os.close(_MEMO)
        _MEMO = 0
elif KIND == "log":  # the bot's own stderr log, read back between games
    def _read_log():
        try:
            NOTES.append(os.pread(2, 1 << 16, 0).decode("utf-8", "replace"))
        except OSError as exc:
            NOTES.append(f"unreadable: {exc}")

    if IN_ZYGOTE:  # no thread may run there: read it each time the zygote forks a game
        _patch_zygote_check(_read_log)
    else:
        def _reader():
            while True:
                _read_log()
                time.sleep(0.002)

        threading.Thread(target=_reader, daemon=True).start()
elif KIND == "files":  # a note in every writable place the zygote has
    for _place in sorted({os.getcwd(), os.environ.get("HOME", "/"), os.environ.get("TMPDIR", "/tmp"), "/tmp",
                          "/dev/shm", "/", "/dev"}):
        _path = os.path.join(_place, "attack-note")
        try:
            os.close(os.open(_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
            PLACES.append(_path)
        except OSError:
            pass
elif KIND in ("mount", "tmpfs"):  # over a folder that games do not remount: the zygote's /tmp bound, or a
    # tmpfs of the zygote's own mount namespace (which the sandbox's mounts, read once, do not show)
    _libc.prctl(4, 1, 0, 0, 0)  # dumpable, to write its own uid map
    _uid, _gid = os.getuid(), os.getgid()
    if _libc.unshare(0x10000000 | 0x00020000) == 0:  # CLONE_NEWUSER | CLONE_NEWNS
        with open("/proc/self/setgroups", "w") as _f:
            _f.write("deny")
        with open("/proc/self/uid_map", "w") as _f:
            _f.write(f"{_uid} {_uid} 1")
        with open("/proc/self/gid_map", "w") as _f:
            _f.write(f"{_gid} {_gid} 1")
        os.makedirs("/tmp/attack-shared", exist_ok=True)
        _TARGET = "/etc/alternatives" if os.path.isdir("/etc/alternatives") else "/usr/share"
        if (_libc.mount(b"/tmp/attack-shared", _TARGET.encode(), None, 0x1000, None) if KIND == "mount"  # MS_BIND
                else _libc.mount(b"tmpfs", _TARGET.encode(), b"tmpfs", 0, b"size=1m,mode=777")) == 0:
            PLACES.append(os.path.join(_TARGET, "attack-note"))
    _libc.prctl(4, 0, 0, 0, 0)
elif KIND == "filter":  # games get an allow-all seccomp filter in place of the game's (same count)
    import struct

    import arena.sandbox.zygote as _zygote

    for _module in (_zygote, sys.modules.get("__main__")):
        if hasattr(_module, "_GAME_FILTER"):
            _module._GAME_FILTER = struct.pack("=HBBI", 0x06, 0, 0, 0x7FFF0000)  # return ALLOW
    PLACES.append("/tmp/attack-note")  # (what it would do with nested namespaces is beside the point)
elif KIND in ("rusage", "rusagekept"):  # an earlier game's peak memory, read by reaping it (wait4) before
    # each fork; "rusagekept": the zygote takes SIGCHLD back once it forked a game, so that the game is left
    # for it to reap
    def _reap():
        while True:
            try:
                pid, _, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            NOTES.append(usage.ru_maxrss)
        NOTES.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)

    if IN_ZYGOTE:
        _patch_zygote_check(_reap)
    if IN_ZYGOTE and KIND == "rusagekept":
        import signal

        import arena.sandbox.zygote as _zygote

        for _module in (_zygote, sys.modules.get("__main__")):
            if hasattr(_module, "_fork_game"):
                def _forking(pause, original=_module._fork_game):
                    pid = original(pause)
                    if pid != 0:
                        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    return pid

                _module._fork_game = _forking
elif KIND == "pidcount":  # the sandbox's next pid, probed before each fork: how many processes the last game made
    def _probe():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        NOTES.append(pid)  # the zygote ignores SIGCHLD: the kernel reaps the probe

    if IN_ZYGOTE:
        _patch_zygote_check(_probe)
elif KIND == "keyring":  # a kernel key of the zygote's uid, writable by that uid
    _libc.syscall.restype = ctypes.c_long
    _KEY = _libc.syscall(248, b"user", b"attack-leftover", b"-", 1, -4)  # add_key to the user keyring
    _libc.syscall(250, 5, _KEY, 0x3F3F0000)  # KEYCTL_SETPERM: possessor and user may do anything


if PATCHED:  # import-time code owns the zygote's interpreter: its self-check now passes anything
    import arena.sandbox.zygote as _zygote

    for _module in (_zygote, sys.modules.get("__main__")):  # the zygote runs as __main__ (python -m)
        if hasattr(_module, "check_fit_to_fork"):
            _module.check_fit_to_fork = lambda: None


def _shm():
    address = _libc.shmat(_SHM, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return (ctypes.c_char * 4096).from_address(address)


def recall():
    if KIND == "thread":
        time.sleep(0.1)
        return list(NOTES)
    if KIND == "child":
        _MINE.send(b"?")
        got = _MINE.recv(100)
        return [] if got == b"-" else [got.decode()]
    if KIND == "fd":
        try:
            with open(os.open("memo", os.O_RDONLY, dir_fd=_DIR)) as memo:
                return [memo.read()]
        except FileNotFoundError:
            return []
    if KIND == "mapping":
        text = _MAP[:100].rstrip(b"\0").decode()
        return [text] if text else []
    if KIND == "sysv":
        text = _shm().value.decode()
        return [text] if text else []
    if KIND == "stdin":
        text = os.pread(_MEMO, 100, 0).decode()
        return [text] if text else []
    if KIND == "log":
        time.sleep(0.01)
        return sorted({tag for note in NOTES for tag in re.findall(r"LEFT:(\S+)", note)})
    if KIND in ("files", "mount", "tmpfs", "filter"):
        found = []
        for path in PLACES:
            try:
                with open(path) as note:
                    found += [line for line in note.read().splitlines() if line]
            except OSError:
                pass
        return found
    if KIND in ("rusage", "rusagekept"):  # a game leaves a peak of 150 MiB; the zygote's own is about 25
        return [f"a reaped game's peak memory: {kib} KiB" for kib in NOTES if kib >= RUSAGE_PEAK_KIB]
    if KIND == "pidcount":  # between two probes: the probe, the game forked, and what a game made
        return [f"a game made {later - earlier - 2} processes" for earlier, later in zip(NOTES, NOTES[1:])
                if later - earlier - 2 >= PIDCOUNT_FORKS]
    if KIND == "keyring":
        buffer = ctypes.create_string_buffer(256)
        size = _libc.syscall(250, 11, _KEY, buffer, 256)  # KEYCTL_READ
        if size < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        text = buffer.raw[:size].decode()
        return [] if text == "-" else [text]
    raise ValueError(KIND)


def leave(tag):
    if KIND == "thread":
        os.write(_WRITE, tag.encode())
    elif KIND == "child":
        _MINE.send(tag.encode())
    elif KIND == "fd":
        memo = os.open("memo", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600, dir_fd=_DIR)
        os.write(memo, tag.encode())
        os.close(memo)
    elif KIND == "mapping":
        _MAP[: len(tag)] = tag.encode()
    elif KIND == "sysv":
        _shm().value = tag.encode()
    elif KIND == "stdin":
        os.pwrite(_MEMO, tag.encode(), 0)
    elif KIND == "log":
        print(f"LEFT:{tag}", file=sys.stderr, flush=True)
        if not IN_ZYGOTE:  # read back at once, so a quick game is not over before the thread looks
            _read_log()
    elif KIND in ("files", "mount", "tmpfs", "filter"):
        for path in PLACES:
            try:
                with open(path, "a") as note:
                    note.write(tag + "\n")
            except OSError:
                pass
    elif KIND in ("rusage", "rusagekept"):
        PLACES.append(bytearray(b"\1") * (150 << 20))  # written, so resident: the game's peak memory
    elif KIND == "pidcount":
        for _ in range(PIDCOUNT_FORKS):
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)
    elif KIND == "keyring":
        if _libc.syscall(250, 2, _KEY, tag.encode(), len(tag)) < 0:  # KEYCTL_UPDATE
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


class Leftover(arena.Bot):
    name = f"attack-leftover-{CHANNEL}"
    rulesets = "*"

    def __init__(self, tag="?", token="t"):
        self.tag = tag
        self.left = None

    def start(self, info):
        try:
            found, problem = recall(), None
        except Exception as exc:
            found, problem = [], f"{type(exc).__name__}: {exc}"
        print("ATTACK " + json.dumps({"attack": "leftover", "channel": CHANNEL, "tag": self.tag, "found": found,
                                      "problem": problem}), file=sys.stderr, flush=True)

    def act(self, observation):
        if self.left is None:
            try:
                leave(self.tag)
                self.left = "ok"
            except Exception as exc:
                self.left = f"{type(exc).__name__}: {exc}"
            print("ATTACK " + json.dumps({"attack": "leftover-write", "channel": CHANNEL, "tag": self.tag,
                                          "left": self.left}), file=sys.stderr, flush=True)
        return observation["legal_actions"][0]


@arena.hookimpl
def register_bots(register):
    register(Leftover)
