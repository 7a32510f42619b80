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


# -- output that fits and says what it means (issue 36) ---------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
PUBLISHED = sorted((ROOT / "results").glob("*/standings.json"))


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.parent.name)
def test_rank_tables_fit_100_columns_by_default_and_wide_shows_every_column(path):
    from arena.publish import text_tables

    doc = json.loads(path.read_text())
    compact = text_tables(doc)
    assert max(len(line) for line in compact.splitlines()) <= 100
    assert compact.splitlines()[0].startswith(next(iter(doc["rulesets"])) + ":") or \
        compact.splitlines()[0].startswith("overall:")  # who leads, first
    assert "arena rank --wide" in compact and "avg position" not in compact
    wide = text_tables(doc, wide=True)
    assert "avg position" in wide and "uses" in wide and max(len(line) for line in wide.splitlines()) > 100


def test_the_quickstart_overall_table_of_two_random_bots_is_left_out_with_the_reason():
    from arena.publish import markdown, overall_shown, text_tables

    doc = json.loads((ROOT / "results" / "quickstart" / "standings.json").read_text())
    assert {r["uses"] for r in doc["overall"]} == {"random"} and not overall_shown(doc)
    md = markdown(doc)
    overall = md[md.index("## Overall"):md.index("## flip-7")]
    assert "No overall ranking" in overall and "baselines" in overall and "|" not in overall
    assert md.index("- flip-7: flip7-threshold leads flip7-threshold-23") < md.index("- tournament file")
    assert "overall: No overall ranking" in text_tables(doc)


def test_the_reference_overall_table_of_ismcts_and_random_is_kept_and_says_why_it_holds_only_them():
    from arena.publish import overall_note, overall_shown, verdict_lines

    doc = json.loads((ROOT / "results" / "reference" / "standings.json").read_text())
    assert overall_shown(doc)
    assert "Only the bots entered in every ruleset (ismcts, random) are ranked here" in overall_note(doc)
    assert verdict_lines(doc)[0].startswith("overall: ismcts leads random, mean paired score ")
    assert len(verdict_lines(doc)) == 1 + len(doc["rulesets"])


@pytest.mark.parametrize("decision, said", [
    ("accept H1", "SPRT decided v2 is better than v1 (H1 accepted)"),
    ("accept H0", "SPRT decided v2 is not better than v1 (H0 accepted)"),
    ("continue", "SPRT undecided at max_deals (v2 against v1 reached neither bound)")])
def test_an_sprt_stop_says_what_it_decided_or_that_it_stopped_undecided(decision, said):
    from arena.publish import stop_text

    comparison = {"stop": {"looks": 15, "deals": 60, "stopped": True, "reason": "max_deals", "test": "sprt",
                           "decision": decision, "bot": "v2", "baseline": "v1"}}
    assert stop_text(comparison) == f"stopped after 60 deals: {said}"
    assert "SPRT continue" not in stop_text(comparison)


def test_two_plugins_shipping_the_same_module_are_one_line_naming_both_distributions_and_the_module(plugin_dir):
    from conftest import write_plugin

    source = ('import arena\n\nclass EchoFirst(arena.Bot):\n    name = "echo-first"\n    rulesets = "*"\n\n'
              '    def act(self, observation):\n        return observation["legal_actions"][0]\n\n'
              '@arena.hookimpl\ndef register_bots(register):\n    register(EchoFirst)\n')
    write_plugin(plugin_dir, "my-bot", "my_bot", source)
    write_plugin(plugin_dir, "my-bot-copy", "my_bot", source)
    result = run("bots", "list")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: arena plugins: my-bot and my-bot-copy both provide the module 'my_bot'; "
                        "only my-bot's is loaded (rename one package's module)"]
    assert "pluggy" not in result.output and "<module" not in result.output


def test_arena_run_ends_by_naming_every_bot_that_faulted_with_counts_kinds_and_the_faults_command(
        plugin_dir, tmp_path, monkeypatch):
    from test_tournament_support import install_toy, toy_file

    install_toy(plugin_dir)
    bots = '\n[[bots]]\nuse = "toy-broken"\n\n[[bots]]\nuse = "toy-cautious"\n\n[[bots]]\nuse = "random"\n'
    path = toy_file(tmp_path / "t.toml", deals=2, players=3, bots=bots, extra='isolation = "inline"\n')
    monkeypatch.chdir(tmp_path)
    result = run("run", str(path), "--workers", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = lines.index("Faults (a faulting bot forfeits the game, unless the file's on_fault says otherwise):")
    broken = [line for line in lines[start:] if line.startswith("  toy-broken: ")]
    assert len(broken) == 1 and " in 6 of its 6 games (" in broken[0] and "error" in broken[0], lines[start:]
    assert max(len(line) for line in lines) <= 100
    assert not [line for line in lines[start:] if line.startswith(("  toy-cautious", "  random"))]
    assert lines[-1].startswith("See each one: arena faults results/")


def test_a_question_mark_at_the_table_is_short_and_leaves_out_the_rulings_and_two_show_the_whole_page():
    from arena.plugins import load_registry
    from arena.reference import ruleset_doc
    from arena.terminal import rules_summary

    cls = load_registry().ruleset("flip-7").cls
    short, full = rules_summary("flip-7"), rules_summary("flip-7", full=True)
    assert "the ruling, amended" not in "\n".join(short) and "the ruling, amended" in " ".join(full)
    assert short[2:-1] == cls.how_to_play().strip("\n").splitlines() and len(short) < len(full) / 2
    assert "?? for the whole rules page" in short[1]
    doc = ruleset_doc(cls)
    assert full[2:-1] == __import__("inspect").cleandoc(doc).splitlines()


def test_a_question_mark_without_a_how_to_play_shows_the_pages_opening_and_play_sections_in_short(monkeypatch):
    from arena.plugins import load_registry
    from arena.terminal import rules_summary

    cls = load_registry().ruleset("flip-7").cls
    monkeypatch.setattr(cls, "how_to_play", classmethod(lambda c: None))
    short, full = rules_summary("flip-7"), rules_summary("flip-7", full=True)
    assert "the ruling, amended" not in "\n".join(short)
    assert "Action cards" in short and len(short) < len(full) / 2
    assert "?? for the whole page" in short[1]


def test_a_question_mark_shows_the_rulesets_how_to_play_where_it_has_one(monkeypatch):
    from arena.plugins import load_registry
    from arena.terminal import rules_summary

    cls = load_registry().ruleset("flip-7").cls
    monkeypatch.setattr(cls, "how_to_play", classmethod(lambda c: "Hit or stay.\nDo not bust."), raising=False)
    assert rules_summary("flip-7")[2:-1] == ["Hit or stay.", "Do not bust."]
    assert "how to play flip-7" in rules_summary("flip-7")[1]


def test_arena_play_opens_with_the_ruleset_and_its_version_in_words_and_a_player_count_in_the_singular():
    result = run("play", "flip-7", "--seed", "3", "--color", "never")  # solo: 1 player
    first = result.output.splitlines()[0]
    assert "(ruleset flip-7, version " in first and "1 player;" in first and "1 players" not in result.output
    assert "?? for the whole rules page" in result.output


def test_a_gauntlets_challengers_are_marked_in_every_table(plugin_dir, tmp_path, monkeypatch):
    from test_tournament_support import install_toy, toy_file

    install_toy(plugin_dir)
    bots = ('\n[[bots]]\nuse = "random"\nas = "random-1"\n\n[[bots]]\nuse = "toy-cautious"\nas = "cautious-15"\n'
            '\n[[bots]]\nuse = "random"\nas = "random-2"\n')
    path = toy_file(tmp_path / "t.toml", deals=2, players=2, bots=bots,
                    extra='isolation = "inline"\nformat = "gauntlet"\nchallengers = ["cautious-15"]\n')
    monkeypatch.chdir(tmp_path)
    result = run("run", str(path), "--workers", "1")
    assert result.exit_code == 0, result.output
    out = tmp_path / "results" / "toy"
    assert " cautious-15 * " in result.stdout and "random-1 *" not in result.stdout
    assert "*: a challenger of the gauntlet" in result.stdout
    assert json.loads((out / "standings.json").read_text())["tournament"]["challengers"] == ["cautious-15"]
    md = (out / "standings.md").read_text()
    assert "| cautious-15 (challenger) " in md and "random-1 (challenger)" not in md
    page = (out / "site" / "index.html").read_text()
    assert page.count('<span class="tag challenger"') >= 2  # its table row and its phone card
    ranked = run("rank", str(out))
    assert " cautious-15 * " in ranked.stdout and max(len(line) for line in ranked.stdout.splitlines()) <= 100


def test_validate_of_a_path_that_does_not_exist_is_a_usage_error_with_exit_code_2(tmp_path):
    result = run("validate", str(tmp_path / "missing"))
    assert result.exit_code == 2, result.output
    assert result.output.strip().startswith("error: ") and "no such file or folder" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_validate_counts_faults_by_kind_in_words():
    from arena.validate import RulesetRun, _play_check

    fault = {"kind": "error", "game": 0, "rerun": False, "deal_seed": 1, "players": 1, "seat": 0, "detail": "boom"}
    detail = _play_check(RulesetRun("flip-7", games=13, decisions=13, faults=[fault] * 13)).detail
    assert detail.startswith("13 error faults (game 0, deal seed 1, 1 player, seat 0)")


def test_the_readme_timings_script_writes_only_between_its_markers(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_timings", ROOT / "benchmarks" / "readme_timings.py")
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    readme = tmp_path / "README.md"
    readme.write_text("Quick: <!-- readme-timings:quickstart -->old<!-- /readme-timings -->.\n"
                      "Tests: <!-- readme-timings:tests -->old<!-- /readme-timings -->.\n")
    monkeypatch.setattr(timings, "README", readme)
    figures = {"cores": 2, "load_before": "0.5/0.4/0.3", "load_after": "1.0/0.6/0.4", "commit": "abc1234",
               "date": "2026-12-02", "quickstart_s": 13.4, "quickstart_install_s": 20.2}
    assert timings.update_readme(timings.sentences(figures)) == ["quickstart"]
    text = readme.read_text()
    assert "<!-- readme-timings:quickstart -->13 s for the run on 2 cores, load 0.5/0.4/0.3 before" in text
    assert "at abc1234 on 2026-12-02<!-- /readme-timings -->." in text
    assert "Tests: <!-- readme-timings:tests -->old<!-- /readme-timings -->." in text  # not measured: kept
    assert "<!-- readme-timings:quickstart -->" in (ROOT / "README.md").read_text()
    assert "<!-- readme-timings:tests -->" in (ROOT / "README.md").read_text()
