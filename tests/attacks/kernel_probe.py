#!/usr/bin/env python3
"""What a bot can learn of the host's kernel, or do with it, in a game: the host's
/proc (CPU counters that show when rivals think, kernel symbols, bwrap's command
line with host paths), /sys, its own cgroup's counters, and system calls the
sandbox refuses (new namespaces, mounts, inotify, perf events, ptrace, clone3, and
in a Python bot's game any socket but a unix one, and io_uring).

Two ways to run: as a command bot (``python3 kernel_probe.py``, no arena needed),
and installed as a plugin module (then it registers ``attack-kernel-probe``).
Either way it reports once, at its first decision, as ``ATTACK {json}`` on stderr.
"""

import ctypes
import errno
import json
import os
import sys

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
CALLS = {  # x86-64 numbers; elsewhere the calls are reported as skipped
    "unshare-user": (272, 0x10000000),
    "mount-tmpfs": None,
    "inotify": (294, 0),
    "fanotify": (300, 0, 0),
    "perf": (298, None),
    "ptrace-traceme": (101, 0, 0, 0, 0),
    "pivot-root": (155, b"/tmp", b"/tmp"),
    "clone3": (435, 0, 0),
    "io-uring": (425, 1, None),
}


def _read(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 16)
        return "read" if data else "empty"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, "error")


def _cgroup_counter():
    """Its own cgroup's peak memory, through the cgroup filesystem, if it can be reached."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, "error")
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return _read(f"/sys/fs/cgroup/memory{path}/memory.max_usage_in_bytes")
        if controllers == "" and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            return _read(f"/sys/fs/cgroup{path}/memory.peak")
    return "no-cgroup-line" if os.path.isdir("/sys/fs/cgroup") else "ENOENT"


def _call(name):
    if name == "mount-tmpfs":
        result = _libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)
    else:
        number, *args = CALLS[name]
        if name == "perf":
            attr = (ctypes.c_uint32 * 32)()
            attr[0], attr[1], attr[2] = 1, 128, 0  # PERF_TYPE_SOFTWARE, its size, CPU clock
            args = [ctypes.byref(attr), 0, -1, -1, 0]
        elif name == "io-uring":  # a ring makes sockets by an operation of its own, no socket() call
            params = (ctypes.c_uint8 * 120)()  # struct io_uring_params, zeroed
            args = [1, ctypes.byref(params)]
        result = _libc.syscall(number, *args)
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "error")


def _calls():
    """Each call, in a child (a new namespace or a trace must not change the bot itself)."""
    import platform

    if platform.machine() != "x86_64":
        return {name: "skipped" for name in CALLS}
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        found = {}
        for name in CALLS:
            try:
                found[name] = _call(name)
            except Exception as exc:  # noqa: BLE001
                found[name] = type(exc).__name__
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(data or b"{}")


def _sockets():
    """Which sockets it may open: internet and netlink ones outlast a game in (or show
    the counters of) a network namespace that its later games share; unix ones do not."""
    import socket

    found = {}
    for name, family in (("socket-inet", socket.AF_INET), ("socket-inet6", socket.AF_INET6),
                         ("socket-netlink", socket.AF_NETLINK), ("socket-unix", socket.AF_UNIX)):
        try:
            socket.socket(family, socket.SOCK_DGRAM).close()
            found[name] = "ok"
        except OSError as exc:
            found[name] = errno.errorcode.get(exc.errno, "error")
    try:
        for end in socket.socketpair():
            end.close()
        found["socketpair"] = "ok"
    except OSError as exc:
        found["socketpair"] = errno.errorcode.get(exc.errno, "error")
    return found


def probe():
    found = {"proc-stat": _read("/proc/stat"), "kallsyms": _read("/proc/kallsyms"),
             "pid-1-cmdline": _read("/proc/1/cmdline"), "mountinfo": _read("/proc/self/mountinfo"),
             "sys": "listed" if os.path.isdir("/sys") and os.listdir("/sys") else "absent",
             "cgroup-counter": _cgroup_counter()}
    found.update(_calls())
    found.update(_sockets())
    print("ATTACK " + json.dumps({"attack": "kernel", "found": found}), file=sys.stderr, flush=True)


def _serve():
    probed = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            reply = {"type": "hello", "protocol": 1, "bot": "attack-kernel-probe-command"}
        elif kind in ("start", "end"):
            reply = {"type": "ok"}
        elif kind == "act":
            if not probed:
                probed = True
                probe()
            reply = {"type": "action", "action": message["observation"]["legal_actions"][0]}
        else:
            break
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    _serve()
else:
    import arena

    class KernelProbe(arena.Bot):
        name = "attack-kernel-probe"
        rulesets = "*"

        def start(self, info):
            self.probed = False

        def act(self, observation):
            if not self.probed:
                self.probed = True
                probe()
            return observation["legal_actions"][0]

    @arena.hookimpl
    def register_bots(register):
        register(KernelProbe)
