"""The sandbox's PID counter, set back between games.

A game's processes take pids in the sandbox's PID namespace as well as in their own (the
game's namespace is nested in the sandbox's), so the zygote, which the bot's import-time code
owns, could read from the next pid it gets how many processes the last game made. Before the
zygote runs again the harness sets that namespace's counter (`ns_last_pid`) back to the last
game process's own pid there, which the zygote knows (`clone` told it): its next fork gets
the lowest free pid above that, whatever the game did. Not to a constant: the kernel frees
the game process's own pid a little after its end can be seen, so a fork right after would
find that pid taken or free by chance; every pid its game made is freed before it.

The kernel lets only a process *in* a namespace write its `ns_last_pid`, so `PidCounter`
keeps one there: a shell, made by joining the namespace for this thread's children only
(`setns(CLONE_NEWPID)` changes no pid of the harness's own, and no other thread's children)
and spawning `/bin/sh`, that writes the counter each time it reads a number. Asking it costs
about 20 us of CPU (10 in the harness, 10 in the shell); a shell started for each game cost
about 0.65 ms of CPU, a fork of the harness 5 ms and more. It runs as the harness's user, in
the harness's mounts: the sandbox sees its pid and command line (the zygote's self-check
passes over processes of other users), and can neither signal it nor read anything else of
it. It dies with the sandbox's namespace, and `close` reaps it (the namespace's init cannot
finish dying before that).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal

CLONE_NEWPID = 0x20000000
SCRIPT = "while read -r last; do echo \"$last\" > /proc/sys/kernel/ns_last_pid || exit 1; echo; done"
REPLY_SECONDS = 5.0

_libc = ctypes.CDLL(None, use_errno=True)


def namespace_of(pid: int) -> int:
    """A descriptor of the PID namespace `pid` is in (the caller closes it)."""
    return os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)


class PidCounter:
    """The counter of the PID namespace of descriptor `namespace`, set back on request by
    a shell kept in that namespace; OSError if it cannot be (joining a PID namespace needs
    CAP_SYS_ADMIN: a harness run as root)."""

    def __init__(self, namespace: int):
        requests, self._ask = os.pipe()
        self._answers, replies = os.pipe()
        try:
            self.pid = _spawn_in(namespace, ["sh", "-c", SCRIPT], stdin=requests, stdout=replies)
        except OSError:
            os.close(self._ask)
            os.close(self._answers)
            raise
        finally:
            os.close(requests)
            os.close(replies)

    def set_back(self, last: int) -> None:
        """Set the counter back to `last` (the next pid is the lowest free one above it),
        returning once it is."""
        lost = OSError("could not set the sandbox's pid counter back (its shell did not answer)")
        try:
            os.write(self._ask, b"%d\n" % last)
        except BrokenPipeError:  # the shell is gone
            raise lost from None
        poller = select.poll()
        poller.register(self._answers, select.POLLIN)
        if not poller.poll(int(REPLY_SECONDS * 1000)) or os.read(self._answers, 1) != b"\n":
            raise lost

    def close(self) -> None:
        """End and reap the shell."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):  # reaped already: nothing left of it
            pass
        os.close(self._ask)
        os.close(self._answers)


def _spawn_in(namespace: int, argv: list[str], stdin: int, stdout: int) -> int:
    """Spawn `/bin/sh` (`argv`) in the PID namespace of descriptor `namespace`, with
    `stdin` and `stdout`; this thread's later children are in its own namespace again."""
    own = os.open("/proc/thread-self/ns/pid_for_children", os.O_RDONLY | os.O_CLOEXEC)
    try:
        _setns(namespace, "join the sandbox's PID namespace")
        try:
            return os.posix_spawn("/bin/sh", argv, {}, file_actions=[(os.POSIX_SPAWN_DUP2, stdin, 0),
                                                                    (os.POSIX_SPAWN_DUP2, stdout, 1)])
        finally:
            _setns(own, "leave the sandbox's PID namespace")
    finally:
        os.close(own)


def _setns(fd: int, what: str) -> None:
    if _libc.setns(fd, CLONE_NEWPID) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"cannot {what}: {os.strerror(error)}")
