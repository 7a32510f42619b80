"""Unprivileged uids for sandboxes: one per running sandbox, on the whole machine.

A harness running as root gives every sandbox its own uid from a block no user
or package owns, so no two bots running at once share one (whatever runs them:
workers of one run, several runs, Ray actors on one node). A uid is leased by
holding an exclusive `flock` on its file under `LEASE_DIR`; the kernel drops the
lock when its holder exits, however it ends, so a lease is never stranded.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

UID_BASE = int(os.environ.get("ARENA_SANDBOX_UID_BASE", "1900000000"))
"""First uid of the block (far above system, user and subordinate-id ranges)."""
UID_COUNT = 4096
LEASE_DIR = Path(os.environ.get("ARENA_SANDBOX_LEASES", "/run/arena-sandbox-uids"))


class UidLease:
    """A uid held for as long as this object lives (or until `release`)."""

    def __init__(self) -> None:
        LEASE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        start = os.getpid() % UID_COUNT  # spreads the search; any free uid will do
        for step in range(UID_COUNT):
            uid = UID_BASE + (start + step) % UID_COUNT
            fd = os.open(LEASE_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid: int | None = uid
            self._fd: int | None = fd
            return
        raise RuntimeError(f"all {UID_COUNT} sandbox uids from {UID_BASE} are in use")

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            self.uid = None

    def __del__(self) -> None:
        self.release()
