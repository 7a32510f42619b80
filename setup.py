"""The optional compiled install (docs/compiled.md); everything else is in pyproject.toml.

With `FLIP_ARENA_COMPILE=1`, mypyc compiles the modules `arena/compiled.py` lists (the
search path of the built-in engines), after copying `game_state.py` to the module their
states derive from when compiled (`arena/rules/engine_base.py`). Without it, nothing is
compiled and this file changes nothing.
"""

import ast
import hashlib
import json
import os
import shutil
from pathlib import Path

from setuptools import setup


def compiled_plan() -> dict:
    """`SOURCES`, `PACKAGE_DIRS`, `GAME_STATE_COPY` and `BUILD_RECORD` of arena/compiled.py, read without
    importing arena (its dependencies need not be installed yet)."""
    found = {}
    for node in ast.parse(Path("arena/compiled.py").read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("SOURCES", "PACKAGE_DIRS", "GAME_STATE_COPY", "BUILD_RECORD"):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


def extensions() -> list:
    flag = os.environ.get("FLIP_ARENA_COMPILE", "")
    if flag in ("", "0"):
        return []
    if flag != "1":
        raise SystemExit(f"FLIP_ARENA_COMPILE must be 1 (a compiled install) or 0, not {flag!r}")
    plan = compiled_plan()
    sources, (original, copy) = list(plan["SOURCES"]), plan["GAME_STATE_COPY"]
    shutil.copyfile(original, copy)
    hashes = {path: hashlib.sha256(in_tree(plan, path).read_bytes()).hexdigest() for path in [original, *sources]}
    Path(plan["BUILD_RECORD"]).write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    from mypyc.build import mypycify

    # mypy names a module after its folders: a package kept in a folder of another name
    # (arena_bots in bots/) is compiled through a link of its own name, removed afterwards
    links = [Path(package) for package in plan["PACKAGE_DIRS"] if not Path(package).exists()]
    for link in links:
        link.symlink_to(plan["PACKAGE_DIRS"][link.name], target_is_directory=True)
    try:
        return mypycify(["--follow-imports=silent", "--ignore-missing-imports", *sources],
                        opt_level="3", group_name="arena._compiled")
    finally:
        for link in links:
            link.unlink()


def in_tree(plan: dict, source: str) -> Path:
    """The file of `source` (a module path) in this source tree."""
    package, _, rest = source.partition("/")
    return Path(plan["PACKAGE_DIRS"].get(package, package)) / rest


setup(ext_modules=extensions())
