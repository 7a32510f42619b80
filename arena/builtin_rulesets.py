"""The built-in rulesets, registered through the `arena` entry point like any plugin."""

from arena.plugins import hookimpl


@hookimpl
def register_rulesets(register):
    """Register every ruleset that ships with arena."""
    from arena.rules.color_flush import ColorFlush
    from arena.rules.flip_7 import Flip7
    from arena.rules.flip_hue import FlipHue
    from arena.rules.uno_flip import UnoFlip

    register(Flip7)
    register(FlipHue)
    register(ColorFlush)
    register(UnoFlip)
