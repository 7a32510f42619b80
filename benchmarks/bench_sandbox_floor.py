"""Benchmark: the floor of a sandboxed game on this machine, what a fresh game process in
fresh namespaces costs whatever the harness does around it.

    .venv/bin/python benchmarks/bench_sandbox_floor.py [--cycles 300] [--rounds 3]

Run as root (it mounts in its own mount namespace only). A Python process with every
plugin loaded (about 24 MB, as a zygote is) makes `--cycles` children one after another
and waits for each; it prints, per mode, the median over interleaved rounds of the wall
clock and the CPU (its own and its children's) a cycle, and the child's minor page faults:

- fork: `os.fork`, the child exits at once (any process-per-game design pays this);
- ns: one `clone` into new user, PID, mount and IPC namespaces, as `zygote._fork_game`
  makes a game process; the child writes its id maps and exits;
- mounts: ns, then three tmpfs mounts (a game's /tmp, /dev/shm and /proc);
- game: mounts, then no capabilities, no_new_privs and the game's seccomp filter, as a
  game process sets itself up before it says it is ready.

"game" is the floor of the design (docs/security.md): a game process made, set up and
ended, with no check, no protocol and no play.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import statistics
import tempfile
import time

from arena.plugins import load_registry
from arena.sandbox import seccomp, zygote

NAMESPACES = zygote.CLONE_NEWUSER | zygote.CLONE_NEWPID | zygote.CLONE_NEWNS | zygote.CLONE_NEWIPC
MODES = ("fork", "ns", "mounts", "game")
_libc = ctypes.CDLL(None, use_errno=True)


def child(mode: str, ids: tuple[int, int], folders: list[bytes]) -> None:
    """The child's part of a cycle (`mode`), then its exit."""
    try:
        if mode != "fork":
            zygote._write_id_maps(*ids)
        if mode in ("mounts", "game"):
            for folder in folders:
                if _libc.mount(b"tmpfs", folder, b"tmpfs", zygote.MS_NOSUID | zygote.MS_NODEV,
                               b"size=67108864,mode=1777") != 0:
                    raise OSError(ctypes.get_errno(), "mount")
        if mode == "game":
            header = zygote._CapabilityHeader(zygote.CAPABILITY_VERSION_3, 0)
            _libc.capset(ctypes.byref(header), (zygote._CapabilityData * 2)())
            _libc.prctl(zygote.PR_SET_DUMPABLE, 0, 0, 0, 0)
            _libc.prctl(zygote.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            program = seccomp.game_program()
            if program is not None:
                seccomp.install(program, _libc)
    except BaseException:  # noqa: BLE001 - the parent sees the exit code
        os._exit(1)
    os._exit(0)


def new_process(mode: str) -> int:
    """0 in the child, its pid in the parent: a fork, or the zygote's clone into new namespaces."""
    if mode == "fork" or zygote._CLONE is None:
        return os.fork()
    ctypes.pythonapi.PyOS_BeforeFork()
    pid = zygote._syscall(ctypes.c_long(zygote._CLONE), ctypes.c_ulong(NAMESPACES | signal.SIGCHLD),
                          None, None, None, None)
    if pid == 0:
        ctypes.pythonapi.PyOS_AfterFork_Child()
    else:
        ctypes.pythonapi.PyOS_AfterFork_Parent()
    return pid


def cycles(mode: str, count: int, folders: list[bytes]) -> tuple[float, float, float]:
    """Wall ms, CPU ms (parent and children) and child minor faults a cycle."""
    ids = os.getuid(), os.getgid()
    own, children, began = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN), time.perf_counter()
    for _ in range(count):
        pid = new_process(mode)
        if pid == 0:
            child(mode, ids, folders)
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
            raise SystemExit(f"a {mode} child failed")
    elapsed = time.perf_counter() - began
    own_after, children_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)

    def cpu(before, after):
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    return (elapsed / count * 1e3, (cpu(own, own_after) + cpu(children, children_after)) / count * 1e3,
            (children_after.ru_minflt - children.ru_minflt) / count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load_registry()
    with tempfile.TemporaryDirectory() as where:
        folders = [os.path.join(where, name).encode() for name in ("tmp", "shm", "proc")]
        for folder in folders:
            os.mkdir(folder)
        found: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode in MODES:
                found[mode].append(cycles(mode, args.cycles, folders))
    with open("/proc/self/status") as status:
        rss = status.read().split("VmRSS:")[1].split()[0]
    print(f"a {rss} kB Python process, {args.cycles} cycles x {args.rounds} interleaved rounds, "
          f"load {os.getloadavg()[0]:.2f}; medians a cycle:")
    for mode in MODES:
        wall, cpu, faults = (statistics.median(run[i] for run in found[mode]) for i in range(3))
        print(f"  {mode:7s} wall {wall:5.2f} ms   CPU {cpu:5.2f} ms   child minor faults {faults:4.0f}")


if __name__ == "__main__":
    main()
