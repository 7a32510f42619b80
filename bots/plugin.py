"""Registers the built-in bots, and the playout policies ismcts searches with, through the
same hooks as any outside plugin."""

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


@arena.hookimpl
def register_playouts(register):
    """Each built-in game's heuristic plays a search's playouts, with its fast path if it has one."""
    from arena_bots.color_flush_heuristic import ColorFlushHeuristicBot
    from arena_bots.flip7_threshold import Flip7ThresholdBot
    from arena_bots.flip_hue_heuristic import FlipHueHeuristicBot
    from arena_bots.playout_moves import flip7_threshold_move, uno_flip_heuristic_move
    from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot

    register("flip-7", Flip7ThresholdBot, fast_move=flip7_threshold_move)
    register("uno-flip", UnoFlipHeuristicBot, fast_move=uno_flip_heuristic_move)
    register("color-flush", ColorFlushHeuristicBot)
    register("flip-hue", FlipHueHeuristicBot)
