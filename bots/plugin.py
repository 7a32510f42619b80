"""Registers the built-in bots through the same hook as any outside plugin."""

import arena


@arena.hookimpl
def register_bots(register):
    """Register every bot in this package."""
    from arena_bots.flip7_threshold import Flip7ThresholdBot
    from arena_bots.random_bot import RandomBot

    register(RandomBot)
    register(Flip7ThresholdBot)
