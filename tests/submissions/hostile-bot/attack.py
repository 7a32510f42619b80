"""What the hostile submission does at every chance it gets (setup.py, import time,
its constructor, its first decision): try to plant marker files outside its sandbox
and to read the tournament file and the results store, printing what it read to its
stderr. The tests fill in TARGETS (the paths to try) in their copy of it."""

import os
import sys

TARGETS = {"write": [], "read": []}


def attack(stage):
    targets = TARGETS
    for folder in targets.get("write", []) + ["/root", "/tmp/.."]:
        try:
            with open(os.path.join(folder, f"hostile-marker-{stage}"), "w") as f:
                f.write(stage)
        except OSError:
            pass
    for path in targets.get("read", []):
        try:
            with open(path, "rb") as f:
                print(f"LEAKED {stage} {path}: {f.read(200)!r}", file=sys.stderr)
        except OSError:
            pass
