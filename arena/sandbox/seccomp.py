"""The seccomp filters of a sandbox: system calls that no bot needs and that would
open a channel past its namespaces, or more of the kernel than a game needs.

Two filters, classic BPF programs (struct sock_filter, 8 bytes an instruction):

- `program()`, which bwrap installs for the whole sandbox (`--seccomp FD`), zygote
  included:
  - the kernel's key management calls (`add_key`, `request_key`, `keyctl`):
    keyrings live outside every namespace, so a key that a bot adds under its uid
    would still be there in its next game (found by the attack suite);
  - `ptrace` (a process of the bot that traces another could take the SIGSTOP
    that stops it between decisions), `perf_event_open`, `inotify_init(1)`,
    `fanotify_init`, `pivot_root`;
  - a new cgroup namespace (`unshare` or `clone` with CLONE_NEWCGROUP): in one of
    its own a bot could mount a cgroup filesystem and read its cgroup's counters
    (peak memory, CPU used), which outlast a game; `clone3` fails with ENOSYS (its
    flags are out of a filter's reach), and the C library falls back to `clone`.
- `game_program()`, which each game process of a Python bot installs on top once
  its namespaces and files are made (its zygote needs those calls, its games do
  not): no new namespace (`unshare`, `setns`, `clone` with any CLONE_NEW* flag),
  no mount of any kind (`mount`, `umount2` and the new mount API). The harness
  checks from outside that the game process runs under more filters than its
  zygote and, as root, reads them back: this very program must be one (`checks`).

Everything else is allowed: the namespaces and limits do the rest. The filters
know the system call numbers of x86-64 (with its x32 and i386 ABIs) and of arm64
(with its 32-bit ABI); elsewhere `program()` returns None and sandboxes run without
them (the provenance says so).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import struct
import tempfile
from typing import Any

LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_IF_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JUMP_IF_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
ERRNO = 0x00050000  # SECCOMP_RET_ERRNO | the error number
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16  # in struct seccomp_data (arg 0's low word: little-endian)
X32_SYSCALL_BIT = 0x40000000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEW_ANY = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
CLONE_NEWTIME = 0x00000080  # (for unshare only: in clone this bit is CSIGNAL's)

# The numbers of the calls named below, per ABI: (audit arch, {name: number}); `kcmp` (the
# harness's own ABI's only) is for `checks`, not a rule.
ABIS = {
    "x86_64": [
        (0xC000003E, {"add_key": 248, "request_key": 249, "keyctl": 250, "ptrace": 101, "perf_event_open": 298,
                      "inotify_init": 253, "inotify_init1": 294, "fanotify_init": 300, "pivot_root": 155,
                      "unshare": 272, "clone": 56, "clone3": 435, "setns": 308, "mount": 165, "umount2": 166,
                      "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                      "fspick": 433, "mount_setattr": 442, "socket": 41, "io_uring_setup": 425, "kcmp": 312}),
        (0x40000003, {"add_key": 286, "request_key": 287, "keyctl": 288, "ptrace": 26, "perf_event_open": 336,
                      "inotify_init": 291, "inotify_init1": 332, "fanotify_init": 338, "pivot_root": 217,
                      "unshare": 310, "clone": 120, "clone3": 435, "setns": 346, "mount": 21, "umount2": 52,
                      "umount": 22, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
                      "fsmount": 432, "fspick": 433, "mount_setattr": 442, "socket": 359, "socketcall": 102, "io_uring_setup": 425}),
    ],
    "aarch64": [
        (0xC00000B7, {"add_key": 217, "request_key": 218, "keyctl": 219, "ptrace": 117, "perf_event_open": 241,
                      "inotify_init1": 26, "fanotify_init": 262, "pivot_root": 41, "unshare": 97, "clone": 220,
                      "clone3": 435, "setns": 268, "mount": 40, "umount2": 39, "open_tree": 428,
                      "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
                      "mount_setattr": 442, "socket": 198, "io_uring_setup": 425, "kcmp": 272}),
        (0x40000028, {"add_key": 309, "request_key": 310, "keyctl": 311, "ptrace": 26, "perf_event_open": 364,
                      "inotify_init": 316, "inotify_init1": 360, "fanotify_init": 367, "pivot_root": 218,
                      "unshare": 337, "clone": 120, "clone3": 435, "setns": 375, "mount": 21, "umount2": 52,
                      "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
                      "fspick": 433, "mount_setattr": 442, "socket": 281, "io_uring_setup": 425}),
    ],
}
REFUSED_CALLS = {machine: [(arch, (calls["add_key"], calls["request_key"], calls["keyctl"]))
                           for arch, calls in abis] for machine, abis in ABIS.items()}
"""(audit arch, the numbers of add_key, request_key, keyctl) per ABI (the keyring rule)."""


class Only(int):
    """A rule's argument test: the call is allowed only with this value as its first
    argument (an int rule refuses any of its bits, None refuses always)."""


SANDBOX_RULES = (
    [(name, None, errno.EPERM) for name in ("add_key", "request_key", "keyctl", "ptrace", "perf_event_open",
                                            "inotify_init", "inotify_init1", "fanotify_init", "pivot_root")]
    + [("unshare", CLONE_NEWCGROUP, errno.EPERM), ("clone", CLONE_NEWCGROUP, errno.EPERM),
       ("clone3", None, errno.ENOSYS)]
)
"""(call, flags in its first argument that make it refused or None for always, error)."""

GAME_RULES = (
    [("unshare", CLONE_NEW_ANY | CLONE_NEWTIME, errno.EPERM), ("clone", CLONE_NEW_ANY, errno.EPERM)]
    + [(name, None, errno.EPERM) for name in ("setns", "mount", "umount2", "umount", "open_tree", "move_mount",
                                               "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr")]
)
AF_UNIX = 1
SOCKET_RULES = [("socket", Only(AF_UNIX), errno.EAFNOSUPPORT), ("socketcall", None, errno.ENOSYS),
                ("io_uring_setup", None, errno.ENOSYS)]
"""A Python bot's game shares its network namespace with its zygote and the sandbox's
later games (one per game cost 1.5-2 ms of CPU to make and free), so it may open no
socket but a unix one: nothing of a game can outlive it there (an internet
socket's TIME_WAIT, the loopback's counters read through netlink would). `socketpair`
is another call, allowed; i386's `socketcall` hides its arguments, and an io_uring's
socket operation makes a socket with no `socket` call for a filter to see, so both are
refused (ENOSYS, as by a kernel without them)."""


def _instruction(code: int, jump_true: int, jump_false: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, k)


def program(machine: str | None = None, rules=SANDBOX_RULES) -> bytes | None:
    """The sandbox's filter for `machine` (default: this one), or None for an unknown one."""
    abis = ABIS.get(machine or platform.machine())
    if abis is None:
        return None
    # Each ABI's block: load the call number, then per rule a test that skips the rule's
    # body when the number differs; a body returns the error, or (for a flags rule)
    # loads argument 0, tests the flags, returns the error or ALLOW. Unnamed calls: ALLOW.
    blocks = []
    for arch, numbers in abis:
        block: list[Any] = [_instruction(LOAD_WORD, 0, 0, NR_OFFSET)]  # instructions, and jumps resolved below
        if arch == 0xC000003E:  # x32 calls carry this bit: refuse them all (no bot needs x32)
            block += [_instruction(JUMP_IF_AT_LEAST, 0, 1, X32_SYSCALL_BIT),
                      _instruction(RETURN, 0, 0, ERRNO | errno.EPERM)]
        for name, flags, error in rules:
            if name not in numbers:
                continue
            if flags is None:
                body = [_instruction(RETURN, 0, 0, ERRNO | error)]
            elif isinstance(flags, Only):
                body = [_instruction(LOAD_WORD, 0, 0, ARG0_OFFSET),
                        _instruction(JUMP_IF_EQUAL, 0, 1, flags),
                        _instruction(RETURN, 0, 0, ALLOW),
                        _instruction(RETURN, 0, 0, ERRNO | error)]
            else:
                body = [_instruction(LOAD_WORD, 0, 0, ARG0_OFFSET),
                        _instruction(JUMP_IF_ANY_BIT, 0, 1, flags),
                        _instruction(RETURN, 0, 0, ERRNO | error),
                        _instruction(RETURN, 0, 0, ALLOW)]
            block.append(_instruction(JUMP_IF_EQUAL, 0, len(body), numbers[name]))
            block += body
        block.append(_instruction(RETURN, 0, 0, ALLOW))
        blocks.append((arch, block))
    out = [_instruction(LOAD_WORD, 0, 0, ARCH_OFFSET)]
    offset = 1 + len(blocks) + 1  # where the first block starts
    for index, (arch, block) in enumerate(blocks):
        out.append(_instruction(JUMP_IF_EQUAL, offset - (1 + index) - 1, 0, arch))
        offset += len(block)
    out.append(_instruction(RETURN, 0, 0, ALLOW))  # an ABI the kernel runs that is not listed
    for _, block in blocks:
        out += block
    if len(out) > 4096:
        raise ValueError("seccomp filter too long")
    return b"".join(out)


@functools.cache
def game_program(machine: str | None = None) -> bytes | None:
    """The filter a game process adds to the sandbox's (see the module docstring); made
    once (the harness compares it with every game process's filters)."""
    return program(machine, GAME_RULES + SOCKET_RULES)


def merged(*rule_lists) -> list:
    """One rule per call that refuses whatever any of `rule_lists` refuses."""
    found: dict[str, tuple[int | None, int]] = {}
    for rules in rule_lists:
        for name, flags, error in rules:
            if name in found:
                before, _ = found[name]
                if isinstance(before, Only) or isinstance(flags, Only):
                    raise ValueError(f"cannot merge an allow-only rule for {name}")
                flags = None if before is None or flags is None else before | flags
            found[name] = (flags, error)
    return [(name, flags, error) for name, (flags, error) in found.items()]


def program_file(game: bool = False) -> int | None:
    """A descriptor open on the filter, at its start, for bwrap's --seccomp; None if
    there is no filter for this machine. `game`: the sandbox is one game (a command
    bot's), so the game's rules hold from the start. The caller closes it."""
    code = program(rules=merged(SANDBOX_RULES, GAME_RULES)) if game else program()
    if code is None:
        return None
    handle = tempfile.TemporaryFile()
    handle.write(code)
    handle.flush()
    fd = os.dup(handle.fileno())
    handle.close()
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(code: bytes, libc=None) -> None:
    """Add `code` to the calling thread's filters (it must have no_new_privs set)."""
    libc = libc or ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"seccomp: {os.strerror(error)}")
