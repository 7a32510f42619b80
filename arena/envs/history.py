"""The environments' optional history block: the table's last k actions, newest first.

Entry j (j = 0 the newest) is two one-hots: the seat that acted (``history_seats``,
``players`` entries per action) and the action it took in the action index
(``history_actions``, ``len(actions)`` entries per action; all zero for an action past a
hand cap, which has no index). Seats and actions are those the observer's array uses:
rotated when seats are relative. Slots before the game's first actions are all zero.

Every action in the four built-in games is announced to every seat (each is an event all
seats receive), so the block hides nothing the observation does not.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from arena.rules.encoding import Encoding, Feature


class History:
    """The last `length` actions of one game: (seat, absolute action index or None)."""

    def __init__(self, encoding: Encoding, length: int, offset: int):
        if length < 1:
            raise ValueError(f"history must be a whole number of actions >= 1, not {length!r}")
        self.length, self.players, self.width = length, encoding.players, len(encoding.actions)
        self.index = encoding.index
        self.actions: deque[tuple[int, int | None]] = deque(maxlen=length)
        self.seats_at = offset
        self.actions_at = offset + length * self.players
        self.size = length * (self.players + self.width)
        self.features = (Feature("history_seats", self.seats_at, length * self.players),
                         Feature("history_actions", self.actions_at, length * self.width))

    def clear(self) -> None:
        self.actions.clear()

    def record(self, seat: int, action: str) -> None:
        self.actions.appendleft((seat, self.index.get(action)))

    def fill(self, out: np.ndarray, seat_shift: int, to_relative: np.ndarray | None) -> None:
        """Write the block into `out` (zeros there already) for an observer whose seats are
        shifted by `seat_shift` and whose index of absolute action a is ``to_relative[a]``
        (None: absolute)."""
        for j, (seat, number) in enumerate(self.actions):
            out[self.seats_at + j * self.players + (seat - seat_shift) % self.players] = 1.0
            if number is not None:
                if to_relative is not None:
                    number = int(to_relative[number])
                out[self.actions_at + j * self.width + number] = 1.0
