"""Old import path: `arena serve` is in `arena.cli.web`, its HTTP server in `arena.site.server`."""

from arena.cli.tournament import replays_option
from arena.cli.web import serve
from arena.site.server import SiteHandler, make_server

__all__ = ["SiteHandler", "make_server", "replays_option", "serve"]
