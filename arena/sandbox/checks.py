"""Checking a zygote and its game process from outside, through /proc.

The zygote checks itself before every fork, but it runs in the interpreter that
imported the bot: import-time code could rewrite those checks. So the harness
checks again, from outside, once the zygote and the game's waiter are stopped
(they stay stopped for the whole game) and before the game starts: nothing the
bot's code does can change what is read here. A game may start only if:

- the zygote and the waiter run one thread each, hold no descriptor but the
  protocol's, map nothing shared and writable, and are not dumpable (so no
  process of their uid can read or write their memory);
- the game process has no capability left (and cannot gain one), holds only the
  protocol's descriptors, maps nothing shared and writable, is in user, PID,
  mount, IPC and network namespaces of its own, and sees a /tmp that is not the
  zygote's and an empty /proc.

Where the harness may not read another process's /proc files (a harness that is
not root), the checks it cannot make are skipped; docs/security.md says so.
"""

from __future__ import annotations

import os
import re
import time

PROTOCOL_FDS = frozenset({0, 1, 2, 3, 4})
NAMESPACES = ("user", "pid", "mnt", "ipc", "net")


class Unreadable(Exception):
    """A /proc file the harness may not read (it is not root)."""


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20).decode("utf-8", "replace")
    except PermissionError as exc:
        raise Unreadable(path) from exc


def _status(pid: int) -> dict[str, str]:
    fields = {}
    for line in _read(f"/proc/{pid}/status").splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _fds(pid: int) -> set[int]:
    try:
        return {int(fd) for fd in os.listdir(f"/proc/{pid}/fd")}
    except PermissionError as exc:
        raise Unreadable(f"/proc/{pid}/fd") from exc


SHARED_WRITABLE = re.compile(rb"^\S+ [r-]w[x-]s .*$", re.MULTILINE)


def _shared_writable(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/maps", "rb") as maps:
            found = SHARED_WRITABLE.search(maps.read())
    except PermissionError as exc:
        raise Unreadable(f"/proc/{pid}/maps") from exc
    return None if found is None else found.group().decode("utf-8", "replace")[:100]


def _dumpable(pid: int) -> bool:
    # The kernel gives a non-dumpable process's /proc files to root.
    return os.stat(f"/proc/{pid}/mem").st_uid != 0


def _mounts(pid: int) -> list[tuple[str, str, str]]:
    """(mount id, mount point, filesystem type) of each mount, in mount order."""
    found = []
    for line in _read(f"/proc/{pid}/mountinfo").splitlines():
        fields = line.split()
        if " - " in line and len(fields) > 4:
            fstype = line.split(" - ", 1)[1].split()[0]
            found.append((fields[0], fields[4], fstype))
    return found


def wait_stopped(pids: list[int], seconds: float = 2.0) -> bool:
    """Whether every one of `pids` (sent SIGSTOP) is now stopped, or gone."""
    deadline = time.monotonic() + seconds
    while True:
        states = []
        for pid in pids:
            try:
                states.append(_read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[0])
            except (OSError, Unreadable, IndexError):
                states.append("X")
        if all(state in "TtXZ" for state in states):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0002)


def problem(zygote: int, waiter: int, game: int) -> str | None:
    """Why the game process may not start, or None."""
    try:
        return _problem(zygote, waiter, game)
    except OSError:  # ENOENT, or ESRCH from a /proc file of a process that died while read
        return "a process of the sandbox ended while it was being checked"


def _problem(zygote: int, waiter: int, game: int) -> str | None:
    for pid, who in ((zygote, "zygote"), (waiter, "game's waiter"), (game, "game process")):
        for check in (_threads, _descriptors, _mappings):
            try:
                if (found := check(pid)) is not None:
                    return f"its {who} {found}"
            except Unreadable:
                pass
    for pid, who in ((zygote, "zygote"), (waiter, "game's waiter")):
        if os.geteuid() == 0 and _dumpable(pid):
            return f"its {who} is dumpable (its memory could be written through /proc)"
    try:
        status = _status(game)
        if int(status.get("CapEff", "1"), 16) or int(status.get("CapPrm", "1"), 16):
            return "its game process kept capabilities"
        if status.get("NoNewPrivs") != "1":
            return "its game process could gain privileges (no_new_privs is off)"
    except (Unreadable, ValueError):
        pass
    try:
        for name in NAMESPACES:
            if os.readlink(f"/proc/{game}/ns/{name}") == os.readlink(f"/proc/{zygote}/ns/{name}"):
                return f"its game process shares the zygote's {name} namespace"
    except PermissionError:
        pass
    try:
        zygote_mounts = {mount_id for mount_id, _, _ in _mounts(zygote)}
        game_mounts = _mounts(game)
    except Unreadable:
        return None
    last = {point: (mount_id, fstype) for mount_id, point, fstype in game_mounts}
    tmp = last.get("/tmp")
    if tmp is None or tmp[1] != "tmpfs" or tmp[0] in zygote_mounts:
        return "its game process sees the zygote's /tmp, not a fresh one"
    proc = last.get("/proc")
    if proc is None or proc[1] != "tmpfs":
        return "its game process can see /proc"
    return None


def _threads(pid: int) -> str | None:
    threads = _status(pid).get("Threads", "?")
    return None if threads == "1" else f"runs {threads} threads"


def _descriptors(pid: int) -> str | None:
    extra = sorted(_fds(pid) - PROTOCOL_FDS)
    return None if not extra else f"holds descriptors {extra[:5]} besides the protocol's"


def _mappings(pid: int) -> str | None:
    line = _shared_writable(pid)
    return None if line is None else f"maps memory shared and writable ({line})"
