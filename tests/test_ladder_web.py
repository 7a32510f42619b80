"""The ladder's web pages and the JSON API added with them (arena.ladder.pages, websafety,
views, admin; docs/ladder.md): CSRF refusal, escaping of hostile text, rate limits,
security headers, what only an author sees, the admin's switches, tokens shown once,
uploads refused by size before they are read, and the schema step that indexes games by
seat. Starlette's TestClient, the in-process stand-in worker of ladder_support; the
browser walk-through is tests/test_ladder_browser.py."""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from ladder_support import fresh_database, inline_result

from arena.ladder.config import decode_config
from arena.ladder.db import MIGRATIONS, _web_v2, connect, database_url, game_seats
from arena.ladder.service import Ladder
from arena.ladder.websafety import Limits, RateLimit

pytest.importorskip("starlette")
pytest.importorskip("argon2")

PASSWORD = "correct horse battery"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def make_ladder(url: str, name: str = "weekly", **ladder_keys) -> Ladder:
    doc = {"ladder": {"name": name, "signup": "open", "deals_per_table": 1, "batch_games": 4, "scheduler": "round-robin",
                      **ladder_keys},
           "quotas": {"uploads_per_day": 5, "upload_bytes": 4096, "bots_per_author": 3}}
    return Ladder(connect(url), decode_config(doc, "test.toml"))


class Site:
    """A ladder, its app in a TestClient per person, an admin and a worker."""

    def __init__(self, ladder: Ladder, limits: Limits | None = None):
        from starlette.testclient import TestClient

        from arena.ladder.api import make_app

        self.ladder = ladder
        self.app = make_app(ladder, limits)
        self.client = lambda: TestClient(self.app, follow_redirects=False)
        self.admin_token = ladder.create_admin("boss")
        self.admin = ladder.caller(f"Bearer {self.admin_token}")
        self.worker = ladder.caller(f"Bearer {ladder.issue_token(self.admin, 'worker')}")

    def drain(self, result=inline_result) -> None:
        for _ in range(100):
            lease = self.ladder.lease(self.worker)
            if not lease["tasks"]:
                return
            for task in lease["tasks"]:
                self.ladder.complete(self.worker, task["id"], result(task))
        raise AssertionError("the ladder never ran out of work")


def csrf_of(client, path: str = "/signin") -> str:
    page = client.get(path)
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def sign_up(site: Site, name: str):
    client = site.client()
    answer = client.post("/signup", data={"csrf": csrf_of(client, "/signup"), "name": name, "password": PASSWORD,
                                          "again": PASSWORD})
    assert answer.status_code == 303, answer.text
    return client


def sign_in_admin(site: Site):
    from arena.ladder import accounts

    with site.ladder.engine.begin() as conn:
        accounts.set_password(conn, site.admin.person, PASSWORD)
    client = site.client()
    answer = client.post("/signin", data={"csrf": csrf_of(client), "name": "boss", "password": PASSWORD})
    assert answer.headers["location"] == "/admin"
    return client


def upload(client, bot: str, content: bytes = b"a wheel", filename: str | None = None):
    return client.post("/upload", data={"csrf": csrf_of(client, "/upload"), "bot": bot},
                       files={"file": (filename or f"{bot}.whl", content)})


@pytest.fixture
def site(tmp_path):
    return Site(make_ladder(database_url(None, tmp_path)))


# -- sessions, CSRF, rate limits, headers ----------------------------------------------------


def test_forms_without_the_sessions_csrf_token_are_refused(site):
    client = site.client()
    csrf_of(client)  # the session now has a token; the forms below do not send it
    for path, form in [("/signin", {"name": "boss", "password": PASSWORD}),
                       ("/signup", {"name": "eve", "password": PASSWORD, "again": PASSWORD}),
                       ("/signin", {"name": "boss", "password": PASSWORD, "csrf": "forged"})]:
        answer = client.post(path, data=form)
        assert answer.status_code == 403 and "security token" in answer.text
    other = site.client()  # a token from another session does not pass either
    answer = other.post("/signup", data={"csrf": csrf_of(client, "/signup"), "name": "eve", "password": PASSWORD,
                                         "again": PASSWORD})
    assert answer.status_code == 403
    with site.ladder.engine.connect() as conn:
        assert conn.execute(sa.text("select count(*) from people where name = 'eve'")).scalar() == 0


def test_signing_in_needs_the_right_password_and_a_reset_ends_the_session(site):
    author = sign_up(site, "ann")
    assert author.get("/upload").status_code == 200
    stranger = site.client()
    wrong = stranger.post("/signin", data={"csrf": csrf_of(stranger), "name": "ann", "password": "not it at all"})
    assert wrong.status_code == 401 and "wrong" in wrong.text
    assert stranger.get("/upload").status_code == 401  # the sign-in page, not the form
    admin = sign_in_admin(site)
    reset = admin.post("/admin", data={"csrf": csrf_of(admin, "/admin"), "action": "password", "name": "ann",
                                       "password": "a new password 2"})
    assert reset.status_code == 200 and "sessions are ended" in reset.text
    assert author.get("/upload").status_code == 401
    again = site.client()
    assert again.post("/signin", data={"csrf": csrf_of(again), "name": "ann", "password": "a new password 2"}
                      ).status_code == 303


def test_sign_in_is_rate_limited_per_address_even_with_the_right_password(tmp_path):
    site = Site(make_ladder(database_url(None, tmp_path)), Limits(sign_in=3))
    client = site.client()
    token = csrf_of(client)
    for _ in range(3):
        assert client.post("/signin", data={"csrf": token, "name": "boss", "password": "wrong wrong"}
                           ).status_code == 401
    limited = client.post("/signin", data={"csrf": token, "name": "boss", "password": PASSWORD})
    assert limited.status_code == 429 and "too many sign-in attempts" in limited.text


def test_uploads_are_rate_limited_per_person_on_pages_and_api(tmp_path):
    site = Site(make_ladder(database_url(None, tmp_path)), Limits(uploads=2))
    author = sign_up(site, "ann")
    assert upload(author, "one", b"first").status_code == 303
    assert upload(author, "one", b"second").status_code == 303
    assert upload(author, "one", b"third").status_code == 429
    api = site.client()
    bearer = {"Authorization": f"Bearer {site.admin_token}"}
    for number, expected in enumerate((201, 201, 429)):
        answer = api.post(f"/api/bots/a-{number}/versions?filename=x.whl", content=f"upload {number}".encode(),
                          headers=bearer)
        assert answer.status_code == expected


def test_a_rate_limit_forgets_hits_older_than_its_window():
    now = [0.0]
    limit = RateLimit(2, 10.0, clock=lambda: now[0])
    assert limit.allow("a") and limit.allow("a") and not limit.allow("a") and limit.allow("b")
    now[0] = 10.5
    assert limit.allow("a")


def test_every_response_carries_the_security_headers(site):
    client = site.client()
    for path in ("/", "/signin", "/api/status", "/api/bots/nobody", "/static/site.css", "/bots/nobody",
                 "/replays/99.js"):
        answer = client.get(path)
        assert "script-src 'self'" in answer.headers["content-security-policy"], path
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["referrer-policy"] == "no-referrer"
    assert client.get("/").headers["cache-control"] == "no-store"
    cookie = site.client().get("/signin").headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie


# -- escaping --------------------------------------------------------------------------------


def hostile_result(task):
    """An honest result whose gate log, bots' logs and fault details are hostile markup."""
    result = inline_result(task)
    if task["kind"] == "gate":
        result["log"] = HOSTILE
        for record in result["records"]:
            record["logs"] = {"0": HOSTILE}
    else:
        result["record"]["logs"] = {"0": HOSTILE, "1": HOSTILE}
    return result


def test_hostile_text_is_escaped_on_every_page(tmp_path):
    site = Site(make_ladder(database_url(None, tmp_path), name=HOSTILE))
    author = sign_up(site, "ann")
    upload(author, "ann-bot")
    site.ladder.submit(site.admin, "rival", "rival.whl", b"rival wheel")
    site.drain(hostile_result)
    refused = site.client()
    refused_page = refused.post("/signup", data={"csrf": csrf_of(refused, "/signup"), "name": HOSTILE,
                                                 "password": PASSWORD, "again": PASSWORD})
    assert refused_page.status_code == 400
    pages = [author.get(path).text for path in ("/", "/standings/flip-7", "/h2h/flip-7", "/bots/ann-bot",
                                                "/games/1/logs", "/replay.html?game=1", "/bots", "/upload")]
    pages.append(refused_page.text)
    for text in pages:
        assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert" in pages[3] and "&lt;script&gt;alert" in pages[4]  # the logs, escaped


# -- what is the author's ------------------------------------------------------------------


def test_gate_logs_and_bot_logs_are_the_authors_only(site):
    author = sign_up(site, "ann")
    upload(author, "ann-bot")
    site.drain(lambda task: dict(hostile_result(task), log="secret gate log") if task["kind"] == "gate"
               else hostile_result(task))
    other = sign_up(site, "bob")
    mine, theirs, nobody = (c.get("/bots/ann-bot").text for c in (author, other, site.client()))
    assert "secret gate log" in mine and "/games/1/logs" in mine
    for page in (theirs, nobody):
        assert "secret gate log" not in page and "its author's to read" in page and "/logs" not in page
    assert "&lt;script&gt;" in author.get("/games/1/logs").text
    assert "&lt;script&gt;" not in other.get("/games/1/logs").text
    assert site.client().get("/games/1/logs").status_code == 401
    api = site.client()
    assert api.get("/api/bots/ann-bot/versions/1").json()["version"]["gate_log"] is None
    assert "logs" not in api.get("/api/games/1").json()


def test_tokens_are_shown_once_and_revoked_from_their_page(site):
    author = sign_up(site, "ann")
    made = author.post("/tokens", data={"csrf": csrf_of(author, "/tokens"), "scope": "submit"})
    token = re.search(r"<code>(submit_[^<]+)</code>", made.text).group(1)
    assert site.ladder.caller(f"Bearer {token}").name == "ann"
    listing = author.get("/tokens").text
    assert token not in listing
    token_id = re.search(r'name="revoke" value="([^"]+)"', listing).group(1)
    author.post("/tokens", data={"csrf": csrf_of(author, "/tokens"), "revoke": token_id})
    with pytest.raises(Exception, match="unknown or revoked"):
        site.ladder.caller(f"Bearer {token}")
    refused = author.post("/tokens", data={"csrf": csrf_of(author, "/tokens"), "scope": "worker"})
    assert refused.status_code == 403


def test_an_upload_larger_than_the_quota_is_refused_by_its_length_before_it_is_read(site):
    author = sign_up(site, "ann")
    token = csrf_of(author, "/upload")
    declared = author.post("/upload", content=b"x", headers={"content-length": str(10 ** 9),
                                                              "content-type": "multipart/form-data; boundary=b"})
    assert declared.status_code == 413
    whole = upload(author, "big", b"x" * 5000)
    assert whole.status_code == 413 and "larger than 4,096 bytes" in whole.text
    assert author.post("/upload", data={"csrf": token, "bot": "nofile"}).status_code == 400


# -- organisers ----------------------------------------------------------------------------


def test_admin_pauses_play_freezes_uploads_and_disables_a_bot(site):
    author = sign_up(site, "ann")
    upload(author, "ann-bot")
    site.ladder.submit(site.admin, "rival", "rival.whl", b"rival wheel")
    admin = sign_in_admin(site)
    assert sign_up(site, "bob").get("/admin").status_code == 403

    def act(**form):
        answer = admin.post("/admin", data={"csrf": csrf_of(admin, "/admin"), **form})
        assert answer.status_code == 200, answer.text
        return answer.text

    assert "paused" in act(action="pause")
    assert site.ladder.lease(site.worker)["tasks"] == []
    act(action="resume")
    lease = site.ladder.lease(site.worker)
    workers = admin.get("/admin").text.split('id="workers"')[1].split("</section>")[0]
    assert lease["tasks"] and lease["lease"][:8] in workers and "<td>boss</td>" in workers  # lease and holder
    for task in lease["tasks"]:
        site.ladder.complete(site.worker, task["id"], inline_result(task))
    site.drain()
    assert [r["bot"] for r in site.ladder.standings_table("flip-7")] != []
    act(action="freeze")
    frozen = upload(author, "ann-bot", b"version two")
    assert frozen.status_code == 403 and "frozen" in frozen.text
    act(action="reopen")
    act(action="disable", bot="rival", version="")
    assert [r["bot"] for r in site.ladder.standings_table("flip-7")] == ["ann-bot"]
    act(action="enable", bot="rival", version="")
    act(action="disable", bot="ann-bot", version="1")
    assert [r["bot"] for r in site.ladder.standings_table("flip-7")] == ["rival"]
    code = re.search(r"<code>(invite_[^<]+)</code>", act(action="invite")).group(1)
    assert code.startswith("invite_")


def test_admin_json_api_switches_disables_and_resets(site):
    client = site.client()
    admin = {"Authorization": f"Bearer {site.admin_token}"}
    site.ladder.submit(site.admin, "rival", "rival.whl", b"rival wheel")
    assert client.post("/api/admin/switches/paused", json={"on": True}, headers=admin).json()["paused"] is True
    assert client.get("/api/admin", headers=admin).json()["paused"] is True
    assert client.post("/api/admin/switches/paused", json={"on": "yes"}, headers=admin).status_code == 400
    assert client.post("/api/admin/bots/rival/disabled", json={"version": 7}, headers=admin).status_code == 404
    assert client.post("/api/admin/bots/rival/disabled", json={"version": None}, headers=admin
                       ).json()["disabled"] is True
    author = client.post("/api/signup", json={"name": "ann"}).json()["token"]
    refused = client.post("/api/admin/switches/frozen", json={"on": True}, headers={"Authorization": f"Bearer {author}"})
    assert refused.status_code == 403
    assert client.post("/api/admin/password", json={"name": "ann", "password": "short"}, headers=admin
                       ).status_code == 400
    assert client.post("/api/admin/password", json={"name": "ann", "password": PASSWORD}, headers=admin
                       ).json() == {"reset": "ann"}


def test_a_bots_games_download_as_json_lines_without_logs(site):
    author = sign_up(site, "ann")
    upload(author, "ann-bot")
    site.ladder.submit(site.admin, "rival", "rival.whl", b"rival wheel")
    site.drain(hostile_result)
    lines = site.client().get("/api/bots/ann-bot/games.jsonl").text.splitlines()
    games = [json.loads(line) for line in lines]
    page = site.client().get("/api/bots/ann-bot").json()
    assert [g["game"] for g in games] == [g["game"] for g in page["games"]] and len(games) >= 4
    assert all("logs" not in g["record"] and g["record"]["outcome"] for g in games)
    assert site.client().get("/api/bots/nobody/games.jsonl").status_code == 404


def test_version_page_data_has_results_per_opponent_history_and_board(site):
    author = sign_up(site, "ann")
    upload(author, "ann-bot")
    site.ladder.submit(site.admin, "rival", "rival.whl", b"rival wheel")
    site.drain()
    page = site.client().get("/api/bots/ann-bot/versions/1").json()
    rated = [g for g in page["games"] if not g["gate"]]
    assert sum(o["games"] for o in page["opponents"]) == len(rated) > 0
    assert [o["opponent"] for o in page["opponents"]] == ["rival v1"]
    assert len(page["history"]["flip-7"]) == len(rated)
    board = site.client().get("/api/standings/flip-7/board").json()
    assert board["verdict"].startswith("flip-7: ") and {r["bot"] for r in board["rows"]} == {"ann-bot", "rival"}
    h2h = site.client().get("/api/standings/flip-7/head-to-head").json()
    assert h2h["matrix"][0][1]["games"] == len(rated)


# -- the schema step ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_schema_step_2_indexes_the_games_already_stored_by_seat(kind, tmp_path, request):
    assert MIGRATIONS[1] is _web_v2
    url = database_url(None if kind == "sqlite" else fresh_database(request.getfixturevalue("pg_server")),
                       tmp_path)
    site = Site(make_ladder(url))
    site.ladder.submit(site.admin, "alpha", "alpha.whl", b"alpha")
    site.ladder.submit(site.admin, "beta", "beta.whl", b"beta")
    site.drain()
    query = sa.select(game_seats.c.game, game_seats.c.seat, game_seats.c.version).order_by(game_seats.c.game,
                                                                                           game_seats.c.seat)
    with site.ladder.engine.begin() as conn:
        stored = conn.execute(query).all()
        conn.execute(game_seats.delete())  # as a database of schema version 1 had none
        _web_v2(conn)  # the step alone (later steps need not run twice)
        assert stored and conn.execute(query).all() == stored
        assert {row.version for row in stored} >= {1, 2, None}  # the gate's random seats: None
