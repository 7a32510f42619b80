"""Old import path: the commands are in `arena.cli.submit` and `arena.cli.listing` (docs)."""

from arena.cli.listing import docs
from arena.cli.submit import new_bot, validate

__all__ = ["docs", "new_bot", "validate"]
