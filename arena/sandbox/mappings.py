"""Whether a process maps memory shared and writable (what a game could leave for the next).

`shared_writable(path)` answers for the process whose maps file is `path`
(``/proc/PID/maps``, or ``/proc/self/maps``). Where the kernel has the PROCMAP_QUERY
ioctl (Linux 6.11+) it asks the kernel for the first mapping that is both writable
and shared (VM_WRITE and VM_MAYSHARE, the "w" and "s" of the maps text): one
system call, where the text lists every mapping with its path (~0.3 ms of CPU for a
Python process, several times per game). Elsewhere it reads the text.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import re


class _Query(ctypes.Structure):
    """`struct procmap_query` of linux/fs.h."""

    _fields_ = [("size", ctypes.c_uint64), ("query_flags", ctypes.c_uint64), ("query_addr", ctypes.c_uint64),
                ("vma_start", ctypes.c_uint64), ("vma_end", ctypes.c_uint64), ("vma_flags", ctypes.c_uint64),
                ("vma_page_size", ctypes.c_uint64), ("vma_offset", ctypes.c_uint64), ("inode", ctypes.c_uint64),
                ("dev_major", ctypes.c_uint32), ("dev_minor", ctypes.c_uint32),
                ("vma_name_size", ctypes.c_uint32), ("build_id_size", ctypes.c_uint32),
                ("vma_name_addr", ctypes.c_uint64), ("build_id_addr", ctypes.c_uint64)]


READABLE, WRITABLE, EXECUTABLE, SHARED, COVERING_OR_NEXT = 0x1, 0x2, 0x4, 0x8, 0x10
PROCMAP_QUERY = (3 << 30) | (ctypes.sizeof(_Query) << 16) | (ord("f") << 8) | 17  # _IOWR('f', 17, ...)
SHARED_WRITABLE = re.compile(rb"^\S+ [r-]w[x-]s .*$", re.MULTILINE)
_no_query = False  # set once this kernel was found without PROCMAP_QUERY


def shared_writable(path: str) -> str | None:
    """The first mapping of the process whose maps file is `path` that is writable and
    shared, as a line like the maps file's (at most 100 characters), or None. Raises
    what opening `path` raises (PermissionError where the caller may not read it)."""
    global _no_query
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if not _no_query:
            try:
                return _query(fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOTTY, errno.EINVAL, errno.EOPNOTSUPP):
                    raise
                _no_query = True
        return _from_text(fd)
    finally:
        os.close(fd)


def _query(fd: int) -> str | None:
    """Ask the kernel for the first mapping from address 0 on that is writable and shared."""
    name = ctypes.create_string_buffer(256)
    query = _Query(size=ctypes.sizeof(_Query), query_flags=COVERING_OR_NEXT | WRITABLE | SHARED, query_addr=0,
                   vma_name_size=len(name), vma_name_addr=ctypes.addressof(name))
    try:
        fcntl.ioctl(fd, PROCMAP_QUERY, query)
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # no such mapping
            return None
        raise
    flags = query.vma_flags
    perms = "".join(letter if flags & bit else "-" for letter, bit in (("r", READABLE), ("w", WRITABLE),
                                                                        ("x", EXECUTABLE))) + "s"
    shown = name.value.decode("utf-8", "replace") if query.vma_name_size else ""
    return f"{query.vma_start:x}-{query.vma_end:x} {perms} {query.vma_offset:08x} {shown}".strip()[:100]


def _from_text(fd: int) -> str | None:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    text = b"".join(chunks)
    if b"w-s " not in text and b"wxs " not in text:  # the usual case, without the slower search
        return None
    found = SHARED_WRITABLE.search(text)
    return None if found is None else found.group().decode("utf-8", "replace")[:100]
