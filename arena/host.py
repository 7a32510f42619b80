"""The bot side of process isolation: `python -m arena.host BOT_NAME` (or ``PATH.py:Class``).

Runs one registered bot behind the line protocol (`arena.protocol`), with a fresh
bot instance per game. The protocol channel is moved to private file descriptors
before any bot code runs, so whatever the bot prints (fd 1) lands in its log
(fd 2), never in the channel, and the bot cannot read the harness's messages.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from typing import Any, BinaryIO

MESSAGE_LIMIT = 2000
"""Characters of an error message sent to the harness (the rest is in the log)."""


def _private_channel() -> tuple[BinaryIO, BinaryIO]:
    """Move the protocol to private fds; point fd 0 at /dev/null and fd 1 at stderr."""
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel_in, channel_out


def serve(bot_name: str) -> int:
    """Answer the harness's messages for `bot_name` until it says shutdown or goes away."""
    channel_in, channel_out = _private_channel()
    from arena.protocol import ProtocolError, decode, encode

    session = _Session(_load(bot_name))
    buffer = b""
    while True:
        while b"\n" not in buffer:
            chunk = channel_in.read(1 << 16)
            if not chunk:
                return 0  # the harness went away
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        try:
            message = decode(line)
        except ProtocolError as exc:
            channel_out.write(encode({"type": "error", "message": str(exc)}))
            continue
        if message["type"] == "shutdown":
            return 0
        channel_out.write(session.reply(message))


def _load(bot_name: str) -> type[Any]:
    """The bot class: registered, or in a file (absolute PATH.py:Class, as a tournament
    file may name one)."""
    if ".py:" in bot_name:
        from arena.api import bot_from_file

        return bot_from_file(bot_name)
    from arena.plugins import load_registry

    return load_registry().bot(bot_name).cls


class _Session:
    """One bot class's games, a fresh instance each: the reply to each message."""

    def __init__(self, bot_cls: type[Any]):
        self.bot_cls = bot_cls
        self.bot: Any = None

    def reply(self, message: dict) -> bytes:
        """The encoded reply to `message`: the bot's answer, or the error it raised, its
        traceback printed to the log (caught here, where the bot is called, so the
        traceback shows this frame and the bot's)."""
        from arena.protocol import PROTOCOL_VERSION, ProtocolError, encode

        kind = message["type"]
        try:
            if kind == "hello":
                reply = {"type": "hello", "protocol": PROTOCOL_VERSION, "bot": self.bot_cls.name}
            elif kind == "start":
                self.bot = self.bot_cls(**message.get("params", {}))
                self.bot.rng = random.Random(message["seed"])
                self.bot.start(message["info"])
                reply = {"type": "ok"}
            elif kind in ("act", "end") and self.bot is None:  # (was an AttributeError on None)
                raise ProtocolError(f"{kind!r} before a game's start")
            elif kind == "act":
                reply = {"type": "action", "action": self.bot.act(message["observation"])}
            elif kind == "end":
                self.bot.end(message["outcome"])
                self.bot = None
                reply = {"type": "ok"}
            else:
                reply = {"type": "error", "message": f"unknown message type {kind!r}"}
            return encode(reply)
        except Exception as exc:  # a reply it cannot encode (not JSON data, too deep) lands here too
            try:
                traceback.print_exc()
            except Exception:  # noqa: BLE001
                pass
            return encode(_failure(exc))


def _failure(exc: BaseException) -> dict:
    """The error reply for `exc`, short, even if its message cannot be built."""
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001 - a bot's exception may fail even to print
        text = type(exc).__name__
    return {"type": "error", "message": text[:MESSAGE_LIMIT]}


def _serve_until_hangup(bot_name: str) -> int:
    try:
        return serve(bot_name)
    except BrokenPipeError:  # the harness closed the channel (it stopped or timed us out)
        return 0


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: python -m arena.host BOT_NAME", file=sys.stderr)
        sys.exit(2)
    sys.exit(_serve_until_hangup(sys.argv[1]))


if __name__ == "__main__":
    main()
