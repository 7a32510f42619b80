"""`Observation`: what a bot receives at a decision, and `make_observation`, the one place it is made.

The match loop, the environments, the terminal, the conformance kit and the tests all build
a seat's observation here, so its keys, their order (the bytes the protocol sends) and their
meaning are the same everywhere. An observation is plain JSON data; a bot indexes it as a dict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, TypedDict

from arena.rules.game_state import fresh_copy

if TYPE_CHECKING:
    from arena.rules.base import Ruleset
    from arena.rules.game_state import GameState


class Observation(TypedDict):
    """One seat's observation at a decision, its keys in the order they are sent."""

    ruleset: str
    """The ruleset's id."""
    version: str
    """The ruleset's version."""
    options: dict[str, Any]
    """Every option's value in force (public, fixed for the game)."""
    seat: int
    """The observing seat."""
    players: int
    """How many seats the game has."""
    view: dict[str, Any]
    """What the seat sees now, with perfect recall (`GameState.view`)."""
    events: list[dict[str, Any]]
    """What the seat witnessed since its last decision (or, where a caller says so, since
    the game began)."""
    legal_actions: list[str]
    """The seat's legal actions; empty when it is not the seat to act."""


def make_observation(ruleset: type[Ruleset], state: GameState, seat: int,
                     events: Sequence[dict[str, Any]] | None = None, *,
                     options: dict[str, Any] | None = None,
                     legal_actions: Sequence[str] | None = None) -> Observation:
    """`seat`'s observation of `state`, fresh plain data sharing nothing with the engine.

    `events`: the seat's events (default: `state.take_events(seat)`, taken after the view);
    `options`: the options dict to hand over (default: a fresh copy of the state's; the match
    loop passes its own per-seat copies); `legal_actions`: the legal actions already asked
    of the state (default: the state's own when `seat` is to act, otherwise none).
    """
    view = state.view(seat)
    if events is None:
        taken = state.take_events(seat)
    else:
        taken = list(events)
    if legal_actions is None:
        legal = state.legal_actions() if state.current_seat() == seat else []
    else:
        legal = list(legal_actions)
    return {"ruleset": ruleset.id, "version": ruleset.version,
            "options": fresh_copy(state.options) if options is None else options,
            "seat": seat, "players": state.players, "view": view, "events": taken, "legal_actions": legal}
