"""`ObservationCache`: what a determinization sampler works out from one observation, kept
for the next sample of the same observation.

A search bot samples many states from one observation (and its seat's events so far); the
slots, the cards they fix and the matching of the rest are the same each time. A sampler
keeps them here, keyed by the objects themselves: the same view, events list (of the same
length) and deck. A view changed in place between calls is not noticed, so a caller that
changes one passes a copy (`sample_state`'s docstrings say so).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence


class ObservationCache:
    """The value made for the last observation asked about."""

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None   # view, events list, its length, deck
        self._value: Any = None

    def get(self, observation: Mapping[str, Any], events: Sequence[Any] | None, deck: Any,
            make: Callable[[], Any]) -> Any:
        """The value for `observation`, `events` and `deck`: the kept one if all three are
        the ones last asked about (events of the same length), else ``make()``, kept."""
        view = observation["view"]
        count = len(events) if events is not None else -1
        key = self._key
        if key is not None and key[0] is view and key[1] is events and key[2] == count and key[3] is deck:
            return self._value
        value = make()
        self._key, self._value = (view, events, count, deck), value
        return value

    def clear(self) -> None:
        self._key = self._value = None
