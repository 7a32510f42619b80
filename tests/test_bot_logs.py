"""What people are shown of a game's faults and bot logs (issue 21 items 1-2): decisions
numbered from 1 in `arena faults`, `arena replay` and the viewer's data; faults and
replacement actions marked; fault details whole; the bots' stderr in `arena faults
--logs`, `arena replay --logs` and the replay data, with its cap stated."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.decisions import LOG_CAP, decision_notes, shown_number, silenced_from
from arena.store import Store, store_path
from conftest import write_plugin
from test_tournament_support import install_toy, run, toy_file

LONG = "chatty gives up here, with a reason long enough that a 60-character cut would hide its end: THE END"

LOGGING_BOTS = f'''
import os
import sys

import arena


class Chatty(arena.Bot):
    """Takes; says so on stderr; raises at its second decision (a fault its host survives)."""

    name = "log-chatty"
    rulesets = ("toy-race",)

    def start(self, info):
        self.n = 0

    def act(self, observation):
        self.n += 1
        print(f"chatty thinks {{self.n}}", file=sys.stderr, flush=True)
        if self.n == 2:
            raise RuntimeError({LONG!r})
        return "take"


class Crasher(arena.Bot):
    """At its first decision, writes a last word to stderr and exits (its host is gone)."""

    name = "log-crasher"
    rulesets = ("toy-race",)

    def start(self, info):
        self.n = 0

    def act(self, observation):
        self.n += 1
        if self.n == 1:
            print("crasher leaves now", file=sys.stderr, flush=True)
            os._exit(3)
        return "take"


@arena.hookimpl
def register_bots(register):
    register(Chatty)
    register(Crasher)
'''

BOTS = '\n[[bots]]\nuse = "log-chatty"\n\n[[bots]]\nuse = "log-crasher"\n\n[[bots]]\nuse = "toy-cautious"\n'
RULESETS = '\n[[rulesets]]\nuse = "toy-race"\nplayers = 3\noptions = { limit = 60 }\n'


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A 6-game tournament under process isolation where two bots write to stderr and fault."""
    root = tmp_path_factory.mktemp("logs")
    plugins = root / "site"
    plugins.mkdir()
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.syspath_prepend(str(plugins))
    install_toy(plugins)
    write_plugin(plugins, "log-bots", "log_bots_plugin", LOGGING_BOTS)
    path = toy_file(root / "t.toml", deals=2, bots=BOTS, rulesets=RULESETS,
                    extra='isolation = "process"\non_fault = "random"\ntime_per_decision = 5\n')
    out = root / "out"
    run(path, out, workers=1)
    with Store.open(store_path(out)) as store:
        records = {i: store.record(i) for i in range(store.count())}
    yield out, records
    monkeypatch.undo()


def test_stored_records_keep_each_seats_stderr(logged):
    _, records = logged
    for record in records.values():
        seats = {s["bot"]: i for i, s in enumerate(record["seats"])}
        assert "chatty thinks 1" in record["logs"][str(seats["log-chatty"])]
        assert "crasher leaves now" in record["logs"][str(seats["log-crasher"])]


def test_faults_lists_decisions_from_1_with_whole_details_and_logs(logged):
    out, records = logged
    listed = CliRunner().invoke(main, ["faults", str(out), "--json", "--logs"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    for row in rows:
        fault = next(f for f in records[row["game"]]["faults"] if f["seat"] == row["seat"])
        assert row["decision"] == fault["decision"] and row["decision_number"] == fault["decision"] + 1
        assert ("chatty thinks 2" if row["bot"] == "log-chatty" else "crasher leaves now") in row["log"]
    assert {r["bot"] for r in rows} == {"log-chatty", "log-crasher"}

    table = CliRunner().invoke(main, ["faults", str(out), "--logs"])
    assert table.exit_code == 0, table.output
    text = table.stdout
    assert "THE END" in text  # not cut at 60 characters (wrapped)
    assert f"first {LOG_CAP:,} bytes per bot per game" in text
    assert "chatty thinks 2" in text and "crasher leaves now" in text
    game = rows[0]["game"]
    line = next(l for l in text.splitlines() if l.split()[:1] == [str(game)] and rows[0]["bot"] in l)
    assert f" {rows[0]['decision_number']} " in line
    assert "chatty thinks" not in CliRunner().invoke(main, ["faults", str(out)]).stdout


def test_replay_marks_the_fault_and_the_replacement_actions_and_prints_logs(logged):
    out, records = logged
    def later(record, crash):
        return [i for i, (seat, _) in enumerate(record["decisions"]) if seat == crash["seat"] and i > crash["decision"]]

    game, record, crash = next((g, r, f) for g, r in records.items() for f in r["faults"]
                               if f["kind"] == "crash" and later(r, f))  # its replacement was not "stop"
    result = CliRunner().invoke(main, ["replay", str(out), str(game), "--logs", "--color", "never"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    number = crash["decision"] + 1
    at = lines.index(next(l for l in lines if l.startswith(f"{number}. seat {crash['seat']} ")))
    assert lines[at + 1].startswith(f"   ! crash fault by seat {crash['seat']}")
    assert f"was not asked again after its fault at decision {number}" in " ".join(result.stdout.split())
    assert "crasher leaves now" in result.stdout and f"{LOG_CAP:,} bytes" in result.stdout
    assert "--- seat" in result.stdout

    quiet = CliRunner().invoke(main, ["replay", str(out), str(game), "--color", "never"])
    assert "crasher leaves now" not in quiet.stdout and "crash fault by" in quiet.stdout


def test_replay_of_one_seat_prints_that_seats_log_only(logged):
    out, records = logged
    game, record = next(iter(records.items()))
    chatty = next(i for i, s in enumerate(record["seats"]) if s["bot"] == "log-chatty")
    result = CliRunner().invoke(main, ["replay", str(out), str(game), "--seat", str(chatty), "--logs",
                                       "--color", "never"])
    assert result.exit_code == 0, result.output
    assert "chatty thinks 1" in result.stdout and "crasher leaves now" not in result.stdout
    assert "played:" in result.stdout  # its faulted decision: the replacement was played, not chosen


def test_replay_data_for_the_viewer_carries_logs_and_notes(logged):
    from arena.plugins import load_registry
    from arena.site.replay import replay_data

    _, records = logged
    record = records[0]
    data = replay_data(record, load_registry().rulesets["toy-race"].cls, 0)
    assert {entry["seat"] for entry in data["logs"]} == {int(k) for k in record["logs"]}
    assert "bytes per bot per game" in data["log_note"]
    for fault in record["faults"]:
        if fault["decision"] is not None:
            frame = data["frames"][fault["decision"]]
            assert frame["fault"] == fault and frame["note"].startswith(f"{fault['kind']} fault by seat {fault['seat']}")
            assert fault["detail"] in frame["note"]


def test_decision_notes_mark_silenced_seats_from_their_fatal_fault_and_forfeits():
    record = {"seats": [{"bot": "a"}, {"bot": "b"}], "forfeited": [1],
              "decisions": [[0, "x"], [1, "x"], [0, "x"], [1, "x"], [0, "x"], [1, "x"]],
              "faults": [{"seat": 0, "decision": 0, "kind": "timeout", "detail": "slow"},
                         {"seat": 1, "decision": 3, "kind": "illegal", "detail": "bad"}]}
    assert silenced_from(record) == {0: 0, 1: 3}
    notes = decision_notes(record, forced={4})
    assert notes[0].startswith("timeout fault by seat 0 (a): slow")
    assert "forfeits the game" in notes[3]
    assert notes[2] == "replacement action: seat 0 (a) was not asked again after its fault at decision 1"
    assert 4 not in notes and 1 not in notes  # forced; before its fault
    assert notes[5] == "replacement action: seat 1 (b) forfeited after its fault at decision 4"
    assert shown_number(0) == 1 and shown_number(None) is None


# -- in a browser: the site's fault links, the viewer's fault marks and logs ---------

from test_site import browser, sized  # noqa: E402,F401 (fixtures)


@pytest.fixture(scope="module")
def logged_site(logged):
    from arena.site import write_site

    out, records = logged
    with Store.open(store_path(out)) as store:
        write_site(out, store)
    return out, records


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1400])
def test_browser_a_fault_link_opens_the_replay_at_the_fault_marked_with_the_logs_beside(sized, logged_site, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    out, records = logged_site
    driver.get("about:blank")
    driver.get((out / "site" / "index.html").as_uri())
    link = driver.find_element(By.CSS_SELECTOR, "#faults a.fault-at")
    row = link.find_element(By.XPATH, "./ancestor::tr")
    game, number = int(row.find_element(By.TAG_NAME, "td").text), int(link.text)
    fault = next(f for f in records[game]["faults"] if f["decision"] == number - 1)
    driver.execute_script("arguments[0].click()", link)
    position = lambda d: d.find_element(By.ID, "position").text  # noqa: E731
    from test_site import _wait

    _wait(driver, lambda d: position(d).startswith(f"decision {number} of"))
    assert "at-fault" in driver.find_element(By.ID, "position").get_attribute("class")
    note = driver.find_element(By.CSS_SELECTOR, "#decision .fault").text
    assert note.startswith(f"{fault['kind']} fault by seat {fault['seat']}") and fault["detail"] in note
    buttons = driver.find_elements(By.CSS_SELECTOR, "#fault-links .fault-link")
    assert len(buttons) == len([f for f in records[game]["faults"] if f["decision"] is not None])
    driver.find_element(By.ID, "logs-title").click()
    logs = driver.find_element(By.ID, "logs").text
    assert "chatty thinks 1" in logs and "bytes per bot per game" in logs
    assert driver.execute_script("return document.documentElement.scrollWidth") <= \
        driver.execute_script("return document.documentElement.clientWidth")
