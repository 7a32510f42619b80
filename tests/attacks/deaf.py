#!/usr/bin/env python3
"""A command bot that stops reading its input: after the handshake ("after-hello")
or after answering `start` ("after-start"); then it sleeps, holding its stdin open."""
import json
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "after-hello"
line = sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "bot": "attack-deaf"}), flush=True)
if mode == "after-start":
    sys.stdin.readline()
    print(json.dumps({"type": "ok"}), flush=True)
time.sleep(600)
