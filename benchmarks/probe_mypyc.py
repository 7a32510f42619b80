"""Probe: what compiling the unchanged Flip 7 search path with mypyc would buy (issue 22 item 1).

Not a build of the product: it copies this tree twice into a temporary folder, makes
one copy compilable in one of two layouts (edits main does not carry: ismcts_notes.md),
compiles that layout's modules there with mypyc, and then, with one interpreter,
measures ismcts's CPU per iteration over whole Flip 7 games in both copies and checks
that both play the same moves (the ismcts fingerprint's Flip 7 games). With `--suite`
it also runs the test suite in both copies and lists the tests that fail only compiled.
Needs a C compiler and PyPI (it makes a virtualenv with mypy and the package's
dependencies; about two minutes, `--suite` about fifteen):

    .venv/bin/python benchmarks/probe_mypyc.py --games 4 [--layout own-base] [--suite]

Layouts:
- shared-base: `GameState` itself compiled (so Flip 7's classes are native), and ismcts
  and the threshold bot; the classes that interpreted code subclasses say so (`PATCHES`).
- own-base: `GameState` stays Python, as plugins need it; the Flip 7 state derives from a
  compiled copy of its code (`arena/rules/native_state.py`, written from base.py) and is
  registered as a virtual subclass of `GameState`; the ruleset class stays an ordinary
  class; the bots stay Python.
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
SHARED_BASE = ["arena/rules/base.py", "arena/rules/chance.py", "arena/rules/flip_7/engine.py",
               "arena/rules/flip_7/sampler.py", "arena_bots/ismcts.py", "arena_bots/flip7_threshold.py"]
_ATTR = "from mypy_extensions import mypyc_attr\n"
_SUBCLASSABLE = "@mypyc_attr(allow_interpreted_subclasses=True)\n"
# the shared-base layout's edits, (file, text, replacement): compiled classes that interpreted
# code subclasses must say so, and an instance may not set a ClassVar
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
OWN_BASE = ["arena/rules/native_state.py", "arena/rules/chance.py", "arena/rules/flip_7/engine.py",
            "arena/rules/flip_7/sampler.py"]
MODULES = {"shared-base": SHARED_BASE, "own-base": OWN_BASE}
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


def edit(tree: Path, name: str, text: str, replacement: str) -> None:
    path = tree / name
    source = path.read_text()
    if source.count(text) != 1:
        raise SystemExit(f"probe: {name} no longer has {text.strip()!r} once: update the probe")
    path.write_text(source.replace(text, replacement))


def shared_base(tree: Path) -> None:
    for name, text, replacement in PATCHES:
        edit(tree, name, text, replacement)


def own_base(tree: Path) -> None:
    """`arena/rules/native_state.py`: GameState's code as `CompiledGameState`; Flip 7's state on it."""
    lines = (tree / "arena/rules/base.py").read_text().splitlines(keepends=True)
    start = lines.index("class GameState(ABC):\n")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("class ", "@", "def ")))
    body = "".join(lines[start:end]).replace("class GameState(ABC):", "class CompiledGameState(ABC):")
    body = body.replace("    ruleset: ClassVar[type[Ruleset]]\n", "    ruleset: Any\n")
    body = body.replace("-> GameState:", "-> CompiledGameState:")
    (tree / "arena/rules/native_state.py").write_text(
        '"""GameState\'s code, compiled: the base of the built-in engines (probe_mypyc.py)."""\n'
        "from __future__ import annotations\n\nimport random\nfrom abc import ABC, abstractmethod\n"
        "from typing import Any, Callable, ClassVar, Mapping, Sequence\n\n"
        "from arena.errors import IllegalActionError\n"
        "from arena.rules.base import fresh_copy, plain_copy\n"
        "from arena.rules.chance import Chance, draw_distribution\n\n\n" + body)
    engine = "arena/rules/flip_7/engine.py"
    edit(tree, engine, "from arena.rules.base import GameState, Option, Ruleset, standing_from_scores\n",
         "from mypy_extensions import mypyc_attr\n\nfrom arena.rules.base import GameState, Option, Ruleset, "
         "standing_from_scores\nfrom arena.rules.native_state import CompiledGameState\n")
    edit(tree, engine, "\nclass Flip7(Ruleset):", "\n@mypyc_attr(native_class=False)\nclass Flip7(Ruleset):")
    edit(tree, engine, "class Flip7State(GameState):", "class Flip7State(CompiledGameState):")
    edit(tree, engine, "    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random,\n",
         "    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random,  # type: ignore\n")
    path = tree / engine
    path.write_text(path.read_text() + "\n\nGameState.register(Flip7State)\n")


LAYOUTS = {"shared-base": shared_base, "own-base": own_base}


def suite_failures(python: Path, tree: Path) -> tuple[set[str], str]:
    """(ids of the failing tests, pytest's summary line) of the default suite run in `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf"], cwd=tree,
                          env=env, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    failed = {line.split()[1] for line in lines if line.startswith(("FAILED ", "ERROR "))}
    return failed, lines[-1] if lines else done.stderr[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="whole Flip 7 games to time in each copy")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="shared-base",
                        help="what is compiled, and on which base class (see the module's docstring)")
    parser.add_argument("--suite", action="store_true", help="also run the test suite in both copies")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-mypyc-"))
    try:
        pure, compiled = work / "pure", work / "compiled"
        for tree in (pure, compiled):
            copy_tree(tree)
        LAYOUTS[args.layout](compiled)
        python = work / "venv" / "bin" / "python"
        run([sys.executable, "-m", "venv", str(work / "venv")], work)
        run([str(python), "-m", "pip", "install", "-q", "mypy", "-e", f"{pure}[test]"], work)
        modules = MODULES[args.layout]
        print(f"compiling {len(modules)} modules with mypyc ({args.layout}) ...", flush=True)
        run([str(work / "venv" / "bin" / "mypyc"), "--follow-imports=silent", "--ignore-missing-imports",
             *modules], compiled)
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
        if args.suite:
            print("running the test suite in both copies ...", flush=True)
            failed = {}
            for label, tree in (("pure", pure), ("compiled", compiled)):
                failed[label], line = suite_failures(python, tree)
                print(f"{label:<9} {line}")
            only = sorted(failed["compiled"] - failed["pure"])
            print(f"{len(only)} tests fail only compiled" + "".join(f"\n  {test}" for test in only))
        return 0 if same else 1
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
