"""Registers the built-in bots through the same hook as any outside plugin."""

import arena


@arena.hookimpl
def register_bots(register):
    """Register every bot in this package."""
    from arena_bots.color_flush_heuristic import ColorFlushHeuristicBot
    from arena_bots.flip7_expectimax import Flip7ExpectimaxBot
    from arena_bots.flip7_threshold import Flip7ThresholdBot
    from arena_bots.flip_hue_heuristic import FlipHueHeuristicBot
    from arena_bots.ismcts import ISMCTSBot
    from arena_bots.random_bot import RandomBot
    from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot

    register(RandomBot)
    register(UnoFlipHeuristicBot)
    register(FlipHueHeuristicBot)
    register(Flip7ThresholdBot)
    register(ColorFlushHeuristicBot)
    register(Flip7ExpectimaxBot)
    register(ISMCTSBot)
