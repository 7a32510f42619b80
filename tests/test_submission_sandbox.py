"""Submissions (issue 23, items 4 and 5): bot packages named by file in a tournament are
built, probed and played only inside sandboxes, never imported by the harness.

Each test builds real virtualenvs with pip (offline, with this environment's setuptools),
in a sandbox: a second or two per build."""

import json
import pickle
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.sandbox import sandbox_unavailable
from arena.store import Store, store_path

HERE = Path(__file__).parent
FIXTURES = HERE / "submissions"

pytestmark = pytest.mark.skipif(sandbox_unavailable() is not None,
                                reason=f"no sandbox can be made here: {sandbox_unavailable()}")


def tournament(folder: Path, entry: str, name: str = "subs", extra_bots: str = "", head: str = "") -> Path:
    """A Flip 7 tournament file with `random`, `flip7-threshold` and the given entry third."""
    path = folder / "t.toml"
    path.write_text(f"""
[tournament]
name = "{name}"
seed = 12345
deals = 1
{head}

[[bots]]
use = "random"

[[bots]]
use = "flip7-threshold"
{extra_bots}
[[bots]]
{entry}

[[rulesets]]
use = "flip-7"
players = 2
""")
    return path


def run(*args):
    return CliRunner().invoke(main, ["run", *map(str, args), "--workers", "1"], catch_exceptions=False)


def copy_fixture(name: str, folder: Path) -> Path:
    target = folder / "submissions" / name
    shutil.copytree(FIXTURES / name, target)
    return target


def venvs(out: Path) -> list[Path]:
    return sorted(p for p in (out / "submissions").iterdir() if p.is_dir()) if (out / "submissions").exists() else []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One run of a tournament with the fixture bot's folder as a submission (a virtualenv
    built in a sandbox): its folder, tournament file, results folder, the run's result, and
    what the run left, read at once (a later test resumes and changes this folder)."""
    folder = tmp_path_factory.mktemp("built")
    copy_fixture("fixture-bot", folder)
    out = folder / "results"
    file = tournament(folder, 'submission = "submissions/fixture-bot/"')
    result = run(file, "--out", out)
    left = {"standings": (out / "standings.json").read_text() if result.exit_code == 0 else "", "venvs": venvs(out)}
    if result.exit_code == 0:
        with Store.open(store_path(out)) as store:
            left["isolation"] = store.get("isolation")
            left["records"] = json.dumps([store.record(i) for i in range(store.count())])
    return folder, file, out, result, left


def test_a_tournament_with_a_submission_builds_it_in_a_sandbox_and_ranks_it(built):
    _, _, _, result, left = built
    assert result.exit_code == 0, result.output
    rows = {row["bot"]: row for row in json.loads(left["standings"])["overall"]}
    assert rows["fixture-bot"]["games"] == 4 and rows["fixture-bot"]["version"].startswith("0.3.0+sha256.")
    (home,) = left["venvs"]
    assert (home / "built.json").is_file() and (home / "venv" / "bin" / "python").exists()
    assert len(home.name) == 64 and rows["fixture-bot"]["version"].endswith(home.name[:12])  # its content hash
    assert left["isolation"]["used"] == "sandbox"
    assert '"bot": "fixture-bot"' in left["records"] and "0.3.0+sha256." in left["records"]


def test_a_resumed_run_reuses_the_virtualenv_and_a_changed_submission_gets_a_new_one(built):
    folder, file, out, result, left = built
    assert result.exit_code == 0, result.output
    (first,) = left["venvs"]
    built_json = (first / "built.json").read_text()
    again = run(file, "--out", out)
    assert again.exit_code == 0 and "reusing its virtualenv" in again.output and "building" not in again.output
    assert venvs(out) == [first] and (first / "built.json").read_text() == built_json
    module = folder / "submissions" / "fixture-bot" / "arena_fixture_bot.py"
    module.write_text(module.read_text().replace("legal[-1] if", "legal[0] if"))
    refused = run(file, "--out", out)
    assert refused.exit_code == 2 and "changed" in refused.output  # a new version: not mixed into the old store
    assert run(file, "--out", out, "--restart").exit_code == 0
    assert len(venvs(out)) == 2 and first in venvs(out)


def test_use_picks_one_bot_of_a_package_and_its_params_are_checked_in_the_sandbox(tmp_path):
    copy_fixture("two-bots", tmp_path)
    out = tmp_path / "results"
    entry = 'submission = "submissions/two-bots"\nuse = "second-of-two"\nas = "second"\nparams = { stay_at = 3 }'
    result = run(tournament(tmp_path, entry), "--out", out)
    assert result.exit_code == 0, result.output
    assert "second-of-two" in (out / "standings.md").read_text() or "second" in (out / "standings.md").read_text()
    bad = tmp_path / "bad"
    bad.mkdir()
    copy_fixture("two-bots", bad)
    entry = 'submission = "submissions/two-bots"\nuse = "first-of-two"\nparams = { stay_at = "high" }'
    refused = run(tournament(bad, entry), "--out", bad / "results")
    assert refused.exit_code == 2
    assert "bots[2].submission" in refused.output and "stay_at must be an integer" in refused.output
    assert not (bad / "results").exists()


@pytest.mark.parametrize("entry, message", [
    ('submission = "submissions/nowhere"', "does not exist"),
    ('submission = "t.toml"', "not a wheel"),
    ('submission = "submissions/empty"', "without pyproject.toml"),
    ('submission = "submissions/no-entry-point"', "registers no bot"),
    ('submission = "submissions/two-bots"', "registers several bots"),
    ('submission = "submissions/two-bots"\nuse = "third-of-two"', "registers no bot 'third-of-two'"),
    ('submission = "submissions/elsewhere-bot"', "no-such-game"),
    ('submission = "submissions/fixture-bot"\ncommand = ["/bin/true"]\nas = "x"', "not both"),
])
def test_bad_submissions_are_one_line_errors_naming_the_entry_and_write_nothing(tmp_path, entry, message):
    for name in ("no-entry-point", "two-bots", "elsewhere-bot", "fixture-bot"):
        copy_fixture(name, tmp_path)
    (tmp_path / "submissions" / "empty").mkdir()
    out = tmp_path / "results"
    result = run(tournament(tmp_path, entry), "--out", out)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output
    line = errors[0]
    assert "bots[2]." in line and message in line, line
    assert not out.exists()


def test_a_submission_needs_sandbox_isolation(tmp_path):
    copy_fixture("fixture-bot", tmp_path)
    result = run(tournament(tmp_path, 'submission = "submissions/fixture-bot"', head='isolation = "process"'),
                 "--out", tmp_path / "results")
    assert result.exit_code == 2 and "bots[2].submission" in result.output and "sandbox" in result.output


def test_hostile_setup_import_and_constructor_code_cannot_write_outside_or_read_the_seed(tmp_path):
    source = copy_fixture("hostile-bot", tmp_path)
    out = tmp_path / "results"
    file = tournament(tmp_path, 'submission = "submissions/hostile-bot"')
    targets = {"write": [str(out), str(tmp_path), str(out / "submissions")],
               "read": [str(file), str(out / "games.sqlite")]}
    attack = source / "attack.py"
    attack.write_text(attack.read_text().replace('TARGETS = {"write": [], "read": []}', f"TARGETS = {targets!r}"))
    result = run(file, "--out", out)
    assert result.exit_code == 0, result.output
    markers = [p for p in [*tmp_path.rglob("hostile-marker-*"), *Path("/root").glob("hostile-marker-*"),
                           *Path("/").glob("hostile-marker-*")]]
    assert markers == []
    with Store.open(store_path(out)) as store:
        records = [store.record(i) for i in range(store.count())]
    assert len(records) == 6 and all(r is not None for r in records)  # its games were played out
    logs = json.dumps([r.get("logs") for r in records])
    assert "LEAKED" not in logs and "12345" not in logs
    rows = {row["bot"]: row for row in json.loads((out / "standings.json").read_text())["overall"]}
    assert rows["hostile-bot"]["faults"] == 0  # it played: the attacks failed quietly


def test_stand_ins_pickle_by_value_and_cannot_play_here():
    from arena.submissions import SubmittedBot, stand_in

    cls = stand_in(SubmittedBot("some-bot", ("flip-7",), "pkg", "1.0"))
    copy = pickle.loads(pickle.dumps(cls))
    assert copy.name == "some-bot" and copy.plays("flip-7") and not copy.plays("uno-flip")
    with pytest.raises(Exception, match="only in its sandbox"):
        copy().act({"legal_actions": ["a"]})


def test_validate_builds_and_plays_a_folder_in_sandboxes_against_registered_built_ins(tmp_path):
    from arena.cli.submit import validate

    source = copy_fixture("fixture-bot", tmp_path)
    result = CliRunner().invoke(validate, [str(source), "--games", "3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (bot,) = report["bots"]
    assert bot["name"] == "fixture-bot" and bot["passed"] and bot["version"].startswith("0.3.0+sha256.")
    assert report["install"]["sha256"]
    assert "in a sandbox" in result.stderr and "flip7-threshold" in result.stderr  # not only random


def test_validate_games_are_seated_and_seeded_like_a_tournaments():
    from arena.plugins import load_registry
    from arena.seeding import bot_seed, derive_seed
    from arena.validate import Settings, game_plan

    registry = load_registry()
    ruleset = registry.ruleset("flip-7").cls
    plan = game_plan(ruleset, Settings(games=6, seed=9), registry, 0, "fixture-bot")
    opponents = {name for game in plan for name in game.opponents}
    assert {"random", "flip7-threshold"} <= opponents
    for number, game in enumerate(plan):
        assert game.deal_seed == derive_seed(9, "deal", 0, number, 0)
        assert game.bot_seeds == tuple(bot_seed(game.deal_seed, s, game.seat) for s in range(game.players))
    assert len({g.seat for g in plan}) > 1


def test_validate_gets_opponents_through_the_registry_not_by_import():
    source = (HERE.parent / "arena" / "validate.py").read_text()
    assert "arena_bots" not in source
