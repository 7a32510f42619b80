"""The dependency rules of ARCHITECTURE.md hold because this test says so.

The import graph is read from the source (every `import` and `from ... import`, at the top
of a module or inside a function: a lazy import is a dependency too):

- `arena/rules/` imports nothing of the harness (only `arena.rules.*` and `arena.errors`);
- the runner imports no publishing, site or progress code: nothing `arena.runner` reaches
  through the harness's imports is `arena.publish`, `arena.site`, `arena.run_and_publish`
  or tqdm.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"arena": ROOT / "arena", "arena_bots": ROOT / "bots"}


def _module_name(path: Path) -> str:
    for package, folder in PACKAGES.items():
        if path.is_relative_to(folder):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise ValueError(path)


def import_graph() -> dict[str, set[str]]:
    """Each module of arena and arena_bots -> every module it imports (absolute names; a
    ``from package import name`` counts as importing ``package.name`` when that is a module)."""
    modules = {_module_name(path): path for folder in PACKAGES.values() for path in folder.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules)
        graph[name] = found
    return graph


def reached(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through modules of the graph."""
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            for module in _with_parents(target):
                if module not in seen:
                    seen.add(module)
                    todo.append(module)
    return seen


def _with_parents(name: str) -> list[str]:
    """Importing a.b.c runs a/__init__ and a/b/__init__ too."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


RULES_EXEMPT = {"arena.rules.builtin": "the old entry-point target: a re-export of arena.builtin_rulesets "
                                       "for environments installed before the move; nothing imports it"}


def harness_imports_of_rules(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    allowed = ("arena.rules", "arena.errors")
    bad = {}
    for module, targets in sorted(graph.items()):
        if module in RULES_EXEMPT:
            continue
        if module == "arena.rules" or module.startswith("arena.rules."):
            wrong = sorted(t for t in targets if (t == "arena" or t.startswith(("arena.", "arena_bots")))
                           and not (t in allowed or t.startswith(tuple(a + "." for a in allowed))))
            if wrong:
                bad[module] = wrong
    return bad


FORBIDDEN_FOR_THE_RUNNER = ("arena.publish", "arena.site", "arena.run_and_publish", "tqdm")


def runner_reaches_publishing(graph: dict[str, set[str]]) -> list[str]:
    return sorted(m for m in reached(graph, "arena.runner")
                  if any(m == f or m.startswith(f + ".") for f in FORBIDDEN_FOR_THE_RUNNER))


def test_the_rules_import_nothing_of_the_harness():
    graph = import_graph()
    assert harness_imports_of_rules(graph) == {}
    assert not any(module in targets for module in RULES_EXEMPT for targets in graph.values())


def test_the_runner_reaches_no_publishing_site_or_progress_code():
    assert runner_reaches_publishing(import_graph()) == []


def test_the_checks_catch_a_planted_import():
    graph = import_graph()
    graph["arena.rules.flip_7.engine"] = graph["arena.rules.flip_7.engine"] | {"arena.match"}
    assert harness_imports_of_rules(graph) == {"arena.rules.flip_7.engine": ["arena.match"]}
    graph = import_graph()
    graph["arena.stopping"] = graph["arena.stopping"] | {"arena.site.replay"}   # the runner uses stopping
    assert "arena.site.replay" in runner_reaches_publishing(graph)
    assert "arena.stopping" in reached(graph, "arena.runner")


# -- the harness and the bots read a game's state through its public names ----------------


def private_names_of_the_games() -> set[str]:
    """Underscore names (not dunders) that the rules define on their states and tables:
    attributes they set and methods and class fields they declare."""
    names = set()
    for path in (ROOT / "arena" / "rules").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        names.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def private_reads(path: Path, private: set[str]) -> list[str]:
    """Where `path` reads one of `private` off an object that is not its own (``self``,
    ``cls``), or imports an underscore name from the rules."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in private and isinstance(node.ctx, ast.Load) \
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena.rules"):
            found.extend(f"{node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_"))
    return found


def test_the_harness_and_the_bots_read_no_underscore_name_of_a_games_state():
    private = private_names_of_the_games()
    assert {"_round_score", "_pending"} <= private
    found = {}
    for folder in ("arena", "bots"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(ROOT / "arena" / "rules"):
                continue
            if reads := private_reads(path, private):
                found[str(path.relative_to(ROOT))] = reads
    assert found == {}, f"underscore names of the games' states read outside arena/rules (add a public accessor): {found}"


def test_the_underscore_scan_finds_a_planted_read(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def value(state):\n    return state._round_score(0) + self_free(state)\n"
                       "from arena.rules.flip_7.engine import _row\n")
    assert sorted(private_reads(planted, private_names_of_the_games() | {"_row"})) == [
        "2: state._round_score", "3: import _row"]


RATER_USERS = {"arena/ratings.py", "arena/live_ratings.py", "arena/stopping.py"}
"""The rating passes: the run's (ratings, its live followers) and the stop's looks. The site and
publishing draw what a run rated (issue 37 item 6: one rating pass)."""


def rater_users(root: Path = ROOT) -> set[str]:
    """The modules of arena/ and bots/ that name `Rater`."""
    found = set()
    for folder in ("arena", "bots"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if any(isinstance(node, ast.Name) and node.id == "Rater" or
                   isinstance(node, ast.alias) and node.name == "Rater" for node in ast.walk(tree)):
                found.add(path.relative_to(root).as_posix())
    return found


def test_only_the_rating_passes_make_a_rater():
    assert rater_users() == RATER_USERS


def test_the_rater_scan_finds_a_planted_use(tmp_path):
    (tmp_path / "arena").mkdir()
    (tmp_path / "bots").mkdir()
    (tmp_path / "arena" / "site.py").write_text("from arena.ratings import Rater\nRater({}).standings()\n")
    assert rater_users(tmp_path) == {"arena/site.py"}
