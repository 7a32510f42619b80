"""The protocol channel on its own, and hosts made by composition (issue 37 item 5).

`arena.channel.Channel` speaks the protocol to whatever process a launcher started; here
the process is a pair of pipes and a fake launcher that records being killed, so the
channel's fault rules are shown without any real bot process. Then: every host of a
process is a launcher paired with that channel, and no host class overrides a private
method of another.
"""

from __future__ import annotations

import inspect
import os
import threading
import time

import pytest

from arena.channel import Channel, reply_fault
from arena.faults import BotFault, exit_fault
from arena.protocol import MAX_REPLY_BYTES
from arena.records import FaultKind
from arena.sandbox import SandboxHost
from arena.sandbox.process import SandboxLauncher
from arena.seats import BotHost, InlineHost, ProcessHost, ProcessLauncher


class FakeProcess:
    """Two pipes standing in for a bot process; `kill` and `death` are recorded."""

    watch_fd = None

    def __init__(self):
        self.to_bot_read, self.to_bot_write = os.pipe()
        self.from_bot_read, self.from_bot_write = os.pipe()
        self.killed = 0
        self.started = True

    def kill(self):
        self.killed += 1
        self.started = False

    def death(self):
        self.kill()
        return exit_fault(-9)

    def bot_says(self, data: bytes):
        os.write(self.from_bot_write, data)

    def bot_reads(self) -> bytes:
        return os.read(self.to_bot_read, 1 << 16)

    def close(self):
        for fd in (self.to_bot_read, self.to_bot_write, self.from_bot_read, self.from_bot_write):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def process():
    made = FakeProcess()
    yield made
    made.close()


def channel_to(process: FakeProcess) -> Channel:
    return Channel(process, process.to_bot_write, process.from_bot_read)


def test_a_request_writes_one_line_and_decodes_the_one_line_reply(process):
    process.bot_says(b'{"type":"action","action":"stay"}\n')
    reply = channel_to(process).request({"type": "act", "observation": {}}, 1.0)
    assert reply == {"type": "action", "action": "stay"}
    assert process.bot_reads() == b'{"type":"act","observation":{}}\n'
    assert process.killed == 0


def test_two_lines_in_reply_to_one_request_are_garbage_and_end_the_process(process):
    process.bot_says(b'{"type":"ok"}\n{"type":"ok"}\n')
    with pytest.raises(BotFault) as caught:
        channel_to(process).request({"type": "start"}, 1.0)
    assert caught.value.kind == FaultKind.GARBAGE and caught.value.fatal
    assert "more than one line" in str(caught.value)
    assert process.killed == 1


def test_no_reply_in_time_is_a_timeout_that_ends_the_process(process):
    with pytest.raises(BotFault) as caught:
        channel_to(process).request({"type": "act"}, 0.05)
    assert caught.value.kind == FaultKind.TIMEOUT and caught.value.fatal
    assert "gave no answer within 0.05 s" in str(caught.value)
    assert process.killed == 1


def test_a_closed_channel_is_the_death_the_process_reports(process):
    os.close(process.from_bot_write)
    with pytest.raises(BotFault) as caught:
        channel_to(process).request({"type": "act"}, 1.0)
    assert (caught.value.kind, str(caught.value)) == (FaultKind.CRASH, "was killed by SIGKILL")
    assert process.killed == 1


def test_a_reply_past_the_size_limit_without_a_newline_is_garbage(process):
    channel = channel_to(process)
    writer = threading.Thread(target=lambda: _write_quietly(process.from_bot_write, b"x" * (MAX_REPLY_BYTES + 2)))
    writer.start()
    try:
        with pytest.raises(BotFault) as caught:
            channel.request({"type": "act"}, 10.0)
    finally:
        os.close(process.from_bot_read)  # the writer's pipe breaks, and it stops
        writer.join()
    assert caught.value.kind == FaultKind.GARBAGE and "without a newline" in str(caught.value)


def _write_quietly(fd: int, data: bytes) -> None:
    try:
        os.write(fd, data)
    except OSError:
        pass


def test_receive_leaves_the_lines_after_the_first_buffered(process):
    process.bot_says(b'{"type":"hello","protocol":1}\n{"type":"ready"}\n')
    channel = channel_to(process)
    assert channel.receive(time.monotonic() + 1.0, 1.0)["type"] == "hello"
    assert channel.receive(time.monotonic() + 1.0, 1.0)["type"] == "ready"
    assert process.killed == 0


def test_a_channel_whose_process_was_killed_says_it_is_not_running(process):
    process.started = False
    with pytest.raises(BotFault, match="is not running"):
        channel_to(process).request({"type": "act"}, 1.0)


def test_a_reply_of_the_wrong_type_names_what_was_asked():
    assert str(reply_fault({"type": "error", "message": "ValueError: no"}, "act")) == "raised in act(): ValueError: no"
    assert reply_fault({"type": "error", "message": "MemoryError"}, "act").kind == FaultKind.MEMORY
    assert reply_fault({"type": "ok"}, "act").kind == FaultKind.GARBAGE


def test_every_host_of_a_process_is_a_launcher_paired_with_the_channel():
    process_host = ProcessHost(["/bin/true"])
    assert isinstance(process_host.launcher, ProcessLauncher)
    sandbox_host = SandboxHost.for_command(["/bin/true"])
    assert isinstance(sandbox_host.launcher, SandboxLauncher)
    for host in (process_host, sandbox_host):
        assert host.channel is None  # made with each launched process
    assert ProcessHost not in SandboxHost.__mro__


def test_no_host_class_overrides_a_private_method_of_another():
    hosts = [BotHost, InlineHost, ProcessHost, SandboxHost]
    for cls in hosts:
        own = {name for name, value in vars(cls).items() if name.startswith("_") and not name.startswith("__")
               and inspect.isfunction(value)}
        for base in cls.__mro__[1:]:
            if base is object:
                continue
            overridden = own & {name for name in vars(base) if name.startswith("_") and not name.startswith("__")}
            assert not overridden, f"{cls.__name__} overrides {base.__name__}'s {sorted(overridden)}"
