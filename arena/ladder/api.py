"""The ladder's HTTP API (Starlette; served by uvicorn, `arena.ladder.serve`).

JSON in and out; errors are ``{"error": "<one line>"}`` with a status (400 bad input, 401
no valid token, 403 not allowed, 404 unknown, 409 conflict, 413 too large, 422 result
refused, 429 quota). A token goes in ``Authorization: Bearer <token>`` only (never in a
URL, so never in a log). docs/ladder.md lists every endpoint.

Starlette because it is small, well kept and synchronous endpoints run in its thread
pool: the service's operations are plain blocking functions under one lock.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.errors import ArenaError
from arena.ladder import accounts, views
from arena.ladder.server_timing import ServerTiming
from arena.ladder.service import Ladder
from arena.ladder.websafety import Limits, SecurityHeaders

MAX_JSON_BYTES = 64 << 20
"""The largest JSON body (a gate's records) the API reads."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past `limit` bytes: by its Content-Length before
    reading anything, and counted while it streams (a missing or lying length)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise _Refused(f"the body is larger than {limit:,} bytes", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _Refused(f"the body is larger than {limit:,} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


class _Refused(ArenaError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await read_body(request, MAX_JSON_BYTES) or b"{}")
    except ValueError:
        raise _Refused("the body is not JSON") from None
    if not isinstance(body, dict):
        raise _Refused("the body is not a JSON object")
    return body


Handler = Callable[[Request], Any]


def _endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """`handler`'s answer as JSON (a Response as it is); an ArenaError as {"error": ...}.
    A plain (not async) handler runs in the thread pool, so that its database work and
    checks do not hold up the event loop; an async one reads the body first and hands its
    blocking work to the pool itself."""
    import inspect

    async def endpoint(request: Request) -> Response:
        try:
            if inspect.iscoroutinefunction(handler):
                answer = await handler(request)
            else:
                answer = await run_in_threadpool(handler, request)
        except ArenaError as exc:
            status = getattr(exc, "status", 400)
            return JSONResponse({"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}, status)
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    return endpoint


class LadderApi:
    """The endpoints of one ladder (each an async method taking the request)."""

    def __init__(self, ladder: Ladder, limits: Limits):
        self.ladder, self.limits = ladder, limits

    def caller(self, request: Request) -> Any:
        return self.ladder.caller(request.headers.get("authorization"))

    async def sign_up(self, request: Request) -> Any:
        body = await _json(request)
        self.limits.sign_up.check(request.client.host if request.client else "?", "sign-ups from your address")
        return {"token": await run_in_threadpool(self.ladder.sign_up, str(body.get("name", "")), body.get("code"))}

    def invite(self, request: Request) -> Any:
        return {"code": self.ladder.invite(self.caller(request))}

    async def new_token(self, request: Request) -> Any:
        body = await _json(request)
        return {"token": await run_in_threadpool(self.ladder.issue_token, self.caller(request),
                                                 str(body.get("scope", "submit")))}

    def tokens(self, request: Request) -> Any:
        return {"tokens": self.ladder.tokens(self.caller(request))}

    def revoke(self, request: Request) -> Any:
        return {"revoked": self.ladder.revoke(self.caller(request), request.path_params["prefix"])}

    async def submit(self, request: Request) -> Any:
        who = self.caller(request)  # before the body is read
        self.limits.uploads.check(f"person-{who.person}", "uploads")
        data = await read_body(request, self.ladder.config.quotas.upload_bytes)
        filename = request.query_params.get("filename", "")
        return JSONResponse(await run_in_threadpool(self.ladder.submit, who, request.path_params["bot"], filename,
                                                    data), 201)

    def bot_page(self, request: Request) -> Any:
        return self.ladder.bot_page(request.path_params["bot"])

    def gate_log(self, request: Request) -> Any:
        return self.ladder.gate_log(self.caller(request), request.path_params["bot"],
                                    int(request.path_params["number"]))

    def standings(self, request: Request) -> Any:
        labels = [request.path_params["ruleset"]] if "ruleset" in request.path_params else list(self.ladder.rulesets)
        return {label: views.leaderboard(self.ladder, label)["rows"] for label in labels}

    def game(self, request: Request) -> Any:
        return self.ladder.game_record(int(request.path_params["game"]))

    def logs(self, request: Request) -> Any:
        return self.ladder.game_logs(self.caller(request), int(request.path_params["game"]))

    def replay(self, request: Request) -> Any:
        """The game's replay script, as `arena serve` serves ``replays/<game>.js``."""
        from arena.site.replay import replay_data, replay_script

        number = int(request.path_params["game"])
        record = self.ladder.game_record(number)
        cls: Any = next(r["cls"] for r in self.ladder.rulesets.values() if r["id"] == record["ruleset"]["id"])
        return Response(replay_script(replay_data(record, cls, number)), media_type="text/javascript")

    def blob(self, request: Request) -> Any:
        if not self.caller(request).may("worker"):
            raise _Refused("uploads are served to workers", 403)
        _, data = self.ladder.blob(request.path_params["sha256"])
        return Response(data, media_type="application/octet-stream")

    def lease(self, request: Request) -> Any:
        return self.ladder.lease(self.caller(request))

    async def heartbeat(self, request: Request) -> Any:
        body = await _json(request)
        who = await run_in_threadpool(self.caller, request)
        return await run_in_threadpool(self.ladder.heartbeat, who, str(body.get("lease", "")))

    async def result(self, request: Request) -> Any:
        """The body read on the loop, then one hand-off to the thread pool for the token, the task,
        the check and the store (`Ladder.complete_request`). A request with no token at all is
        refused before its body is read; one with an unknown token after (the lookup is in that
        one hand-off, so it costs no hand-off of its own)."""
        accounts.bearer_digest(request.headers.get("authorization"))
        body = await _json(request)
        return await run_in_threadpool(self.ladder.complete_request, request.headers.get("authorization"),
                                       int(request.path_params["task"]), body)

    def version(self, request: Request) -> Any:
        """A version's page as data; `caller` optional (its gate log only for its author or an admin)."""
        viewer = self.caller(request) if request.headers.get("authorization") else None
        return views.version_page(self.ladder, request.path_params["bot"], request.path_params["number"], viewer)

    def bot_games(self, request: Request) -> Any:
        """Every stored game of a bot as JSON lines ({"game", "record"}, bots' logs left out)."""
        views.bot_summary(self.ladder, request.path_params["bot"])  # 404 before the stream starts
        return StreamingResponse(views.game_records(self.ladder, request.path_params["bot"]),
                                 media_type="application/x-ndjson")

    def head_to_head(self, request: Request) -> Any:
        return views.head_to_head(self.ladder, request.path_params["ruleset"])

    def leaderboard(self, request: Request) -> Any:
        return views.leaderboard(self.ladder, request.path_params["ruleset"])

    def admin_state(self, request: Request) -> Any:
        """Switches, leases held by workers, counts (an admin's)."""
        import time

        from arena.ladder import admin

        if not self.caller(request).admin:
            raise _Refused("the admin state is for admins", 403)
        with self.ladder.engine.connect() as conn:
            workers = admin.workers_view(conn, time.time())
        return {**self.ladder.switches(), "workers": workers, **self.ladder.counts()}

    async def switch(self, request: Request) -> Any:
        body = await _json(request)
        on = body.get("on")
        if not isinstance(on, bool):
            raise _Refused('send {"on": true} or {"on": false}')
        return await run_in_threadpool(self.ladder.set_switch, self.caller(request), request.path_params["name"], on)

    async def disable(self, request: Request) -> Any:
        body = await _json(request)
        number, off = body.get("version"), body.get("disabled", True)
        if not (number is None or isinstance(number, int)) or not isinstance(off, bool):
            raise _Refused('send {"version": N or null, "disabled": true or false}')
        return await run_in_threadpool(self.ladder.set_disabled, self.caller(request), request.path_params["bot"],
                                       number, off)

    async def reset_password(self, request: Request) -> Any:
        """An admin sets person `name`'s web password (no recovery by email); their sessions end."""
        from arena.ladder import accounts

        who, body = self.caller(request), await _json(request)
        if not who.admin:
            raise _Refused("only an admin resets a password", 403)
        name, password = str(body.get("name", "")), str(body.get("password", ""))

        def reset() -> None:
            with self.ladder.lock, self.ladder.engine.begin() as conn:
                accounts.set_password(conn, accounts.person_id(conn, name), password)

        await run_in_threadpool(reset)
        return {"reset": name}

    def worker_status(self, request: Request) -> Any:
        """The ladder and its rulesets' versions (what a worker checks before it leases), from the
        worker listener: no counts, no snapshot (that process builds none)."""
        return {"ladder": self.ladder.config.ladder.name, "rulesets": list(self.ladder.rulesets),
                "ruleset_versions": {label: [r["id"], r["cls"].version] for label, r in self.ladder.rulesets.items()},
                "listener": "workers"}

    def status(self, request: Request) -> Any:
        """The ladder, its rulesets, counts, and how far the pages' snapshot is behind: `generation`
        counts the changes stored, `published` those the pages show, built `published_age` seconds ago;
        `bot_pages_behind`: seconds the most out-of-date cached bot page has been so (this process's)."""
        import time

        from arena.ladder.db import generation

        with self.ladder.engine.connect() as conn:
            stored = generation(conn)
        snapshot = self.ladder.snapshots.latest()
        return {"ladder": self.ladder.config.ladder.name, "rulesets": list(self.ladder.rulesets),
                "ruleset_versions": {label: [r["id"], r["cls"].version] for label, r in self.ladder.rulesets.items()},
                **self.ladder.counts(), "generation": stored, "published": snapshot.stamp.generation,
                "published_age": round(time.time() - snapshot.built, 3),
                "bot_pages_behind": round(self.ladder.snapshots.bot_pages.stale_for(), 3)}


def _worker_routes(api: LadderApi) -> list[tuple[str, Handler, list[str]]]:
    """What a worker calls besides `/api/status`: leases, heartbeats, results, uploads' bytes."""
    return [("/api/blobs/{sha256}", api.blob, ["GET"]), ("/api/work/lease", api.lease, ["POST"]),
            ("/api/work/heartbeat", api.heartbeat, ["POST"]), ("/api/work/{task:int}/result", api.result, ["POST"])]


WORKERS_ONLY = ("this is the ladder's worker listener: it serves /api/status, /api/work/... and /api/blobs/... only "
                "(the pages and the rest of the API are on the ladder's main address)")


def make_worker_app(ladder: Ladder, https_only: bool = False, server_timing: bool = False) -> Starlette:
    """The worker API alone (`arena ladder serve --worker-port`): status, leases, heartbeats,
    results and uploads' bytes; anything else is 404 with `WORKERS_ONLY`. It serves no page, so
    a process running it spends its time on results only (docs/ladder.md, "Under load").
    `server_timing`: every response says the server's time on it (`server_timing`)."""
    api = LadderApi(ladder, Limits())
    routes = [("/api/status", api.worker_status, ["GET"]), *_worker_routes(api)]

    async def elsewhere(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": WORKERS_ONLY}, 404)

    return Starlette(routes=[Route(path, _endpoint(handler), methods=methods) for path, handler, methods in routes],
                     middleware=_timed(server_timing) + [Middleware(SecurityHeaders, https_only=https_only)],
                     exception_handlers={404: elsewhere})


def make_app(ladder: Ladder, limits: Limits | None = None, https_only: bool = False,
             server_timing: bool = False) -> Starlette:
    """The API (under /api/) and the web pages (arena.ladder.pages) of `ladder`, with
    security headers on every response and sessions for the pages; `https_only`: the
    session cookie is sent over HTTPS only, with HSTS (a ladder behind TLS); `server_timing`:
    every response says the server's time on it (`server_timing`)."""
    from arena.ladder import admin
    from arena.ladder.pages import Pages, routes as page_routes

    limits = limits or Limits()
    api = LadderApi(ladder, limits)
    with ladder.lock, ladder.engine.begin() as conn:
        key = admin.session_key(conn)
    routes = [
        ("/api/status", api.status, ["GET"]), ("/api/signup", api.sign_up, ["POST"]),
        ("/api/invitations", api.invite, ["POST"]), ("/api/tokens", api.new_token, ["POST"]),
        ("/api/tokens", api.tokens, ["GET"]),
        ("/api/tokens/{prefix}", api.revoke, ["DELETE"]),
        ("/api/bots/{bot}/versions", api.submit, ["POST"]), ("/api/bots/{bot}", api.bot_page, ["GET"]),
        ("/api/bots/{bot}/versions/{number:int}/gate", api.gate_log, ["GET"]),
        ("/api/standings", api.standings, ["GET"]), ("/api/standings/{ruleset}", api.standings, ["GET"]),
        ("/api/games/{game:int}", api.game, ["GET"]), ("/api/games/{game:int}/replay.js", api.replay, ["GET"]),
        ("/api/games/{game:int}/logs", api.logs, ["GET"]),
        *_worker_routes(api),
        ("/api/bots/{bot}/versions/{number:int}", api.version, ["GET"]),
        ("/api/bots/{bot}/games.jsonl", api.bot_games, ["GET"]),
        ("/api/standings/{ruleset}/board", api.leaderboard, ["GET"]),
        ("/api/standings/{ruleset}/head-to-head", api.head_to_head, ["GET"]),
        ("/api/admin", api.admin_state, ["GET"]), ("/api/admin/switches/{name}", api.switch, ["POST"]),
        ("/api/admin/bots/{bot}/disabled", api.disable, ["POST"]),
        ("/api/admin/password", api.reset_password, ["POST"]),
    ]
    middleware = _timed(server_timing) + [
        Middleware(SecurityHeaders, https_only=https_only),
        Middleware(SessionMiddleware, secret_key=key, session_cookie="ladder_session", same_site="lax",
                   https_only=https_only, max_age=14 * 86_400)]
    pages = Pages(ladder, limits)
    app = Starlette(routes=[Route(path, _endpoint(handler), methods=methods) for path, handler, methods in routes]
                    + page_routes(pages), middleware=middleware)
    app.state.pages = pages
    return app


def _timed(server_timing: bool) -> list[Middleware]:
    """The outermost middleware: `ServerTiming` when asked for (it then times the others too)."""
    return [Middleware(ServerTiming)] if server_timing else []
