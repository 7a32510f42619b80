"""What the compiled install buys: ismcts's CPU per search iteration over whole games, in
an ordinary install and in a compiled one (docs/compiled.md), and whether both play the
same moves (the ismcts fingerprint's 72 games).

Builds the compiled install from this tree in a temporary virtualenv (a C compiler and a
package index for mypy; about a minute), then measures both with the same games:

    .venv/bin/python benchmarks/bench_compiled.py --games 4       # ~5 minutes

The ordinary side is this interpreter's own install of the tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURE = """
import json, sys
sys.path.insert(0, {benchmarks!r})
import bench_ismcts, ismcts_fingerprint
import arena.compiled
from arena_bots.ismcts import ISMCTSBot
cost = {{}}
for rid in bench_ismcts.RULESETS:
    decisions, us = bench_ismcts.per_iteration_in_games(ISMCTSBot, rid, {games}, bench_ismcts.ITERATIONS[rid],
                                                       {params!r}.get(rid, {{}}))
    cost[rid] = [decisions, us]
games = ismcts_fingerprint.fingerprint(ISMCTSBot)
print(json.dumps({{"build": arena.compiled.build_kind(), "cost": cost, "games": games}}))
"""


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench_compiled: {' '.join(cmd[:4])} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def copy_tree(into: Path) -> None:
    """The tree's files as git sees them (committed or not, ignored ones left out)."""
    files = run(["git", "ls-files", "-co", "--exclude-standard"], ROOT).splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)


def measure(python: str, games: int, params: dict, cwd: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = MEASURE.format(benchmarks=str(ROOT / "benchmarks"), games=games, params=params)
    return json.loads(run([python, "-c", script], cwd, env))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="whole games a ruleset to time")
    parser.add_argument("--params", type=json.loads, default={},
                        help='ismcts params by ruleset id for the timed games, JSON, e.g. \'{"color-flush": {"opponents": "tree"}}\'')
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-compiled-"))
    try:
        copy_tree(work / "src")
        venv = work / "venv"
        run([sys.executable, "-m", "venv", str(venv)], work)
        print("building the compiled install ...", flush=True)
        env = dict(os.environ, FLIP_ARENA_COMPILE="1")
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(work / "src")], cwd=work, env=env,
                              capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"bench_compiled: could not install the compiled build:\n{done.stderr[-2000:]}")
        results = {"ordinary": measure(sys.executable, args.games, args.params, work),
                   "compiled": measure(str(venv / "bin" / "python"), args.games, args.params, work)}
        assert results["ordinary"]["build"] == "pure Python", results["ordinary"]["build"]
        assert results["compiled"]["build"].startswith("compiled"), results["compiled"]["build"]
        print(f"CPU us a search iteration over {args.games} games a ruleset (ismcts in seat 0, two heuristics)")
        print(f"{'ruleset':<12} {'ordinary':>9} {'compiled':>9}  ratio")
        for rid, (decisions, pure) in results["ordinary"]["cost"].items():
            fast = results["compiled"]["cost"][rid][1]
            print(f"{rid:<12} {pure:9.1f} {fast:9.1f}  {pure / fast:.2f}x  ({decisions} decisions)")
        same = results["ordinary"]["games"] == results["compiled"]["games"]
        print(f"compiled: {results['compiled']['build']}; same moves on the fingerprint's "
              f"{len(results['ordinary']['games'])} games: {same}")
        return 0 if same else 1
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
