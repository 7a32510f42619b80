"""Bad input is a one-line error before anything is written: absurd limits and counts in
tournament files, bad command-line values, malformed replay records, over-long bot names;
and display names are escaped wherever they are published."""

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena import seats
from arena.publish import text_tables
from arena.seats import LIMIT_BOUNDS
from arena.site import SITE_DIR, write_site
from arena.store import Store, store_path
from arena.tournament import BOUNDS, MAX_GAMES, load_tournament
from test_tournament_file import BASE
from test_tournament_support import install_toy, toy_file

ADD = "seed = 1"  # the line of BASE that new [tournament] keys go after

# (key = value added to [tournament] of BASE, or (old, new), and what the error line must say)
FILE_CASES = [
    (("deals = 2", "deals = 9223372036854775807"), "tournament.deals: must be from 1 to 1,000,000"),
    ("memory_mb = 9223372036854775807", "tournament.memory_mb: must be from 64 to 1,048,576 (MiB)"),
    ("memory_mb = 1e27", "tournament.memory_mb: must be an integer"),
    ("time_per_decision = 1e300", "tournament.time_per_decision: must be from 0.001 to 3,600 (seconds), not 1e+300"),
    ("time_per_decision = 1e-300", "tournament.time_per_decision: must be from 0.001"),
    ("time_per_decision = nan", "tournament.time_per_decision: must be a number, not nan"),
    ("time_bank = 1e308", "tournament.time_bank: must be from 0 to 86,400 (seconds), not 1e+308"),
    ("time_bank = inf", "tournament.time_bank: must be from 0 to 86,400"),
    ("time_for_start = 0", "tournament.time_for_start: must be from 0.1 to 3,600 (seconds), not 0"),
    ("time_for_start = 1e27", "tournament.time_for_start: must be from 0.1 to 3,600"),
    ("time_for_end = 1e300", "tournament.time_for_end: must be from 0.1 to 600 (seconds)"),
    ('time_for_end = "5"', "tournament.time_for_end: must be a number"),
    ("workers = 1000000000", "tournament.workers: must be from 0 to 1,024, not 1000000000"),
    ("workers = 1e9", "tournament.workers: must be an integer"),
    ("max_faults = 9223372036854775807", "tournament.max_faults: must be from 0 to 1,000,000"),
    ('format = "sampled"\nmax_games = 9223372036854775807', "tournament.max_games: must be from 1 to 1,000,000,000"),
    ("seed = -5", "tournament.seed: must be from 0"),
    (('use = "toy-cautious"', 'use = "toy-sleepy"\nparams = { delay = 1e29 }'),
     "bots[2].params.delay: 1e+29 is out of range"),
    (("players = 3", "players = 3\noptions = { limit = 1e29 }"), "rulesets[0].options.limit: option 'limit' must be"),
    (("players = 3", 'players = 3\n[[rulesets]]\nuse = "flip-7"\nplayers = 2\noptions = { max_rounds = 9007199254740993 }'),
     "rulesets[1].options.max_rounds: 9007199254740993 is out of range"),
    (('as = "random-2"', 'as = "random\u202e2"'), "bots[1].as: 'random\\u202e2' is not usable as a display name"),
    (('as = "random-2"', 'as = "Random-1"'), "bots[1].as: display name 'Random-1' is used twice (also bots[0] "
                                              "(as 'random-1', the same but for case or whitespace))"),
    (('as = "random-2"', 'as = " random \\u3000-1 "'), "bots[1].as: display name ' random "),
    (('as = "random-2"', 'as = "\uff32\uff21\uff2e\uff24\uff2f\uff2d-1"'), "bots[1].as: display name"),
    (('as = "random-2"', 'as = "random-1"'), "bots[1].as: display name 'random-1' is used twice (also bots[0]); "),
    ("build_quota_mb = 1000000", "tournament.build_quota_mb: must be from 64 to 16,384, not 1000000"),
    ("build_quota_mb = 8", "tournament.build_quota_mb: must be from 64 to 16,384, not 8"),
    ("build_quota_files = 10", "tournament.build_quota_files: must be from 1,000 to 1,000,000, not 10"),
    ("build_quota_files = 1e9", "tournament.build_quota_files: must be an integer"),
    ("build_quota_mb = 64\nbuild_quota_files = 20000", "tournament.build_quota_files: 20,000 files need "
                                                        "build_quota_mb of at least 79 (one file per 4 KiB), not 64"),
]


@pytest.fixture
def toy(plugin_dir, tmp_path, monkeypatch):
    install_toy(plugin_dir)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_line_error(result, *needles):
    """The one error line of a failed command (exit code 2, no traceback, nothing else)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def usage_error(result, option):
    """A click usage error: exit code 2, no traceback, its error line names the option."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert f"Invalid value for '{option}'" in result.stderr.strip().splitlines()[-1], result.stderr


@pytest.mark.parametrize("change, message", FILE_CASES, ids=[c[1][:50] for c in FILE_CASES])
def test_an_absurd_tournament_value_is_one_line_naming_the_key_before_anything_is_written(toy, change, message):
    old, new = change if isinstance(change, tuple) else (ADD, f"{ADD}\n{change}")
    if change == "seed = -5":
        old, new = ADD, change
    assert old in BASE
    path = toy / "bad.toml"
    path.write_text(BASE.replace(old, new, 1))
    line = one_line_error(CliRunner().invoke(main, ["run", str(path)]), f"error: {path}: ", message)
    assert len(line) < 300
    assert not (toy / "results").exists()


def test_a_round_robin_of_more_games_than_a_tournament_may_have_is_refused(toy):
    bots = "".join(f'\n[[bots]]\nuse = "random"\nas = "r{i}"\n' for i in range(40))
    path = toy_file(toy / "big.toml", deals=1_000_000, players=4, bots=bots)
    one_line_error(CliRunner().invoke(main, ["run", str(path)]),
                   "tournament.deals: 1,000,000 deals make 365,560,000,000 games, more than the "
                   f"{MAX_GAMES:,} a tournament may have")
    assert not (toy / "results").exists()


def test_every_limit_and_count_has_a_documented_bound():
    readme = (Path(__file__).resolve().parents[1] / "tournaments" / "README.md").read_text(encoding="utf-8")
    for key, (low, high) in BOUNDS.items():
        row = next((line for line in readme.splitlines() if line.startswith(f"| `{key}` |")), key + " has no row")
        assert f"{high:,}" in row or f"{high:,.0f}" in row, (key, row)
    assert all(BOUNDS[key] == LIMIT_BOUNDS.get(key, BOUNDS[key]) for key in BOUNDS)  # one source of bounds


def test_memory_mb_above_the_machines_memory_is_refused_in_files_and_on_the_command_line(toy, monkeypatch):
    monkeypatch.setattr(seats, "machine_memory_mb", lambda: 2048)
    path = toy / "big.toml"
    path.write_text(BASE.replace(ADD, f"{ADD}\nmemory_mb = 4096", 1))
    one_line_error(CliRunner().invoke(main, ["run", str(path)]),
                   "tournament.memory_mb: 4,096 MiB is more than this machine's memory (2,048 MiB)")
    assert not (toy / "results").exists()
    one_line_error(CliRunner().invoke(main, ["validate", "random", "--memory-mb", "4096"]),
                   "--memory-mb: 4,096 MiB is more than this machine's memory (2,048 MiB)")
    assert seats.limit_problem("memory_mb", 2048) is None


def test_a_build_quota_with_more_files_than_its_size_can_hold_is_refused_on_the_command_line():
    one_line_error(CliRunner().invoke(main, ["validate", "./nowhere", "--build-quota-mb", "64",
                                             "--build-quota-files", "20000"]),
                   "--build-quota-files: 20,000 files need build_quota_mb of at least 79")


def test_the_real_machines_memory_bounds_memory_mb():
    machine = seats.machine_memory_mb()
    assert machine is not None and machine > 0
    if machine + 1 <= LIMIT_BOUNDS["memory_mb"][1]:
        assert "more than this machine's memory" in seats.limit_problem("memory_mb", machine + 1)


# -- the command line ------------------------------------------------------------------


def test_match_save_into_a_missing_folder_is_refused_before_the_game(tmp_path):
    target = tmp_path / "missing" / "game.json"
    result = CliRunner().invoke(main, ["match", "flip-7", "random", "random", "--save", str(target)])
    one_line_error(result, f"--save {target}: folder {target.parent} does not exist")
    assert not target.parent.exists()


@pytest.mark.parametrize("args, message", [
    (["--option", "max_rounds=100000000000000000000000000000"], "--option max_rounds: 100000000000000000000000000000 is out of range"),
    (["--option", "max_rounds=1e29"], "--option max_rounds: 1e+29 is out of range"),
    (["--param", "random.x=1e300"], "--param random x: 1e+300 is out of range"),
])
def test_match_refuses_out_of_range_options_and_params_in_one_line(args, message):
    one_line_error(CliRunner().invoke(main, ["match", "flip-7", "random", "random", *args]), message)


@pytest.mark.parametrize("args, option", [
    (["match", "flip-7", "random", "random", "--seed", "-1"], "--seed"),
    (["match", "flip-7", "random", "random", "--isolation", "process", "--time-per-decision", "1e-300"],
     "--time-per-decision"),
    (["play", "flip-7", "random", "--seed", "-3"], "--seed"),
    (["validate", "random", "--seed", "-1"], "--seed"),
    (["validate", "random", "--time-per-decision", "1e300"], "--time-per-decision"),
    (["validate", "random", "--memory-mb", "9223372036854775807"], "--memory-mb"),
    (["run", "tournaments/quickstart.toml", "--workers", "1000000000"], "--workers"),
])
def test_negative_seeds_and_absurd_command_line_limits_are_usage_errors(args, option):
    usage_error(CliRunner().invoke(main, args), option)


def test_a_300_character_bot_name_is_one_line_and_writes_nothing(tmp_path):
    name = "a" * 300
    result = CliRunner().invoke(main, ["new-bot", name, "--dir", str(tmp_path / "bot")])
    one_line_error(result, "is 300 characters long: use at most 64")
    assert not (tmp_path / "bot").exists()


# -- malformed replay records ------------------------------------------------------------


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("record") / "game.json"
    made = CliRunner().invoke(main, ["match", "flip-7", "random", "random", "--seed", "9", "--save", str(path)])
    assert made.exit_code == 0, made.output
    return json.loads(path.read_text())


def _drop(path):
    def change(record):
        parent = record
        *head, last = path.split(".")
        for key in head:
            parent = parent[key]
        del parent[last]
    return change


def _set(path, value):
    def change(record):
        parent = record
        *head, last = path.split(".")
        for key in head:
            parent = parent[key]
        parent[last] = value
    return change


@pytest.mark.parametrize("change, message", [
    (_drop("decisions"), "decisions: missing"),
    (_drop("players"), "players: missing"),
    (_drop("ruleset.options"), "ruleset.options: missing"),
    (_drop("outcome"), "outcome: missing"),
    (_drop("transcript_hash"), "transcript_hash: missing"),
    (_drop("deal_seed"), "deal_seed: missing"),
    (_set("decisions", [[0, "hit"], [7, "hit"]]), "decisions[1]: must be [seat, action]"),
    (_set("decisions", [["x"]]), "decisions[0]: must be [seat, action]"),
    (_set("players", "two"), "players: must be an integer"),
    (_set("players", 10 ** 12), "players: must be from 1 to 1000"),
    (_set("outcome", {"standing": [1], "scores": [0]}), "outcome.standing: must have one entry per player"),
    (_set("ruleset", "flip-7"), "ruleset: must be an object"),
    (_set("forfeited", [5]), "forfeited: must list seats below 2"),
])
def test_a_malformed_record_is_one_line_naming_the_key(tmp_path, record_file, change, message):
    record = json.loads(json.dumps(record_file))
    change(record)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    one_line_error(CliRunner().invoke(main, ["replay", str(path)]), f"{path}: not a game record: {message}")


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", "[" * 100_000])
def test_a_record_file_that_is_not_a_record_object_is_one_line(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    one_line_error(CliRunner().invoke(main, ["replay", str(path)]), f"{path}: not a game record")


def test_record_options_that_are_not_the_rulesets_are_refused(tmp_path, record_file):
    record = json.loads(json.dumps(record_file))
    record["ruleset"]["options"]["max_rounds"] = "many"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    one_line_error(CliRunner().invoke(main, ["replay", str(path)]), "option 'max_rounds' must be an integer")


# -- display names are escaped where they are published ------------------------------------

EVIL = '<img src=x onerror=alert(1)>|`x`*y*'


def test_display_names_are_escaped_in_standings_md_and_on_the_site(toy):
    bots = (f'\n[[bots]]\nuse = "random"\nas = "{EVIL}"\n\n[[bots]]\nuse = "toy-cautious"\n'
            '\n[[bots]]\nuse = "random"\nas = "plain"\n')
    path = toy_file(toy / "t.toml", deals=1, players=2, bots=bots, extra='isolation = "inline"\n')
    out = toy / "out"
    run_and_publish(load_tournament(path, load_registry()), out, workers=1, echo=lambda line: None, progress=False)
    markdown = (out / "standings.md").read_text()
    assert "<img" not in markdown and "&lt;img src=x onerror=alert(1)&gt;\\|\\`x\\`\\*y\\*" in markdown
    columns = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            columns = None
        elif columns is None:  # a table's header
            columns = line.count("|")
        elif "img" in line:
            assert line.count("|") - line.count("\\|") == columns  # the name did not add a column
    with Store.open(store_path(out)) as store:
        write_site(out, store, replays=0)
    page = (out / SITE_DIR / "index.html").read_text()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    pages = sorted((out / SITE_DIR).rglob("*.html"))
    assert len(pages) > 1 and any("&lt;img src=x" in p.read_text() for p in pages if p.name != "index.html")
    assert not any("<img src=x" in p.read_text() for p in pages)  # the bot pages escape it too


FORMULA = '=HYPERLINK("http://evil.example/", "x")'


def test_display_names_are_escaped_in_csv_files_and_on_the_terminal(toy):
    bots = (f"\n[[bots]]\nuse = \"random\"\nas = '{FORMULA}'\n\n[[bots]]\nuse = \"toy-cautious\"\n"
            '\n[[bots]]\nuse = "random"\nas = "-plain"\n')
    path = toy_file(toy / "t.toml", deals=1, players=2, bots=bots, extra='isolation = "inline"\n')
    out = toy / "out"
    run_and_publish(load_tournament(path, load_registry()), out, workers=1, echo=lambda line: None, progress=False)
    standings = list(csv.DictReader(io.StringIO((out / "standings.csv").read_text())))
    names = {row["bot"] for row in standings}
    assert names == {"'" + FORMULA, "toy-cautious", "'-plain"}  # shown as text by a spreadsheet, never run
    assert all(row["mu"] and not row["mu"].startswith("'") for row in standings)  # numbers stay numbers
    pairs = list(csv.DictReader(io.StringIO((out / "pairwise.csv").read_text())))
    assert pairs and all(not (p["a"] + p["b"]).startswith(("=", "-")) for p in pairs)
    assert {p["a"] for p in pairs} | {p["b"] for p in pairs} <= names
    shown = CliRunner().invoke(main, ["rank", str(out)])
    assert shown.exit_code == 0 and FORMULA in shown.output  # the terminal shows it as written
    doc = json.loads((out / "standings.json").read_text())
    doc["overall"][0]["bot"] = "\x1b]0;owned\x07\x1b[2Jname\u202e"  # a name no file check lets in today
    compact, wide = text_tables(doc, overall_only=True), text_tables(doc, overall_only=True, wide=True)
    assert not any(c in text for text in (compact, wide) for c in "\x1b\x07\u202e")
    assert "\\u001b]0;owned" in compact  # shown, cut to the compact table's width
    assert "\\u001b]0;owned\\u0007\\u001b[2Jname\\u202e" in wide
