"""Attacks on the kernel's surface from a game: reading the host's /proc and /sys
(live CPU counters that tell when rivals are thinking, kernel symbols, bwrap's
command line with host paths), reading the bot's own cgroup counters (which outlast
a game), and system calls a game has no use for (new namespaces, mounts, inotify,
perf events, ptrace, clone3; in a Python bot's game, which shares its zygote's
network namespace, any socket but a unix one). A Python bot's game process and a
command bot must
see and do none of it in the sandbox; controls under process isolation show each
probe working on this machine, so a sandbox that let one through would fail here.
"""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from arena.match import Entrant
from arena.seats import ProcessHost
from test_attacks import ATTACKS, CommandBot, install_plugin, play, reports, the_report, victims  # noqa: F401
from test_attacks import attack_site, hosts, sandbox, token  # noqa: F401  (fixtures)

SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")
HOST_VIEWS = ("proc-stat", "kallsyms", "pid-1-cmdline", "mountinfo")
IO_URING_ALLOWED = Path("/proc/sys/kernel/io_uring_disabled").exists() and \
    Path("/proc/sys/kernel/io_uring_disabled").read_text().strip() == "0"
"""Whether this machine lets any process make an io_uring (the control's probe can succeed)."""
REFUSED_CALLS = ("unshare-user", "mount-tmpfs", "inotify", "fanotify", "perf", "ptrace-traceme", "pivot-root")


class ProbeStub(CommandBot):
    name = "attack-kernel-probe"


@pytest.fixture
def probe_site(tmp_path):
    return install_plugin(tmp_path / "kernel-probe", ATTACKS / "kernel_probe.py", "kernel_probe")


def probed(hosts, host) -> dict:
    rivals, entrants = victims(hosts)
    result = play([host] + rivals, [Entrant(ProbeStub)] + entrants)
    return the_report(result, 0, "kernel")["found"]


def assert_sees_and_does_nothing(found: dict) -> None:
    for view in HOST_VIEWS:
        assert found[view] != "read", (view, found)
    assert found["sys"] == "absent", found
    assert found["cgroup-counter"] != "read", found
    if platform.machine() == "x86_64":
        for call in REFUSED_CALLS:
            assert found[call] in ("EPERM", "EACCES"), (call, found)
        assert found["clone3"] == "ENOSYS", found  # refused outright: its flags are out of a filter's reach


def test_a_python_bots_game_sees_no_host_proc_or_sys_and_makes_no_refused_call(hosts, probe_site, sandbox):
    host = sandbox.for_bot("attack-kernel-probe", env={"PYTHONPATH": str(probe_site)})
    hosts.made.append(host)
    found = probed(hosts, host)
    assert_sees_and_does_nothing(found)
    # It shares its zygote's network namespace: no socket that could outlive it there,
    # but unix sockets and socket pairs (multiprocessing, asyncio) work.
    if platform.machine() in ("x86_64", "aarch64"):
        for family in ("socket-inet", "socket-inet6", "socket-netlink"):
            assert found[family] == "EAFNOSUPPORT", (family, found)
    assert found["socket-unix"] == "ok" and found["socketpair"] == "ok", found
    if platform.machine() == "x86_64":  # nor a ring, whose socket operation makes one with no socket() call
        assert found["io-uring"] == "ENOSYS", found


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no python3 in /usr/bin or /bin")
def test_a_command_bot_sees_what_a_python_bot_sees(hosts):
    host = hosts.command([SYSTEM_PYTHON, ATTACKS / "kernel_probe.py"], name="kernel-probe")
    assert_sees_and_does_nothing(probed(hosts, host))


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no python3 in /usr/bin or /bin")
def test_control_without_a_sandbox_a_command_bot_reads_the_hosts_proc_and_sys(hosts):
    host = ProcessHost([SYSTEM_PYTHON, str(ATTACKS / "kernel_probe.py")], name="kernel-probe")
    hosts.made.append(host)
    found = probed(hosts, host)
    assert found["proc-stat"] == "read" and found["pid-1-cmdline"] == "read", found
    assert found["sys"] == "listed", found
    if platform.machine() == "x86_64":
        assert found["inotify"] == "ok" and found["ptrace-traceme"] == "ok", found
        assert found["clone3"] != "ENOSYS", found
    assert found["socket-inet"] == "ok" and found["socket-netlink"] == "ok", found
    if platform.machine() == "x86_64" and IO_URING_ALLOWED:
        assert found["io-uring"] == "ok", found


def test_control_without_a_sandbox_a_python_bot_reads_its_cgroup_counters(hosts, probe_site):
    host = ProcessHost.for_bot("attack-kernel-probe", env={"PYTHONPATH": str(probe_site)})
    hosts.made.append(host)
    found = probed(hosts, host)
    assert found["proc-stat"] == "read" and found["kallsyms"] == "read", found
    if found["cgroup-counter"] in ("ENOENT", "no-cgroup-line"):
        pytest.skip(f"no cgroup counters to read on this machine ({found['cgroup-counter']})")
    assert found["cgroup-counter"] == "read", found
