"""A sandboxed bot's stop after each reply: signalled as soon as the reply line is read
(before it is decoded), and sent whatever ends the request. That the stop is verified
before any rival is asked is `tests/test_attacks.py`'s."""

from __future__ import annotations

import pytest

import arena.channel
from arena.channel import Channel
from arena.sandbox import SandboxHost, sandbox_unavailable
from arena.seats import settle_stops
from test_sandbox_prefork import INFO, LIMITS, OUTCOME, observation, state  # noqa: F401 (shared helpers)

REASON = sandbox_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no sandbox can be made here: {REASON}")


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
