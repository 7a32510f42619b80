"""Checks of a submitted wheel or sdist before anything unpacks it.

`archive_problem` reads only the archive's index (a zip's central directory) or its
headers (a tar's, streamed, each member's data skipped unread past the limits), and
refuses, in one line: more members than the build's file quota; more uncompressed bytes
than its byte quota; a member, or the whole archive, that expands more than `MAX_RATIO`
times (a zip bomb); a path that is absolute, climbs out (``..``), uses backslashes or
control characters, or comes twice; and any member that is not a plain file or folder
(symbolic and hard links, devices, fifos).
"""

from __future__ import annotations

import re
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from arena.build_space import Quota

MAX_RATIO = 100
"""The most a member (or the archive) may expand: uncompressed over compressed size."""
RATIO_FLOOR = 1 << 20
"""Members (and archives) smaller than this uncompressed are not held to `MAX_RATIO`."""
_BAD_CHARACTER = re.compile(r"[\x00-\x1f\x7f\\]")


def archive_problem(path: Path, quota: Quota) -> str | None:
    """Why the wheel or sdist at `path` must not be unpacked, or None (a folder: None)."""
    name = path.name
    try:
        if name.endswith((".whl", ".zip")):
            return _zip_problem(path, quota)
        if name.endswith(".tar.gz"):
            return _tar_problem(path, quota)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        return f"{name} is not a readable archive ({type(exc).__name__}: {str(exc)[:120]})"
    return None


def _path_problem(name: str, member: str, seen: set[str]) -> str | None:
    shown = _BAD_CHARACTER.sub("?", member)[:120]
    if not member or _BAD_CHARACTER.search(member):
        return f"{name} has a member named {shown!r} (empty, backslashes or control characters)"
    pure = PurePosixPath(member)
    if pure.is_absolute() or ".." in pure.parts or re.match(r"^[A-Za-z]:", member):
        return f"{name} has a member {shown!r} outside the archive's folder (absolute, or with '..')"
    key = pure.as_posix().rstrip("/")
    if key in seen:
        return f"{name} has the member {shown!r} twice"
    seen.add(key)
    return None


def _totals_problem(name: str, members: int, total: int, packed: int, quota: Quota) -> str | None:
    if members > quota.files:
        return f"{name} has more than {quota.files:,} members (the build's file quota)"
    if total > quota.bytes:
        return f"{name} unpacks to more than {quota.mb:,} MiB (the build's byte quota)"
    if total > RATIO_FLOOR and total > MAX_RATIO * max(packed, 1):
        return (f"{name} unpacks to {total / (1 << 20):,.0f} MiB from {packed / (1 << 20):,.1f} MiB, "
                f"more than {MAX_RATIO} times its size (a zip bomb?)")
    return None


def _zip_problem(path: Path, quota: Quota) -> str | None:
    name = path.name
    seen: set[str] = set()
    total = members = 0
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():  # the central directory: nothing is decompressed
            members += 1
            if problem := _path_problem(name, info.filename, seen):
                return problem
            kind = stat.S_IFMT(info.external_attr >> 16)
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                return f"{name} has a member {info.filename[:120]!r} that is not a file or folder (a link or device)"
            if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                return (f"{name} has a member {info.filename[:120]!r} that expands {info.file_size:,} bytes from "
                        f"{info.compress_size:,}, more than {MAX_RATIO} times (a zip bomb?)")
            total += info.file_size
            if problem := _totals_problem(name, members, total, path.stat().st_size, quota):
                return problem
    return _totals_problem(name, members, total, path.stat().st_size, quota)


def _tar_problem(path: Path, quota: Quota) -> str | None:
    name = path.name
    seen: set[str] = set()
    total = members = 0
    packed = path.stat().st_size
    with tarfile.open(path, "r|gz") as archive:  # streamed: headers read in order, data skipped
        for info in archive:
            members += 1
            if problem := _path_problem(name, info.name, seen):
                return problem
            if not (info.isreg() or info.isdir()):
                what = "a link" if info.issym() or info.islnk() else "not a file or folder"
                return f"{name} has a member {info.name[:120]!r} that is {what}"
            total += info.size
            if problem := _totals_problem(name, members, total, packed, quota):  # before its data is read
                return problem
    return None
