"""Bad tournament files: one error line naming the key by its path, exit code 2, and
nothing run (no results folder made)."""

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plugins import load_registry
from arena.tournament import parse_tournament
from test_tournament_support import install_toy

BASE = """\
[tournament]
name = "bad"
seed = 1
deals = 2

[[bots]]
use = "random"
as = "random-1"

[[bots]]
use = "random"
as = "random-2"

[[bots]]
use = "toy-cautious"

[[rulesets]]
use = "toy-race"
players = 3
"""

# (replace this, with this, the error line must contain this)
CASES = [
    ('name = "bad"', 'name = "bad"\n[extra]\nx = 1\n[tournament2]', "extra: unknown key"),
    ("seed = 1", "seed = 1\ncolour = 1", "tournament.colour: unknown key"),
    ('as = "random-2"', 'as = "random-2"\nspeed = 2', "bots[1].speed: unknown key"),
    ("players = 3", "players = 3\nflavour = 1", "rulesets[0].flavour: unknown key"),
    ('[tournament]\nname = "bad"\nseed = 1\ndeals = 2\n', "", "tournament: missing"),
    ('name = "bad"\n', "", "tournament.name: missing"),
    ('use = "random"\nas = "random-1"', 'as = "random-1"', "bots[0].use: missing"),
    ("players = 3", "", "rulesets[0].players: missing"),
    ('[[rulesets]]\nuse = "toy-race"\nplayers = 3', "", "rulesets: missing"),
    ('use = "toy-cautious"', 'use = "nobody"', "bots[2].use: unknown bot 'nobody'"),
    ('use = "toy-race"', 'use = "toy-golf"', "rulesets[0].use: unknown ruleset 'toy-golf'"),
    ("seed = 1", "seed = -1", "tournament.seed: must be from 0"),
    ("seed = 1", 'seed = "one"', "tournament.seed: must be an integer"),
    ("deals = 2", "deals = 0", "tournament.deals: must be from 1 to 1,000,000, not 0"),
    ("deals = 2", "deals = 2.5", "tournament.deals: must be an integer"),
    ("seed = 1", 'seed = 1\nformat = "swiss"', "tournament.format: must be one of"),
    ("seed = 1", "seed = 1\nworkers = -1", "tournament.workers: must be from 0 to 1,024, not -1"),
    ("seed = 1", "seed = 1\ntime_per_decision = 0", "tournament.time_per_decision: must be from 0.001 to 3,600 (seconds), not 0"),
    ("seed = 1", 'seed = 1\non_fault = "ignore"', 'tournament.on_fault: must be "forfeit" or "random"'),
    ("seed = 1", "seed = 1\nmemory_mb = 10", "tournament.memory_mb: must be from 64 to 1,048,576 (MiB), not 10"),
    ("seed = 1", "seed = 1\nmax_faults = -2", "tournament.max_faults: must be from 0 to 1,000,000, not -2"),
    ("seed = 1", "seed = 1\ntime_bank = -1", "tournament.time_bank: must be from 0 to 86,400 (seconds), not -1"),
    ('use = "random"\nas = "random-1"', 'command = "./bot"\nas = "random-1"', "bots[0].command: must be a non-empty list"),
    ('use = "random"\nas = "random-1"', 'command = ["sh"]', 'bots[0].as: missing: a "command" entry'),
    ('use = "random"\nas = "random-1"', 'command = ["./no-such-bot"]\nas = "x"', "bots[0].command: './no-such-bot' is not an executable file"),
    ('use = "random"\nas = "random-1"', 'command = ["no-such-program-xyz"]\nas = "x"', "bots[0].command: 'no-such-program-xyz' is not a program on PATH"),
    ('use = "random"\nas = "random-1"', 'use = "random"\ncommand = ["sh"]\nas = "x"', 'bots[0].command: give either'),
    ("seed = 1", 'seed = 1\nisolation = "docker"', "tournament.isolation: must be"),
    ("seed = 1", 'seed = 1\nformat = "sampled"', "tournament.max_games: missing"),
    ("seed = 1", "seed = 1\nmax_games = 10", 'tournament.max_games: only used with format = "sampled"'),
    ("seed = 1", 'seed = 1\nformat = "sampled"\nmax_games = 5', "tournament.max_games: 5 games are too few"),
    ('name = "bad"', 'name = "../bad"', "tournament.name: '../bad' is not a usable name"),
    ("players = 3", "players = 4", "rulesets[0].players: a table of 4 needs 4 entries that play toy-race; "
                                   "this file has 3"),
    ("players = 3", "players = 1", "rulesets[0].players: a table of 1 is not a tournament table"),
    ("players = 3", "players = 7", "rulesets[0].players: toy-race takes 1 to 6 players, not 7"),
    ("players = 3", "players = 3\noptions = { colour = 1 }", "rulesets[0].options.colour: unknown option"),
    ("players = 3", "players = 3\noptions = { limit = 99 }", "rulesets[0].options.limit: option 'limit' must be at most"),
    ("players = 3", 'players = 3\noptions = { limit = "x" }', "rulesets[0].options.limit: option 'limit' must be"),
    ("players = 3", "players = 3\ndraw_probability = 1.5", "rulesets[0].draw_probability: must be at least 0"),
    ('use = "toy-cautious"', 'use = "toy-cautious"\nparams = { threshold = -3 }',
     "bots[2].params: bot 'toy-cautious' does not accept"),
    ('use = "toy-cautious"', 'use = "toy-cautious"\nparams = { speed = 3 }',
     "bots[2].params: bot 'toy-cautious' does not accept"),
    ('use = "toy-cautious"', 'use = "toy-cautious"\nparams = { when = 1979-05-27 }',
     "bots[2].params.when: datetime.date(1979, 5, 27) is not a JSON value"),
    ('as = "random-2"', 'as = "random-1"', "bots[1].as: display name 'random-1' is used twice (also bots[0])"),
    ('use = "random"\nas = "random-2"', 'use = "toy-cautious"', "bots[2].use: display name 'toy-cautious' is used"),
    ('use = "toy-cautious"', 'use = "toy-cautious"\nrulesets = ["flip-9"]',
     "bots[2].rulesets[0]: 'flip-9' is not a ruleset of this tournament"),
    ("players = 3", 'players = 3\n[[rulesets]]\nuse = "toy-race"\nplayers = 2',
     "rulesets[1].use: 'toy-race' is entered twice (also rulesets[0])"),
    (None, "bots = 3\n" + BASE[:BASE.index("[[bots]]")] + BASE[BASE.index("[[rulesets]]"):],
     "bots: must be an array of tables"),
    ("deals = 2", "deals = = 2", "not valid TOML"),
]


@pytest.fixture
def toy(plugin_dir, tmp_path, monkeypatch):
    install_toy(plugin_dir)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_base_file_is_good(toy):
    t = parse_tournament(BASE, load_registry())
    assert [b.display for b in t.bots] == ["random-1", "random-2", "toy-cautious"]
    assert t.rulesets[0].options == {"limit": 21} and t.rulesets[0].draw_probability == 0.1


@pytest.mark.parametrize("old, new, message", CASES, ids=[c[2][:48] for c in CASES])
def test_a_bad_file_is_one_line_naming_the_key_with_exit_code_2_before_anything_runs(toy, old, new, message):
    assert old is None or old in BASE
    path = toy / "bad.toml"
    path.write_text(new if old is None else BASE.replace(old, new, 1))
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {path}: ") and message in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert not (toy / "results").exists()


def test_a_missing_file_is_a_one_line_error(toy):
    result = CliRunner().invoke(main, ["run", "nowhere.toml"])
    assert result.exit_code == 2 and "nowhere.toml: cannot read it" in result.stderr


STOP_CASES = [
    ('seed = 1', 'seed = 1\nformat = "gauntlet"', "tournament.challengers: missing"),
    ('seed = 1', 'seed = 1\nchallengers = ["random-1"]', 'tournament.challengers: only used with format = "gauntlet"'),
    ('seed = 1', 'seed = 1\nformat = "gauntlet"\nchallengers = ["nobody"]',
     "tournament.challengers[0]: 'nobody' is not a bot of this tournament"),
    ('seed = 1', 'seed = 1\nformat = "gauntlet"\nchallengers = ["random-1", "random-2", "toy-cautious"]',
     "tournament.challengers: every bot is a challenger"),
    ('deals = 2', 'stop = "settled"', None),
    ('deals = 2', 'stop = "settled"\ndeals = 2', "tournament.deals: not used with stop"),
    ('deals = 2', 'deals = 2\nmargin = 0.1', "tournament.margin: only used with stop"),
    ('deals = 2', 'stop = "soon"', 'tournament.stop: must be "settled" or a table'),
    ('deals = 2', 'stop = "settled"\nconfidence = 1.5', "tournament.confidence: must be at least 0.5 and below 1"),
    ('deals = 2', 'stop = "settled"\nmax_deals = 0', "tournament.max_deals: must be from 1 to 1,000,000, not 0"),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1" }', "tournament.stop.baseline: missing"),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1", baseline = "x" }',
     "tournament.stop.baseline: 'x' is not a bot of this tournament"),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1", baseline = "random-2", alpha = 0.7 }',
     "tournament.stop.alpha: must be above 0 and below 0.5"),
    ('deals = 2', 'stop = { test = "t", bot = "random-1", baseline = "random-2" }', 'tournament.stop.test: must be "sprt"'),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1", baseline = "random-2", power = 1 }',
     "tournament.stop.power: unknown key"),
]


@pytest.mark.parametrize("old, new, message", STOP_CASES)
def test_gauntlet_and_stop_keys_are_checked_with_one_line_naming_the_key(plugin_dir, old, new, message):
    install_toy(plugin_dir)
    text = BASE.replace(old, new, 1)
    if message is None:
        assert parse_tournament(text, load_registry()).stop.kind == "settled"
        return
    with pytest.raises(Exception) as caught:
        parse_tournament(text, load_registry())
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_relative_command_keeps_a_virtualenv_python_link_so_the_bot_gets_the_virtualenv(plugin_dir, tmp_path):
    """`command = ["../venv/bin/python", ...]`: the program is made absolute from the
    tournament file's folder without following the link, since a virtualenv's python is
    a link to the base interpreter that finds its virtualenv (pyvenv.cfg, packages) only
    when started by the link's own path. Following it started the base interpreter,
    which lacks the virtualenv's packages, and every game of the bot crashed."""
    import os
    import subprocess
    import sys

    install_toy(plugin_dir)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    real = os.path.realpath(sys.executable)
    (venv / "bin" / "python").symlink_to(real)
    (venv / "pyvenv.cfg").write_text(f"home = {os.path.dirname(real)}\ninclude-system-site-packages = false\n")
    folder = tmp_path / "tournaments"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    text = BASE.replace('use = "toy-cautious"', 'command = ["../venv/bin/python", "bot.py"]\nas = "venv-bot"') \
        .replace("seed = 1", 'seed = 1\nisolation = "process"')
    command = parse_tournament(text, load_registry(), str(folder / "t.toml")).bots[2].command
    assert command == (str(venv / "bin" / "python"), str(folder / "bot.py"))
    prefix = subprocess.run([command[0], "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert os.path.samefile(prefix, venv)


# -- submissions: built after the whole file is parsed ------------------------------------


class _Builder:
    """Stands for `arena.submissions.Builder`: records what it was asked to build and
    answers a submission registering one bot, `name`, that plays every ruleset."""

    def __init__(self, name="built-bot"):
        self.name, self.built = name, []

    def resolve(self, source, tournament_name, wheelhouse=None, use=None, params=None, quota=None):
        from arena.submissions import Submission, SubmittedBot

        self.built.append(source.name)
        bot = SubmittedBot(self.name, "*", "built-package", "1.0")
        return Submission(str(source), "0" * 64, str(source), (bot,), self.name)


SUBMITTED = BASE.replace('use = "random"\nas = "random-1"', 'submission = "bot-folder"', 1)


@pytest.mark.parametrize("old, new, message", [
    ('use = "toy-cautious"', 'use = "nobody"', "bots[2].use: unknown bot 'nobody'"),
    ('players = 3', 'players = 3\noptions = { colour = 1 }', "rulesets[0].options.colour: unknown option"),
    ('deals = 2', 'deals = 2\nformat = "gauntlet"\nchallengers = ["nobody"]',
     "tournament.challengers[0]: 'nobody' is not a bot of this tournament"),
    ('as = "random-2"', 'as = "random-2"\nrulesets = ["golf"]', "bots[1].rulesets[0]: 'golf' is not a ruleset"),
])
def test_a_problem_anywhere_in_the_file_is_found_before_any_submission_is_built(plugin_dir, old, new, message):
    install_toy(plugin_dir)
    builder = _Builder()
    # challengers are bot names, and a submission's name is known once it is built
    expected_builds = ["bot-folder"] if message.startswith("tournament.challengers") else []
    with pytest.raises(Exception) as caught:
        parse_tournament(SUBMITTED.replace(old, new, 1), load_registry(), submissions=builder)
    assert message in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    assert builder.built == expected_builds


@pytest.mark.parametrize("keys, message", [
    ('rulesets = ["x"]', "bots[0].rulesets[0]: 'x' is not a ruleset of this tournament"),
    ('as = "random-2"', "bots[1].as: display name 'random-2' is used twice (also bots[0])"),
    ('as = " "', "bots[0].as: ' ' is not usable as a display name"),
])
def test_a_submissions_own_problems_before_its_build_are_found_without_building(plugin_dir, keys, message):
    install_toy(plugin_dir)
    builder = _Builder()
    with pytest.raises(Exception) as caught:
        parse_tournament(SUBMITTED.replace('submission = "bot-folder"', f'submission = "bot-folder"\n{keys}'),
                         load_registry(), submissions=builder)
    assert message in str(caught.value), str(caught.value)
    assert builder.built == []


def test_a_built_submissions_display_name_clashing_with_a_later_entry_blames_the_later_entry(plugin_dir):
    """The submission's name is known only once built, after every entry is parsed; the
    message is the one file order gives: the later entry is the one named twice."""
    install_toy(plugin_dir)
    text = SUBMITTED.replace('as = "random-2"', 'as = "Built-Bot"', 1)
    with pytest.raises(Exception) as caught:
        parse_tournament(text, load_registry(), submissions=_Builder())
    assert str(caught.value) == ("<tournament>: bots[1].as: display name 'Built-Bot' is used twice (also bots[0] "
                                 "(as 'built-bot', the same but for case or whitespace)); give each entry its own \"as\"")


def test_a_built_submission_is_an_entry_like_any_other(plugin_dir):
    install_toy(plugin_dir)
    builder = _Builder()
    tournament = parse_tournament(SUBMITTED, load_registry(), submissions=builder)
    entry = tournament.bots[0]
    assert builder.built == ["bot-folder"]
    assert (entry.display, entry.uses, entry.package, entry.version) == \
        ("built-bot", "built-bot", "built-package", "1.0+sha256.000000000000")
    assert entry.submission is not None and tournament.rulesets[0].entries == (0, 1, 2)


# -- the file's shape (arena.tournament_file) ------------------------------------------


def _readme_keys(heading):
    """The keys of one table of tournaments/README.md's reference (its `| `key` |` rows)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "tournaments" / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"### `{heading}`", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M)


@pytest.mark.parametrize("heading, struct", [("[tournament]", "TournamentSection"), ("[[bots]]", "BotEntry"),
                                             ("[[rulesets]]", "RulesetEntry")])
def test_every_key_the_readme_documents_is_a_key_of_the_schema_and_no_other(heading, struct):
    import msgspec

    from arena import tournament_file

    keys = [f.encode_name for f in msgspec.structs.fields(getattr(tournament_file, struct))]
    assert sorted(_readme_keys(heading)) == sorted(keys)


SHAPE_CASES = [
    # a key with a message of its own answers for a bad item of its list too
    ('use = "random"\nas = "random-1"', 'command = ["", "x"]\nas = "x"',
     "bots[0].command: must be a non-empty list of strings, not ['', 'x']"),
    ('use = "toy-cautious"', 'use = "toy-cautious"\nrulesets = [3]',
     "bots[2].rulesets: must be a non-empty list of ruleset labels, not [3]"),
    ('seed = 1', 'seed = 1\nformat = "gauntlet"\nchallengers = []',
     "tournament.challengers: must be a non-empty list of bot names"),
    # an unknown key lists the keys of its own table, by the names the file uses
    ('as = "random-2"', 'as = "random-2"\nas_ = "x"',
     "bots[1].as_: unknown key (known here: use, command, submission, as, params, rulesets)"),
    ("players = 3", 'players = "3"', "rulesets[0].players: must be an integer, not '3'"),
    ("players = 3", "players = 3\ndraw_probability = nan", "rulesets[0].draw_probability: must be a number, not nan"),
    ("players = 3", "players = 3\noptions = 3", "rulesets[0].options: must be a table, not 3"),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1", baseline = "random-2", beta = nan }',
     "tournament.stop.beta: must be a number, not nan"),
    ('deals = 2', 'stop = { test = "sprt", bot = "random-1", baseline = "random-2", margin = "x" }',
     "tournament.stop.margin: must be a number, not 'x'"),
    ('deals = 2', 'stop = 3', 'tournament.stop: must be "settled" or a table'),
    ('name = "bad"', 'name = "bad"\nwheelhouse = 3', "tournament.wheelhouse: must be a string, not 3"),
    ('seed = 1', 'seed = true', "tournament.seed: must be an integer, not True"),
    ('[[rulesets]]\nuse = "toy-race"\nplayers = 3', "rulesets = []", "rulesets: empty"),
    ('[[rulesets]]\nuse = "toy-race"\nplayers = 3', '[rulesets]\nuse = "toy-race"',
     "rulesets: must be an array of tables ([[rulesets]] ...)"),
]


@pytest.mark.parametrize("old, new, message", SHAPE_CASES, ids=[c[2][:48] for c in SHAPE_CASES])
def test_a_value_of_the_wrong_shape_is_one_line_naming_its_key(plugin_dir, old, new, message):
    install_toy(plugin_dir)
    assert old in BASE
    text = BASE.replace(old, new, 1)
    if new.startswith("rulesets = "):  # a top-level key goes before the first table
        text = new + "\n" + BASE.replace(old, "", 1)
    with pytest.raises(Exception) as caught:
        parse_tournament(text, load_registry())
    assert message in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_an_unset_key_takes_the_default_of_limits_and_the_schema():
    from arena.seats import Limits
    from arena.tournament_file import TournamentSection, decode_file

    file = decode_file({"tournament": {"name": "x"}, "bots": [{"use": "random"}],
                        "rulesets": [{"use": "flip-7", "players": 2}]})
    assert isinstance(file.tournament, TournamentSection)
    for key in ("time_per_decision", "time_bank", "memory_mb", "time_for_start", "time_for_end", "cpu_per_game",
                "max_processes", "tmp_mb"):
        assert getattr(file.tournament, key) == getattr(Limits, key), key
    assert (file.tournament.format, file.tournament.isolation, file.tournament.on_fault) == \
        ("round-robin", "sandbox", "forfeit")
    assert file.bots[0].params == {} and file.rulesets[0].options == {}
