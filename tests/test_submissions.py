"""Writing and submitting bots: `arena new-bot`, `arena validate`, the generated reference.

The default suite installs bots as throwaway plugins on PYTHONPATH (no virtualenv);
the tests marked `slow` create real virtualenvs and install with pip, as an
organiser's `arena validate PATH` does.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.listing import docs
from arena.cli.submit import new_bot, validate
from arena.plugins import load_registry
from arena.reference import (builtin_rulesets, docs_status, docstring_sections, rulesets_markdown,
                             ruleset_reference)
from arena.scaffold import class_name, module_name
from arena.validate import Settings, arena_source, percentiles_ms, validate_installed, validate_path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent
RULESET_IDS = sorted(load_registry().rulesets)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process limits are Linux-only")

FAST = ["--games", "2", "--time-per-decision", "0.3", "--time-bank", "0.3", "--memory-mb", "400"]
PROCESS = ["--isolation", "process"]  # the fault details below are ProcessHost's (sandboxed: test_submission_sandbox)

NONDETERMINISTIC = """
    import random

    import arena


    class Wobbly(arena.Bot):
        name = "wobbly"
        rulesets = ("flip-7",)

        def act(self, observation):
            return random.choice(observation["legal_actions"])  # the global RNG: never replays


    class Clocked(Wobbly):
        name = "clocked"
        time_dependent = True


    class Elsewhere(arena.Bot):
        name = "elsewhere"
        rulesets = ("flip-7", "no-such-game")

        def act(self, observation):
            return self.rng.choice(observation["legal_actions"])


    @arena.hookimpl
    def register_bots(register):
        for bot in (Wobbly, Clocked, Elsewhere):
            register(bot)
"""


def install_plugin(root: Path, dist: str, module: str, source_dir: Path | None = None, source: str | None = None):
    """Put `module` (copied from `source_dir`, or written from `source`) on `root` with
    a .dist-info declaring it as an `arena` entry point, the way pip would."""
    if source_dir is not None:
        target = root / module
        shutil.copytree(source_dir, target) if source_dir.is_dir() else shutil.copy(source_dir, root)
    else:
        (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{dist} = {module}\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path (this process) and PYTHONPATH (bot processes) for plugins."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", str(root))
    return root


def run_validate(*args):
    result = CliRunner().invoke(validate, list(args))
    return result


# -- the generated reference --------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_builtin_ruleset_documents_its_actions_view_and_events(ruleset_id):
    ref = ruleset_reference(load_registry().ruleset(ruleset_id).cls)
    assert ref.actions and ref.view and ref.events, "the docstring lost a section the reference needs"
    assert ruleset_id in ref.summary


def test_docs_rulesets_md_is_what_the_rulesets_generate():
    # If this fails, regenerate: arena docs --out docs/rulesets.md
    assert docs_status(ROOT / "docs" / "rulesets.md", rulesets_markdown()) is None


def test_docs_check_fails_on_a_stale_file(tmp_path):
    stale = tmp_path / "rulesets.md"
    stale.write_text(rulesets_markdown().replace("hit", "hot", 1))
    result = CliRunner().invoke(docs, ["--check", str(stale)])
    assert result.exit_code == 1 and "differs" in result.output
    CliRunner().invoke(docs, ["--out", str(stale)])
    assert CliRunner().invoke(docs, ["--check", str(stale)]).exit_code == 0


def test_reference_lists_every_option_of_every_builtin_ruleset():
    text = rulesets_markdown()
    for ruleset in builtin_rulesets():
        for name in ruleset.options:
            assert f"| `{name}` |" in text


def test_docstring_sections_understand_underlined_and_indented_headings():
    underlined = """Game (`g`): a summary.

    ACTION GRAMMAR (in order)
    -------------------------
    - ``a``  does a

    VIEW FIELDS spread over
    two lines
    -----------------------
    - ``turn``
    """
    intro, sections = docstring_sections(underlined)
    assert intro == "Game (`g`): a summary."
    assert [s.heading for s in sections] == ["ACTION GRAMMAR (in order)", "VIEW FIELDS spread over two lines"]
    assert sections[0].body == "- ``a``  does a"
    indented = """Game.

    Action grammar
        "hit"   hits
          more

    Event types (all public)
        card {seat}
    """
    _, sections = docstring_sections(indented)
    assert [(s.heading, s.body) for s in sections] == [("Action grammar", '"hit"   hits\n  more'),
                                                       ("Event types (all public)", "card {seat}")]


# -- new-bot -------------------------------------------------------------------------------


def test_new_bot_writes_a_package_with_the_arena_entry_point(tmp_path):
    folder = tmp_path / "clever"
    result = CliRunner().invoke(new_bot, ["clever", "--ruleset", "flip-7", "--ruleset", "uno-flip",
                                          "--dir", str(folder)])
    assert result.exit_code == 0, result.output
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["arena"] == {"clever": "clever"}
    assert any(dep.startswith("flip-arena") for dep in project["project"]["dependencies"])
    source = (folder / "clever" / "__init__.py").read_text()
    assert 'rulesets = ("flip-7", "uno-flip")' in source
    assert "def act_flip_7(" in source and "def act_uno_flip(" in source and "def act_flip_hue(" not in source
    assert '"hit", "stay"' in source  # the flip-7 action grammar, quoted from its docstring
    assert (folder / "tests" / "test_clever.py").exists() and "pip install -e" in (folder / "README.md").read_text()
    compile(source, "clever/__init__.py", "exec")


@pytest.mark.parametrize("args, message", [
    (["Bad_Name"], "lowercase"),
    (["random"], "already installed"),
    (["fine", "--ruleset", "no-such-game"], "unknown ruleset"),
])
def test_new_bot_refuses_bad_names_taken_names_and_unknown_rulesets(tmp_path, args, message):
    result = CliRunner().invoke(new_bot, args + ["--dir", str(tmp_path / "out")])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "out").exists()


def test_new_bot_never_overwrites_a_folder_with_files(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    result = CliRunner().invoke(new_bot, ["fine", "--dir", str(tmp_path)])
    assert result.exit_code == 2 and "not an empty folder" in result.output


def test_scaffold_names_are_safe_import_names():
    assert module_name("my-bot") == "my_bot" and class_name("my-bot") == "MyBot"
    assert module_name("7up") == "bot_7up" and class_name("7up").isidentifier()
    assert module_name("json") == "bot_json" and module_name("arena") == "bot_arena"


@linux_only
def test_scaffold_of_every_ruleset_passes_its_own_tests_and_validate(site, tmp_path):
    folder = tmp_path / "all-games"
    assert CliRunner().invoke(new_bot, ["all-games", "--dir", str(folder)]).exit_code == 0
    install_plugin(site, "all-games", "all_games", source_dir=folder / "all_games")
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder / "tests")],
                           cwd=folder, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(site)))
    assert tests.returncode == 0, tests.stdout + tests.stderr
    result = run_validate("all-games", "--games", "2", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.output
    bot = report["bots"][0]
    assert [r["id"] for r in bot["rulesets"]] == RULESET_IDS
    assert all(r["deterministic"] and not r["faults"] for r in bot["rulesets"])


# -- validate by name (no virtualenv) ----------------------------------------------------


@linux_only
def test_validate_passes_a_good_bot_and_reports_times_memory_and_determinism():
    result = run_validate("flip7-threshold", "--games", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] and report["errors"] == []
    bot = report["bots"][0]
    assert {c["check"]: c["status"] for c in bot["checks"]} == {
        "rulesets": "pass", "play": "pass", "determinism": "pass", "time per decision": "pass", "peak memory": "pass"}
    run = bot["rulesets"][0]
    assert run["games"] == 3 and run["decisions"] > 0 and run["deterministic"] is True
    assert 0 < run["time_ms"]["p50"] <= run["time_ms"]["p99"] <= run["time_ms"]["max"]
    assert 5 < bot["peak_memory_mb"] < 1024
    text = run_validate("flip7-threshold", "--games", "3")
    assert text.exit_code == 0 and "PASS" in text.output and "p99" in text.output


@pytest.fixture
def misbehaving(site):
    shutil.copy(HERE / "isolation" / "misbehaving_bots.py", site / "misbehaving_bots.py")
    info = site / "misbehaving_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: misbehaving-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena]\nmisbehaving = misbehaving_bots\n")
    install_plugin(site, "wobbly-bots", "wobbly_bots", source=NONDETERMINISTIC)
    return site


@linux_only
@pytest.mark.parametrize("bot, kind, reason", [
    ("exiter", "crash", "exited with code 3"),
    ("raiser", "error", "RuntimeError: nope"),
    ("hang", "timeout", "gave no answer within"),
    ("illegal", "illegal", "'resign'"),
    ("malformed", "illegal", "42"),
    ("hog", "memory", "MemoryError"),
])
def test_validate_fails_a_misbehaving_bot_with_the_reason(misbehaving, bot, kind, reason):
    result = run_validate(bot, *FAST, *PROCESS, "--ruleset", "flip-7", "--ruleset", "uno-flip", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    play = [c for c in report["bots"][0]["checks"] if c["check"] == "play"]
    assert [c["ruleset"] for c in play] == ["flip-7", "uno-flip"] and all(c["status"] == "fail" for c in play)
    assert kind in play[0]["detail"] and reason in play[0]["detail"]


@linux_only
def test_validate_prints_a_pass_fail_table_with_the_reason(misbehaving):
    text = run_validate("exiter", *FAST, *PROCESS, "--ruleset", "flip-7")
    assert text.exit_code == 1
    assert "FAIL" in text.output and "exited with code 3" in " ".join(text.output.split())
    assert "validate exiter: FAIL" in text.output


@linux_only
def test_validate_shows_the_end_of_a_crashing_bots_stderr(misbehaving):
    report = json.loads(run_validate("raiser", *FAST, *PROCESS, "--ruleset", "flip-7", "--json").stdout)
    assert "Traceback" in report["bots"][0]["rulesets"][0]["log"]


@linux_only
def test_validate_fails_a_nondeterministic_bot_with_the_first_differing_decision(misbehaving):
    result = run_validate("wobbly", "--games", "4", *PROCESS, "--json")
    assert result.exit_code == 1, result.output
    checks = {c["check"]: c for c in json.loads(result.stdout)["bots"][0]["checks"]}
    assert checks["play"]["status"] == "pass"
    assert checks["determinism"]["status"] == "fail"
    assert "self.rng" in checks["determinism"]["detail"] and "the first time" in checks["determinism"]["detail"]


@linux_only
def test_validate_reports_but_does_not_fail_a_declared_time_dependent_bot(misbehaving):
    result = run_validate("clocked", "--games", "4", *PROCESS, "--json")
    assert result.exit_code == 0, result.output
    bot = json.loads(result.stdout)["bots"][0]
    assert bot["time_dependent"] is True
    determinism = next(c for c in bot["checks"] if c["check"] == "determinism")
    assert determinism["status"] == "warn" and "time-dependent" in determinism["detail"]


@linux_only
def test_validate_fails_a_bot_that_declares_a_ruleset_that_is_not_installed(misbehaving):
    result = run_validate("elsewhere", "--games", "1", *PROCESS, "--json")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["bots"][0]["checks"][0]
    assert check["check"] == "rulesets" and check["status"] == "fail" and "no-such-game" in check["detail"]


def test_validate_of_an_unknown_name_is_a_user_error():
    result = run_validate("no-such-bot")
    assert result.exit_code == 2 and "neither an installed bot" in result.output


def test_validate_of_a_missing_path_fails_without_a_virtualenv(tmp_path):
    report = validate_path(tmp_path / "nothing-here")
    assert not report["passed"] and "does not exist" in report["errors"][0]


def test_arena_source_is_this_source_tree():
    # The editable install of the development environment points here.
    assert Path(arena_source()) == ROOT


def test_percentiles_are_nearest_rank_in_milliseconds():
    times = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    assert percentiles_ms(times) == {"p50": 50.0, "p99": 99.0, "max": 100.0}
    assert percentiles_ms([]) == {"p50": None, "p99": None, "max": None}


def test_validate_installed_with_no_bot_outside_arena_says_how_to_register_one():
    report = validate_installed(settings=Settings(games=1), exclude_package="flip-arena",
                                registry=_registry_without_outside_bots())
    assert not report["passed"] and "entry point" in report["errors"][0]


def _registry_without_outside_bots():
    registry = load_registry()
    registry.bots = {n: e for n, e in registry.bots.items() if e.origin.package == "flip-arena"}
    registry.broken = []
    return registry


# -- fresh virtualenvs (slow) ---------------------------------------------------------------


def _venv_with(tmp_path, *requirements):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    pip = subprocess.run([python, "-m", "pip", "install", "-q", *requirements], capture_output=True, text=True,
                         env=env)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return python, env


def _arena_copy(tmp_path):
    copy = tmp_path / "flip-arena"
    shutil.copytree(arena_source(), copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "results", "*.egg-info", "build", "dist", "__pycache__", ".pytest_cache"))
    return str(copy)


def _wheel(tmp_path):
    source = tmp_path / "fixture-bot"
    shutil.copytree(HERE / "submissions" / "fixture-bot", source)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                            str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    return wheel


@pytest.mark.slow
@linux_only
@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_scaffold_of_each_ruleset_installs_in_a_fresh_virtualenv_and_passes_validate(tmp_path, ruleset_id):
    name = f"scaffold-{ruleset_id}"
    folder = tmp_path / name
    assert CliRunner().invoke(new_bot, [name, "--ruleset", ruleset_id, "--dir", str(folder)]).exit_code == 0
    result = run_validate(str(folder), "--games", "5", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.output
    (bot,) = report["bots"]
    assert bot["name"] == name and bot["package"] == name and report["install"]["arena"]
    assert [r["id"] for r in bot["rulesets"]] == [ruleset_id]
    assert load_registry().bots.get(name) is None  # nothing was installed here


@pytest.mark.slow
@linux_only
def test_a_bot_distribution_installed_with_pip_is_found_through_its_entry_point(tmp_path):
    wheel = _wheel(tmp_path)
    python, env = _venv_with(tmp_path, _arena_copy(tmp_path), str(wheel))
    listing = subprocess.run([python, "-m", "arena", "bots", "list", "--json"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    rows = {row["name"]: row for row in json.loads(listing.stdout)}
    assert rows["fixture-bot"]["package"] == "arena-fixture-bot" and rows["fixture-bot"]["version"] == "0.3.0"
    assert "random" in rows  # the built-ins came along with flip-arena


@pytest.mark.slow
@linux_only
def test_validate_of_a_wheel_installs_it_in_a_throwaway_virtualenv_and_passes(tmp_path):
    wheel = _wheel(tmp_path)
    result = run_validate(str(wheel), "--games", "4")
    assert result.exit_code == 0, result.output
    assert "fixture-bot (arena-fixture-bot 0.3.0+sha256." in result.output and "): PASS" in result.output


@pytest.mark.slow
@linux_only
def test_validate_of_a_folder_fails_a_bot_that_plays_illegally_with_the_reason(tmp_path):
    folder = tmp_path / "cheat"
    shutil.copytree(HERE / "submissions" / "fixture-bot", folder)
    module = folder / "arena_fixture_bot.py"
    module.write_text(module.read_text().replace('legal[-1] if self.rng.random() < 0.5 else legal[0]',
                                                 '"stay-forever"'))
    result = run_validate(str(folder), *FAST, "--json")
    assert result.exit_code == 1, result.output
    play = next(c for c in json.loads(result.stdout)["bots"][0]["checks"] if c["check"] == "play")
    assert play["status"] == "fail" and "illegal" in play["detail"] and "stay-forever" in play["detail"]


@pytest.mark.slow
@linux_only
def test_validate_of_a_folder_pip_cannot_install_fails_with_pips_reason(tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(HERE / "submissions" / "fixture-bot", folder)
    (folder / "pyproject.toml").write_text((folder / "pyproject.toml").read_text().replace("[project]", "[project"))
    result = run_validate(str(folder), "--games", "1", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["bots"] == [] and "pip could not build and install it" in report["errors"][0]
    assert "pyproject.toml" in report["errors"][0]


def test_contributing_tutorial_shows_the_code_new_bot_writes(tmp_path):
    """The tutorial's my-bot may itself be installed here (CONTRIBUTING has the reader install it
    in the same environment): the scaffold is written as if it were not."""
    from arena import scaffold

    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    snippet = contributing.split("and of `my_bot/__init__.py`:\n\n```python\n", 1)[1].split("```", 1)[0]
    registry = load_registry()
    registry.bots = {name: entry for name, entry in registry.bots.items() if name != "my-bot"}
    scaffold.new_bot("my-bot", ["flip-7"], tmp_path / "b", registry)
    source = (tmp_path / "b" / "my_bot" / "__init__.py").read_text()
    generated = {line.split("  #")[0].strip() for line in source.splitlines()}
    shown = [line.split("  #")[0].strip() for line in snippet.splitlines()]
    missing = [line for line in shown if line and not line.startswith("#") and line != "..." and line not in generated]
    assert not missing
    project = (tmp_path / "b" / "pyproject.toml").read_text()
    assert 'my-bot = "my_bot"' in project and 'dependencies = ["flip-arena>=0.1"]' in project
