"""The protocol channel to a bot's process: messages out, replies back, within limits.

A host is a launcher (what starts, stops and ends the bot's process: `ProcessHost`'s
`ProcessLauncher`, `SandboxHost`'s `SandboxLauncher`) paired with a `Channel`, which
speaks `arena.protocol` on that process's pipes. The channel knows nothing of how the
process was made; whatever goes wrong on the way is the bot's `BotFault`, and the
channel asks its process (`Process`) to end, and to say how it ended, before raising it.
"""

from __future__ import annotations

import math
import os
import select
import time
from typing import Any, Callable, Protocol

from arena.faults import BotFault
from arena.protocol import MAX_REPLY_BYTES, ProtocolError, decode_reply, encode
from arena.records import FaultKind


class Process(Protocol):
    """What a channel needs of the process at its other end (a launcher)."""

    @property
    def started(self) -> bool:
        """Whether the process was started and not yet killed."""

    @property
    def watch_fd(self) -> int | None:
        """A descriptor that becomes readable when whatever answers has ended although
        the channel stays open (a sandbox's game process, by its pidfd), or None."""

    def kill(self) -> None:
        """End the process and everything it started."""

    def death(self) -> BotFault:
        """End the process (whose channel closed), then the fault saying how it ended."""


class Channel:
    """`arena.protocol` on the pipes of one started process: `write_fd` (its input, made
    non-blocking here) and `read_fd` (its output). One per process: a new process gets
    a new channel."""

    def __init__(self, process: Process, write_fd: int, read_fd: int):
        self.process = process
        self.buffer = b""
        """What was read beyond the last line taken."""
        self._write_fd, self._read_fd = write_fd, read_fd
        os.set_blocking(write_fd, False)
        self._writer = select.poll()
        self._writer.register(write_fd, select.POLLOUT)
        self._reader: tuple[int | None, Any] | None = None  # (watch fd, select.poll) for reading

    def request(self, message: dict[str, Any], timeout: float | None,
                resume: Callable[[], None] | None = None,
                replied: Callable[[], None] | None = None) -> dict[str, Any]:
        """Send `message` and read the one-line reply, both within `timeout` seconds
        (None: no limit). Whatever goes wrong on the way is the bot's BotFault: a write
        or a reply that does not finish in time ("timeout"), a closed channel ("crash"),
        a reply that is not one protocol message within the size and nesting limits of
        `arena.protocol.decode_reply` ("garbage"); all of them end the process.
        `resume` (a stopped process's): called once as much of the message as the pipe
        holds is written, so the process wakes once, to a request it can read at once.
        `replied` (its stop): called once the whole reply line is read, before anything
        else is done with it, so the process takes its stop as soon as it can."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self.send(message, timeout, deadline, resume)
        if b"\n" not in self.buffer:
            self._read_line(timeout, deadline)
        if replied is not None:
            replied()
        line, self.buffer = self.buffer.split(b"\n", 1)
        # One reply per request: garbage, or bytes beyond the reply, would put every later
        # answer out of step with its request, so either ends this process.
        if self.buffer:
            raise self._fatal(FaultKind.GARBAGE, f"wrote more than one line in reply to {message['type']!r}")
        try:
            return decode_reply(line)
        except ProtocolError as exc:
            raise self._fatal(FaultKind.GARBAGE, str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - whatever a reply provokes is the bot's fault
            raise self._fatal(FaultKind.GARBAGE, f"undecodable reply ({type(exc).__name__})") from None

    def receive(self, deadline: float, timeout: float) -> dict[str, Any]:
        """The next line from the process, decoded, by `deadline` (`timeout` names the
        limit in a timeout fault's message); lines after it stay buffered."""
        self._check_started()
        if b"\n" not in self.buffer:
            self._read_line(timeout, deadline)
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            return decode_reply(line)
        except Exception as exc:  # noqa: BLE001 - any bad reply is the bot's
            raise self._fatal(FaultKind.GARBAGE, f"bad reply: {type(exc).__name__}") from None

    def send(self, message: dict[str, Any], timeout: float | None, deadline: float | None,
             resume: Callable[[], None] | None = None) -> None:
        """Write `message` by `deadline` (a time.monotonic() value, None for none): a bot
        that stops reading its input cannot hold the harness; past the deadline it is a
        fatal "timeout" fault (`timeout` names the limit). `resume`: see `request`."""
        self._check_started()
        data = encode(message)
        written = self._write_some(data)  # the usual case: the pipe has room for all of it
        if resume is not None:
            resume()
        view = memoryview(data)
        while written < len(data):
            if deadline is None:
                events = self._writer.poll()
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._fatal(FaultKind.TIMEOUT, f"did not read its input within {timeout:.3g} s")
                events = self._writer.poll(max(1, math.ceil(remaining * 1000)))
            if events:
                written += self._write_some(view[written:])

    def tell(self, message: dict[str, Any]) -> bool:
        """Write `message` if the pipe has room for it now, expecting no reply (a
        shutdown); whether it was written."""
        try:
            return self._write_some(encode(message)) > 0
        except BotFault:
            return False

    def _write_some(self, data: bytes | memoryview) -> int:
        try:
            return os.write(self._write_fd, data)
        except BlockingIOError:
            return 0
        except OSError:  # EPIPE: it closed its input
            raise self.process.death() from None

    def _read_line(self, timeout: float | None, deadline: float | None) -> None:
        """Read until a whole line is buffered, by `deadline` (default: `timeout` seconds
        from now), at most MAX_REPLY_BYTES of it. One round trip per decision: the poll
        object lives as long as the channel (and its process's watch descriptor)."""
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        watch = self.process.watch_fd
        poll = self._poller(watch)
        while True:
            if deadline is None:
                ready = poll()
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._fatal(FaultKind.TIMEOUT, f"gave no answer within {timeout:.3g} s")
                ready = poll(max(1, math.ceil(remaining * 1000)))  # milliseconds, rounded up
            if not ready:
                continue
            if watch is not None and len(ready) == 1 and ready[0][0] == watch:
                raise self.process.death()  # what answers is gone, and said nothing
            if self._read_chunk():
                return

    def _read_chunk(self) -> bool:
        """Read what is there; whether a line is now complete."""
        try:
            chunk = os.read(self._read_fd, 1 << 16)
        except OSError:
            raise self.process.death() from None
        if not chunk:
            raise self.process.death()
        self.buffer += chunk
        if b"\n" in chunk:
            return True
        if len(self.buffer) > MAX_REPLY_BYTES:
            raise self._fatal(FaultKind.GARBAGE, f"sent more than {MAX_REPLY_BYTES >> 20} MiB without a newline")
        return False

    def _poller(self, watch: int | None) -> Any:
        if self._reader is None or self._reader[0] != watch:
            poller = select.poll()
            poller.register(self._read_fd, select.POLLIN)
            if watch is not None:
                poller.register(watch, select.POLLIN)
            self._reader = (watch, poller)
        return self._reader[1].poll

    def _check_started(self) -> None:
        if not self.process.started:
            raise BotFault(FaultKind.CRASH, "is not running", fatal=True)

    def _fatal(self, kind: FaultKind, message: str) -> BotFault:
        """End the process; the fault to raise."""
        self.process.kill()
        return BotFault(kind, message, fatal=True)


def reply_fault(reply: dict[str, Any], what: str) -> BotFault:
    """The fault of a reply to `what` ("start", "act", "end") that is not the expected
    one: the bot's own error report, or garbage."""
    if reply.get("type") == "error":
        message = clip(str(reply.get("message", "")), 400)
        kind = FaultKind.MEMORY if message.startswith("MemoryError") else FaultKind.ERROR
        return BotFault(kind, f"raised in {what}(): {message}")
    return BotFault(FaultKind.GARBAGE, f"answered {what} with {clip(repr(reply), 200)}")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
