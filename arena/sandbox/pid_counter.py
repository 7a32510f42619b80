"""The sandbox's PID counter, set back between games.

A game's processes take pids in the sandbox's PID namespace as well as in their own (the
game's namespace is nested in the sandbox's), so the zygote, which the bot's import-time code
owns, could read from the next pid it gets how many processes the last game made. Before the
zygote runs again the harness sets that namespace's counter (`ns_last_pid`) back to a constant.

The kernel lets only a process *in* a namespace write its `ns_last_pid`, so a tiny one is
made there: this thread joins the namespace for its children only (`setns(CLONE_NEWPID)`
changes no pid of its own, and no other thread's children), spawns `/bin/sh` to write it
(vfork and exec: about 0.6 ms of CPU, where forking the harness costs 5 ms and more, growing
with its memory), and leaves the namespace again. The zygote is stopped meanwhile and the
writer is gone before it resumes.
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWPID = 0x20000000
LAST_PID = 2
"""The counter as set back: the sandbox's init is pid 1 and its zygote pid 2, so the
zygote's next fork gets pid 3 whatever the last game did."""

_libc = ctypes.CDLL(None, use_errno=True)


def namespace_of(pid: int) -> int:
    """A descriptor of the PID namespace `pid` is in (the caller closes it)."""
    return os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)


def set_back(namespace: int) -> None:
    """Set the counter of the PID namespace of descriptor `namespace` back to `LAST_PID`;
    OSError if it cannot be (the harness needs CAP_SYS_ADMIN: root)."""
    own = os.open("/proc/thread-self/ns/pid_for_children", os.O_RDONLY | os.O_CLOEXEC)
    try:
        _setns(namespace, "join the sandbox's PID namespace")
        try:
            writer = os.posix_spawn("/bin/sh", ["sh", "-c", f"echo {LAST_PID} > /proc/sys/kernel/ns_last_pid"], {})
        finally:
            _setns(own, "leave the sandbox's PID namespace")
    finally:
        os.close(own)
    _, status = os.waitpid(writer, 0)
    if status != 0:
        raise OSError(f"could not set the sandbox's pid counter back (sh exit status {status})")


def _setns(fd: int, what: str) -> None:
    if _libc.setns(fd, CLONE_NEWPID) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"cannot {what}: {os.strerror(error)}")
