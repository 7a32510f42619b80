#!/usr/bin/env python3
"""A command bot that looks around the folder its program lives in (and the one
above) for the tournament file, the seed and the results, reports what it found on
stderr as ``ATTACK {json}``, and plays the first legal action."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
needle = sys.argv[1] if len(sys.argv) > 1 else ""
found = {"listed": {}, "read_with_needle": [], "toml": []}
for folder in (here, os.path.dirname(here)):
    try:
        found["listed"][folder] = sorted(os.listdir(folder))[:30]
    except OSError as exc:
        found["listed"][folder] = type(exc).__name__
    for root, dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as handle:
                    data = handle.read(1 << 20)
            except OSError:
                continue
            if name.endswith(".toml"):
                found["toml"].append(path)
            if needle and needle.encode() in data:
                found["read_with_needle"].append(path)
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "hello", "protocol": 1, "bot": "attack-peek"}
    elif kind == "act":
        reply = {"type": "action", "action": message["observation"]["legal_actions"][0]}
    elif kind in ("start", "end"):
        if kind == "start":  # the log of a game starts here
            print("ATTACK " + json.dumps(dict(found, attack="peek"), sort_keys=True), file=sys.stderr, flush=True)
        reply = {"type": "ok"}
    else:
        break
    print(json.dumps(reply), flush=True)
