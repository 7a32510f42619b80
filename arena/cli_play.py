"""Old import path of `arena.cli.game` (the same module, so patching it patches the commands)."""

import sys

import arena.cli.game

sys.modules[__name__] = arena.cli.game
