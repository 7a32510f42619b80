"""The optional compiled install (docs/compiled.md): what the build compiles, how an
install reports it, and the warning for compiled code older than its source. The
compiled install's own run of the engines' tests is in .ci/run; building one here is the
`slow` test at the end."""

import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import arena.compiled as compiled
from arena.rules.engine_base import EngineState
from arena.rules.game_state import GameState

ROOT = Path(__file__).resolve().parent.parent
COMPILED_RUN = os.environ.get("ARENA_EXPECT_COMPILED") == "1"   # set by .ci/run for its compiled run


def run_setup(monkeypatch, flag):
    """setup.py's namespace with `FLIP_ARENA_COMPILE=flag` and setuptools' setup() recorded."""
    import setuptools

    calls = []
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: calls.append(kwargs))
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("FLIP_ARENA_COMPILE", flag)
    namespace = runpy.run_path(str(ROOT / "setup.py"))
    return namespace, calls


def test_an_ordinary_build_compiles_nothing(monkeypatch):
    namespace, calls = run_setup(monkeypatch, "0")
    assert calls == [{"ext_modules": []}]


def test_setup_reads_the_compiled_modules_from_arena_compiled_without_importing_it(monkeypatch):
    namespace, _ = run_setup(monkeypatch, "")
    plan = namespace["compiled_plan"]()
    assert plan == {"SOURCES": compiled.SOURCES, "PACKAGE_DIRS": compiled.PACKAGE_DIRS,
                    "GAME_STATE_COPY": compiled.GAME_STATE_COPY, "BUILD_RECORD": compiled.BUILD_RECORD}
    in_tree = [namespace["in_tree"](plan, path) for path in plan["SOURCES"] if path != compiled.GAME_STATE_COPY[1]]
    assert in_tree and all((ROOT / path).is_file() for path in in_tree), in_tree
    assert [compiled.source_file(ROOT, path) for path in plan["SOURCES"]] == [ROOT / namespace["in_tree"](plan, path)
                                                                           for path in plan["SOURCES"]]


def test_a_wrong_compile_flag_is_refused_with_one_line(monkeypatch):
    with pytest.raises(SystemExit, match=r"FLIP_ARENA_COMPILE must be 1 \(a compiled install\) or 0, not 'yes'"):
        run_setup(monkeypatch, "yes")


@pytest.mark.skipif(COMPILED_RUN, reason="this is the compiled install's run")
def test_an_ordinary_install_runs_every_module_interpreted_on_game_state_itself():
    assert set(compiled.compiled_modules().values()) == {"interpreted"}
    assert compiled.build_kind() == "pure Python" and compiled.stale_warning() is None
    assert EngineState is GameState


@pytest.mark.skipif(not COMPILED_RUN, reason="runs in .ci/run's compiled install (ARENA_EXPECT_COMPILED=1)")
def test_the_compiled_install_runs_every_listed_module_compiled_and_current():
    from arena.rules.flip_7 import Flip7

    assert set(compiled.compiled_modules().values()) == {"compiled"}, compiled.compiled_modules()
    assert EngineState is not GameState and issubclass(EngineState, GameState)
    state = Flip7.new_game(3, Flip7.resolve_options(), __import__("random").Random(1))
    assert isinstance(state, GameState) and not hasattr(state, "__dict__")   # a native class


def test_a_compiled_module_is_stale_once_its_source_no_longer_has_the_recorded_hash(tmp_path):
    source = tmp_path / "engine.py"
    source.write_text("x = 1\n")
    recorded = __import__("hashlib").sha256(b"x = 1\n").hexdigest()
    assert compiled.module_status("engine.cpython-311.so", [(source, recorded)]) == "compiled"
    assert compiled.module_status("engine.py", [(source, "other")]) == "interpreted"
    source.write_text("x = 2\n")
    assert compiled.module_status("engine.cpython-311.so", [(source, recorded)]) == "stale"


def test_the_warning_names_the_stale_modules(monkeypatch):
    monkeypatch.setattr(compiled, "compiled_modules",
                        lambda root=None: {"arena.rules.chance": "compiled", "arena.rules.flip_7.engine": "stale"})
    warning = compiled.stale_warning()
    assert warning.startswith("arena: compiled modules older than their source, which they shadow: "
                              "arena.rules.flip_7.engine;")
    assert compiled.build_kind() == "compiled (2 modules, 1 stale)"


@pytest.mark.slow
def test_a_compiled_install_builds_and_plays_the_same_moves_cheaper(tmp_path):
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: a compiled install cannot be built here")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_compiled.py"), "--games", "1"],
                          capture_output=True, text=True, cwd=ROOT)
    if "could not install" in done.stdout + done.stderr:
        pytest.skip("no package index reachable: mypy cannot be installed")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "same moves on the fingerprint's 72 games: True" in done.stdout
