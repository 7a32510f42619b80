"""Where a submission's build writes: a filesystem of its own with a byte and a file quota.

A build (`arena.submissions.build`) writes its copy of the source, the new virtualenv,
pip's temporary files and caches (``TMPDIR``, ``HOME``, ``PIP_CACHE_DIR``) into one
`QuotaSpace`: a fresh ext4 filesystem in a sparse image file of exactly `Quota.mb` MiB,
made with `Quota.files` inodes and loop-mounted (``nosuid,nodev,discard``) in the staging
folder. The kernel enforces both quotas: a write past either fails with ENOSPC inside the
build, and the image file, the only thing on the host's disk, never grows past its size.
``discard`` gives deleted files' blocks back to the host (the image stays sparse), so
moving the virtualenv out file by file (`move_tree`) never holds much more than the quota.

Mounting needs root, a loop device and ``mkfs.ext4``; where any is missing
(`quota_unavailable` says which), the build writes into a plain folder, bounded only by
the size cap per file, and the caller warns and records it. Where they are all there but
the filesystem still cannot be made, the build fails (it never runs unbounded unnoticed).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

QUOTA_BOUNDS: dict[str, tuple[int, int]] = {
    "build_quota_mb": (64, 16384),
    "build_quota_files": (1000, 1_000_000),
}
"""The range, inclusive, of the `[tournament]` keys that set a build's quotas."""
FILES_PER_MB = 256
"""The most files a quota may allow per MiB of it: one per 4 KiB block (more inodes would
take a large part of a small image for their tables)."""
MECHANISM = "loop-mounted ext4 image"
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True)
class Quota:
    """The most a build may write: `mb` MiB (the image's size) and `files` inodes
    (files, folders and links; ext4 rounds it up to a whole number per block group)."""

    mb: int = 1024
    files: int = 100_000

    def __post_init__(self) -> None:
        if problem := quota_problem(self.mb, self.files):
            raise ValueError(problem)

    @property
    def bytes(self) -> int:
        return self.mb << 20

    def describe(self) -> str:
        return f"{self.mb:,} MiB and {self.files:,} files"


def quota_problem(mb: int, files: int) -> str | None:
    """Why `mb` MiB and `files` files are not a quota a filesystem can be made for, or None."""
    if mb < 1 or files < 1:
        return f"a quota needs at least 1 MiB and 1 file, not {mb} MiB and {files} files"
    if files > mb * FILES_PER_MB:
        return (f"{files:,} files need build_quota_mb of at least {-(-files // FILES_PER_MB):,} "
                f"(one file per 4 KiB), not {mb:,}")
    return None


class OverQuota(Exception):
    """A build wrote (or would leave) more than its quota; the message says what, in one line."""


def _program(name: str) -> str | None:
    return shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.path.exists(p)), None)


def quota_unavailable() -> str | None:
    """Why no `QuotaSpace` can be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "loop-mounted filesystems are Linux-only"
    if os.geteuid() != 0:
        return "mounting a filesystem image needs root"
    if _program("mkfs.ext4") is None:
        return "mkfs.ext4 (e2fsprogs) is not installed"
    if not (os.path.exists("/dev/loop-control") or os.path.exists("/dev/loop0")):
        return "no loop device (/dev/loop-control)"
    return None


SPACE_NAME = re.compile(r"^arena-space-\d+$")


def space_name() -> str:
    """The name of this process's quota spaces' mount points (`remove_stale` finds them by it)."""
    return f"arena-space-{os.getpid()}"


class QuotaSpace:
    """A fresh ext4 filesystem of `quota`, its image ``<parent>/<space_name>.img`` and its
    mount point ``<parent>/<space_name>`` (`path`). `open` makes and mounts it; `close`
    unmounts it and deletes the image (and must be called once the processes writing in it
    are gone)."""

    def __init__(self, parent: Path, quota: Quota):
        self.quota = quota
        self.path = parent / space_name()
        self.image = parent / f"{space_name()}.img"
        self.mounted = False
        self._lock: int | None = None  # an flock on the image while it is in use

    def open(self) -> Path:
        """Make and mount the filesystem; OSError (one line) where it cannot be made."""
        try:
            return self._open()
        except (OSError, subprocess.SubprocessError) as exc:
            self.close()
            raise OSError(" ".join(str(exc).split())[:300]) from None

    def _open(self) -> Path:
        remove_stale()
        self.path.mkdir(mode=0o755)
        with open(self.image, "wb") as image:
            os.fchmod(image.fileno(), 0o600)
            image.truncate(self.quota.bytes)  # sparse: blocks are taken only as the build writes
        self._lock = os.open(self.image, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        made = subprocess.run([_program("mkfs.ext4") or "mkfs.ext4", "-q", "-F", "-b", "4096", "-m", "0",
                               "-N", str(self.quota.files), "-O", "^has_journal",
                               "-E", "lazy_itable_init=1,root_owner=0:0", str(self.image)],
                              capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            raise OSError(f"mkfs.ext4 failed: {(made.stderr or made.stdout).strip()[-300:]}")
        mounted = subprocess.run(["mount", "-t", "ext4", "-o", "loop,nosuid,nodev,noatime,discard",
                                  str(self.image), str(self.path)], capture_output=True, text=True, timeout=60)
        if mounted.returncode != 0:
            raise OSError(f"cannot mount the build's filesystem: {(mounted.stderr or mounted.stdout).strip()[-300:]}")
        self.mounted = True
        shutil.rmtree(self.path / "lost+found", ignore_errors=True)
        os.chmod(self.path, 0o755)
        return self.path

    def full(self) -> bool:
        """Whether the space has (almost) no block or no inode left: a write failed for it."""
        info = os.statvfs(self.path)
        return info.f_bavail * info.f_frsize < (1 << 20) or info.f_favail < 8

    def close(self) -> None:
        if self.mounted:
            done = subprocess.run(["umount", str(self.path)], capture_output=True, timeout=60)
            if done.returncode != 0:  # something still holds it: detach now, freed when released
                subprocess.run(["umount", "-l", str(self.path)], capture_output=True, timeout=60)
            self.mounted = False
        self.image.unlink(missing_ok=True)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        try:
            self.path.rmdir()
        except OSError:
            pass


def remove_stale() -> None:
    """Unmount and delete the quota spaces whose harness process is gone (one killed with -9
    during a build cannot clean up after itself): those whose image nobody holds locked."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        if len(fields) < 2:
            continue
        point = fields[1].replace("\\040", " ")
        if SPACE_NAME.match(os.path.basename(point)) is None or _in_use(point + ".img"):
            continue
        subprocess.run(["umount", "-l", point], capture_output=True, timeout=60)
        Path(point + ".img").unlink(missing_ok=True)
        try:
            os.rmdir(point)
        except OSError:
            pass


def _in_use(image: str) -> bool:
    try:
        held = os.open(image, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(held)


def tree_size(root: Path) -> tuple[int, int]:
    """The bytes (of regular files, each inode once; links not followed) and the number of
    entries (files, folders, links) under `root`."""
    total = entries = 0
    seen: set[tuple[int, int]] = set()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            entries += 1
            try:
                info = os.lstat(os.path.join(folder, name))
            except FileNotFoundError:
                continue
            if stat.S_ISREG(info.st_mode) and (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_size
    return total, entries


def move_tree(source: Path, target: Path, quota: Quota) -> None:
    """Move the tree `source` (a build's virtualenv) to `target` on another filesystem,
    file by file, each deleted once copied: hard links stay links, symbolic links stay
    links (never followed), and anything but files, folders and links is left behind.
    OverQuota, before anything is copied, if the files' sizes (a sparse file counts
    whole) add up to more than the quota."""
    size, entries = tree_size(source)
    if size > quota.bytes or entries > quota.files:
        raise OverQuota(f"its build left {size / (1 << 20):,.0f} MiB in {entries:,} files, more than its quota of "
                        f"{quota.describe()} (a sparse file counts at its full size)")
    copied: dict[tuple[int, int], str] = {}
    target.mkdir(mode=0o755)
    for folder, dirs, files in os.walk(source):
        here = target / os.path.relpath(folder, source)
        for name in sorted(dirs):
            origin = os.path.join(folder, name)
            if os.path.islink(origin):
                os.symlink(os.readlink(origin), here / name)
                os.unlink(origin)
                dirs.remove(name)
            else:
                (here / name).mkdir(mode=0o755)
        for name in sorted(files):
            origin = os.path.join(folder, name)
            info = os.lstat(origin)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(origin), here / name)
            elif stat.S_ISREG(info.st_mode):
                key = (info.st_dev, info.st_ino)
                if key in copied:
                    os.link(copied[key], here / name)
                else:
                    shutil.copyfile(origin, here / name, follow_symlinks=False)
                    os.chmod(here / name, stat.S_IMODE(info.st_mode) & 0o755)
                    copied[key] = str(here / name)
            os.unlink(origin)
