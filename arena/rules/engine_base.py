"""`EngineState` and `EngineOwnEventCopies`: the base classes of the built-in engines' states.

In an ordinary install they are `GameState` and `OwnEventCopies` themselves. In a compiled
install (docs/compiled.md) they are the classes of the compiled copy of `game_state.py` that
the build makes, so that the built-in states compile to native classes, while plugins'
states keep deriving from the Python classes; each compiled class is registered as a virtual
subclass of its Python original, so `isinstance(state, GameState)` holds for every state.
"""

from arena.rules.game_state import GameState, OwnEventCopies

try:
    from arena.rules._compiled_game_state import GameState as EngineState  # type: ignore[import-not-found, unused-ignore]  # built by a compiled install only
    from arena.rules._compiled_game_state import OwnEventCopies as EngineOwnEventCopies  # type: ignore[import-not-found, unused-ignore]  # compiled only
except ImportError:
    EngineState = GameState  # type: ignore[misc, unused-ignore]  # the same class, uncompiled
    EngineOwnEventCopies = OwnEventCopies  # type: ignore[misc, unused-ignore]  # the same class, uncompiled
else:
    GameState.register(EngineState)
    OwnEventCopies.register(EngineOwnEventCopies)

__all__ = ["EngineOwnEventCopies", "EngineState"]
