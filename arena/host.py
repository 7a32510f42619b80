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
from typing import BinaryIO

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
    channel_in, channel_out = _private_channel()
    from arena.plugins import load_registry
    from arena.protocol import PROTOCOL_VERSION, ProtocolError, decode, encode

    if ".py:" in bot_name:  # a bot in a file (absolute PATH.py:Class), as a tournament file may name one
        from arena.api import bot_from_file

        bot_cls = bot_from_file(bot_name)
    else:
        bot_cls = load_registry().bot(bot_name).cls
    bot = None
    reader = channel_in
    buffer = b""

    def send(message: dict) -> None:
        channel_out.write(encode(message))

    def failure(exc: BaseException) -> dict:
        """The error reply for `exc`, short, even if its message cannot be built."""
        try:
            text = f"{type(exc).__name__}: {exc}"
        except Exception:  # noqa: BLE001 - a bot's exception may fail even to print
            text = type(exc).__name__
        return {"type": "error", "message": text[:MESSAGE_LIMIT]}

    while True:
        while b"\n" not in buffer:
            chunk = reader.read(1 << 16)
            if not chunk:
                return 0  # the harness went away
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        try:
            message = decode(line)
        except ProtocolError as exc:
            send({"type": "error", "message": str(exc)})
            continue
        kind = message["type"]
        try:
            if kind == "hello":
                send({"type": "hello", "protocol": PROTOCOL_VERSION, "bot": bot_cls.name})
            elif kind == "start":
                bot = bot_cls(**message.get("params", {}))
                bot.rng = random.Random(message["seed"])
                bot.start(message["info"])
                send({"type": "ok"})
            elif kind == "act":
                if bot is None:  # (was an AttributeError on None)
                    raise ProtocolError("'act' before a game's start")
                send({"type": "action", "action": bot.act(message["observation"])})
            elif kind == "end":
                if bot is None:
                    raise ProtocolError("'end' before a game's start")
                bot.end(message["outcome"])
                bot = None
                send({"type": "ok"})
            elif kind == "shutdown":
                return 0
            else:
                send({"type": "error", "message": f"unknown message type {kind!r}"})
        except Exception as exc:  # a reply it cannot encode (not JSON data, too deep) lands here too
            try:
                traceback.print_exc()
            except Exception:  # noqa: BLE001
                pass
            send(failure(exc))


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
