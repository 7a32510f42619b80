"""The ladder's pages in headless Chromium (marker `browser`; run with
``pytest -n 0 -m browser tests/test_ladder_browser.py``), on a 390 px phone and a
1,400 px desktop: an author signs up from the first page, uploads a bot, watches it
pass the gate, sees it ranked and opens one of its games in the replay viewer. The
server is the real app under uvicorn on a thread; the worker is ladder_support's
in-process stand-in (the server's checks, no sandboxes), so the gate and games run in
seconds."""

from __future__ import annotations

import threading
import time

import pytest
from ladder_support import inline_result, serve_in_thread
from test_site import WIDTHS, _open, _page_overflow, _wait, browser, sized  # noqa: F401 (fixtures)

from arena.ladder.config import decode_config
from arena.ladder.db import connect, database_url
from arena.ladder.service import Ladder

pytest.importorskip("argon2")
PASSWORD = "correct horse battery"


class StandInWorker(threading.Thread):
    """Leases and returns work until stopped (a worker token of the ladder's admin)."""

    def __init__(self, ladder: Ladder, worker):
        super().__init__(daemon=True)
        self.ladder, self.worker, self.stopping = ladder, worker, threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            lease = self.ladder.lease(self.worker)
            for task in lease["tasks"]:
                self.ladder.complete(self.worker, task["id"], inline_result(task))
            if not lease["tasks"]:
                self.stopping.wait(0.2)


@pytest.fixture
def ladder_url(tmp_path):
    doc = {"ladder": {"name": "browser-ladder", "signup": "open", "deals_per_table": 2, "batch_games": 4}}
    ladder = Ladder(connect(database_url(None, tmp_path)), decode_config(doc, "test.toml"))
    admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
    ladder.submit(admin, "rival", "rival.whl", b"the rival's wheel")
    worker = StandInWorker(ladder, ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}"))
    with serve_in_thread(ladder) as url:
        worker.start()
        try:
            yield url
        finally:
            worker.stopping.set()
            worker.join(timeout=30)


def _fill(driver, **fields) -> None:
    from selenium.webdriver.common.by import By

    for name, value in fields.items():
        driver.find_element(By.ID, name).send_keys(value)
    driver.find_element(By.ID, "submit").click()


def _reload_until(driver, condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition(driver):
        assert time.monotonic() < deadline, driver.current_url
        time.sleep(0.5)
        driver.refresh()


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_browser_author_signs_up_uploads_passes_the_gate_is_ranked_and_opens_a_replay(sized, ladder_url, width,
                                                                                       tmp_path):
    from selenium.webdriver.common.by import By

    driver = sized(width)
    author, bot = f"author-{width}", f"bot-{width}"
    _open(driver, ladder_url + "/")
    assert "How to join" in driver.find_element(By.ID, "join").text and _page_overflow(driver) == []
    driver.find_element(By.LINK_TEXT, "Sign up").click()
    _fill(driver, name=author, password=PASSWORD, again=PASSWORD)
    _wait(driver, lambda d: d.current_url.endswith("/upload"))
    wheel = tmp_path / f"{bot}.whl"
    wheel.write_bytes(f"the wheel of {bot}".encode())
    _fill(driver, bot=bot, file=str(wheel))
    _wait(driver, lambda d: f"/bots/{bot}" in d.current_url)
    _reload_until(driver, lambda d: "passed" in d.find_element(By.CSS_SELECTOR, ".gate-state").text)
    assert "gate passed" in driver.find_element(By.ID, "gate-log").text  # the author reads the gate's log
    assert _page_overflow(driver) == []

    _open(driver, ladder_url + "/standings/flip-7")
    _reload_until(driver, lambda d: bot in d.find_element(By.TAG_NAME, "main").text)
    shown = driver.find_element(By.CSS_SELECTOR, "ol.bot-cards" if width <= 640 else "table.board")
    assert shown.is_displayed() and bot in shown.text and "rival" in shown.text
    assert _page_overflow(driver) == []

    _open(driver, f"{ladder_url}/bots/{bot}")
    _reload_until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "a.replay-link")) > 2)
    game = driver.find_elements(By.CSS_SELECTOR, "a.replay-link")[0]
    number = game.text
    driver.execute_script("arguments[0].scrollIntoView()", game)
    game.click()
    _wait(driver, lambda d: d.find_element(By.ID, "position").text)
    assert f"Game {number}" in driver.find_element(By.ID, "title").text
    assert driver.find_element(By.ID, "message").text == ""  # no error from the viewer
    assert _page_overflow(driver) == []
    driver.save_screenshot(str(tmp_path / f"ladder-replay-{width}.png"))
