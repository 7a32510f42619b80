"""Limits on the size of library functions (arena/ and bots/): McCabe complexity at most 15
(ruff's C901, with `[tool.ruff.lint]` in pyproject.toml) and at most 60 lines from `def` to
its last line, but for the few functions of ALLOWED, each with the reason it is exempt."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("arena", "bots")
MAX_COMPLEXITY = 15
MAX_LINES = 60
MAX_ALLOWED = 5

ALLOWED: dict[str, str] = {
    # "path::Qualified.name": why it may exceed a limit (at most MAX_ALLOWED entries)
}

TO_SPLIT: dict[str, str] = {
    # Over a limit today and not yet split: this list may only shrink (a test fails when an
    # entry is within both limits, so that it is taken off). "path::name": the work that splits it.
}


def functions(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Every function and method of arena/ and bots/ as "path::Qualified.name" -> (its `def`
    line, its length in lines from `def` to its last line, decorators not counted)."""
    found: dict[str, tuple[int, int]] = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            _walk(ast.parse(path.read_text(encoding="utf-8")), relative, "", found)
    return found


def _walk(node: ast.AST, path: str, prefix: str, found: dict[str, tuple[int, int]]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + child.name
            if not isinstance(child, ast.ClassDef):
                assert child.end_lineno is not None
                found.setdefault(f"{path}::{name}", (child.lineno, child.end_lineno - child.lineno + 1))
            _walk(child, path, name + ".", found)
        else:
            _walk(child, path, prefix, found)


def too_long(root: Path = ROOT) -> dict[str, int]:
    """The functions of more than MAX_LINES lines, with their length."""
    return {name: length for name, (_, length) in functions(root).items() if length > MAX_LINES}


def too_complex(root: Path = ROOT) -> dict[str, int]:
    """The functions ruff's C901 finds above MAX_COMPLEXITY, with their complexity."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    result = subprocess.run([ruff, "check", "--select", "C901", "--config",
                             f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", "--output-format", "json",
                             "--no-cache", *FOLDERS], cwd=root, capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 1), result.stderr[-2000:]
    by_line = {(name.split("::")[0], line): name for name, (line, _) in functions(root).items()}
    found = {}
    for finding in json.loads(result.stdout):
        path = Path(finding["filename"]).resolve().relative_to(root.resolve()).as_posix()
        name = by_line[(path, finding["location"]["row"])]
        found[name] = int(finding["message"].split("(")[-1].split(" ")[0])
    return found


def test_at_most_five_functions_are_allowed_past_the_limits_each_with_its_reason():
    assert len(ALLOWED) <= MAX_ALLOWED, f"{len(ALLOWED)} functions allowed past the limits (at most {MAX_ALLOWED})"
    assert [name for name, why in ALLOWED.items() if not why.strip()] == []
    known = functions()
    assert [name for name in {**ALLOWED, **TO_SPLIT} if name not in known] == []


def test_no_library_function_is_longer_than_60_lines():
    over = {name: length for name, length in too_long().items() if name not in ALLOWED and name not in TO_SPLIT}
    assert over == {}, "split these functions (at most 60 lines from def to the last line): " + \
        ", ".join(f"{name} ({length})" for name, length in sorted(over.items()))


def test_no_library_function_is_more_complex_than_15():
    over = {name: c for name, c in too_complex().items() if name not in ALLOWED and name not in TO_SPLIT}
    assert over == {}, "split these functions (ruff C901, McCabe at most 15): " + \
        ", ".join(f"{name} ({c})" for name, c in sorted(over.items()))


def test_every_function_waiting_to_be_split_is_still_past_a_limit():
    """TO_SPLIT only shrinks: a function brought within both limits leaves it."""
    past = {**too_long(), **too_complex()}
    assert [name for name in TO_SPLIT if name not in past] == []


def test_a_long_or_complex_function_is_found(tmp_path):
    (tmp_path / "arena").mkdir()
    (tmp_path / "bots").mkdir()
    branches = "".join(f"        if x == {i}:\n            return {i}\n" for i in range(MAX_COMPLEXITY))
    head = "def short():\n    return 1\n\n\nclass K:\n    def branchy(self, x):\n" + branches + "        return -1\n\n\n"
    for body_lines, expected in ((MAX_LINES - 2, {}), (MAX_LINES - 1, {"arena/m.py::long": MAX_LINES + 1})):
        (tmp_path / "arena" / "m.py").write_text(head + "def long():\n" + "    y = 1\n" * body_lines + "    return y\n")
        assert too_long(tmp_path) == expected
    assert too_complex(tmp_path) == {"arena/m.py::K.branchy": MAX_COMPLEXITY + 1}
