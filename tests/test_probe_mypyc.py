"""benchmarks/probe_mypyc.py, the measured case for compiling the search path (issue 22 item 1):
its edits must still apply to today's source, and (slow) the compiled copy must play the same
moves as the pure one."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_PATH = ROOT / "benchmarks" / "probe_mypyc.py"
_spec = importlib.util.spec_from_file_location("probe_mypyc", _PATH)
probe = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = probe
_spec.loader.exec_module(probe)


def test_every_edit_of_the_probe_applies_exactly_once_to_todays_source():
    for name, text, _ in probe.PATCHES:
        assert (ROOT / name).read_text().count(text) == 1, f"{name}: {text!r}"


def test_the_probe_compiles_modules_that_exist():
    for modules in probe.MODULES.values():
        for module in modules:
            if module != "arena/rules/native_state.py":   # the own-base layout writes it
                assert (ROOT / module.replace("arena_bots/", "bots/")).is_file(), module


@pytest.mark.slow
def test_the_compiled_flip_7_search_plays_the_same_moves_as_the_pure_one():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: mypyc cannot build the compiled copy")
    done = subprocess.run([sys.executable, str(_PATH), "--games", "1"], capture_output=True, text=True,
                          timeout=900)
    if done.returncode and "-m pip failed" in done.stderr:
        pytest.skip(f"the probe could not install mypy (no package index?): {done.stderr[-300:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "same moves on the fingerprint's 18 Flip 7 games: True" in done.stdout


def test_the_own_base_layout_applies_to_todays_source_and_keeps_game_state_python(tmp_path):
    for name in ("arena/rules/base.py", "arena/rules/flip_7/engine.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((ROOT / name).read_text())
    probe.own_base(tmp_path)
    native = (tmp_path / "arena/rules/native_state.py").read_text()
    assert "class CompiledGameState(ABC):" in native and "def emit(" in native
    assert "class OwnEventCopies" not in native and "def fresh_copy" not in native
    assert (tmp_path / "arena/rules/base.py").read_text() == (ROOT / "arena/rules/base.py").read_text()
    engine = (tmp_path / "arena/rules/flip_7/engine.py").read_text()
    assert "class Flip7State(CompiledGameState):" in engine
    assert engine.rstrip().endswith("GameState.register(Flip7State)")
    compile(native, "native_state.py", "exec")
    compile(engine, "engine.py", "exec")
