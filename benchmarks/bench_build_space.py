"""Benchmark: what the build quota (a loop-mounted ext4 image) costs a submission's build.

    .venv/bin/python benchmarks/bench_build_space.py [--rounds 5] [--mb 1024] [--files 100000]

Prints the median over interleaved rounds of:
- seconds to make, mount, unmount and delete one quota space of the given size;
- seconds to build tests/submissions/fixture-bot (copy, virtualenv, pip in a sandbox,
  the virtualenv moved out) with the quota space, and in a plain folder (as where no
  quota space can be made), and the difference.
Needs root, a loop device and mkfs.ext4, and a sandbox.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from arena import submissions
from arena.build_space import Quota, QuotaSpace, quota_unavailable
from arena.submissions import build, remove_tree

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "submissions" / "fixture-bot"


def time_space(quota: Quota) -> float:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        space = QuotaSpace(Path(folder), quota)
        space.open()
        space.close()
        return time.perf_counter() - started


def time_build(quota: Quota, bounded: bool) -> float:
    folder = Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        started = time.perf_counter()
        if bounded:
            build(FIXTURE, folder / "staging", quota=quota)
        else:
            with mock.patch.object(submissions, "quota_unavailable", lambda: "benchmark: no quota"):
                build(FIXTURE, folder / "staging", quota=quota)
        return time.perf_counter() - started
    finally:
        remove_tree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mb", type=int, default=Quota.mb)
    parser.add_argument("--files", type=int, default=Quota.files)
    args = parser.parse_args()
    if reason := quota_unavailable():
        raise SystemExit(f"no quota space here: {reason}")
    quota = Quota(args.mb, args.files)
    space, bounded, plain = [], [], []
    for _ in range(args.rounds):
        space.append(time_space(quota))
        bounded.append(time_build(quota, True))
        plain.append(time_build(quota, False))
    med = statistics.median
    print(f"quota {quota.describe()}, {args.rounds} interleaved rounds (medians)")
    print(f"  make + mount + unmount + delete the space: {med(space):.3f} s")
    print(f"  build fixture-bot with the quota space:    {med(bounded):.2f} s")
    print(f"  build fixture-bot in a plain folder:       {med(plain):.2f} s")
    print(f"  difference:                                {med(bounded) - med(plain):+.2f} s")


if __name__ == "__main__":
    main()
