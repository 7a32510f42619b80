"""The command line: listings, `arena match`, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

import arena
from arena.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_version_is_the_package_version():
    result = run("--version")
    assert result.exit_code == 0 and arena.__version__ in result.stdout


def test_rulesets_list_shows_options_with_defaults():
    rows = {r["id"]: r for r in json.loads(run("rulesets", "list", "--json").stdout)}
    assert rows["flip-7"]["players"][0] == 1
    assert "target_score" in run("rulesets", "list").stdout


def test_match_prints_the_standing_and_is_deterministic():
    first = run("match", "flip-7", "flip7-threshold", "random", "--seed", "7")
    assert first.exit_code == 0, first.output
    assert "position" in first.stdout and "flip7-threshold" in first.stdout
    assert run("match", "flip-7", "flip7-threshold", "random", "--seed", "7").stdout == first.stdout


def test_match_json_log_and_save_write_a_record_that_replays(tmp_path):
    path = tmp_path / "game.json"
    result = run("match", "flip-7", "random", "random", "random", "--seed", "3", "--save", str(path), "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(path.read_text())
    assert json.loads(result.stdout)["transcript_hash"] == record["transcript_hash"]
    assert record["seats"][0]["package"] == "flip-arena"
    replayed = run("replay", str(path))
    assert replayed.exit_code == 0 and "replays exactly" in replayed.stdout
    log = run("match", "flip-7", "random", "random", "--seed", "3", "--log")
    assert log.exit_code == 0 and "seat 1" in log.stdout


def test_solo_flip7_reports_rounds():
    result = run("match", "flip-7", "flip7-threshold", "--seed", "1", "--param", "flip7-threshold.threshold=25")
    assert result.exit_code == 0, result.output
    assert "rounds" in result.stdout


def test_options_are_parsed_and_applied():
    result = run("match", "flip-7", "random", "random", "--option", "target_score=50", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ruleset"]["options"]["target_score"] == 50


@pytest.mark.parametrize("args, message", [
    (["match", "flip-8", "random", "random"], "unknown ruleset 'flip-8'"),
    (["match", "flip-7", "random", "nobody"], "unknown bot 'nobody'"),
    (["match", "flip-7"] + ["random"] * 40, "flip-7 takes 1 to 36 players, not 40"),
    (["match", "flip-7", "random", "random", "--option", "colour=red"], "unknown option 'colour' for flip-7"),
    (["match", "flip-7", "random", "random", "--option", "target_score=lots"], "'target_score' must be an integer"),
    (["match", "flip-7", "random", "random", "--option", "target_score"], "not of the form key=value"),
    (["match", "flip-7", "random", "--param", "ghost.x=1"], "--param 'ghost.x=1' must be BOT.KEY=VALUE"),
    (["match", "flip-7", "random", "--param", "random.x=1"], "bot 'random' does not accept params {'x': 1}"),
])
def test_bad_input_is_one_line_naming_the_problem_with_exit_code_2(args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_bad_input_from_the_real_command_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "arena", "match", "flip-7", "random", "ghost"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown bot 'ghost' (known: ")
    assert "Traceback" not in proc.stderr


def test_match_in_process_isolation_plays_the_same_game_as_inline():
    inline = run("match", "flip-7", "flip7-threshold", "random", "--seed", "5", "--json", "--isolation", "inline")
    isolated = run("match", "flip-7", "flip7-threshold", "random", "--seed", "5", "--json", "--isolation", "process")
    assert inline.exit_code == 0 and isolated.exit_code == 0, isolated.output
    assert json.loads(inline.stdout)["transcript_hash"] == json.loads(isolated.stdout)["transcript_hash"]


def test_time_per_decision_with_inline_bots_is_a_usage_error():
    result = run("match", "flip-7", "random", "random", "--time-per-decision", "0.5", "--isolation", "inline")
    assert result.exit_code == 2 and "needs --isolation sandbox or process" in result.stderr


def test_match_plays_the_same_game_in_a_sandbox_as_inline():
    inline = run("match", "flip-7", "flip7-threshold", "random", "--seed", "5", "--json", "--isolation", "inline")
    sandboxed = run("match", "flip-7", "flip7-threshold", "random", "--seed", "5", "--json")
    assert inline.exit_code == 0 and sandboxed.exit_code == 0, sandboxed.output
    assert json.loads(inline.stdout)["transcript_hash"] == json.loads(sandboxed.stdout)["transcript_hash"]
