"""Attacks that remember a deal across games: in the bot module's memory, in files,
in the kernel's keyrings, and through whatever import-time code could leave in a
Python bot's zygote (a thread, a child, a descriptor, a shared mapping, System V
IPC), and in the network namespace a game shares with its zygote (a TCP TIME_WAIT).
Two games of one host replay the same deal with the seats rotated (as the
duplicate format does); game 2 must find nothing of game 1, or the zygote must
refuse to serve, a fault charged to that bot alone. Controls under process
isolation (one process reused across games) show the same bots remembering.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.match import Entrant
from arena.seats import ProcessHost
from test_attacks import ATTACKS, CommandBot, ab, assert_rivals_played_normally, install_plugin, play, reports, \
    victims  # noqa: F401
from test_attacks import attack_site, hosts, sandbox, token  # noqa: F401  (fixtures)


def two_games(hosts, host, cls, token, **params):
    """Game 1 (seat 0) and game 2 (the same deal, seat 1) of `host`; game 2's report."""
    rivals, entrants = victims(hosts)
    first = play([host] + rivals, [Entrant(cls, params=dict(params, tag="game-1", token=token))] + entrants, seed=5)
    second = play([rivals[0], host, rivals[1]],
                  [entrants[0], Entrant(cls, params=dict(params, tag="game-2", token=token)), entrants[1]], seed=5)
    return first, second


def found_in_game_2(second, attack):
    found = reports(second.logs[1], attack)
    assert len(found) == 1, second.logs[1]
    return found[0]["found"]


MEMORIES = [(ab.MemoInModule, "memo-module"), (ab.MemoInFiles, "memo-files"), (ab.MemoInTimeWait, "memo-timewait"),
            (ab.MemoInKeyring, "memo-keyring")]


@pytest.mark.parametrize("cls, attack", MEMORIES, ids=[m[1] for m in MEMORIES])
def test_a_python_bot_remembers_nothing_from_one_game_to_the_next(hosts, token, cls, attack):
    host = hosts.sandboxed(cls.name)
    first, second = two_games(hosts, host, cls, token)
    assert found_in_game_2(second, attack) in ([], {})
    assert_rivals_played_normally(first.record, attacker=0)
    assert_rivals_played_normally(second.record, attacker=1)


@pytest.mark.parametrize("cls, attack", MEMORIES[:3], ids=[m[1] for m in MEMORIES[:3]])
def test_control_without_a_sandbox_the_bot_remembers(hosts, token, cls, attack):
    host = hosts.process(cls.name)
    _, second = two_games(hosts, host, cls, token)
    assert "game-1" in str(found_in_game_2(second, attack))


def test_control_keyrings_remember_across_processes_of_one_uid(hosts, token):
    """The keyring attack works where nothing namespaces keyrings: two processes of the
    same user (here: two process-isolated hosts of the harness's own user) share them.
    The keys are left in this user's keyrings: their names are unique and tiny."""
    first_host, second_host = hosts.process(ab.MemoInKeyring.name), hosts.process(ab.MemoInKeyring.name)
    rivals, entrants = victims(hosts)
    play([first_host] + rivals, [Entrant(ab.MemoInKeyring, params={"tag": "game-1", "token": token})] + entrants)
    second = play([rivals[0], second_host, rivals[1]],
                  [entrants[0], Entrant(ab.MemoInKeyring, params={"tag": "game-2", "token": token}), entrants[1]])
    assert "game-1" in str(found_in_game_2(second, "memo-keyring"))


CHANNELS = ["thread", "child", "fd", "mapping", "sysv", "keyring", "stdin", "log", "files", "mount", "tmpfs",
            "filter", "rusage", "rusagekept",
            # the same, after import-time code rewrote the zygote's self-check: the harness's
            # checks from outside must still refuse
            "patchedthread", "patchedchild", "patchedfd", "patchedmapping", "patchedstdin", "patchedmount",
            "patchedtmpfs"]
SERVED = ("sysv", "keyring", "log", "files", "rusage")
"""Channels the sandbox leaves open to the zygote but empty for every game: System V IPC
and keys are refused or namespaced, the log cannot be read back, the writable places
are fresh (or read-only), and the kernel reaps a game process (its parent, the zygote,
ignores SIGCHLD: `wait4` and `RUSAGE_CHILDREN` tell it nothing of a game's CPU time or
peak memory)."""
REFUSED_BY = {"stdin": "descriptor 0", "patchedstdin": "descriptor 0 open on /tmp/attack-memo",
              "patchedmount": "can write into the zygote's tmpfs", "patchedtmpfs": "can write into the zygote's tmpfs",
              "filter": "another filter is in its place", "rusagekept": "could reap its game process"}
"""What the fault says for channels whose refusal names the thing found."""


class LeftoverStub(ab.Attacker):
    """Stands for a leftover bot in records (its module must not be imported here)."""

    name = "attack-leftover"


@pytest.mark.parametrize("channel", CHANNELS)
def test_import_time_leftovers_in_the_zygote_are_refused_or_useless(hosts, tmp_path, token, channel, sandbox):
    site = install_plugin(tmp_path / f"leftover-{channel}", ATTACKS / "leftovers.py", f"leftover_{channel}")
    host = sandbox.for_bot(f"attack-leftover-{channel}", env={"PYTHONPATH": str(site)})
    hosts.made.append(host)
    first, second = two_games(hosts, host, LeftoverStub, token)
    faults = first.record["faults"]
    if faults:  # the zygote refused to fork a game from a state that could carry notes
        for game, seat in ((first, 0), (second, 1)):
            kinds = [(f["seat"], f["kind"], f["decision"]) for f in game.record["faults"]]
            assert kinds and kinds[0][0] == seat and kinds[0][2] is None, kinds  # at start, the attacker's
            assert {k[1] for k in kinds} <= {"error", "garbage", "crash"}, kinds
            assert reports(game.logs[seat], "leftover") == []  # no game of its code ran
            assert_rivals_played_normally(game.record, attacker=seat)
        if faults[0]["kind"] == "error" or channel.startswith("patched"):
            assert "sandbox check failed" in faults[0]["detail"], faults[0]
        if channel.startswith("patched"):  # refused by the harness's check from outside, not the zygote's own
            assert faults[0]["detail"].startswith("sandbox check failed: "), faults[0]  # not "raised in start()"
        if channel in REFUSED_BY:
            assert REFUSED_BY[channel] in faults[0]["detail"], faults[0]
        if faults[0]["kind"] == "error" and not channel.startswith("patched"):  # the zygote's own check
            assert f"after importing the distribution 'leftover-{channel}'" in faults[0]["detail"], faults[0]
    else:  # it served the games: game 2 must find nothing of game 1
        assert channel in SERVED, f"the zygote served games after import-time code left a {channel}"
        if channel in ("log", "files"):  # the game did leave its tag (in its log, in its own fresh /tmp)
            assert reports(first.logs[0], "leftover-write")[0]["left"] == "ok", first.logs[0]
        assert found_in_game_2(second, "leftover") == []
        assert_rivals_played_normally(first.record, attacker=0)
        assert_rivals_played_normally(second.record, attacker=1)


def test_a_command_bot_remembers_nothing_in_the_kernels_keyrings(hosts, token):
    """A command bot gets a new sandbox per game, but the same uid (leased per host):
    keyrings live outside every namespace, so the sandbox's seccomp filter refuses the
    key calls, and nothing reaches its next game."""
    host = hosts.command([ATTACKS / "memo_keyring.py", token], name="memo-keyring")
    first, second = two_games(hosts, host, CommandBot, token)
    wrote = reports(first.logs[0], "memo-keyring-write")
    assert wrote and "ok" not in wrote[0]["added"].values(), first.logs[0]  # refused
    assert found_in_game_2(second, "memo-keyring") == {}
    assert_rivals_played_normally(first.record, attacker=0)
    assert_rivals_played_normally(second.record, attacker=1)


def test_control_a_parent_reads_the_peak_memory_of_the_child_it_reaps():
    """The rusage channel is real where a game process is its zygote's child and the zygote
    does not ignore SIGCHLD: a parent that reaps a child learns its peak memory (what the
    "rusage" leftovers read)."""
    child = os.fork()
    if child == 0:
        kept = bytearray(b"\1") * (150 << 20)
        os._exit(0 if kept else 1)
    _, status, usage = os.wait4(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert usage.ru_maxrss >= 100 << 10  # KiB: the "rusage" leftover's threshold for a game's peak


def test_control_a_parent_that_ignores_sigchld_learns_nothing_of_its_child():
    """Why a zygote may be its game process's parent: with SIGCHLD ignored the kernel reaps
    the child at its end; the parent's wait4 finds no child and RUSAGE_CHILDREN counts none."""
    script = ("import os, resource, signal\n"
              "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
              "child = os.fork()\n"
              "if child == 0:\n"
              "    kept = bytearray(b'\\1') * (150 << 20)\n"
              "    os._exit(0 if kept else 1)\n"
              "try:\n"
              "    os.wait4(child, 0)\n"
              "    print('reaped')\n"
              "except ChildProcessError:\n"
              "    print('no child', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30).stdout.split()
    assert out[:2] == ["no", "child"] and int(out[2]) < 100 << 10, out


@pytest.mark.parametrize("channel", ["stdin", "log", "files"])
def test_control_without_a_sandbox_import_time_leftovers_carry_notes(hosts, tmp_path, token, channel):
    """The same leftovers under process isolation (one process reused across games):
    game 2 finds game 1's tag."""
    site = install_plugin(tmp_path / f"leftover-{channel}", ATTACKS / "leftovers.py", f"leftover_{channel}")
    host = ProcessHost.for_bot(f"attack-leftover-{channel}", env={"PYTHONPATH": str(site)})
    hosts.made.append(host)
    _, second = two_games(hosts, host, LeftoverStub, token)
    assert "game-1" in found_in_game_2(second, "leftover")


def test_a_game_cannot_tell_a_later_game_how_many_processes_it_made(hosts, tmp_path, token, sandbox):
    """Import-time code probes the sandbox's next pid before each fork; a game forks 30
    processes; a later game of the same zygote must not find the count."""
    site = install_plugin(tmp_path / "leftover-pidcount", ATTACKS / "leftovers.py", "leftover_pidcount")
    host = sandbox.for_bot("attack-leftover-pidcount", env={"PYTHONPATH": str(site)})
    hosts.made.append(host)
    rivals, entrants = victims(hosts)
    found = []
    for game in range(3):
        result = play([host] + rivals, [Entrant(LeftoverStub, params={"tag": f"game-{game}", "token": token})]
                      + entrants, seed=5)
        assert result.record["faults"] == []
        found += reports(result.logs[0], "leftover")[0]["found"]
    assert found == []
