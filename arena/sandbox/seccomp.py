"""The seccomp filter every sandbox runs under: the kernel's key management calls
fail with EPERM.

Keyrings live in the kernel, outside every namespace a sandbox has: a key that a
bot adds under its uid would still be there in its next game (or for the next bot
given that uid), a channel no namespace closes. So `add_key`, `request_key` and
`keyctl` are refused, as container runtimes' default profiles do. Everything else
is allowed: the namespaces and limits do the rest.

The filter is a classic BPF program (struct sock_filter, 8 bytes an instruction)
that bwrap installs with `--seccomp FD`. It knows the syscall numbers of x86-64 (with
its x32 and i386 ABIs) and of arm64 (with its 32-bit ABI); `program()` returns None
elsewhere, and the sandbox then runs without it (the provenance says so).
"""

from __future__ import annotations

import os
import platform
import struct
import tempfile
from typing import Any

LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_IF_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
REFUSE = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
NR_OFFSET, ARCH_OFFSET = 0, 4  # in struct seccomp_data
X32_SYSCALL_BIT = 0x40000000

# (audit arch, the numbers of add_key, request_key, keyctl) per ABI a machine may run.
REFUSED_CALLS = {
    "x86_64": [(0xC000003E, (248, 249, 250)), (0x40000003, (286, 287, 288))],
    "aarch64": [(0xC00000B7, (217, 218, 219)), (0x40000028, (309, 310, 311))],
}


def _instruction(code: int, jump_true: int, jump_false: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for `machine` (default: this one), or None for an unknown one."""
    abis = REFUSED_CALLS.get(machine or platform.machine())
    if abis is None:
        return None
    blocks = []
    for arch, numbers in abis:
        block: list[Any] = [_instruction(LOAD_WORD, 0, 0, NR_OFFSET)]  # instructions, and jumps resolved below
        if arch == 0xC000003E:  # x32 calls carry this bit: refuse them all (no bot needs x32)
            block.append(("refuse-if-at-least", X32_SYSCALL_BIT))
        block += [("refuse-if", number) for number in numbers]
        block.append(_instruction(RETURN, 0, 0, ALLOW))
        blocks.append((arch, block))
    # Layout: load arch; one test per ABI jumping to its block; allow an unknown ABI's calls
    # (the kernel runs only the ABIs it was built for); the blocks; one shared "refuse".
    head = [_instruction(LOAD_WORD, 0, 0, ARCH_OFFSET)]
    tests_len = len(blocks)
    starts, offset = [], 1 + tests_len + 1
    for _, block in blocks:
        starts.append(offset)
        offset += len(block)
    refuse_at = offset
    out = list(head)
    for index, (arch, _) in enumerate(blocks):
        here = 1 + index
        out.append(_instruction(JUMP_IF_EQUAL, starts[index] - here - 1, 0, arch))
    out.append(_instruction(RETURN, 0, 0, ALLOW))
    for start, (_, block) in zip(starts, blocks):
        for position, item in enumerate(block, start):
            if isinstance(item, bytes):
                out.append(item)
            else:
                kind, value = item
                code = JUMP_IF_EQUAL if kind == "refuse-if" else JUMP_IF_AT_LEAST
                out.append(_instruction(code, refuse_at - position - 1, 0, value))
    out.append(_instruction(RETURN, 0, 0, REFUSE))
    return b"".join(out)


def program_file() -> int | None:
    """A descriptor open on the filter, at its start, for bwrap's --seccomp; None if
    there is no filter for this machine. The caller closes it."""
    code = program()
    if code is None:
        return None
    handle = tempfile.TemporaryFile()
    handle.write(code)
    handle.flush()
    fd = os.dup(handle.fileno())
    handle.close()
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
