"""Relative seats for the environments: a table seen from the acting seat, that seat first.

With ``seats="relative"`` a seat's observation array and action index are rotated so that
relative seat ``q`` is absolute seat ``(seat + q) % players``: the observer is always seat 0,
the next in seat order seat 1, and so on. A policy shared across seats then sees every seat
alike. What rotates is declared by the encoding (`arena.rules.encoding`): its ``per_seat``
blocks (one part per seat) and, in actions, the seat field of each kind in ``action_seats``.
Everything else (counts, piles, the direction of play) is the same from every seat.
"""

from __future__ import annotations

import numpy as np

from arena.rules.encoding import Encoding


class RelativeSeats:
    """The rotations of one `Encoding`, built once per table: for each observing seat, the
    gather index of its array (``relative = absolute[array_order[seat]]``) and of its action
    index (relative index i is absolute index ``actions[seat][i]``; absolute index a is
    relative index ``to_relative[seat][a]``)."""

    def __init__(self, encoding: Encoding):
        if not any(feature.per_seat for feature in encoding.features):
            raise ValueError(f"ruleset {encoding.ruleset_id!r}: its encoding marks no per-seat block "
                             "(Layout.block(..., per_seat=True)), so relative seats cannot be built")
        self.players = players = encoding.players
        self.array_order = [self._array(encoding, seat) for seat in range(players)]
        self.actions = [self._actions(encoding, seat) for seat in range(players)]
        self.to_relative = [np.argsort(order) for order in self.actions]

    @staticmethod
    def _array(encoding: Encoding, seat: int) -> np.ndarray:
        order = np.arange(encoding.size, dtype=np.intp)
        players = encoding.players
        for feature in encoding.features:
            if not feature.per_seat:
                continue
            if feature.length % players:
                raise ValueError(f"ruleset {encoding.ruleset_id!r}: per-seat block {feature.name!r} has "
                                 f"{feature.length} entries, not a multiple of {players} seats")
            part = feature.length // players
            block = np.arange(feature.offset, feature.offset + feature.length, dtype=np.intp).reshape(players, part)
            order[feature.offset:feature.offset + feature.length] = np.roll(block, -seat, axis=0).ravel()
        return order

    @staticmethod
    def _actions(encoding: Encoding, seat: int) -> np.ndarray:
        """Relative index -> absolute index for an observer at `seat`."""
        order = np.empty(len(encoding.actions), dtype=np.intp)
        for i, action in enumerate(encoding.actions):
            order[i] = encoding.index[rotate_action(action, seat, encoding.players, encoding.action_seats)]
        return order


def rotate_action(action: str, shift: int, players: int, action_seats: dict[str, int]) -> str:
    """`action` with its seat field (if its kind has one) moved `shift` seats on."""
    fields = action.split(":")
    field = action_seats.get(fields[0])
    if field is None or field >= len(fields) or not fields[field].isdigit():
        return action
    fields[field] = str((int(fields[field]) + shift) % players)
    return ":".join(fields)
