"""The static site (arena.site) and `arena serve`: the data the pages are built from
(leaderboards, rating history, head-to-head, faults, replay frames), the files
written, the server; and, marked `browser`, the pages themselves in headless
Chromium (run with ``pytest -m browser tests/test_site.py``)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena.ratings import rate_store
from arena.run_and_publish import run_and_publish
from arena.rules.cards import TwoFacedTable
from arena.site import SITE_DIR, build_context, replay_file_text, write_site
from arena.site.data import choose_replays, head_to_head_matrix, rate_with_history, thin
from arena.site.replay import replay_data
from arena.store import Store, store_path
from arena.tournament import load_tournament
from arena_bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[1]

TOURNAMENT = """
[tournament]
name = "site-test"
seed = 11
deals = 1
isolation = "inline"
workers = 1
""" + "".join(f'\n[[bots]]\nuse = "{use}"\n' + (f'as = "{alias}"\n' if alias else "") for use, alias in [
    ("random", "random-1"), ("random", "random-2"), ("flip7-threshold", None), ("uno-flip-heuristic", None),
    ("color-flush-heuristic", None), ("flip-hue-heuristic", None)]) + "".join(
    f'\n[[rulesets]]\nuse = "{r}"\nplayers = 3\n' for r in ("flip-7", "uno-flip", "color-flush", "flip-hue"))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A tiny finished tournament of the four real rulesets (12 games) with its site."""
    root = tmp_path_factory.mktemp("site")
    path = root / "t.toml"
    path.write_text(TOURNAMENT)
    out = root / "results"
    run_and_publish(load_tournament(path, load_registry()), out, echo=lambda line: None, progress=False)
    with Store.open(store_path(out)) as store:
        write_site(out, store)
    return out


@pytest.fixture
def store(results):
    with Store.open(store_path(results)) as opened:
        yield opened


# -- the data of the standings page ---------------------------------------------


def test_history_pass_gives_exactly_the_standings_of_the_rater(store):
    standings, _ = rate_with_history(store)
    assert standings == rate_store(store, workers=1)


def test_leaderboard_rows_are_sorted_by_conservative_rating_highest_first(store):
    context = build_context(store)
    # random-1 and random-2 alone play every ruleset: the overall table would rank only baselines
    assert [s["label"] for s in context["scopes"]] == ["flip-7", "uno-flip", "color-flush", "flip-hue"]
    for scope in context["scopes"]:
        values = [r["conservative"] for r in scope["rows"]]
        assert values == sorted(values, reverse=True)
        assert [r["rank"] for r in scope["rows"]] == list(range(1, len(values) + 1))


def test_leaderboard_html_lists_bots_in_rating_order_with_error_bars(results, store):
    page = (results / SITE_DIR / "index.html").read_text()
    board = page.split('id="board-flip-7"')[1].split("</table>")[0]
    shown = re.findall(r'<td data-value="([^"]+)"><span class="swatch"', board)
    assert shown == [r["bot"] for r in rate_store(store)["rulesets"]["flip-7"]]
    assert board.count('<svg class="errbar"') == len(shown)


def test_the_leaderboard_opens_with_who_leads_each_ruleset_and_says_why_there_is_no_overall_table(results, store):
    """Issue 36 item 1: one plain line per ruleset (leader, mean paired score and interval
    against the next, verdict, settled or not) before any table; the overall table, which
    would rank only the two random baselines here, is left out with a sentence saying so."""
    page = (results / SITE_DIR / "index.html").read_text()
    standings = rate_store(store)
    leads = page[page.index('id="leads"'):page.index('id="how-to-read"')]
    assert leads.index("Who leads") < page.index('id="board-')
    for label, rows in standings["rulesets"].items():
        pair = standings["pairwise"]["rulesets"][label]["results"][0]
        assert (pair["a"], pair["b"]) == (rows[0]["bot"], rows[1]["bot"])
        bounds = "any" if pair["low"] is None else f"{pair['low']:.2f}-{pair['high']:.2f}"  # adjusted, 1 deal: any
        line = f"{label}: {rows[0]['bot']} leads {rows[1]['bot']}, mean paired score {pair['mean']:.2f} " \
               f"(interval {bounds}, {pair['deals']} deal"
        assert line in leads, label
        assert ("the whole ranking is settled" if standings["pairwise"]["rulesets"][label]["settled"]
                else "the ranking is not settled") in leads
    assert 'id="board-overall"' not in page and 'id="scope-overall"' not in page
    note = page[page.index('id="overall-note"'):].split("</p>")[0]
    assert "No overall ranking" in note and "random-1" in note and "baselines" in note


def test_every_row_shows_its_verdict_and_score_against_the_next_as_text(results, store):
    page = (results / SITE_DIR / "index.html").read_text()
    rows = rate_store(store)["rulesets"]["uno-flip"]
    pair = rate_store(store)["pairwise"]["rulesets"]["uno-flip"]["results"][0]
    board = page.split('id="board-uno-flip"')[1].split("</table>")[0]
    assert f"{pair['mean']:.2f} ({pair['low']:.2f}\u2013{pair['high']:.2f})" in board
    cards = page.split('id="cards-uno-flip"')[1].split("</ol>")[0]
    assert cards.count("<li") == len(rows)
    assert f"vs next: {rows[0]['vs_next']}, score {pair['mean']:.2f}" in cards
    assert f"win rate {rows[0]['win_rate']:.3f} ({rows[0]['win_rate_low']:.3f}" in cards


def test_the_explanations_appear_once_per_page(results):
    page = (results / SITE_DIR / "index.html").read_text()
    assert page.count("How to read these tables") == 1
    assert page.count("Click a column header") + page.count("click a column header") == 1
    assert page.count("Each cell") == 0 and page.count("each cell is the row") == 1


def test_rating_history_is_monotonic_in_game_count_and_ends_at_the_final_rating(store):
    standings, history = rate_with_history(store)
    assert set(history) == {"overall", "flip-7", "uno-flip", "color-flush", "flip-hue"}
    for label, rows in [("overall", standings["overall"]), *standings["rulesets"].items()]:
        for row in rows:
            points = history[label][row["bot"]]
            counts = [p[0] for p in points]
            indices = [p[1] for p in points]
            assert counts == list(range(len(counts)))  # no thinning for so few games
            assert points[0][:2] == [0, -1] and points[0][2] == pytest.approx(25.0)
            assert indices == sorted(indices) and len(set(indices)) == len(indices)
            assert counts[-1] == row["games"]
            assert points[-1][2] == pytest.approx(row["mu"], abs=1e-3)
            assert points[-1][3] == pytest.approx(row["sigma"], abs=1e-3)


def test_thin_keeps_first_and_last_and_at_most_the_limit():
    points = list(range(1000))
    thinned = thin(points, 50)
    assert len(thinned) == 50 and thinned[0] == 0 and thinned[-1] == 999
    assert thinned == sorted(thinned)
    assert thin(points[:10], 50) == points[:10]


def test_head_to_head_matrix_is_in_leaderboard_order_and_matches_the_pairs(store):
    standings = rate_store(store)
    rows = standings["rulesets"]["uno-flip"]
    pairs = standings["head_to_head"]["uno-flip"]
    matrix = head_to_head_matrix(rows, pairs)
    assert matrix["bots"] == [r["bot"] for r in rows]
    n = len(rows)
    for i, a in enumerate(matrix["bots"]):
        assert matrix["cells"][i][i] is None
        for j, b in enumerate(matrix["bots"]):
            if i != j:
                assert matrix["cells"][i][j] == pairs[a][b]
                assert matrix["cells"][i][j] + matrix["cells"][j][i] <= 1 + 1e-9
    assert n == 3


def test_head_to_head_matrix_leaves_pairs_that_never_met_empty():
    rows = [{"bot": "a"}, {"bot": "b"}, {"bot": "c"}]
    matrix = head_to_head_matrix(rows, {"a": {"b": 0.75}, "b": {"a": 0.25}})
    assert matrix["cells"] == [[None, 0.75, None], [0.25, None, None], [None, None, None]]


def test_choose_replays_all_for_small_sample_for_large_deterministic_and_faults_first():
    assert choose_replays(range(12), None) == list(range(12))
    assert choose_replays(range(12), 0) == []
    big = list(range(1000))
    groups = {i: i // 250 for i in big}
    sample = choose_replays(big, None, groups=groups)
    assert len(sample) == 100 and sample == choose_replays(big, None, groups=groups)
    assert [sum(1 for i in sample if groups[i] == g) for g in range(4)] == [25, 25, 25, 25]
    with_faults = choose_replays(big, 20, prefer=[999, 3, 500], groups=groups)
    assert len(with_faults) == 20 and {3, 500, 999} <= set(with_faults)
    assert choose_replays(big, 5000) == big


# -- replay frames ----------------------------------------------------------------


class RecordingBot(RandomBot):
    """A random bot that keeps every observation it receives."""

    name = "recording"
    rulesets = "*"
    seen: list = []

    def act(self, observation):
        RecordingBot.seen.append(json.loads(json.dumps(observation)))
        return super().act(observation)


@pytest.mark.parametrize("ruleset_id", ["flip-7", "uno-flip", "color-flush", "flip-hue"])
@pytest.mark.parametrize("seed", [1, 2])
def test_each_seat_frame_is_exactly_the_observation_its_bot_received(ruleset_id, seed):
    ruleset = load_registry().ruleset(ruleset_id).cls
    RecordingBot.seen = []
    record = play_game(ruleset, [Entrant(RecordingBot)] * 3, deal_seed=seed).record
    data = replay_data(record, ruleset, game=0)
    asked = [f for f in data["frames"] if f["asked"]]
    assert len(asked) == len(RecordingBot.seen) > 0
    for frame, observation in zip(asked, RecordingBot.seen):
        # What the viewer shows as the seat's observation (viewer.js builds it the same way).
        shown = {"ruleset": data["ruleset"]["id"], "version": data["ruleset"]["version"],
                 "options": data["ruleset"]["options"], "seat": frame["seat"], "players": data["players"],
                 "view": frame["obs"]["view"], "events": frame["obs"]["events"],
                 "legal_actions": frame["obs"]["legal_actions"]}
        assert shown == observation
        assert list(shown) == list(observation)
    assert [[f["seat"], f["action"]] for f in data["frames"]] == record["decisions"]
    for frame in data["frames"]:
        assert frame["asked"] == (len(frame["legal"]) > 1)
        assert (frame["obs"] is None) == (not frame["asked"])


@pytest.mark.parametrize("ruleset_id", ["uno-flip", "color-flush", "flip-hue"])
def test_no_face_hidden_from_a_seat_is_in_its_frame_and_the_god_view_shows_every_face(ruleset_id):
    ruleset = load_registry().ruleset(ruleset_id).cls
    record = play_game(ruleset, [Entrant(RandomBot)] * 3, deal_seed=5).record
    data = replay_data(record, ruleset, game=0)
    state = ruleset.new_game(3, record["ruleset"]["options"], random.Random(record["deal_seed"]))
    hidden_checked = 0
    for frame in data["frames"]:
        table: TwoFacedTable = state.table
        seat = frame["seat"]
        if frame["obs"] is not None:
            for holder, hand in enumerate(frame["obs"]["view"]["hands"]):
                assert len(hand) == len(table.hands[holder])
                for position, card in enumerate(table.hands[holder]):
                    toward = table.side[card]
                    for key, side in (("face", toward), ("back", 1 - toward)):
                        if not table.has_seen(seat, card, side):
                            assert hand[position][key] is None
                            hidden_checked += 1
                        else:
                            assert hand[position][key] == table.faces[card][side]
        for holder, hand in enumerate(frame["god"]["view"]["hands"]):
            assert [c["face"] for c in hand] == [table.face(card) for card in table.hands[holder]]
            assert [c["back"] for c in hand] == [table.back(card) for card in table.hands[holder]]
        state.apply(frame["action"])
    assert hidden_checked > 0


def test_a_record_of_another_ruleset_version_gives_an_error_replay_file(store, monkeypatch):
    record = store.record(0)
    record["ruleset"]["version"] = "999"
    monkeypatch.setattr(store, "record", lambda index: record if index == 0 else None)
    text = replay_file_text(store, 0)
    from arena.rules.flip_7 import Flip7
    assert _script_data(text) == {"game": 0, "error": "ReplayMismatchError: record is for flip-7 999, "
                                                      f"not flip-7 {Flip7.version}"}
    assert "not in the results store" in _script_data(replay_file_text(store, 10_000))["error"]


# -- the files --------------------------------------------------------------------


def _script_data(text: str) -> dict:
    prefix, _, body = text.partition("] = ")
    assert prefix.startswith("(window.ARENA_REPLAYS = window.ARENA_REPLAYS || {})[")
    return json.loads(body.rstrip().rstrip(";"))


def test_the_site_has_pages_static_files_and_a_replay_for_every_game_of_a_small_tournament(results, store):
    site = results / SITE_DIR
    for name in ("index.html", "replay.html", "static/site.css", "static/site.js", "static/cards.js",
                 "static/viewer.js", "replays/index.js"):
        assert (site / name).is_file(), name
    assert sorted(int(p.stem) for p in (site / "replays").glob("[0-9]*.js")) == list(range(12))
    data = _script_data((site / "replays" / "4.js").read_text())
    assert data["game"] == 4 and data["ruleset"]["id"] == "uno-flip"
    assert [[f["seat"], f["action"]] for f in data["frames"]] == store.record(4)["decisions"]


def test_the_site_makes_no_external_requests(results):
    for path in (results / SITE_DIR).rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text()
            assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
            assert "@import" not in text and "url(http" not in text, path


def test_replays_option_chooses_a_sample_and_zero_writes_none(tmp_path, results):
    copy = tmp_path / "copy"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns(SITE_DIR))
    with Store.open(store_path(copy)) as store:
        write_site(copy, store, replays=3)
        assert len(list((copy / SITE_DIR / "replays").glob("[0-9]*.js"))) == 3
        write_site(copy, store, replays=0)
        assert list((copy / SITE_DIR / "replays").glob("[0-9]*.js")) == []
    assert "0 of 12 games have a replay here" in (copy / SITE_DIR / "index.html").read_text()


def test_the_faults_table_lists_every_fault(tmp_path, plugin_dir):
    from test_tournament_support import install_toy, toy_file

    install_toy(plugin_dir)
    bots = '\n[[bots]]\nuse = "toy-broken"\n\n[[bots]]\nuse = "toy-cautious"\n\n[[bots]]\nuse = "random"\n'
    path = toy_file(tmp_path / "t.toml", deals=1, bots=bots, extra='isolation = "inline"\non_fault = "random"\n')
    out = tmp_path / "out"
    run_and_publish(load_tournament(path, load_registry()), out, echo=lambda line: None, progress=False)
    with Store.open(store_path(out)) as store:
        faults = list(store.faults())
        write_site(out, store)
    assert faults
    page = (out / SITE_DIR / "index.html").read_text()
    faults_section = page.split('id="faults"')[1].split("</section>")[0]
    assert faults_section.count("<tr>") == len(faults) + 1
    assert "toy-broken always breaks" in faults_section
    assert page.count('<table class="board sortable" id="board-') == 1  # one ruleset: the overall table only
    replay = _script_data(next((out / SITE_DIR / "replays").glob("[0-9]*.js")).read_text())
    assert replay["frames"] and "error" not in replay


# -- arena serve ------------------------------------------------------------------


@pytest.fixture
def server(tmp_path, results):
    from arena.site.server import make_server

    copy = tmp_path / "served"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns(SITE_DIR))
    with Store.open(store_path(copy)) as store:
        write_site(copy, store, replays=1)
    running = make_server(copy, port=0)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{running.server_address[1]}", copy
    running.shutdown()
    running.server_close()


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def test_serve_serves_the_site_and_replays_any_game_on_demand(server):
    base, folder = server
    status, body = _get(base + "/")
    assert status == 200 and b"Standings: site-test" in body
    assert not (folder / SITE_DIR / "replays" / "7.js").exists()
    status, body = _get(base + "/replays/7.js")
    assert status == 200 and _script_data(body.decode())["game"] == 7
    status, body = _get(base + "/standings.json")
    assert status == 200 and json.loads(body)["tournament"]["name"] == "site-test"


def test_served_pages_link_every_game_and_static_ones_only_those_with_a_replay_file(server):
    """Issue 36 item 5: a bot page lists every game; a game without a replay file is a
    link-in-waiting that site.js turns into a link when `arena serve` says it serves the
    page (its /static/served.js), which replays any game on demand."""
    base, folder = server
    assert "ARENA_SERVED = false" in (folder / SITE_DIR / "static" / "served.js").read_text()
    status, body = _get(base + "/static/served.js")
    assert status == 200 and b"window.ARENA_SERVED = true;" in body
    page = next((folder / SITE_DIR / "bots").glob("1-*.html")).read_text()
    games = page.split('id="bot-games"')[1].split("</table>")[0]
    linked = re.findall(r'<a href="\.\./replay\.html\?game=(\d+)#view=\d+">', games)
    waiting = re.findall(r'class="served-link" data-href="\.\./replay\.html\?game=(\d+)#view=\d+">', games)
    with Store.open(store_path(folder)) as store:
        played = [r.index for r in store.iter_rows() if 0 in r.seats]
    assert len(linked) == 1 and sorted(int(g) for g in linked + waiting) == played
    assert '<script src="../static/served.js"></script>' in page


def test_a_bot_page_shows_its_results_against_each_opponent(results, store):
    plan = store.plan()
    names = [e["bot"] for e in plan["entries"]]
    labels = [r["label"] for r in plan["rulesets"]]
    me = names.index("flip7-threshold")
    expected = {}
    for row in store.iter_rows():
        if me in row.seats:
            mine = row.standing[row.seats.index(me)]
            for seat, other in enumerate(row.seats):
                if other != me:
                    cell = expected.setdefault((labels[row.ruleset], names[other]), [0, 0, 0])
                    cell[0 if mine < row.standing[seat] else 1 if mine == row.standing[seat] else 2] += 1
    page = next((results / SITE_DIR / "bots").glob("*-flip7-threshold.html")).read_text()
    table = page.split('id="bot-opponents"')[1].split("</table>")[0]
    rows = re.findall(r'<td data-value="([^"]+)">[^<]*</td><td data-value="([^"]+)">.*?</td>\s*'
                      r'<td data-value="(\d+)" class="num">\d+</td><td data-value="(\d+)" class="num">\d+</td>\s*'
                      r'<td data-value="(\d+)" class="num">\d+</td><td data-value="(\d+)"', table, re.S)
    assert {(r[0], r[1]): [int(r[3]), int(r[4]), int(r[5])] for r in rows} == expected
    assert all(int(r[2]) == int(r[3]) + int(r[4]) + int(r[5]) for r in rows) and rows


def test_serve_never_serves_the_results_store(server):
    base, _ = server
    for path in ("/games.sqlite", "/../games.sqlite", "/%2e%2e/games.sqlite"):
        assert _get(base + path)[0] == 404


def test_serve_command_is_a_click_command_with_a_port_option():
    from arena.cli.web import serve

    result = CliRunner().invoke(serve, ["--help"])
    assert result.exit_code == 0 and "--port" in result.output


def test_serve_of_a_folder_without_a_store_or_standings_is_a_one_line_error(tmp_path):
    from arena.cli.web import serve

    result = CliRunner().invoke(serve, [str(tmp_path)])
    assert result.exit_code == 2 and "no results store" in result.output


@pytest.fixture
def standings_only(tmp_path, results):
    """The published standings of the test tournament without its store (as a fresh clone has them)."""
    folder = tmp_path / "published"
    folder.mkdir()
    for name in ("standings.md", "standings.csv", "standings.json"):
        shutil.copy(results / name, folder / name)
    return folder


def test_serve_of_published_standings_without_a_store_serves_them_and_says_what_is_missing(standings_only):
    from arena.site.server import make_server

    running = make_server(standings_only, port=0)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{running.server_address[1]}"
        assert "no results store" in running.missing and "replays need the store" in running.missing
        status, body = _get(base + "/")
        page = body.decode()
        assert status == 200 and "Standings: site-test" in page and 'id="missing"' in page
        doc = json.loads((standings_only / "standings.json").read_text())
        for row in doc["overall"]:
            assert f'data-value="{row["bot"]}"' in page
        assert "No faults" not in page  # it cannot know: fault details are in the store
        status, body = _get(base + "/replays/3.js")
        assert status == 200 and "no results store" in _script_data(body.decode())["error"]
        assert _get(base + "/standings.csv")[0] == 200
    finally:
        running.shutdown()
        running.server_close()


def test_serve_command_names_what_is_missing_for_published_standings(standings_only, monkeypatch):
    from arena.cli.web import serve
    from arena.site import server

    class Stops:  # make the real server, then stop at once instead of serving forever
        def __init__(self, real):
            self.real = real
            self.missing = real.missing
            self.server_address = real.server_address

        def serve_forever(self):
            raise KeyboardInterrupt

        def server_close(self):
            self.real.server_close()

    real_make = server.make_server
    monkeypatch.setattr(server, "make_server", lambda *a, **k: Stops(real_make(*a, **k)))
    result = CliRunner().invoke(serve, [str(standings_only), "--port", "0"])
    assert result.exit_code == 0, result.output
    assert "note:" in result.output and "no results store" in result.output and "serving" in result.output


# -- in a browser -----------------------------------------------------------------

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("browser tests need selenium: pip install selenium (the `browser` extra)")
    binary = _find("chromium", "chromium-browser", "google-chrome")
    driver_path = _find("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("browser tests need Chromium and its driver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _shot(driver, path: Path) -> Path:
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1400, max(600, min(height + 40, 3000)))
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path


def _wait(driver, condition, timeout: float = 15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: condition(d))


def _board_bots(driver, board: str) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'))"
        ".map(function (r) { return r.cells[1].getAttribute('data-value'); });", board)


@pytest.mark.browser
def test_browser_leaderboard_loads_and_sorts_by_a_clicked_column(browser, results, store, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get((results / SITE_DIR / "index.html").as_uri())
    assert "Standings: site-test" in browser.find_element(By.TAG_NAME, "h1").text
    by_rating = [r["bot"] for r in rate_store(store)["rulesets"]["flip-7"]]
    assert _board_bots(browser, "board-flip-7") == by_rating
    _shot(browser, tmp_path / "leaderboard.png")
    browser.save_screenshot(str(tmp_path / "leaderboard-top.png"))
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS"):  # refresh the README's screenshots on request
        (ROOT / "docs" / "screenshots").mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "leaderboard-top.png", ROOT / "docs" / "screenshots" / "leaderboard.png")
    header = browser.find_element(By.CSS_SELECTOR, '#board-flip-7 th[data-col="bot"]')
    header.click()
    assert _board_bots(browser, "board-flip-7") == sorted(by_rating, key=str.lower)
    header.click()
    assert _board_bots(browser, "board-flip-7") == sorted(by_rating, key=str.lower, reverse=True)
    games = browser.find_element(By.CSS_SELECTOR, '#board-flip-7 th[data-col="games"]')
    games.click()
    counts = [int(v) for v in browser.execute_script(
        "return Array.from(document.querySelectorAll('#board-flip-7 tbody tr')).map(r => r.cells[7].textContent)")]
    assert counts == sorted(counts, reverse=True)
    assert browser.find_elements(By.CSS_SELECTOR, "#scope-flip-7 svg.chart g.series")
    assert browser.find_elements(By.CSS_SELECTOR, "#scope-flip-7 table.heat td")
    _shot(browser, tmp_path / "leaderboard-sorted.png")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _position(driver) -> str:
    return driver.find_element("id", "position").text


@pytest.mark.browser
def test_browser_replay_opens_and_steps_forward_and_back(browser, results, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get((results / SITE_DIR / "index.html").as_uri())
    browser.find_element(By.CSS_SELECTOR, '#replays a[href="replay.html?game=4"]').click()
    _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith("decision 1 of"))
    assert "uno-flip" in browser.find_element(By.ID, "title").text
    assert browser.find_elements(By.CSS_SELECTOR, "#table .card")
    browser.find_element(By.ID, "next").click()
    assert _position(browser).startswith("decision 2 of")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert _position(browser).startswith("decision 4 of")
    browser.find_element(By.ID, "prev").click()
    assert _position(browser).startswith("decision 3 of")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert _position(browser).startswith("decision 2 of")
    browser.find_element(By.ID, "last").click()
    assert _position(browser).startswith("the end")
    assert "game over" in browser.find_element(By.ID, "decision").text
    _shot(browser, tmp_path / "replay-end.png")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _hidden_face_frame(data: dict) -> tuple[int, int, str]:
    """A (decision, seat, face) where the seat's observation does not contain `face`
    anywhere, while the god view shows it in another seat's hand."""
    for frame in data["frames"]:
        obs = frame["obs"]
        if obs is None:
            continue
        seen = json.dumps(obs)
        for holder, hand in enumerate(frame["god"]["view"]["hands"]):
            if holder == frame["seat"]:
                continue
            for card in hand:
                face = card["face"]
                words = face.replace("-", " ")
                if f'"{face}"' not in seen and words not in seen.replace("-", " "):
                    return frame["n"], frame["seat"], face
    raise AssertionError("no hidden face found")


@pytest.mark.browser
def test_browser_seat_view_shows_its_observation_and_not_a_face_hidden_from_it(browser, results, tmp_path):
    from selenium.webdriver.common.by import By

    data = _script_data((results / SITE_DIR / "replays" / "4.js").read_text())
    decision, seat, face = _hidden_face_frame(data)
    label = face.replace("-", " ")
    page = (results / SITE_DIR / "replay.html").as_uri()
    browser.get("about:blank")  # a new document: a change of the #hash alone would not reload the page
    browser.get(f"{page}?game=4#view=god&d={decision + 1}")  # the address numbers decisions from 1
    _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith(f"decision {decision + 1} of"))
    god_text = browser.find_element(By.ID, "stage").text
    assert label in god_text  # the god view shows it: the check below can fail
    browser.find_element(By.CSS_SELECTOR, f'.view-button[data-view="{seat}"]').click()
    assert browser.find_element(By.CSS_SELECTOR, f'.view-button[data-view="{seat}"]').get_attribute(
        "aria-pressed") == "true"
    assert _position(browser).startswith(f"decision {decision + 1} of")
    stage = browser.find_element(By.ID, "stage")
    observation = json.loads(browser.find_element(By.ID, "raw").get_attribute("textContent"))
    observation.pop("options")  # public: UNO Flip's options list the whole deck, every face in it
    text = stage.text + json.dumps(observation)
    assert label not in text and face not in text
    assert browser.find_elements(By.CSS_SELECTOR, "#table .side.unseen")
    assert f"Seat {seat}" in browser.find_element(By.ID, "view-title").text
    raw = json.loads(browser.find_element(By.ID, "raw").get_attribute("textContent"))
    frame = data["frames"][decision]
    assert raw == {"ruleset": "uno-flip", "version": data["ruleset"]["version"], "options": data["ruleset"]["options"],
                   "seat": seat,
                   "players": 3, "view": frame["obs"]["view"], "events": frame["obs"]["events"],
                   "legal_actions": frame["obs"]["legal_actions"]}
    shot = _shot(browser, tmp_path / "replay-seat-view.png")
    god = browser.find_element(By.CSS_SELECTOR, '.view-button[data-view="god"]')
    god.click()
    _shot(browser, tmp_path / "replay-god-view.png")
    docs = ROOT / "docs" / "screenshots"
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS"):  # refresh the README's screenshots on request
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, docs / "replay-seat-view.png")
        shutil.copy(tmp_path / "replay-god-view.png", docs / "replay-god-view.png")


@pytest.mark.browser
def test_browser_serve_shows_a_game_without_a_replay_file(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    base, folder = server
    assert not (folder / SITE_DIR / "replays" / "9.js").exists()
    browser.get(base + "/replay.html?game=9")
    _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith("decision 1 of"))
    assert "flip-hue" in browser.find_element(By.ID, "title").text
    browser.get((folder / SITE_DIR / "replay.html").as_uri() + "?game=9")
    _wait(browser, lambda d: "no replay file" in d.find_element(By.ID, "message").text.lower())
    _shot(browser, tmp_path / "replay-missing.png")


def test_a_store_without_games_yet_gives_a_site_without_replays(tmp_path, results):
    import sqlite3

    copy = tmp_path / "empty"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns(SITE_DIR))
    with sqlite3.connect(store_path(copy)) as db:
        db.execute("DELETE FROM games")
    with Store.open(store_path(copy)) as store:
        site = write_site(copy, store)
    page = (site / "index.html").read_text()
    assert "0 of 12 games" in page and "0 of 0 games have a replay here" in page
    assert list((site / "replays").glob("[0-9]*.js")) == []


# -- the site on a phone and on a desktop (issue 21 item 7) ------------------------

WIDTHS = (390, 1400)


@pytest.fixture
def sized(browser):
    """The browser as a device `width` px wide (a phone below 800: touch, mobile viewport)."""
    def size(width: int):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 844 if width < 800 else 1000, "deviceScaleFactor": 1, "mobile": width < 800})
        return browser

    yield size
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _open(driver, url: str) -> None:
    driver.get("about:blank")  # a new document even when only the #hash differs
    driver.get(url)
    _wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def _page_overflow(driver) -> list[str]:
    """Elements reaching past the right edge outside a scroll box (what would scroll the page sideways)."""
    return driver.execute_script(
        "var w = document.documentElement.clientWidth, out = [];"
        "if (document.documentElement.scrollWidth > w) out.push('page ' + document.documentElement.scrollWidth);"
        "document.querySelectorAll('body *').forEach(function (e) { var r = e.getBoundingClientRect();"
        "  if (r.width && r.right > w + 1 && !e.closest('.scroll-box')) out.push(e.tagName + '.' + e.className); });"
        "return out.slice(0, 10);")


def _flip7_game(results) -> int:
    for path in sorted((results / SITE_DIR / "replays").glob("[0-9]*.js")):
        data = _script_data(path.read_text())
        if data.get("ruleset", {}).get("id") == "flip-7":
            return data["game"]
    raise AssertionError("no flip-7 replay")


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_no_page_scrolls_sideways_and_tables_keep_their_own_scroll_box(sized, results, width, tmp_path):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    site = results / SITE_DIR
    game = _flip7_game(results)
    pages = [site / "index.html", f"{(site / 'replay.html').as_uri()}?game={game}#view=god&d=5",
             f"{(site / 'replay.html').as_uri()}?game={game}#view=1&d=end",
             next((site / "bots").glob("*.html"))]
    for page in pages:
        _open(driver, page if isinstance(page, str) else page.as_uri())
        if "replay.html" in str(page):
            _wait(driver, lambda d: d.find_element(By.ID, "position").text)
        assert _page_overflow(driver) == [], (width, page)
        for table in driver.find_elements(By.CSS_SELECTOR, "table.board, table.heat"):
            assert driver.execute_script("return !!arguments[0].closest('.scroll-box')", table), page
    _open(driver, (site / "index.html").as_uri())
    board = driver.find_element(By.ID, "board-flip-7")
    cards = driver.find_element(By.ID, "cards-flip-7")
    assert board.is_displayed() == (width > 640) and cards.is_displayed() == (width <= 640)
    if width >= 1400:  # a desktop shows whole leaderboards, without scrolling their boxes
        boxes = driver.execute_script("return Array.from(document.querySelectorAll('.scroll-box'))"
                                      ".filter(function (b) { return b.querySelector('table[id^=board-]'); })"
                                      ".map(function (b) { return b.scrollWidth - b.clientWidth; })")
        assert boxes and max(boxes) <= 0
    driver.save_screenshot(str(tmp_path / f"index-{width}.png"))


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_leaderboard_headers_explain_their_columns(sized, results, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    _open(driver, (results / SITE_DIR / "index.html").as_uri())
    titles = {th.get_attribute("data-col"): th.get_attribute("title")
              for th in driver.find_elements(By.CSS_SELECTOR, "#board-flip-7 th")}
    assert "mu - 3 sigma" in titles["conservative"] and "sorted" in titles["conservative"]
    assert "skill" in titles["mu"] and "uncertain" in titles["sigma"]
    assert "lower is better" in titles["avg_position"]
    assert all("click to sort" in t for t in titles.values())


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_each_bot_has_a_page_with_its_games_losses_faults_and_logs(sized, results, store, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    _open(driver, (results / SITE_DIR / "index.html").as_uri())
    shown = "#board-flip-7" if width > 640 else "#cards-flip-7"  # a phone shows cards, a desktop the table
    link = driver.find_element(By.CSS_SELECTOR, f'{shown} a[href^="bots/"]')
    name = link.text
    driver.execute_script("arguments[0].click()", link)
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "h1").text == f"Bot: {name}")
    entry = [e["bot"] for e in store.plan()["entries"]].index(name)
    played = [(r.index, r.seats.index(entry)) for r in store.iter_rows() if entry in r.seats]
    rows = driver.find_elements(By.CSS_SELECTOR, "#bot-games tbody tr")
    assert [int(r.find_element(By.TAG_NAME, "td").text) for r in rows] == [g for g, _ in played]
    first = rows[0].find_element(By.TAG_NAME, "a").get_attribute("href")
    assert first.endswith(f"replay.html?game={played[0][0]}#view={played[0][1]}")
    for section in ("standings", "games", "losses", "faults", "logs"):
        assert driver.find_element(By.ID, section).is_displayed()
    assert _page_overflow(driver) == []


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_replays_can_be_filtered_by_bot(sized, results, width):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = sized(width)
    _open(driver, (results / SITE_DIR / "index.html").as_uri())
    rows = driver.find_elements(By.CSS_SELECTOR, "#replay-table tbody tr")
    Select(driver.find_element(By.ID, "replay-bot")).select_by_value("flip-hue-heuristic")
    shown = [r for r in rows if r.is_displayed()]
    assert 0 < len(shown) < len(rows)
    assert all("flip-hue-heuristic" in r.text for r in shown)
    assert not any("flip-hue-heuristic" in r.text for r in rows if not r.is_displayed())
    assert driver.find_element(By.ID, "replay-count").text == f"{len(shown)} of {len(rows)} games"
    _open(driver, (results / SITE_DIR / "index.html").as_uri() + "?bot=flip-hue-heuristic")
    assert len([r for r in driver.find_elements(By.CSS_SELECTOR, "#replay-table tbody tr") if r.is_displayed()]) \
        == len(shown)


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_autoplay_steps_on_its_own_and_pauses(sized, results, width):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = sized(width)
    _open(driver, (results / SITE_DIR / "replay.html").as_uri() + "?game=3")
    _wait(driver, lambda d: d.find_element(By.ID, "position").text.startswith("decision 1 of"))
    Select(driver.find_element(By.ID, "speed")).select_by_value("200")
    driver.find_element(By.ID, "play").click()
    assert driver.find_element(By.ID, "play").get_attribute("aria-pressed") == "true"
    def number(d):
        match = re.match(r"decision (\d+) of", d.find_element(By.ID, "position").text)
        return int(match.group(1)) if match else 0

    _wait(driver, lambda d: number(d) >= 4, timeout=10)
    driver.find_element(By.ID, "play").click()
    paused = driver.find_element(By.ID, "position").text
    import time

    time.sleep(0.7)
    assert driver.find_element(By.ID, "position").text == paused
    assert driver.find_element(By.ID, "play").get_attribute("aria-pressed") == "false"


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_flip7_unseen_and_set_aside_are_drawn_as_cards(sized, results, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    game = _flip7_game(results)
    data = _script_data((results / SITE_DIR / "replays" / f"{game}.js").read_text())
    frame = next(f for f in data["frames"] if f["god"]["view"]["set_aside"]) \
        if any(f["god"]["view"]["set_aside"] for f in data["frames"]) else data["frames"][-1]
    _open(driver, (results / SITE_DIR / "replay.html").as_uri() + f"?game={game}#view=god&d={frame['n'] + 1}")
    _wait(driver, lambda d: d.find_element(By.ID, "position").text.startswith(f"decision {frame['n'] + 1} of"))
    for key in ("unseen", "set_aside"):
        counts = frame["god"]["view"][key]
        block = driver.find_element(By.CSS_SELECTOR, f"#table .block-{key}")
        cards = block.find_elements(By.CSS_SELECTOR, ".card.f7")
        assert len(cards) == len(counts)
        assert [c.find_element(By.CLASS_NAME, "count").text for c in cards] == [f"×{n}" for n in counts.values()]
        assert "{" not in block.text and f"{sum(counts.values())} card" in block.text


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_every_page_has_a_favicon_that_loads(sized, results, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    site = results / SITE_DIR
    for page in (site / "index.html", site / "replay.html", next((site / "bots").glob("*.html"))):
        _open(driver, page.as_uri())
        icon = driver.find_element(By.CSS_SELECTOR, 'link[rel="icon"]').get_attribute("href")
        loaded = driver.execute_async_script(
            "var done = arguments[1], img = new Image();"
            "img.onload = function () { done(img.naturalWidth > 0); }; img.onerror = function () { done(false); };"
            "img.src = arguments[0];", icon)
        assert loaded, (page, icon)


# -- the phone layout of issue 36 (item 2) and the viewer's labels (item 5) ----------


def _replay_of(results, ruleset_id: str) -> dict:
    for path in sorted((results / SITE_DIR / "replays").glob("[0-9]*.js")):
        data = _script_data(path.read_text())
        if data.get("ruleset", {}).get("id") == ruleset_id:
            return data
    raise AssertionError(f"no {ruleset_id} replay")


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_chart_text_is_at_least_11_px_and_a_card_per_bot_shows_rating_win_rate_and_verdict(
        sized, results, store, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    _open(driver, (results / SITE_DIR / "index.html").as_uri())
    sizes = driver.execute_script("return Array.from(document.querySelectorAll('svg.chart text'))"
                                  ".map(function (t) { return t.getBoundingClientRect().height; })")
    assert sizes and min(sizes) >= 11, (width, min(sizes))
    assert _page_overflow(driver) == []
    assert driver.find_element(By.ID, "leads").is_displayed()
    if width <= 640:
        rows = rate_store(store)["rulesets"]["flip-7"]
        cards = driver.find_elements(By.CSS_SELECTOR, "#cards-flip-7 li.bot-card")
        assert [c.find_element(By.TAG_NAME, "a").text for c in cards] == [r["bot"] for r in rows]
        first = cards[0].text
        assert f"rating {rows[0]['conservative']:.2f}" in first and f"({rows[0]['win_rate_low']:.3f}" in first
        assert f"vs next: {rows[0]['vs_next']}" in first


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_the_step_buttons_what_it_chose_and_the_events_share_the_first_screen(sized, results, width):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    data = _replay_of(results, "flip-7")
    decision = next(f["n"] for f in data["frames"] if f["asked"])
    _open(driver, (results / SITE_DIR / "replay.html").as_uri() + f"?game={data['game']}#view=god&d={decision + 1}")
    _wait(driver, lambda d: d.find_element(By.ID, "position").text.startswith(f"decision {decision + 1} of"))
    height = driver.execute_script("return window.innerHeight")
    boxes = {name: driver.execute_script("var b = document.getElementById(arguments[0]).getBoundingClientRect();"
                                         "return [b.top, b.bottom];", name) for name in ("next", "decision", "events")}
    assert all(0 <= top and bottom <= height for top, bottom in boxes.values()), (width, boxes)
    assert "chose" in driver.find_element(By.ID, "decision").text
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")  # the step buttons stay on screen
    top, bottom = driver.execute_script("var b = document.getElementById('next').getBoundingClientRect();"
                                        "return [b.top, b.bottom];")
    assert 0 <= top and bottom <= height
    assert _page_overflow(driver) == []


@pytest.mark.browser
def test_browser_the_viewer_labels_legal_actions_in_words_as_the_terminal_does(browser, results):
    from selenium.webdriver.common.by import By

    data = _replay_of(results, "color-flush")
    frame = next(f for f in data["frames"] if f["asked"] and len(f["legal"]) > 3)
    _open(browser, (results / SITE_DIR / "replay.html").as_uri() + f"?game={data['game']}#view=god&d={frame['n'] + 1}")
    _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith(f"decision {frame['n'] + 1} of"))
    items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#legal li")]
    assert items == [f"{text} ({raw})" if text != raw else raw for text, raw in zip(frame["legal_text"], frame["legal"])]
    assert any(text != raw for text, raw in zip(frame["legal_text"], frame["legal"]))


@pytest.mark.browser
def test_browser_nobody_is_to_act_at_game_over(browser, results):
    from selenium.webdriver.common.by import By

    for ruleset_id in ("flip-hue", "uno-flip", "color-flush", "flip-7"):
        data = _replay_of(results, ruleset_id)
        _open(browser, (results / SITE_DIR / "replay.html").as_uri() + f"?game={data['game']}#view=god&d=end")
        _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith("the end"))
        assert not browser.find_elements(By.CSS_SELECTOR, "#table .seat-row.to-act"), ruleset_id
        assert "to act" not in browser.find_element(By.ID, "table").text, ruleset_id


@pytest.mark.browser
def test_browser_a_served_bot_page_links_every_game_and_a_static_one_only_those_with_a_replay(browser, server):
    from selenium.webdriver.common.by import By

    base, folder = server
    page = next((folder / SITE_DIR / "bots").glob("1-*.html"))
    with Store.open(store_path(folder)) as store:
        played = [r.index for r in store.iter_rows() if 0 in r.seats]
    links = {}
    for where, url in (("served", f"{base}/bots/{page.name}"), ("static", page.as_uri())):
        _open(browser, url)
        links[where] = [int(a.text) for a in browser.find_elements(By.CSS_SELECTOR, "#bot-games tbody td:first-child a")]
    assert links["served"] == played and len(links["static"]) <= 1 < len(played)
    _open(browser, f"{base}/bots/{page.name}")
    browser.find_element(By.CSS_SELECTOR, f'#bot-games a[href^="../replay.html?game={played[-1]}#"]').click()
    _wait(browser, lambda d: d.find_element(By.ID, "position").text.startswith("decision"))
