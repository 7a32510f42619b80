"""`EngineState`: the base class of the built-in engines' states.

In an ordinary install it is `GameState` itself. In a compiled install (docs/compiled.md)
it is the compiled copy of `game_state.py` that the build makes, so that the built-in
states compile to native classes, while plugins' states keep deriving from the Python
`GameState`; that copy is registered as a virtual subclass of `GameState`, so
`isinstance(state, GameState)` holds for every state.
"""

from arena.rules.game_state import GameState

try:
    from arena.rules._compiled_game_state import GameState as EngineState  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    EngineState = GameState  # type: ignore[misc, unused-ignore]
else:
    GameState.register(EngineState)

__all__ = ["EngineState"]
