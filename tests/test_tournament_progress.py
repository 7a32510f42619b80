"""Live progress of `arena run` (issue 19 item 7): every --report-every N games, and as
plain lines whenever the output is not a terminal, a line with each ruleset's leaders."""

import re

from click.testing import CliRunner

from arena.cli import main
from test_tournament_support import run, toy, toy_file  # noqa: F401 (toy: a fixture)


def progress_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("[")]


def test_report_every_prints_the_leaders_of_each_ruleset_as_plain_lines(toy):
    path = toy_file(toy / "t.toml", deals=2, players=3, extra='isolation = "inline"\n')  # 24 games
    echoed = []
    run(path, toy / "r", workers=1, batch_size=4, report_every=10, echo=echoed.append)
    lines = progress_lines("\n".join(echoed))
    counts = [int(re.match(r"\[(\d+)/24 games\]", line).group(1)) for line in lines]
    assert counts == [12, 20], lines  # the first batch boundaries at or past 10 and 20 games
    leaders = lines[-1].split("] ", 1)[1]
    label = "toy-race, table-mates beaten: "
    assert leaders.startswith(label) and leaders[len(label):].count(",") == 2  # the three best of four
    shares = [int(part.rsplit(" ", 1)[1].rstrip("%")) for part in leaders[len(label):].split(", ")]
    assert shares == sorted(shares, reverse=True) and all(0 <= s <= 100 for s in shares)


def test_progress_lines_fit_100_columns_with_many_rulesets_and_long_names():
    from types import SimpleNamespace

    from arena.run_and_publish import ProgressReport

    long = "a-bot-whose-display-name-is-much-longer-than-any-terminal-would-like-" * 2
    tournament = SimpleNamespace(rulesets=[SimpleNamespace(label=f"ruleset-{i}") for i in range(4)],
                                 bots=[SimpleNamespace(display=name) for name in (long, "b", "c", "d")])
    report = ProgressReport(tournament, 4800, 1, lambda line: None)
    for ruleset in range(4):
        report.add_rows([SimpleNamespace(ruleset=ruleset, seats=[0, 1, 2], standing=[1, 2, 3])] * 3)
    lines = report.line().splitlines()
    assert len(lines) == 4 and all(len(line) <= 100 for line in lines), lines
    assert all(", table-mates beaten: a-bot-whose" in line and line.endswith("%") for line in lines)


def test_arena_run_off_a_terminal_prints_plain_progress_lines_and_no_bar(toy):
    path = toy_file(toy / "t.toml", deals=10, players=3, extra='isolation = "inline"\n')  # 120 games
    result = CliRunner().invoke(main, ["run", str(path), "--workers", "1", "--report-every", "1"])
    assert result.exit_code == 0, result.output
    assert len(progress_lines(result.stderr)) >= 2  # one per stored batch here
    assert "\r" not in result.stderr and "game/s" not in result.stderr  # no tqdm bar off a terminal


def test_run_tournament_plays_and_rates_but_publishes_nothing_and_tells_its_observer(toy):
    """Issue 18 item 4: the runner only plays; progress reaches the caller through its
    observer, and publishing is the composition's (arena.run_and_publish)."""
    from arena.plugins import load_registry
    from arena.runner import RunObserver, run_tournament
    from arena.tournament import load_tournament

    class Recorder(RunObserver):
        def __init__(self):
            super().__init__(lambda line: None)
            self.events = []

        def opened(self, store, created, summary):
            self.events.append(("opened", created))

        def play_started(self, store, total, stored_before, will_play):
            self.events.append(("play_started", total, stored_before, will_play))

        def stored(self, games):
            self.events.append(("stored", len(games)))

        def play_ended(self):
            self.events.append(("play_ended",))

        def completed(self, store, summary):
            self.events.append(("completed", summary.standings is not None))

    path = toy_file(toy / "t.toml", deals=2, players=3, extra='isolation = "inline"\n')  # 24 games
    recorder = Recorder()
    summary = run_tournament(load_tournament(path, load_registry()), toy / "r", workers=1, batch_size=5,
                             observer=recorder)
    assert summary.complete and summary.played == 24 and summary.standings is not None
    assert not (toy / "r" / "standings.json").exists() and not (toy / "r" / "site").exists()
    kinds = [event[0] for event in recorder.events]
    assert recorder.events[:2] == [("opened", "created"), ("play_started", 24, 0, True)]
    assert kinds[-2:] == ["play_ended", "completed"] and recorder.events[-1] == ("completed", True)
    assert sum(event[1] for event in recorder.events if event[0] == "stored") == 24
