#!/usr/bin/env python3
"""A command bot that remembers across games in the kernel's keyrings (user, session,
user-session): at `start` it reports what it finds (``ATTACK {json}`` on stderr),
at its first decision it leaves its tag (the `tag` param) there."""
import ctypes
import json
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
RINGS = {"session": -3, "user": -4, "user-session": -5}
token = sys.argv[1]


def find(description, ring):
    serial = libc.syscall(250, 10, ring, b"user", description.encode(), 0)  # KEYCTL_SEARCH
    if serial < 0:
        return None
    buffer = ctypes.create_string_buffer(256)
    size = libc.syscall(250, 11, serial, buffer, 256)  # KEYCTL_READ
    return buffer.raw[:size].decode() if size >= 0 else None


def add(description, payload, ring):
    data = payload.encode()
    return "ok" if libc.syscall(248, b"user", description.encode(), data, len(data), ring) >= 0 else \
        os.strerror(ctypes.get_errno())


tag, left = "?", False
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "hello", "protocol": 1, "bot": "attack-memo-keyring-command"}
    elif kind == "start":
        tag = message["params"].get("tag", "?")
        found = {ring: v for ring, spec in RINGS.items() if (v := find(f"attack-memo-{token}-{ring}", spec))}
        print("ATTACK " + json.dumps({"attack": "memo-keyring", "tag": tag, "found": found}), file=sys.stderr,
              flush=True)
        reply = {"type": "ok"}
    elif kind == "act":
        if not left:
            left = True
            added = {ring: add(f"attack-memo-{token}-{ring}", tag, spec) for ring, spec in RINGS.items()}
            print("ATTACK " + json.dumps({"attack": "memo-keyring-write", "added": added}), file=sys.stderr,
                  flush=True)
        reply = {"type": "action", "action": message["observation"]["legal_actions"][0]}
    elif kind == "end":
        reply = {"type": "ok"}
    else:
        break
    print(json.dumps(reply), flush=True)
