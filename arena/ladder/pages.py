"""The ladder's web pages: server-rendered HTML (Jinja2, autoescaped) on the site's CSS
and phone layout, the site's replay viewer, and forms for people signed in by password.

Who sees what: everyone the home page, leaderboards, head to head, bot pages and
replays; the author (or an admin) a version's gate log and the bots' logs of its games;
a signed-in author the upload and token pages; an admin the admin page. Every POST
checks the session's CSRF token; sign-in, sign-up and uploads are rate limited
(`arena.ladder.websafety`). A token is shown once, on the page that made it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.errors import ArenaError
from arena.ladder import accounts, admin, views
from arena.ladder.accounts import AccessError, Caller
from arena.ladder.service import Ladder
from arena.ladder.websafety import Limits, check_csrf, csrf_token

HERE = Path(__file__).resolve().parent
SITE_STATIC = HERE.parent / "site" / "static"
FORM_BYTES = 64 << 10
"""The largest form a page takes (an upload's limit is the ladder's quota)."""


def _environment() -> Any:
    import jinja2

    loader = jinja2.FileSystemLoader([str(HERE / "templates"), str(HERE.parent / "site" / "templates")])
    env = jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t)) if t else ""
    return env


def client_address(request: Request) -> str:
    return request.client.host if request.client else "?"


Page = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request], Any]


class Pages:
    """The page handlers of one ladder (see the module docstring)."""

    def __init__(self, ladder: Ladder, limits: Limits):
        self.ladder, self.limits = ladder, limits
        self.env = _environment()
        ladder.snapshots.add_renderer("pages", self.render_boards)

    # -- plumbing --------------------------------------------------------------------

    def viewer(self, request: Request) -> Caller | None:
        """The signed-in person of the request's session (None: nobody, or a session ended
        by a password change)."""
        person, changed = request.session.get("person"), request.session.get("changed")
        if not isinstance(person, int) or not isinstance(changed, (int, float)):
            return None
        with self.ladder.engine.connect() as conn:
            return accounts.session_person(conn, person, float(changed))

    def render(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        viewer = context.pop("viewer", None) or self.viewer(request)
        html = self.env.get_template(template).render(
            ladder=self.ladder.config.ladder, rulesets=list(self.ladder.rulesets), viewer=viewer,
            csrf=csrf_token(request.session), base_url=str(request.base_url).rstrip("/"), **context)
        return HTMLResponse(html, status)

    def signed_in(self, request: Request) -> Caller:
        viewer = self.viewer(request)
        if viewer is None:
            raise AccessError("sign in first", 401)
        return viewer

    async def form(self, request: Request) -> dict[str, str]:
        """The POSTed form (urlencoded, at most `FORM_BYTES`), its CSRF token checked."""
        from urllib.parse import parse_qsl

        from arena.ladder.api import read_body

        body = await read_body(request, FORM_BYTES)
        fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        check_csrf(request.session, fields.get("csrf"))
        return fields

    def page(self, handler: Handler) -> Page:
        """`handler` with ArenaErrors shown as an error page of their status (401: the sign-in
        page); a plain (not async) handler runs in the thread pool, off the event loop."""
        import inspect

        async def endpoint(request: Request) -> Response:
            try:
                if inspect.iscoroutinefunction(handler):
                    return await handler(request)
                return await run_in_threadpool(handler, request)
            except ArenaError as exc:
                status = getattr(exc, "status", 400)
                message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                if status == 401:
                    return self.render(request, "signin.html", 401, error=message)
                return self.render(request, "error.html", status, error=message)

        return endpoint

    # -- reading ---------------------------------------------------------------------

    def render_boards(self, snapshot: Any) -> dict[Any, Any]:
        """Per ruleset of a snapshot (`arena.ladder.snapshots`), built off the request path:
        its leaderboard as HTML, and its standings page as a visitor not signed in gets it."""
        from markupsafe import Markup

        out: dict[Any, Any] = {}
        for label, board in snapshot.boards.items():
            html = out["board-html", label] = Markup(self.env.get_template("macros.html").module.board_table(board))
            out["standings-page", label] = self.anonymous("board.html", label=label, board_html=html)
        return out

    def anonymous(self, template: str, **context: Any) -> bytes:
        """Page `template` as a visitor not signed in gets it (no session, no CSRF token: such
        a page has no form), ready to serve to any of them."""
        return self.env.get_template(template).render(ladder=self.ladder.config.ladder,
                                                      rulesets=list(self.ladder.rulesets), viewer=None, csrf="",
                                                      base_url="", **context).encode()

    def board_html(self, label: str) -> Any:
        """Ruleset `label`'s leaderboard as HTML, from the latest snapshot."""
        views.leaderboard(self.ladder, label)  # 404 for a ruleset the ladder does not play
        return self.ladder.snapshots.latest().rendered["board-html", label]

    @staticmethod
    def signed_out(request: Request) -> bool:
        """Whether the request carries no signed-in session (it may be served a shared page)."""
        return "person" not in request.session

    def home(self, request: Request) -> Response:
        return self.render(request, "home.html", boards={label: self.board_html(label) for label in self.ladder.rulesets},
                           counts=self.ladder.counts(), switches=self.ladder.switches(),
                           quotas=self.ladder.config.quotas)

    async def standings(self, request: Request) -> Response:
        """A leaderboard page; to a visitor not signed in, the snapshot's bytes from the event
        loop (no thread, no database) when the builder runs."""
        label = request.path_params["ruleset"]
        snapshots = self.ladder.snapshots
        if self.signed_out(request) and snapshots.running() and label in self.ladder.rulesets:
            return HTMLResponse(snapshots.latest().rendered["standings-page", label])
        return await run_in_threadpool(self._standings, request, label)

    def _standings(self, request: Request, label: str) -> Response:
        board_html = self.board_html(label)
        if self.signed_out(request):
            return HTMLResponse(self.ladder.snapshots.latest().rendered["standings-page", label])
        return self.render(request, "board.html", label=label, board_html=board_html)

    def head_to_head(self, request: Request) -> Response:
        return self.render(request, "h2h.html", h2h=views.head_to_head(self.ladder, request.path_params["ruleset"]))

    async def bot(self, request: Request) -> Response:
        """A bot's page; to a visitor not signed in, its cached bytes from the event loop when
        the builder runs and the page is cached (else rendered in the thread pool)."""
        number = request.query_params.get("version")
        if number is not None and not number.isdigit():
            raise AccessError(f"version {number[:20]!r}: give a number", 400)
        name, chosen = request.path_params["bot"], None if number is None else int(number)
        if self.signed_out(request) and self.ladder.snapshots.running():
            cached = self.ladder.snapshots.bot_pages.peek(("bot", name, chosen))
            if cached is not None:
                return HTMLResponse(cached)
        return await run_in_threadpool(self._bot, request, name, chosen)

    def _bot(self, request: Request, name: str, chosen: int | None) -> Response:
        self.ladder.snapshots.latest()  # without the builder running, brings the cached pages up to date
        if self.signed_out(request):  # the same page for every such visitor: rendered once per change of the bot
            return HTMLResponse(self.signed_out_bot_page(name, chosen))
        return self.render(request, "version.html", **self._bot_context(name, chosen, self.viewer(request)))

    def warm_bot_pages(self, most: int = 2000) -> int:
        """Render the pages of the bots on the latest leaderboards (at most `most`) as a
        visitor not signed in gets them, so that their first visitors find them cached; how many."""
        names = dict.fromkeys(row["bot"] for board in self.ladder.snapshots.latest().boards.values()
                              for row in board["rows"])
        for name in list(names)[:most]:
            self.signed_out_bot_page(name, None)
        return min(len(names), most)

    def signed_out_bot_page(self, name: str, number: int | None) -> bytes:
        """Bot `name`'s page at version `number` for visitors not signed in, from the cache."""
        return self.ladder.snapshots.bot_pages.get(("bot", name, number), name, lambda: self.anonymous(
            "version.html", **self._bot_context(name, number)))

    def _bot_context(self, name: str, number: int | None, viewer: Caller | None = None) -> dict[str, Any]:
        page = views.version_page(self.ladder, name, number, viewer)
        chart = views.cached(self.ladder, ("chart", page["version"] and page["version"]["version_id"]),
                             lambda: _history_chart(page))
        return {"page": page, "chart": chart}

    def logs(self, request: Request) -> Response:
        viewer = self.signed_in(request)
        found = self.ladder.game_logs(viewer, request.path_params["game"])
        return self.render(request, "logs.html", found=found, viewer=viewer)

    def replay(self, request: Request) -> Response:
        return self.render(request, "replay.html", p={"name": self.ladder.config.ladder.name})

    def replay_script(self, request: Request) -> Response:
        from arena.site.replay import error_script, replay_data, replay_script

        number = request.path_params["game"]
        try:
            record = self.ladder.game_record(number)
            cls = next(r["cls"] for r in self.ladder.rulesets.values() if r["id"] == record["ruleset"]["id"])
            text = replay_script(replay_data(record, cls, number))
        except Exception as exc:  # an unknown game or one that no longer replays: the viewer says why
            text = error_script(number, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return Response(text, media_type="text/javascript")

    # -- people --------------------------------------------------------------------------

    def sign_in_form(self, request: Request) -> Response:
        return self.render(request, "signin.html")

    async def sign_in(self, request: Request) -> Response:
        fields = await self.form(request)
        name, password = fields.get("name", "")[:64], fields.get("password", "")
        self.limits.sign_in_address.check(client_address(request), "sign-in attempts from your address")
        self.limits.sign_in_name.check(name, f"sign-in attempts for {name!r}")
        found = await run_in_threadpool(self._check_password, name, password)
        if found is None:
            return self.render(request, "signin.html", 401, error="the name or the password is wrong", name=name)
        caller, changed = found
        request.session.clear()  # a fresh session (and CSRF token) on sign-in
        request.session.update(person=caller.person, changed=changed)
        return RedirectResponse("/admin" if caller.admin else "/bots", 303)

    def _check_password(self, name: str, password: str) -> tuple[Caller, float] | None:
        with self.ladder.engine.connect() as conn:
            return accounts.check_password(conn, name, password)

    def _new_author(self, name: str, code: str | None, password: str) -> tuple[int, float]:
        with self.ladder.lock, self.ladder.engine.begin() as conn:
            person = accounts.new_author(conn, name, code, self.ladder.config.ladder.signup)
            return person, accounts.set_password(conn, person, password)

    async def sign_out(self, request: Request) -> Response:
        await self.form(request)
        request.session.clear()
        return RedirectResponse("/", 303)

    def sign_up_form(self, request: Request) -> Response:
        return self.render(request, "signup.html", invite=self.ladder.config.ladder.signup != "open")

    async def sign_up(self, request: Request) -> Response:
        fields = await self.form(request)
        self.limits.sign_up.check(client_address(request), "sign-ups from your address")
        name, password = fields.get("name", "").strip(), fields.get("password", "")
        if password != fields.get("again", ""):
            raise AccessError("the two passwords differ", 400)
        person, changed = await run_in_threadpool(self._new_author, name, fields.get("code") or None, password)
        request.session.clear()
        request.session.update(person=person, changed=changed)
        return RedirectResponse("/upload", 303)

    def my_bots(self, request: Request) -> Response:
        viewer = self.signed_in(request)
        return self.render(request, "mine.html", bots=views.bots_of(self.ladder, viewer.person), viewer=viewer)

    async def tokens(self, request: Request) -> Response:
        viewer = self.signed_in(request)
        made = None
        if request.method == "POST":
            fields = await self.form(request)
            if fields.get("revoke"):
                self.ladder.revoke(viewer, fields["revoke"])
            else:
                made = self.ladder.issue_token(viewer, fields.get("scope", "submit"))
        return self.render(request, "tokens.html", tokens=self.ladder.tokens(viewer), made=made, viewer=viewer)

    # -- uploads ---------------------------------------------------------------------

    def upload_form(self, request: Request) -> Response:
        viewer = self.signed_in(request)
        return self.render(request, "upload.html", viewer=viewer, quotas=self.ladder.config.quotas,
                           frozen=self.ladder.switches()["frozen"])

    async def upload(self, request: Request) -> Response:
        """A version from the upload form: the size is checked by Content-Length before the
        body is read, and counted while it streams; then parsed as multipart."""
        from arena.ladder.api import read_body

        viewer = self.signed_in(request)
        quota = self.ladder.config.quotas.upload_bytes
        data = await read_body(request, quota + FORM_BYTES)
        name, filename, content, token = await _upload_fields(request, data, quota)
        check_csrf(request.session, token)
        self.limits.uploads.check(f"person-{viewer.person}", "uploads")
        added = await run_in_threadpool(self.ladder.submit, viewer, name, filename, content)
        return RedirectResponse(f"/bots/{added['bot']}?version={added['version']}", 303)

    # -- organisers ------------------------------------------------------------------

    async def admin_page(self, request: Request) -> Response:
        viewer = self.signed_in(request)
        if not viewer.admin:
            raise AccessError("the admin page is for admins")
        made: dict[str, str] = {}
        if request.method == "POST":
            made = self._admin_action(viewer, await self.form(request))
        with self.ladder.engine.connect() as conn:
            workers = admin.workers_view(conn, time.time())
        return self.render(request, "admin.html", viewer=viewer, switches=self.ladder.switches(), workers=workers,
                           counts=self.ladder.counts(), all_bots=views.bots_of(self.ladder, None), made=made)

    def _admin_action(self, viewer: Caller, fields: dict[str, str]) -> dict[str, str]:
        """One admin form's action; what to show once (an invitation code)."""
        action = fields.get("action", "")
        if action in ("pause", "resume", "freeze", "reopen"):
            name = "paused" if action in ("pause", "resume") else "frozen"
            self.ladder.set_switch(viewer, name, action in ("pause", "freeze"))
        elif action in ("disable", "enable"):
            number = fields.get("version", "").strip()
            self.ladder.set_disabled(viewer, fields.get("bot", ""), int(number) if number.isdigit() else None,
                                     action == "disable")
        elif action == "password":
            with self.ladder.lock, self.ladder.engine.begin() as conn:
                accounts.set_password(conn, accounts.person_id(conn, fields.get("name", "")),
                                      fields.get("password", ""))
            return {"note": f"the password of {fields.get('name', '')} is reset; their sessions are ended"}
        elif action == "invite":
            return {"code": self.ladder.invite(viewer)}
        else:
            raise AccessError(f"no admin action {action[:30]!r}", 400)
        return {}


async def _upload_fields(request: Request, data: bytes, quota: int) -> tuple[str, str, bytes, str]:
    """(bot name, file name, file bytes, CSRF token) of an upload form's multipart body."""
    from starlette.datastructures import UploadFile
    from starlette.formparsers import MultiPartException, MultiPartParser

    async def once() -> Any:
        yield data

    try:
        form = await MultiPartParser(request.headers, once(), max_files=1, max_fields=8, max_part_size=FORM_BYTES
                                     ).parse()
    except (MultiPartException, AssertionError) as exc:
        raise AccessError(f"the upload form is malformed: {exc}", 400) from None
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise AccessError("choose a file to upload (a wheel, .tar.gz or .zip)", 400)
    content = await upload.read()
    if len(content) > quota:
        raise AccessError(f"the upload is larger than {quota:,} bytes (quotas.upload_bytes)", 413)
    return str(form.get("bot", "")).strip(), Path(upload.filename).name, content, str(form.get("csrf", ""))


def _history_chart(page: dict[str, Any]) -> Any:
    """The version's rating (mu) over its games per ruleset, as the site's inline SVG chart."""
    from markupsafe import Markup

    from arena.site.data import chart_svg

    history = page.get("history") or {}
    series = {label: [(i + 1, point[0], point[1], point[2]) for i, point in enumerate(points)]
              for label, points in history.items() if points}
    if not series:
        return ""
    return Markup(chart_svg(series, list(series), "rating (mu) after each game, per ruleset"))


def routes(pages: Pages) -> list[Any]:
    """The pages' routes (the API's are under /api/)."""
    p = pages.page
    return [
        Route("/", p(pages.home)), Route("/index.html", lambda r: RedirectResponse("/", 301)),
        Route("/standings/{ruleset}", p(pages.standings)), Route("/h2h/{ruleset}", p(pages.head_to_head)),
        Route("/bots", p(pages.my_bots)), Route("/bots/{bot}", p(pages.bot)),
        Route("/games/{game:int}/logs", p(pages.logs)),
        Route("/replay.html", p(pages.replay)), Route("/replays/{game:int}.js", p(pages.replay_script)),
        Route("/signin", p(pages.sign_in_form), methods=["GET"]), Route("/signin", p(pages.sign_in), methods=["POST"]),
        Route("/signout", p(pages.sign_out), methods=["POST"]),
        Route("/signup", p(pages.sign_up_form), methods=["GET"]), Route("/signup", p(pages.sign_up), methods=["POST"]),
        Route("/tokens", p(pages.tokens), methods=["GET", "POST"]),
        Route("/upload", p(pages.upload_form), methods=["GET"]), Route("/upload", p(pages.upload), methods=["POST"]),
        Route("/admin", p(pages.admin_page), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=str(SITE_STATIC)), name="static"),
    ]
