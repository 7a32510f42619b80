"""What the compiled install buys: ismcts's CPU per search iteration over whole games, in
an ordinary install and in a compiled one (docs/compiled.md), and whether both play the
same moves (the ismcts fingerprint's 72 games).

Builds the compiled install from this tree in a temporary virtualenv (a C compiler and a
package index for mypy; about a minute), then measures both with the same games:

    .venv/bin/python benchmarks/bench_compiled.py --games 4       # ~5 minutes

The ordinary side is this interpreter's own install of the tree. ``--against REV`` also
times an older commit (exported, run with this interpreter on PYTHONPATH, its own default
ismcts params: an older tree may not know today's), and ``--rounds 2`` runs each ruleset
old, ordinary, compiled, compiled, ordinary, old, so that drift in the machine's speed
falls on all alike; the figures are the means:

    .venv/bin/python benchmarks/bench_compiled.py --games 3 --against dc393df --rounds 2 \
        --params '{"color-flush": {"opponents": "tree"}}'       # ~10 minutes
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
COST = """
import json, sys
sys.path.insert(0, {benchmarks!r})
import bench_ismcts
from arena_bots.ismcts import ISMCTSBot
rid = {rid!r}
decisions, us = bench_ismcts.per_iteration_in_games(ISMCTSBot, rid, {games}, bench_ismcts.ITERATIONS[rid], {params!r})
print(json.dumps([decisions, us]))
"""
MOVES = """
import json, sys
sys.path.insert(0, {benchmarks!r})
import ismcts_fingerprint
import arena.compiled
from arena_bots.ismcts import ISMCTSBot
print(json.dumps({{"build": arena.compiled.build_kind(), "games": ismcts_fingerprint.fingerprint(ISMCTSBot)}}))
"""
RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")


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


def python_env(pythonpath: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return env


def cost(python: str, rid: str, games: int, params: dict, cwd: Path, pythonpath: Path | None = None) -> list:
    """[decisions, CPU us an iteration] of ismcts over `games` games of `rid`."""
    script = COST.format(benchmarks=str(ROOT / "benchmarks"), rid=rid, games=games, params=params)
    return json.loads(run([python, "-c", script], cwd, python_env(pythonpath)))


def moves(python: str, cwd: Path) -> dict:
    """The build kind and the ismcts fingerprint's games."""
    return json.loads(run([python, "-c", MOVES.format(benchmarks=str(ROOT / "benchmarks"))], cwd, python_env(None)))


def export(rev: str, into: Path) -> None:
    """Commit `rev` of this repository as files in `into`, its bots importable as arena_bots."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=False)
    if archive.returncode:
        raise SystemExit(f"bench_compiled: git archive {rev} failed: {archive.stderr.decode()[-500:]}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    (into / "arena_bots").symlink_to(into / "bots")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="whole games a ruleset to time")
    parser.add_argument("--params", type=json.loads, default={},
                        help='ismcts params by ruleset id for the timed games, JSON, e.g. \'{"color-flush": {"opponents": "tree"}}\'')
    parser.add_argument("--against", metavar="REV", help="also time this older commit (its default params)")
    parser.add_argument("--rounds", type=int, default=1, help="timings of each install a ruleset, interleaved")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
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
        compiled_python = str(venv / "bin" / "python")
        installs = ["ordinary", "compiled"]
        if args.against:
            export(args.against, work / "old")
            installs.insert(0, args.against)

        def timed(install: str, rid: str) -> list:
            if install == args.against:
                return cost(sys.executable, rid, args.games, {}, work / "old", pythonpath=work / "old")
            python = sys.executable if install == "ordinary" else compiled_python
            return cost(python, rid, args.games, args.params.get(rid, {}), work)

        figures: dict[tuple[str, str], list[float]] = {}
        decisions: dict[tuple[str, str], int] = {}
        for rid in RULESETS:
            print(f"timing {rid} ...", flush=True)
            for round_ in range(args.rounds):
                for install in (installs if round_ % 2 == 0 else installs[::-1]):
                    count, us = timed(install, rid)
                    figures.setdefault((install, rid), []).append(us)
                    decisions[(install, rid)] = count
        checks = {"ordinary": moves(sys.executable, work), "compiled": moves(compiled_python, work)}
        assert checks["ordinary"]["build"] == "pure Python", checks["ordinary"]["build"]
        assert checks["compiled"]["build"].startswith("compiled"), checks["compiled"]["build"]
        rounds = f", mean of {args.rounds} interleaved" if args.rounds > 1 else ""
        print(f"CPU us a search iteration over {args.games} games a ruleset (ismcts in seat 0, two heuristics{rounds})")
        print(f"{'ruleset':<12} " + " ".join(f"{name[:10]:>10}" for name in installs)
              + "  compiled vs " + (f"{args.against[:10]} and " if args.against else "") + "ordinary")
        for rid in RULESETS:
            mean = {install: sum(figures[(install, rid)]) / args.rounds for install in installs}
            ratios = [f"{mean[other] / mean['compiled']:.2f}x" for other in installs if other != "compiled"]
            counts = sorted({decisions[(install, rid)] for install in installs})
            print(f"{rid:<12} " + " ".join(f"{mean[install]:10.1f}" for install in installs)
                  + "  " + ", ".join(ratios) + f"  ({'/'.join(map(str, counts))} decisions)")
        same = checks["ordinary"]["games"] == checks["compiled"]["games"]
        print(f"compiled: {checks['compiled']['build']}; same moves on the fingerprint's "
              f"{len(checks['ordinary']['games'])} games: {same}")
        return 0 if same else 1
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
