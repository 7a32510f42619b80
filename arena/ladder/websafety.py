"""The web pages' defences: security headers on every response, rate limits, sessions
and CSRF tokens.

- **Headers** (`SecurityHeaders`, on every response of the app, API included): a
  Content-Security-Policy allowing only the ladder's own scripts and styles, no framing,
  no referrer, no MIME sniffing; pages that may show a person's data are not cached.
- **Rate limits** (`RateLimit`): a sliding window per key in memory (one server process:
  docs/ladder.md); sign-in per client address and per name, sign-up per address, uploads
  per person.
- **Sessions**: Starlette's SessionMiddleware (a cookie signed with itsdangerous by a key
  kept in the database, HttpOnly, SameSite=Lax); the session holds the person's id and
  the time their password last changed, so an admin's password reset ends every session.
- **CSRF**: every form carries the session's random token (`csrf_token`), checked in
  constant time on every POST of a page (`check_csrf`).
"""

from __future__ import annotations

import collections
import secrets
import threading
import time
from typing import Any, Callable, Deque, MutableMapping

from arena.ladder.accounts import AccessError

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""Inline styles only (the site's colour swatches and chart SVGs use style attributes); no inline script."""
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"x-frame-options", b"DENY"), (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-opener-policy", b"same-origin"),
           (b"permissions-policy", b"camera=(), microphone=(), geolocation=()")]


class SecurityHeaders:
    """ASGI middleware adding `HEADERS` to every HTTP response (and ``Cache-Control:
    no-store`` to everything but /static/), plus HSTS when `https_only`."""

    def __init__(self, app: Any, https_only: bool = False):
        self.app = app
        self.extra = [(b"strict-transport-security", b"max-age=31536000")] if https_only else []

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                added = [h for h in HEADERS + self.extra if h[0] not in names]
                if not static and b"cache-control" not in names:
                    added.append((b"cache-control", b"no-store"))
                message["headers"] = list(message.get("headers", [])) + added
            await send(message)

        await self.app(scope, receive, with_headers)


class RateLimit:
    """At most `limit` hits per key in any `window` seconds (thread-safe, in memory)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self.hits: dict[str, Deque[float]] = {}
        self.lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Count a hit on `key`; False (and not counted) when the key is over its limit."""
        now = self.clock()
        with self.lock:
            if len(self.hits) > 100_000:  # forget idle keys rather than grow without bound
                self.hits = {k: q for k, q in self.hits.items() if q and q[-1] > now - self.window}
            queue = self.hits.setdefault(key, collections.deque())
            while queue and queue[0] <= now - self.window:
                queue.popleft()
            if len(queue) >= self.limit:
                return False
            queue.append(now)
            return True

    def check(self, key: str, what: str) -> None:
        """`allow`, raising a 429 AccessError naming `what` when over the limit."""
        if not self.allow(key):
            raise AccessError(f"too many {what}: at most {self.limit} in {self.window:g} seconds; try again later",
                              429)


class Limits:
    """The rate limits of one app (defaults for a public ladder; tests pass smaller ones)."""

    def __init__(self, sign_in: int = 10, sign_in_window: float = 300.0, sign_up: int = 5,
                 sign_up_window: float = 3600.0, uploads: int = 10, uploads_window: float = 600.0):
        self.sign_in_address = RateLimit(sign_in, sign_in_window)
        self.sign_in_name = RateLimit(sign_in, sign_in_window)
        self.sign_up = RateLimit(sign_up, sign_up_window)
        self.uploads = RateLimit(uploads, uploads_window)


def csrf_token(session: MutableMapping[str, Any]) -> str:
    """The session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def check_csrf(session: MutableMapping[str, Any], sent: Any) -> None:
    """AccessError (403) unless `sent` is the session's CSRF token."""
    token = session.get("csrf")
    if not (isinstance(token, str) and isinstance(sent, str) and secrets.compare_digest(token, sent)):
        raise AccessError("the form's security token is missing or stale: reload the page and send it again")
