#!/usr/bin/env python3
"""A command bot whose answers attack the harness's decoder: "deep" (an action nested
5,000 deep), "huge" (a 6 MiB reply line), "endless" (8 MiB without a newline)."""
import json
import sys
import time

mode = sys.argv[1]
out = sys.stdout.buffer
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = json.dumps({"type": "hello", "protocol": 1, "bot": "attack-" + mode}).encode()
    elif kind in ("start", "end"):
        reply = b'{"type": "ok"}'
    elif kind == "act":
        if mode == "deep":
            reply = b'{"type": "action", "action": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        elif mode == "huge":
            reply = b'{"type": "action", "action": "' + b"x" * (6 << 20) + b'"}'
        else:
            out.write(b'{"type": "action", "action": "' + b"x" * (8 << 20))
            out.flush()
            time.sleep(600)
    else:
        break
    out.write(reply + b"\n")
    out.flush()
