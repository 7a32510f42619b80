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
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.ladder.service import Ladder

MAX_JSON_BYTES = 64 << 20
"""The largest JSON body (a gate's records) the API reads."""


async def _body(request: Request, limit: int) -> bytes:
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
        body = json.loads(await _body(request, MAX_JSON_BYTES) or b"{}")
    except ValueError:
        raise _Refused("the body is not JSON") from None
    if not isinstance(body, dict):
        raise _Refused("the body is not a JSON object")
    return body


Handler = Callable[[Request], Awaitable[Any]]


def _endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """`handler`'s answer as JSON (a Response as it is); an ArenaError as {"error": ...}."""

    async def endpoint(request: Request) -> Response:
        try:
            answer = await handler(request)
        except ArenaError as exc:
            status = getattr(exc, "status", 400)
            return JSONResponse({"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}, status)
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    return endpoint


class LadderApi:
    """The endpoints of one ladder (each an async method taking the request)."""

    def __init__(self, ladder: Ladder):
        self.ladder = ladder

    def caller(self, request: Request) -> Any:
        return self.ladder.caller(request.headers.get("authorization"))

    async def sign_up(self, request: Request) -> Any:
        body = await _json(request)
        return {"token": self.ladder.sign_up(str(body.get("name", "")), body.get("code"))}

    async def invite(self, request: Request) -> Any:
        return {"code": self.ladder.invite(self.caller(request))}

    async def new_token(self, request: Request) -> Any:
        body = await _json(request)
        return {"token": self.ladder.issue_token(self.caller(request), str(body.get("scope", "submit")))}

    async def tokens(self, request: Request) -> Any:
        return {"tokens": self.ladder.tokens(self.caller(request))}

    async def revoke(self, request: Request) -> Any:
        return {"revoked": self.ladder.revoke(self.caller(request), request.path_params["prefix"])}

    async def submit(self, request: Request) -> Any:
        who = self.caller(request)  # before the body is read
        data = await _body(request, self.ladder.config.quotas.upload_bytes)
        filename = request.query_params.get("filename", "")
        return JSONResponse(self.ladder.submit(who, request.path_params["bot"], filename, data), 201)

    async def bot_page(self, request: Request) -> Any:
        return self.ladder.bot_page(request.path_params["bot"])

    async def gate_log(self, request: Request) -> Any:
        return self.ladder.gate_log(self.caller(request), request.path_params["bot"],
                                    int(request.path_params["number"]))

    async def standings(self, request: Request) -> Any:
        labels = [request.path_params["ruleset"]] if "ruleset" in request.path_params else list(self.ladder.rulesets)
        return {label: self.ladder.standings_table(label) for label in labels}

    async def game(self, request: Request) -> Any:
        return self.ladder.game_record(int(request.path_params["game"]))

    async def logs(self, request: Request) -> Any:
        return self.ladder.game_logs(self.caller(request), int(request.path_params["game"]))

    async def replay(self, request: Request) -> Any:
        """The game's replay script, as `arena serve` serves ``replays/<game>.js``."""
        from arena.site.replay import replay_data, replay_script

        number = int(request.path_params["game"])
        record = self.ladder.game_record(number)
        cls: Any = next(r["cls"] for r in self.ladder.rulesets.values() if r["id"] == record["ruleset"]["id"])
        return Response(replay_script(replay_data(record, cls, number)), media_type="text/javascript")

    async def blob(self, request: Request) -> Any:
        if not self.caller(request).may("worker"):
            raise _Refused("uploads are served to workers", 403)
        _, data = self.ladder.blob(request.path_params["sha256"])
        return Response(data, media_type="application/octet-stream")

    async def lease(self, request: Request) -> Any:
        return self.ladder.lease(self.caller(request))

    async def heartbeat(self, request: Request) -> Any:
        body = await _json(request)
        return self.ladder.heartbeat(self.caller(request), str(body.get("lease", "")))

    async def result(self, request: Request) -> Any:
        who = self.caller(request)
        return self.ladder.complete(who, int(request.path_params["task"]), await _json(request))

    async def status(self, request: Request) -> Any:
        return {"ladder": self.ladder.config.ladder.name, "rulesets": list(self.ladder.rulesets),
                "ruleset_versions": {label: [r["id"], r["cls"].version] for label, r in self.ladder.rulesets.items()},
                **self.ladder.counts()}


def make_app(ladder: Ladder) -> Starlette:
    """The API of `ladder`."""
    api = LadderApi(ladder)
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
        ("/api/blobs/{sha256}", api.blob, ["GET"]), ("/api/work/lease", api.lease, ["POST"]),
        ("/api/work/heartbeat", api.heartbeat, ["POST"]), ("/api/work/{task:int}/result", api.result, ["POST"]),
    ]
    return Starlette(routes=[Route(path, _endpoint(handler), methods=methods) for path, handler, methods in routes])
