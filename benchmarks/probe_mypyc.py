"""Probe: what compiling the unchanged Flip 7 search path with mypyc would buy (issue 22 item 1).

Not a build of the product: it copies this tree twice into a temporary folder, makes
one copy compilable (the few changes listed in `PATCHES`, which main does not carry,
because they change how plugins may subclass `GameState`: ismcts_notes.md), compiles
`MODULES` there with mypyc, and then, with one interpreter, measures ismcts's CPU per
iteration over whole Flip 7 games in both copies and checks that both play the same
moves (the ismcts fingerprint's Flip 7 games). Needs a C compiler and PyPI (it makes
a virtualenv with mypy and the package's dependencies; about two minutes):

    .venv/bin/python benchmarks/probe_mypyc.py --games 4
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
MODULES = ["arena/rules/base.py", "arena/rules/chance.py", "arena/rules/flip_7/engine.py",
           "arena/rules/flip_7/sampler.py", "arena_bots/ismcts.py", "arena_bots/flip7_threshold.py"]
_ATTR = "from mypy_extensions import mypyc_attr\n"
_SUBCLASSABLE = "@mypyc_attr(allow_interpreted_subclasses=True)\n"
# (file, text, replacement): compiled classes that interpreted code subclasses must say so,
# and an instance may not set a ClassVar
PATCHES = [
    ("arena/rules/base.py", "import msgspec\n", "import msgspec\n" + _ATTR),
    ("arena/rules/base.py", "\nclass Ruleset(ABC):", "\n" + _SUBCLASSABLE + "class Ruleset(ABC):"),
    ("arena/rules/base.py", "\nclass GameState(ABC):", "\n" + _SUBCLASSABLE + "class GameState(ABC):"),
    ("arena/rules/base.py", "\nclass OwnEventCopies(", "\n" + _SUBCLASSABLE + "class OwnEventCopies("),
    ("arena/rules/base.py", "    ruleset: ClassVar[type[Ruleset]]\n", "    ruleset: type[Ruleset]\n"),
    ("arena/rules/base.py", "value < self.minimum:", "value < self.minimum:  # type: ignore[operator]"),
    ("arena/rules/base.py", "value > self.maximum:", "value > self.maximum:  # type: ignore[operator]"),
    ("bots/ismcts.py", "\nimport arena\n", "\n" + _ATTR + "import arena\n"),
    ("bots/ismcts.py", "\nclass ISMCTSBot(", "\n" + _SUBCLASSABLE + "class ISMCTSBot("),
    ("bots/flip7_threshold.py", "\nimport arena\n", "\n" + _ATTR + "import arena\n"),
    ("bots/flip7_threshold.py", "\nclass Flip7ThresholdBot(", "\n" + _SUBCLASSABLE + "class Flip7ThresholdBot("),
]
MEASURE = """
import json, sys
sys.path.insert(0, "benchmarks")
import bench_ismcts, ismcts_fingerprint
from arena_bots.ismcts import ISMCTSBot
import arena.rules.flip_7.engine as engine
decisions, cost = bench_ismcts.per_iteration_in_games(ISMCTSBot, "flip-7", {games}, bench_ismcts.ITERATIONS["flip-7"], {{}})
games = ismcts_fingerprint.fingerprint(ISMCTSBot, rulesets=("flip-7",))
print(json.dumps({{"engine": engine.__file__, "decisions": decisions, "us": cost, "games": games}}))
"""


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"probe: {' '.join(cmd[:3])} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def copy_tree(into: Path) -> None:
    files = run(["git", "ls-files", "-co", "--exclude-standard"], ROOT).splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)
    (into / "arena_bots").symlink_to("bots", target_is_directory=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="whole Flip 7 games to time in each copy")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-mypyc-"))
    try:
        pure, compiled = work / "pure", work / "compiled"
        for tree in (pure, compiled):
            copy_tree(tree)
        for name, text, replacement in PATCHES:
            path = compiled / name
            source = path.read_text()
            if source.count(text) != 1:
                raise SystemExit(f"probe: {name} no longer has {text.strip()!r} once: update PATCHES")
            path.write_text(source.replace(text, replacement))
        python = work / "venv" / "bin" / "python"
        run([sys.executable, "-m", "venv", str(work / "venv")], work)
        run([str(python), "-m", "pip", "install", "-q", "mypy", "-e", str(pure)], work)
        print("compiling", len(MODULES), "modules with mypyc ...", flush=True)
        run([str(work / "venv" / "bin" / "mypyc"), "--follow-imports=silent", "--ignore-missing-imports",
             *MODULES], compiled)
        results = {}
        for label, tree in (("pure", pure), ("compiled", compiled)):
            env = dict(os.environ, PYTHONPATH=str(tree))
            results[label] = json.loads(run([str(python), "-c", MEASURE.format(games=args.games)], tree, env))
        assert results["compiled"]["engine"].endswith(".so"), results["compiled"]["engine"]
        assert results["pure"]["engine"].endswith(".py"), results["pure"]["engine"]
        same = results["pure"]["games"] == results["compiled"]["games"]
        for label in ("pure", "compiled"):
            r = results[label]
            print(f"{label:<9} {r['us']:8.1f} us a CPU iteration over {args.games} Flip 7 games ({r['decisions']} decisions)")
        print(f"compiled / pure: {results['pure']['us'] / results['compiled']['us']:.2f}x cheaper; "
              f"same moves on the fingerprint's {len(results['pure']['games'])} Flip 7 games: {same}")
        return 0 if same else 1
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
