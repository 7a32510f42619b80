"""The `encoding` capability's shape: a table's stable action index and fixed-size
observation array (`Encoding`), and the pieces the built-in games build theirs from.

A ruleset that declares ``"encoding"`` (`Ruleset.capabilities`) returns an `Encoding` from
``encoding(players, options)`` (options resolved) with

- ``actions``: every action string the table can ever offer, in a fixed documented order;
  ``index[action]`` is its number. Seats in actions are absolute, as in the ruleset's
  action grammar.
- ``mask(legal_actions)``: an ``int8`` array, 1 at the index of each legal action that has
  one (an action past a hand cap may have none: the raw observation still lists it).
- ``encode(observation)``: a ``float32`` array of ``size`` built from ONE seat's
  observation (its ``seat`` and ``view``) and nothing else, so it hides exactly what the
  observation hides.
- ``encode_state_into(out, seat, state)``: the same array for `seat` written from the engine
  state: by the ruleset's ``state_fill`` where it declares one for the state's class (it
  reads only what `seat` may see, and writes exactly the entries the view's fill writes:
  the environments' step then builds no view), else from ``state.view(seat)``.
- ``features``: the array's consecutive named blocks (`Feature`: name, offset, length,
  per_seat), covering it exactly; `feature_name(i)` names entry ``i``. A ``per_seat`` block
  is one equal part per seat, in absolute seat order (a one-hot over seats, or a row or
  hand per seat); the environments' relative seats (`arena.envs.seats`) rotate exactly these.
- ``action_seats``: action kind (the text before the first ``:``) -> the ``:``-separated
  field of its actions that names a seat (``{"freeze": 1}`` for ``freeze:s``); the
  environments rotate those seats too. Kinds not listed name no seat.

Making arrays needs numpy (the ``test`` or ``examples`` extra); the layout and the action
index (what `arena docs` shows) do not.

The helpers (`arena.rules.card_slots`, imported here too) are the built-in card games'
layout: a card slot is two one-hots over
the deck's face vocabulary (`faces`: every face of ``options["deck"]``, sorted) plus one
entry for "not seen": the side toward the holder (or a pile's up side) and the other side.
An empty hand position is all zeros. Hands are laid out seat by seat (absolute), position by
position, up to a cap per game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena.rules.card_slots import faces, one_hot, places, put_card, put_hands  # noqa: F401 (the helpers' API, as before)

try:
    import numpy as np
except ImportError:   # the rules and the layout work without it; making arrays does not
    np = None  # type: ignore[assignment, unused-ignore]  # None stands for the missing module; callers check it


MASKS_KEPT = 4096
"""Masks an `Encoding` keeps, by legal actions (then it starts again)."""


@dataclass(frozen=True)
class Feature:
    """One named block of an observation array: entries ``offset .. offset + length - 1``."""

    name: str
    offset: int
    length: int
    per_seat: bool = False
    """One equal part per seat, seats in absolute order."""


class Layout:
    """Named consecutive blocks of an observation array, in the order they are asked for."""

    def __init__(self) -> None:
        self.size = 0
        self.features: list[Feature] = []

    def block(self, name: str, length: int, per_seat: bool = False) -> int:
        """Add a block of `length` entries named `name` (`per_seat`: one equal part per
        seat, in seat order); its offset."""
        start = self.size
        self.size += length
        self.features.append(Feature(name, start, length, per_seat))
        return start


class Encoding:
    """One ruleset's action index and observation array for one table (players, options)."""

    def __init__(self, ruleset_id: str, players: int, options: Mapping[str, Any], actions: Sequence[str],
                 layout: Layout, fill: Callable[[np.ndarray, int, Mapping[str, Any]], None],
                 hand_cap: int | None = None, action_seats: Mapping[str, int] | None = None,
                 state_fill: tuple[type, Callable[[np.ndarray, int, Any], None]] | None = None):
        """`fill(out, seat, view)` writes the array of `seat`'s view into zeros; `state_fill`:
        (a state class, ``fill(out, seat, state)``) writing the same entries from a state of
        exactly that class (subclasses, which may show another view, go through the view)."""
        self.ruleset_id = ruleset_id
        self.players = players
        self.options = dict(options)
        self.actions: tuple[str, ...] = tuple(actions)
        self.index: dict[str, int] = {action: i for i, action in enumerate(self.actions)}
        self.size = layout.size
        self.features: tuple[Feature, ...] = tuple(layout.features)
        self.hand_cap = hand_cap
        """Hand positions encoded (and in the action index), for a game with hands."""
        self.action_seats: dict[str, int] = dict(action_seats or {})
        """Action kind -> the field of its actions naming a seat (see the module docstring)."""
        self._fill = fill
        self._masks: dict[tuple[str, ...], np.ndarray] = {}   # legal actions -> their mask (copied out)
        self._state_class: type | None = None
        self._state_fill: Callable[[np.ndarray, int, Any], None] | None = None
        if state_fill is not None:
            self._state_class, self._state_fill = state_fill

    def mask(self, legal_actions: Sequence[str]) -> np.ndarray:
        """``int8`` array over the index: 1 for each legal action that has an index."""
        key = tuple(legal_actions)
        made = self._masks.get(key)
        if made is None:  # the same few legal lists come back again and again: each is made once
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            made = self._masks[key] = np.zeros(len(self.actions), dtype=np.int8)
            index = self.index
            made.put([index[a] for a in legal_actions if a in index], 1)
        return made.copy()

    def encode(self, observation: Mapping[str, Any], out: np.ndarray | None = None) -> np.ndarray:
        """The ``float32`` array of `observation` (its ``seat`` and ``view`` only)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out[:] = 0.0
        self._fill(out, observation["seat"], observation["view"])
        return out

    def encode_into(self, out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        """`encode` of `seat`'s `view` written into `out`, which must hold zeros (a fresh
        ``np.zeros``; entries past ``size`` are left alone): the environments' step, which
        makes its array once."""
        self._fill(out, seat, view)

    def encode_state_into(self, out: np.ndarray, seat: int, state: Any) -> None:
        """`encode_into` of ``state.view(seat)`` for the engine `state`: written from the state
        itself when the ruleset declared a fill for its class (no view is built), else
        from the view. `out` must hold zeros."""
        fill = self._state_fill
        if fill is not None and type(state) is self._state_class:
            fill(out, seat, state)
        else:
            self._fill(out, seat, state.view(seat))

    def feature_name(self, i: int) -> str:
        """The name of entry `i` of the array: its block's name and the place in it,
        e.g. ``"turn[2]"``; IndexError past the end."""
        for feature in self.features:
            if feature.offset <= i < feature.offset + feature.length:
                return feature.name if feature.length == 1 else f"{feature.name}[{i - feature.offset}]"
        raise IndexError(f"entry {i} is past the observation array's {self.size} entries")
