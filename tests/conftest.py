"""Shared fixtures: throwaway plugins installed as real entry points on sys.path; the ladder
tests' databases; how many processes `-n auto` (pyproject.toml) spreads the tests over, and
which modules start first."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest


def write_plugin(root: Path, dist: str, module: str, source: str, version: str = "1.2.3") -> None:
    """Make `module` an `arena` entry point of a distribution `dist` under `root`,
    the way pip would install it (a module plus a .dist-info folder)."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{module} = {module}\n")



def flip7_copy_plugin(class_name: str, ruleset_id: str) -> str:
    """The source of a plugin that registers a copy of Flip 7 as the ruleset `ruleset_id`."""
    return f"""
        import arena
        from arena.rules.flip_7 import Flip7

        class {class_name}(Flip7):
            id = "{ruleset_id}"

        @arena.hookimpl
        def register_rulesets(register):
            register({class_name})
    """

@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A folder on sys.path where tests drop throwaway plugin distributions."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


MAX_TEST_WORKERS = 4
"""`-n auto` uses one worker more than the cores this process may run on, at most this many:
most tests start processes or sandboxes of their own and wait on them (with as many workers
as cores, a quiet 2-core run kept the cores busy 69% of its time: 8 min 45 s of CPU in 6 min
20 s), and a tournament test plays on every core."""


@pytest.fixture(scope="module")
def pg_server():
    """A private PostgreSQL server for one test module's ladder tests (tests/ladder_support.py)."""
    from ladder_support import postgres_server

    yield from postgres_server()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh ladder database's URL: SQLite in `tmp_path`, then a new PostgreSQL database."""
    from arena.ladder.db import database_url
    from ladder_support import fresh_database

    if request.param == "sqlite":
        return database_url(None, tmp_path)
    return database_url(fresh_database(request.getfixturevalue("pg_server")), tmp_path)


def pytest_xdist_auto_num_workers(config):
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores + 1, MAX_TEST_WORKERS))


LONGEST_FIRST = ("test_tournament_isolation.py", "test_attacks.py", "test_conformance.py",
                 "test_stopping_calibration.py", "test_typing.py", "test_sandbox.py",
                 "test_submission_sandbox.py", "test_attacks_memory.py", "test_tournament_run.py",
                 "test_small_variants.py", "test_tournament_stop.py", "test_submission_builds.py",
                 "test_uno_flip_hiding.py", "test_color_flush_hiding.py", "test_layering.py")
"""The default suite's longest modules, longest first (each 20 s or more of a loaded 2-core
run's `--durations`), handed out before the rest: `--dist loadscope` gives each worker whole
modules in collection order, and a long module handed out last would leave one worker busy
alone at the end."""


def pytest_configure(config):
    """Keep the collection order for `--dist loadscope` (pytest-xdist 3.8's option): xdist
    otherwise hands out the modules with the most tests first, which puts the long modules of
    a few tests (a mypy run, a few tournaments) last. `--loadscope-reorder` still asks for it."""
    if hasattr(config.option, "loadscopereorder") and "--loadscope-reorder" not in config.invocation_params.args:
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    """The modules of LONGEST_FIRST first, the rest after them, each in its own order."""
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
