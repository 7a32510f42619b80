"""`arena ladder serve --server-timing` (arena.ladder.server_timing): off by default; when on,
every response of the pages, the API and the worker listener says the server's own
milliseconds on it, which the load benchmark reads to split a latency into the server's part
and the rest."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette")
pytest.importorskip("argon2")

from starlette.applications import Starlette  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.responses import PlainTextResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from arena.ladder.api import make_app, make_worker_app  # noqa: E402
from arena.ladder.db import database_url  # noqa: E402
from arena.ladder.server_timing import ServerTiming, app_milliseconds  # noqa: E402
from test_ladder_web import make_ladder  # noqa: E402

PATHS = ("/", "/signin", "/api/status", "/api/standings", "/api/bots/nobody", "/static/site.css", "/no/such/page")


def test_no_response_says_the_servers_time_unless_asked(tmp_path):
    client = TestClient(make_app(make_ladder(database_url(None, tmp_path))), follow_redirects=False)
    for path in PATHS:
        assert "server-timing" not in client.get(path).headers, path


def test_with_server_timing_every_page_and_api_response_says_the_servers_milliseconds(tmp_path):
    ladder = make_ladder(database_url(None, tmp_path))
    client = TestClient(make_app(ladder, server_timing=True), follow_redirects=False)
    for path in PATHS:
        answer = client.get(path)
        took = app_milliseconds(answer.headers.get("server-timing"))
        assert took is not None and took >= 0, (path, answer.status_code, answer.headers.get("server-timing"))
        assert answer.headers["x-content-type-options"] == "nosniff"  # the security headers are still there
    refused = client.post("/api/work/1/result", json={}, headers={"Authorization": "Bearer nope"})
    assert refused.status_code in (401, 403) and app_milliseconds(refused.headers["server-timing"]) is not None


def test_with_server_timing_the_worker_listener_says_it_too(tmp_path):
    ladder = make_ladder(database_url(None, tmp_path))
    client = TestClient(make_worker_app(ladder, server_timing=True))
    for answer in (client.get("/api/status"), client.get("/standings"),
                   client.post("/api/work/1/result", json={}, headers={"Authorization": "Bearer nope"})):
        assert app_milliseconds(answer.headers.get("server-timing")) is not None, answer.status_code
    assert "server-timing" not in TestClient(make_worker_app(ladder)).get("/api/status").headers


def test_the_servers_time_covers_the_handlers_wait():
    async def slow(request):
        await asyncio.sleep(0.05)
        return PlainTextResponse("done")

    async def quick(request):
        return PlainTextResponse("done")

    app = Starlette(routes=[Route("/slow", slow), Route("/quick", quick)], middleware=[Middleware(ServerTiming)])
    client = TestClient(app)
    slow_ms = app_milliseconds(client.get("/slow").headers["server-timing"])
    quick_ms = app_milliseconds(client.get("/quick").headers["server-timing"])
    assert slow_ms is not None and quick_ms is not None
    assert slow_ms >= 50 > quick_ms


@pytest.mark.parametrize("header, expected", [
    ("app;dur=12.5", 12.5),
    ("db;dur=3, app;desc=\"the app\";dur=7", 7.0),
    ("db;dur=3", None),
    ("app", None),
    ("app;dur=soon", None),
    ("", None),
    (None, None),
])
def test_app_milliseconds_reads_the_app_metrics_duration_only(header, expected):
    assert app_milliseconds(header) == expected


def test_serve_passes_server_timing_on_only_when_asked(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import arena.ladder.serve
    from arena.cli import main

    seen = []
    monkeypatch.setattr(arena.ladder.serve, "serve", lambda *args, **kwargs: seen.append(kwargs["server_timing"]))
    for extra in ([], ["--server-timing"]):
        done = CliRunner().invoke(main, ["ladder", "serve", "--folder", str(tmp_path / "l"), "--workers", "0", *extra])
        assert done.exit_code == 0, done.output
    assert seen == [False, True]
