"""The next game's process, readied between games: forked once the last game's processes
are gone, checked from outside and held stopped (with the zygote) until
its game starts, when the hand-over verifies that nothing of the bot ran meanwhile."""

from __future__ import annotations

import ctypes
import os
import random
import shutil
import signal
import subprocess
import time

import pytest

from arena.faults import BotFault
from arena.plugins import load_registry
from arena.sandbox import SandboxHost, checks, sandbox_unavailable
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.process import parent_of
from arena.seats import Limits, settle_stops

REASON = sandbox_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no sandbox can be made here: {REASON}")

LIMITS = Limits(time_per_decision=2.0, time_bank=2.0, memory_mb=400, time_for_start=30)
INFO = {"ruleset": "flip-7", "version": "1", "options": {}, "seat": 0, "players": 2, "bots": ["a", "b"]}
OUTCOME = {"standing": [1, 2], "scores": [1, 0], "reason": "test"}


def observation() -> dict:
    """The first decision of a two-player Flip 7 deal, as a bot receives it."""
    ruleset = load_registry().ruleset("flip-7").cls
    game = ruleset.new_game(2, ruleset.resolve_options(), random.Random(1))
    seat = game.current_seat()
    return {"ruleset": ruleset.id, "version": ruleset.version, "options": ruleset.resolve_options(), "seat": seat,
            "players": 2, "view": game.view(seat), "events": [], "legal_actions": game.legal_actions()}


def state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return "gone"


def held_after_a_game(host: SandboxHost, seconds: float = 30.0) -> list[int]:
    """Play one game on `host`; the processes held for the next once it is readied."""
    host.start_game(1, {}, INFO)
    host.end_game(OUTCOME)
    if host.launcher.cgroup is None:
        pytest.skip("no cgroup here: the next game's process is checked at its start, by the zygote alone")
    deadline = time.monotonic() + seconds
    while not (held := host.launcher.held()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return held


def test_between_games_the_next_game_process_is_held_stopped_with_its_zygote():
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        held = held_after_a_game(host)
        assert len(held) == 2, held  # the zygote, the game process
        time.sleep(0.05)  # stopped, and staying so
        assert [state(pid) for pid in held] == ["T", "T"]
        host.start_game(2, {}, INFO)  # the hand-over: the held process answers its start
        assert host.launcher.held() == []
        assert state(held[0]) == "T"  # the zygote stays stopped for the game
        assert host.act(observation(), 2.0) in observation()["legal_actions"]
        host.end_game(OUTCOME)
    finally:
        host.close()


def pid_in_sandbox(pid: int) -> int:
    """`pid`'s number in the sandbox's PID namespace (the second of its NSpid)."""
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("NSpid:")).split()[2])


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("nsenter") is None,
                    reason="entering the sandbox's PID namespace needs root and util-linux's nsenter")
def test_each_readied_game_process_gets_the_pid_after_the_last_ones_whatever_ran_in_the_sandbox():
    """The sandbox's pid counter is set back between games to the last game process's pid
    (`pid_counter`): the zygote's next pid follows from what it knows, not from how many
    processes the last game made."""
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        pids = []
        for _ in range(4):
            held = held_after_a_game(host)
            assert len(held) == 2, held
            pids.append(pid_in_sandbox(held[1]))
            # 21 processes in the sandbox's namespace (a shell, 20 /bin/true) before the next game's end,
            # as a game's forks would be
            subprocess.run(["nsenter", "-t", str(held[0]), "-p", "sh", "-c",
                            "i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done"], check=True)
        counter = pid_in_sandbox(host.launcher._pid_counter.pid)  # the shell that sets the counter back
        expected = pids[:1]
        while len(expected) < len(pids):
            expected.append(expected[-1] + 1 + (expected[-1] + 1 == counter))
        assert pids == expected
    finally:
        host.close()


@pytest.mark.parametrize("tamper, process", [(signal.SIGCONT, 1), (signal.SIGCONT, 0), (signal.SIGKILL, 1)])
def test_a_held_process_that_ran_or_ended_before_the_hand_over_fails_the_sandbox_check(tamper, process):
    """Nothing of the bot can resume a held process (all of them are stopped): whatever
    did, the game does not start on it; the next start makes a new sandbox."""
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        held = held_after_a_game(host)
        os.kill(held[process], tamper)
        time.sleep(0.05)
        with pytest.raises(BotFault, match="sandbox check failed") as caught:
            host.start_game(2, {}, INFO)
        assert caught.value.fatal
        host.start_game(3, {}, INFO)
        assert host.act(observation(), 2.0) in observation()["legal_actions"]
        host.end_game(OUTCOME)
    finally:
        host.close()


def signals_ignored(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1], 16) for line in status if line.startswith("SigIgn:"))


def wake_ups(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("voluntary_ctxt_switches:"))


def test_a_game_process_is_forked_once_as_the_zygotes_child_which_the_kernel_reaps():
    """Told to pause (a harness that admits every game), the zygote makes the game process
    with one fork, no waiter between, as its child with SIGCHLD ignored: the kernel reaps
    the game at its end, so the zygote cannot wait for it, and not even its resource usage
    (wait4: CPU time, peak memory) tells the zygote anything of the game. The game
    process takes SIGCHLD back (its own children are reaped as anywhere)."""
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        zygote, game = held_after_a_game(host)
        assert parent_of(game) == zygote
        assert signals_ignored(zygote) & 1 << (signal.SIGCHLD - 1)
        assert not signals_ignored(game) & 1 << (signal.SIGCHLD - 1)
        assert sorted(host.launcher.cgroup.procs()) == sorted(host.launcher.base | {game})
        host.start_game(2, {}, INFO)
        assert host.act(observation(), 2.0) in observation()["legal_actions"]
        host.end_game(OUTCOME)
    finally:
        host.close()


@pytest.mark.skipif(os.geteuid() != 0 or checks.KCMP is None, reason="kcmp asked as root, on x86-64 and arm64")
def test_the_outside_check_finds_a_game_process_that_shares_its_zygotes_memory():
    """A zygote could make its game process with CLONE_VM: the game would write into the
    zygote's memory (and could change its SIGCHLD, the signal handlers being shareable
    only with the memory). kcmp finds it; a forked child shares nothing."""
    libc = ctypes.CDLL(None, use_errno=True)
    stack = ctypes.create_string_buffer(1 << 16)
    sharing = libc.clone(ctypes.cast(libc.pause, ctypes.c_void_p), ctypes.c_void_p(ctypes.addressof(stack) + (1 << 16)),
                         0x100 | signal.SIGCHLD, None)  # CLONE_VM: it sleeps in pause() on its own stack
    forked = os.fork()
    if forked == 0:
        signal.pause()
        os._exit(0)
    try:
        assert sharing > 0, ctypes.get_errno()
        assert checks._same_memory(os.getpid(), sharing)
        assert not checks._same_memory(os.getpid(), forked)
    finally:
        for pid in (sharing, forked):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def test_a_games_stops_and_resumptions_wake_no_other_process_of_the_sandbox():
    """Between its decisions the game process is stopped and resumed; its parent hears of
    each (the kernel wakes a parent waiting in wait()). The parent is the zygote, itself
    stopped for the whole game: no process of the sandbox but the game runs for them (a
    sandbox's init, a game's parent before, woke twice a decision)."""
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        held_after_a_game(host)
        host.start_game(2, {}, INFO)
        before = {pid: wake_ups(pid) for pid in host.launcher.base if pid != host.launcher.popen.pid}
        for _ in range(20):
            assert host.act(observation(), 2.0) in observation()["legal_actions"]
            settle_stops()
        assert {pid: wake_ups(pid) for pid in before} == before
        host.end_game(OUTCOME)
    finally:
        host.close()


def test_a_zygote_not_told_to_pause_readies_and_plays_its_games(monkeypatch):
    """Without a cgroup (a harness that is not root) nothing stops and resumes the zygote
    between games: it is not told to pause, and its game processes say "ready" themselves."""
    monkeypatch.setattr(BotCgroup, "make", classmethod(lambda cls, memory_mb, max_processes: None))
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        for game in range(3):
            host.start_game(game, {}, INFO)
            assert host.act(observation(), 2.0) in observation()["legal_actions"]
            host.end_game(OUTCOME)
        assert host.launcher.cgroup is None and host.launcher.held() == []
    finally:
        host.close()


FALLBACK_FORK = """
import os, sys
from arena.sandbox import zygote
zygote._CLONE = None  # as on a machine whose clone number is not known
pause = sys.argv[1] == "pause"
said, told = os.pipe()
pid = zygote._fork_game(pause)
if pid == 0:  # the game process
    os.close(said)
    os.write(told, str(os.getpid()).encode())
    os._exit(7)
os.close(told)
seen = os.read(said, 16).decode()
code = None if pause else os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(seen, code)
"""


@pytest.mark.parametrize("pause", ["pause", "no-pause"])
def test_where_the_clone_number_is_unknown_a_game_process_is_still_the_init_of_a_new_pid_namespace(pause):
    """The fork, unshare, fork fallback: the game is pid 1 of its own namespace; without pause
    the middle process passes on its exit code, with pause it has already exited."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FALLBACK_FORK, pause], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == (["1", "None"] if pause == "pause" else ["1", "7"])
