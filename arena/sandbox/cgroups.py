"""A control group per sandbox: memory and process limits for all of a bot's
processes together, its CPU time, and the list of its processes.

Made under the harness's own cgroup (nested, so whatever limits the harness is
under still hold), as `arena-<harness pid>/<sandbox>`. cgroup v1 is used where
its controllers are mounted (memory, pids, cpuacct), else v2 where the harness's
own cgroup delegates them; `BotCgroup.make` returns None where neither can be
had (not root, no delegation), and the caller falls back to per-process rlimits.
Processes are put in it before they exec (`join`), so nothing a bot starts can
be outside it, and a bot cannot leave it (the files are root's, and /sys is not
in the sandbox).
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpuacct")
_serial = itertools.count()


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and "" for the v2 hierarchy."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


class BotCgroup:
    """One sandbox's cgroup(s). `procs()` lists host pids; limits are set at `make`."""

    def __init__(self, dirs: dict[str, Path], version: int):
        self.dirs = dirs  # controller ("" on v2) -> folder
        self.version = version
        self._procs_file = str(next(iter(dirs.values())) / "cgroup.procs")
        self._threads_file = str(next(iter(dirs.values())) / ("tasks" if version == 1 else "cgroup.threads"))
        self._count_file = str(dirs["pids" if version == 1 else ""] / "pids.current")
        self._count_fd: int | None = None
        self._join_paths = [str(folder / "cgroup.procs") for folder in dirs.values()]
        self._oom_base = self.oom_kills()

    @classmethod
    def make(cls, memory_mb: int, max_processes: int) -> "BotCgroup | None":
        """A new cgroup with these limits, or None where none can be made."""
        if os.geteuid() != 0:
            return None
        name = f"sandbox-{os.getpid()}-{next(_serial)}"
        own = _own_paths()
        if all((ROOT / c).is_dir() and c in own for c in V1_CONTROLLERS):
            dirs = {c: ROOT / c / own[c].lstrip("/") / f"arena-{os.getpid()}" / name for c in V1_CONTROLLERS}
            version = 1
        elif "" in own and (ROOT / "cgroup.controllers").exists():
            parent = ROOT / own[""].lstrip("/")
            enabled = (parent / "cgroup.subtree_control").read_text().split() if parent.exists() else []
            if not {"memory", "pids"} <= set(enabled):
                return None
            dirs = {"": parent / f"arena-{os.getpid()}" / name}
            version = 2
        else:
            return None
        try:
            for folder in dirs.values():
                folder.mkdir(parents=True, exist_ok=True)
            group = cls(dirs, version)
            group._limit(memory_mb << 20, max_processes)
        except OSError:
            for folder in dirs.values():
                _rmdir(folder)
            return None
        return group

    def _limit(self, memory: int, max_processes: int) -> None:
        if self.version == 1:
            (self.dirs["memory"] / "memory.limit_in_bytes").write_text(str(memory))
            swap = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
            if swap.exists():  # no escape into swap
                swap.write_text(str(memory))
            (self.dirs["pids"] / "pids.max").write_text(str(max_processes))
        else:
            folder = self.dirs[""]
            (folder / "memory.max").write_text(str(memory))
            if (folder / "memory.swap.max").exists():
                (folder / "memory.swap.max").write_text("0")
            (folder / "pids.max").write_text(str(max_processes))

    def join(self) -> None:
        """Put the calling process in this cgroup (from a child, before exec: plain
        system calls only, as another thread of the parent may hold a lock)."""
        for path in self._join_paths:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def procs(self) -> list[int]:
        """The pids in it now (read afresh: an open descriptor would keep a stale list)."""
        try:
            fd = os.open(self._procs_file, os.O_RDONLY)
            try:
                data = os.read(fd, 1 << 20)
            finally:
                os.close(fd)
            return [int(p) for p in data.split()]
        except (OSError, ValueError):
            return []

    def cpu_seconds(self) -> float:
        """CPU time used by every process that was ever in the cgroup."""
        try:
            if self.version == 1:
                return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
            for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec"):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return 0.0

    def oom_kills(self) -> int:
        try:
            if self.version == 1:
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
            else:
                text = (self.dirs[""] / "memory.events").read_text()
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def ran_out_of_memory(self) -> bool:
        """Whether the kernel killed one of its processes for memory since the last call."""
        count = self.oom_kills()
        hit, self._oom_base = count > self._oom_base, count
        return hit

    def signal_all(self, sig: int, keep: frozenset[int] = frozenset()) -> set[int]:
        """Send `sig` to every process in the cgroup but `keep`, until no new one
        appears (a process that forks while it is being signalled is signalled too).
        Returns the pids signalled."""
        done: set[int] = set()
        for _ in range(100):
            fresh = [p for p in self.procs() if p not in done and p not in keep]
            if not fresh:
                break
            for pid in fresh:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
                done.add(pid)
        return done

    def threads(self) -> list[int]:
        """The thread ids in it now (every thread of every process)."""
        try:
            fd = os.open(self._threads_file, os.O_RDONLY)
            try:
                data = os.read(fd, 1 << 20)
            finally:
                os.close(fd)
            return [int(t) for t in data.split()]
        except (OSError, ValueError):
            return []

    def task_count(self) -> int:
        """How many tasks (threads) it holds now: one small read, no listing."""
        if self._count_fd is None:
            self._count_fd = os.open(self._count_file, os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(self._count_fd, 32, 0))

    def kill_all(self, keep: frozenset[int] = frozenset(), seconds: float = 5.0) -> bool:
        """SIGKILL every process but `keep`; True once they are gone."""
        deadline = time.monotonic() + seconds
        while True:
            self.signal_all(signal.SIGKILL, keep)
            left = [p for p in self.procs() if p not in keep]
            if not left or time.monotonic() > deadline:
                return not left
            time.sleep(0.0002)  # they are usually gone within a millisecond

    def remove(self) -> None:
        """Kill what is left and delete the folders (and the run's parent when empty)."""
        self.kill_all()
        if self._count_fd is not None:
            os.close(self._count_fd)
            self._count_fd = None
        for folder in self.dirs.values():
            _rmdir(folder)
            _rmdir(folder.parent, tries=1)  # busy while other sandboxes of this run live


class Stopper:
    """Stops a bot's processes (all in `group` but `keep`, whose processes run one
    thread each) between its decisions, and verifies the stop: every thread seen
    stopped or a zombie (a pending SIGSTOP is not enough: a process of the bot that
    still runs could send SIGCONT to one already stopped) and no task in the cgroup
    that is not known. Cheap while the bot's threads stay the same: it signals the
    processes it knows, compares the cgroup's task count (one small read) with the
    count when it last listed them, and reads each thread's state through a
    descriptor kept open; it lists the cgroup again when the count changed or a
    thread it knew is gone (one reaped while another was made keeps the count)."""

    def __init__(self, group: BotCgroup, keep: frozenset[int]):
        self.group, self.keep = group, keep
        self.threads: dict[int, int] = {}  # tid -> descriptor open on its /proc/TID/stat
        self.owners: dict[int, int] = {}  # tid -> the pid of its process
        self.pids: set[int] = set()
        self.count = -1  # the cgroup's task count when the threads were listed

    def stop(self, relist: bool = False) -> set[int]:
        """SIGSTOP every process of the bot but `keep`; the pids signalled (not to be
        changed: without `relist`, the set of those known). Without
        `relist`, once the threads are listed, only the processes known (`unstopped`
        then finds a changed task count: call again with `relist`, which signals every
        process in the cgroup and lists the threads again)."""
        if self.count >= 0:
            for pid in self.pids:
                try:
                    os.kill(pid, signal.SIGSTOP)
                except ProcessLookupError:
                    pass
            if not relist:
                return self.pids
        signalled = self.group.signal_all(signal.SIGSTOP, self.keep)
        self.watch()
        return signalled | self.pids

    def unstopped(self) -> list[int] | None:
        """The known threads that are not stopped yet, or None when the cgroup's tasks
        changed since they were listed (call `stop` again): their count, or one of them
        is gone (a task that ended and was reaped while another was made leaves the count
        as it was, the new one unknown)."""
        if self.group.task_count() != self.count:
            return None
        running = []
        for tid, fd in self.threads.items():
            try:
                state = os.pread(fd, 512, 0).rsplit(b")", 1)[1][1:2]
            except (OSError, IndexError):
                return None  # ended and reaped: list them again
            if state not in (b"T", b"t", b"Z", b"X"):
                running.append(tid)
        return running

    def stop_again(self, threads: list[int]) -> None:
        """SIGSTOP again the processes of `threads` (one may have been sent SIGCONT by
        another of the bot's processes before that one was stopped)."""
        for pid in sorted({self.owners.get(tid, 0) for tid in threads} - self.keep - {0}):
            _kill(pid, signal.SIGSTOP)

    def watch(self) -> None:
        """List the threads (again until the task count holds still around the listing).
        Called by the first `stop`; or before it, while every process of the bot is
        stopped (then the first `stop` signals those it knows, as any later one)."""
        for _ in range(100):
            self.close()
            before = self.group.task_count()
            for tid in self.group.threads():
                if tid in self.keep:
                    continue
                try:
                    self.threads[tid] = os.open(f"/proc/{tid}/stat", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue  # gone
                self.owners[tid] = _thread_group(tid)
            self.pids = set(self.owners.values()) - {0}
            if self.group.task_count() == before:
                self.count = before
                return

    def close(self) -> None:
        for fd in self.threads.values():
            os.close(fd)
        self.threads, self.owners, self.pids, self.count = {}, {}, set(), -1


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _thread_group(tid: int) -> int:
    """The pid of the process that thread `tid` belongs to (0 if it is gone)."""
    try:
        with open(f"/proc/{tid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"Tgid:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _rmdir(folder: Path, tries: int = 50) -> None:
    for _ in range(tries):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # busy: the last processes are still being reaped
            time.sleep(0.01)


def remove_stale() -> None:
    """Delete the empty sandbox cgroups of harness processes that no longer run
    (a harness killed with -9 cannot clean up after itself)."""
    own = _own_paths()
    parents = [ROOT / c / own[c].lstrip("/") for c in V1_CONTROLLERS if c in own and (ROOT / c).is_dir()]
    if "" in own and (ROOT / "cgroup.controllers").exists():
        parents.append(ROOT / own[""].lstrip("/"))
    for parent in parents:
        try:
            runs = [p for p in parent.iterdir() if p.name.startswith("arena-")]
        except OSError:
            continue
        for run in runs:
            pid = run.name.removeprefix("arena-")
            if not pid.isdigit() or Path(f"/proc/{pid}").exists():
                continue
            for child in list(run.iterdir()):
                if child.is_dir():
                    _rmdir(child)
            _rmdir(run)
