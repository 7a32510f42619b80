"""The bot protocol: line-delimited JSON over a bot process's stdin and stdout.

Each message is one JSON object on one line (UTF-8, "\\n"-terminated), with a
"type". The harness speaks first and waits for one reply per message:

=========================================  ==============================================
harness -> bot                              bot -> harness
=========================================  ==============================================
{"type":"hello","protocol":1}               {"type":"hello","protocol":1,"bot":"<name>"}
{"type":"start","seed":S,"params":{..},     {"type":"ok"}
 "info":{..}}
{"type":"act","observation":{..}}           {"type":"action","action":"<legal action>"}
{"type":"end","outcome":{..}}               {"type":"ok"}
{"type":"shutdown"}                         (exits)
=========================================  ==============================================

A bot that cannot go on may reply {"type":"error","message":"..."}. docs/protocol.md
gives a full example session. msgspec does the encoding: it is several times
faster than the stdlib's json, which matters at one round trip per decision.
"""

from __future__ import annotations

from typing import Any

import msgspec

PROTOCOL_VERSION = 1

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


class ProtocolError(ValueError):
    """A line that is not a well-formed protocol message."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of bytes."""
    return _encoder.encode(message) + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One line as a message; ProtocolError if it is not a JSON object with a type."""
    try:
        message = _decoder.decode(line)
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"not JSON: {_clip(line)}") from exc
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"not a protocol message: {_clip(line)}")
    return message


def _clip(line: bytes, limit: int = 80) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")
