"""The optional compiled install (docs/compiled.md): which modules it compiles, and whether
this install runs them compiled and up to date.

`setup.py` reads `SOURCES`, `PACKAGE_DIRS`, `GAME_STATE_COPY` and `BUILD_RECORD` from this
file without importing it (so they stay literals) and writes `BUILD_RECORD`: the hash of
every source it compiled.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

SOURCES = ("arena/rules/_compiled_game_state.py", "arena/rules/chance.py",
           "arena/rules/flip_7/engine.py", "arena/rules/flip_7/sampler.py",
           "arena/rules/cards.py", "arena/rules/matching.py",
           "arena/rules/color_flush/engine.py", "arena/rules/color_flush/sampler.py",
           "arena/rules/uno_flip/deck.py", "arena/rules/uno_flip/engine.py", "arena/rules/uno_flip/sampler.py",
           "arena/rules/flip_hue/deck.py", "arena/rules/flip_hue/engine.py", "arena/rules/flip_hue/sampler.py",
           "arena_bots/ismcts_search.py", "arena_bots/uno_flip_play.py", "arena_bots/color_flush_play.py",
           "arena_bots/flip_hue_play.py",
           # the search's cut-off evaluations and playout fast paths, compiled as when they were its own
           "arena/rules/evaluation.py", "arena/rules/flip_7/evaluation.py", "arena/rules/uno_flip/evaluation.py",
           "arena/rules/color_flush/evaluation.py", "arena/rules/flip_hue/evaluation.py",
           "arena_bots/playout_moves.py",
           # the environments' observation arrays (arena.envs): the card games' slots and each game's fill
           "arena/rules/card_slots.py", "arena/rules/flip_7/encoding.py", "arena/rules/uno_flip/encoding.py",
           "arena/rules/color_flush/encoding.py", "arena/rules/flip_hue/encoding.py")
"""The modules mypyc compiles, as paths of their modules (`PACKAGE_DIRS` maps a package to
its folder in the source tree)."""

PACKAGE_DIRS = {"arena_bots": "bots"}
"""Packages whose folder in the source tree has another name (pyproject.toml's package-dir)."""

GAME_STATE_COPY = ("arena/rules/game_state.py", "arena/rules/_compiled_game_state.py")
"""The build copies the first to the second: the compiled base of the built-in states."""

BUILD_RECORD = "arena/_compiled_build.json"
"""Written by the build: ``{source path: sha256}`` of what it compiled (the copy's
original included)."""

ROOT = Path(__file__).resolve().parent.parent


def source_file(root: Path, source: str) -> Path:
    """Where `source` (a `SOURCES` path) lies under `root`: an installed package, or the
    source tree (through `PACKAGE_DIRS`)."""
    installed = root / source
    if installed.is_file():
        return installed
    package, _, rest = source.partition("/")
    return root / PACKAGE_DIRS.get(package, package) / rest


def compiled_modules(root: Path = ROOT) -> dict[str, str]:
    """Each module the build compiles -> "compiled", "interpreted" (not loaded from a
    compiled file: an ordinary install) or "stale" (compiled, but its source changed since
    the build: an editable install edited since; the compiled code is what runs)."""
    names = [source.removesuffix(".py").replace("/", ".") for source in SOURCES]
    record = root / BUILD_RECORD
    if not record.is_file():   # an ordinary install: nothing to look up
        return dict.fromkeys(names, "interpreted")
    built = json.loads(record.read_text())
    status = {}
    for name, source in zip(names, SOURCES):
        spec = importlib.util.find_spec(name)
        origin = spec.origin or "" if spec is not None else ""
        originals = [source] + ([GAME_STATE_COPY[0]] if source == GAME_STATE_COPY[1] else [])
        status[name] = module_status(origin, [(source_file(root, path), built.get(path)) for path in originals])
    return status


def module_status(origin: str, sources: list[tuple[Path, str | None]]) -> str:
    """"interpreted" unless `origin` (where the module is loaded from) is a compiled file;
    then "stale" if a source that still exists no longer has the hash the build recorded
    for it, else "compiled"."""
    if not origin.endswith((".so", ".pyd")):
        return "interpreted"
    changed = any(path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() != recorded
                  for path, recorded in sources)
    return "stale" if changed else "compiled"


def build_kind() -> str:
    """"compiled" or "compiled, N stale" or "pure Python", for `arena --version`."""
    states = list(compiled_modules().values())
    if "compiled" not in states and "stale" not in states:
        return "pure Python"
    stale = states.count("stale")
    return f"compiled ({len(states) - states.count('interpreted')} modules" + (f", {stale} stale)" if stale else ")")


def stale_warning() -> str | None:
    """One line for a compiled install whose compiled code no longer matches its source,
    naming the modules; None otherwise."""
    stale = [name for name, state in compiled_modules().items() if state == "stale"]
    if not stale:
        return None
    return (f"arena: compiled modules older than their source, which they shadow: {', '.join(stale)}; "
            "rebuild them (FLIP_ARENA_COMPILE=1 pip install -e .) or remove them (see docs/compiled.md)")
