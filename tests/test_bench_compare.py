"""benchmarks/compare.py times the copy of a tree it was asked to (never another arena on the
path), and benchmarks/observation_share.py puts every part it takes away back."""

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.rules.cards import TwoFacedTable

_BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, _BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


_path = list(sys.path)
compare = _load("compare")            # puts benchmarks/ first on sys.path (for bench_compiled)
share = _load("observation_share")
sys.path[:] = _path


def _probe(tree, expect, measure="engine"):
    return subprocess.run([sys.executable, "-c", compare.PROBE, measure, "uno-flip", "1", "1", str(_BENCHMARKS),
                           str(expect), json.dumps(compare.OPTIONS)],
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, cwd=tree.parent,
                          capture_output=True, text=True)


def test_a_timing_runs_on_the_tree_copy_put_first_on_the_path(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    compare.copy_tree(tree)
    (tree / "arena_bots").symlink_to(tree / "bots")
    done = _probe(tree, tree)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["count"] > 0 and result["value"] > 0


def test_a_timing_refuses_an_arena_imported_from_anywhere_but_the_tree_asked_for(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _probe(elsewhere, tmp_path / "tree")   # nothing on the path there: the installed arena is found
    assert done.returncode != 0 and "imported arena from" in done.stderr


def test_an_install_argument_needs_a_label_and_an_existing_python():
    assert compare._install(f"compiled={sys.executable}")[0] == "compiled"
    for bad in ("compiled", f"={sys.executable}", "compiled=/no/such/python"):
        with pytest.raises(Exception, match="LABEL=PYTHON"):
            compare._install(bad)


def test_every_observation_variant_is_undone_by_full():
    ruleset = load_registry().ruleset("uno-flip").cls
    state_class = type(ruleset.new_game(4, ruleset.resolve_options({"target_score": 0}), random.Random(0)))
    before = (state_class.view, state_class.take_events, TwoFacedTable.hands_view)
    found = share.variants(state_class, two_faced=True)
    try:
        for name, install in found.items():
            install()
            now = (state_class.view, state_class.take_events, TwoFacedTable.hands_view)
            assert (now == before) == (name == "full"), name
    finally:
        found["full"]()
    assert (state_class.view, state_class.take_events, TwoFacedTable.hands_view) == before


def test_shared_cards_variant_gives_the_same_hands_as_the_real_view():
    ruleset = load_registry().ruleset("uno-flip").cls
    state = ruleset.new_game(4, ruleset.resolve_options({"target_score": 0}), random.Random(2))
    rng = random.Random(2)
    for _ in range(25):
        state.apply(rng.choice(state.legal_actions()))
    for viewer in range(4):
        assert share._shared_hands(state.table, viewer) == state.table.hands_view(viewer)
