"""The built-in rulesets, registered through the `arena` entry point like any plugin."""

from arena.plugins import hookimpl


@hookimpl
def register_rulesets(register):
    """Register every ruleset that ships with arena."""
    from arena.rules.flip_7 import Flip7

    register(Flip7)
