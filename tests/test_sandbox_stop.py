"""A sandboxed bot's stop after each reply: signalled as soon as the reply line is read
(before it is decoded), and sent whatever ends the request. That the stop is verified
before any rival is asked is `tests/test_attacks.py`'s."""

from __future__ import annotations

import random

import pytest

import arena.channel
from arena.channel import Channel
from arena.plugins import load_registry
from arena.sandbox import SandboxHost, sandbox_unavailable
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


@pytest.fixture
def host():
    host = SandboxHost.for_bot("random", LIMITS)
    try:
        host.start_game(1, {}, INFO)
        if host.launcher.cgroup is None:
            pytest.skip("no cgroup here: bots are not stopped between requests")
        yield host
    finally:
        host.close()


def test_a_bots_stop_is_signalled_before_its_reply_is_decoded(host, monkeypatch):
    decode_reply, signalled = arena.channel.decode_reply, []

    def decode_and_record(line):
        signalled.append(sorted(host.launcher.stopped))
        return decode_reply(line)

    monkeypatch.setattr(arena.channel, "decode_reply", decode_and_record)
    for _ in range(3):
        assert host.act(observation(), 2.0) in observation()["legal_actions"]
        settle_stops()
    assert len(signalled) == 3 and all(signalled), signalled
    host.end_game(OUTCOME)


def test_a_request_that_raises_after_the_reply_came_still_stops_the_bot(host, monkeypatch):
    read_line = Channel._read_line

    def read_then_interrupt(self, timeout, deadline):
        read_line(self, timeout, deadline)  # the reply is in: the bot is on its way to its next read
        raise KeyboardInterrupt

    monkeypatch.setattr(Channel, "_read_line", read_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        host.act(observation(), 2.0)
    stopped = sorted(host.launcher.stopped)
    settle_stops()
    assert stopped and [state(pid) for pid in stopped] == ["T"] * len(stopped)
