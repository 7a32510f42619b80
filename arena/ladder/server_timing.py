"""`ServerTiming`: ASGI middleware that puts the server's own time on every HTTP response.

Each response gets ``Server-Timing: app;dur=MS`` (the W3C header that browsers' developer
tools show): the milliseconds from the moment the application received the request's head
to the moment it started the response (reading the body, waiting for the database and the
thread pool included; the time the request waited for its process's event loop before
that, and the network, not). A client's latency minus it is what the server did not see:
`benchmarks/ladder_load.py` splits its figures so. Off unless `arena ladder serve
--server-timing`: it tells every client how long each of its requests took on the server.
"""

from __future__ import annotations

import time
from typing import Any, MutableMapping


class ServerTiming:
    """Adds ``server-timing: app;dur=MS`` (one decimal) to every HTTP response of `app`."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()

        async def timed(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                took = f"app;dur={(time.perf_counter() - began) * 1000:.1f}".encode()
                message["headers"] = [*message.get("headers", []), (b"server-timing", took)]
            await send(message)

        await self.app(scope, receive, timed)


def app_milliseconds(header: str | None) -> float | None:
    """The ``app`` duration (ms) of a ``Server-Timing`` header's value; None when it has none."""
    for metric in (header or "").split(","):
        name, *params = (part.strip() for part in metric.split(";"))
        if name != "app":
            continue
        for param in params:
            key, _, value = param.partition("=")
            if key.strip() == "dur":
                try:
                    return float(value)
                except ValueError:
                    return None
    return None
