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

The harness reads a bot's replies with `decode_reply`, which refuses a line longer
than `MAX_REPLY_BYTES` or nested deeper than `MAX_REPLY_DEPTH` before anything is
built from it: a reply is untrusted input and must not exhaust the harness.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

PROTOCOL_VERSION = 1

MAX_REPLY_BYTES = 4 << 20
"""The longest reply line the harness reads (4 MiB); a longer one is garbage."""
MAX_REPLY_DEPTH = 32
"""The deepest nesting of arrays and objects the harness decodes in a reply."""

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
    except RecursionError:  # msgspec's own guard against deep nesting
        raise ProtocolError(f"nested too deep to decode: {_clip(line)}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"not a protocol message: {_clip(line)}")
    return message


def decode_reply(line: bytes) -> dict[str, Any]:
    """A bot's reply line as a message, like `decode`, but a line longer than
    MAX_REPLY_BYTES or nested deeper than MAX_REPLY_DEPTH is a ProtocolError before
    any of it is decoded. An ordinary reply costs two byte counts on top of `decode`."""
    if len(line) > MAX_REPLY_BYTES:
        raise ProtocolError(f"reply of {len(line):,} bytes is longer than {MAX_REPLY_BYTES:,}")
    if line.count(b"[") + line.count(b"{") > MAX_REPLY_DEPTH and nesting_depth(line) > MAX_REPLY_DEPTH:
        raise ProtocolError(f"reply nested deeper than {MAX_REPLY_DEPTH} levels: {_clip(line)}")
    return decode(line)


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_EMPTY_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting_depth(line: bytes, limit: int = MAX_REPLY_DEPTH) -> int:
    """How deep arrays and objects nest in the JSON text `line`, counted up to
    `limit` + 1 (enough to tell "too deep"); brackets inside strings do not count.
    Unbalanced brackets count as too deep (the text is not JSON either way)."""
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    if re.search(rb"[\[{]{%d}" % (limit + 1), brackets):  # the usual attack, found in one scan
        return limit + 1
    depth = 0
    while brackets and depth <= limit:  # each pass removes the innermost level
        shorter = _EMPTY_PAIR.sub(b"", brackets)  # one scan: "[{}]" loses "{}" only
        if len(shorter) == len(brackets):
            return limit + 1
        brackets, depth = shorter, depth + 1
    return depth if not brackets else limit + 1


def _clip(line: bytes, limit: int = 80) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")
