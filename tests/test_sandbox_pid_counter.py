"""Setting a PID namespace's counter back (`arena.sandbox.pid_counter`), as the harness
does to a sandbox's between games: the next process there gets the same pid whatever ran
before, the harness's own later processes stay in its own namespace, and the shell kept
there to do it is reaped at the end."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

from arena.sandbox import pid_counter

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("nsenter") is None,
                                reason="making and entering a PID namespace needs root and util-linux's "
                                       "unshare and nsenter")


@pytest.fixture
def namespace():
    """(pid, descriptor) of a process in a new PID namespace (its pid 1), killed after."""
    outer = subprocess.Popen(["unshare", "--pid", "--fork", "sleep", "60"])
    try:
        deadline = time.monotonic() + 5
        while not (children := open(f"/proc/{outer.pid}/task/{outer.pid}/children").read().split()):
            assert time.monotonic() < deadline, "unshare's child did not start"
            time.sleep(0.01)
        inner = int(children[0])
        fd = pid_counter.namespace_of(inner)
        try:
            yield inner, fd
        finally:
            os.close(fd)
    finally:
        outer.kill()
        outer.wait()


def next_pid_in(inner: int, forks: int = 0) -> int:
    """The pid a new process gets in `inner`'s namespace after `forks` short-lived others."""
    script = "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done; sh -c 'echo $$'" % forks
    return int(subprocess.run(["nsenter", "-t", str(inner), "-p", "sh", "-c", script], check=True,
                              capture_output=True, text=True).stdout)


def test_set_back_gives_the_next_process_the_same_pid_however_many_came_before(namespace):
    inner, fd = namespace
    counter = pid_counter.PidCounter(fd)  # its shell takes pid 2 there (1 is sleep) for good
    try:
        seen = []
        for forks in (0, 25, 3):
            next_pid_in(inner, forks)  # moves the counter by forks + 2 (nsenter's sh, the echoing sh)
            counter.set_back(10)
            seen.append(next_pid_in(inner))
    finally:
        counter.close()
    # set back to 10: nsenter's sh takes 11, the sh it runs (the one that echoes) 12
    assert seen == [12] * 3


def test_the_counters_shell_is_in_the_namespace_and_the_harness_threads_children_are_not(namespace):
    inner, fd = namespace
    counter = pid_counter.PidCounter(fd)
    try:
        assert os.readlink(f"/proc/{counter.pid}/ns/pid") == os.readlink(f"/proc/{inner}/ns/pid")
        assert os.readlink("/proc/thread-self/ns/pid_for_children") == os.readlink("/proc/self/ns/pid")
        child = subprocess.Popen(["sleep", "5"])
        try:
            assert os.readlink(f"/proc/{child.pid}/ns/pid") == os.readlink("/proc/self/ns/pid")
        finally:
            child.kill()
            child.wait()
    finally:
        counter.close()
    with pytest.raises(ChildProcessError):  # reaped: no zombie left to hold the namespace's init
        os.waitpid(counter.pid, os.WNOHANG)


def test_a_counter_whose_shell_died_fails_to_set_back_with_an_os_error(namespace):
    _, fd = namespace
    counter = pid_counter.PidCounter(fd)
    try:
        os.kill(counter.pid, signal.SIGKILL)
        os.waitid(os.P_PID, counter.pid, os.WEXITED | os.WNOWAIT)  # dead (its pipes closed), not yet reaped
        with pytest.raises(OSError, match="did not answer"):
            counter.set_back(10)
    finally:
        counter.close()


def test_a_counter_of_something_not_a_pid_namespace_is_an_os_error_naming_it(tmp_path):
    not_a_namespace = os.open(tmp_path, os.O_RDONLY)
    try:
        with pytest.raises(OSError, match="cannot join the sandbox's PID namespace"):
            pid_counter.PidCounter(not_a_namespace)
    finally:
        os.close(not_a_namespace)
    assert os.readlink("/proc/thread-self/ns/pid_for_children") == os.readlink("/proc/self/ns/pid")
