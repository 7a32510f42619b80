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
        # (view, events list, its length, deck, value), one object: set and read whole, so
        # that another thread never sees one observation's key with another's value
        self._entry: tuple[Any, Any, int, Any, Any] | None = None

    def get(self, observation: Mapping[str, Any], events: Sequence[Any] | None, deck: Any,
            make: Callable[[], Any]) -> Any:
        """The value for `observation`, `events` and `deck`: the kept one if all three are
        the ones last asked about (events of the same length), else ``make()``, kept."""
        view = observation["view"]
        count = len(events) if events is not None else -1
        entry = self._entry
        if entry is not None and entry[0] is view and entry[1] is events and entry[2] == count and entry[3] is deck:
            return entry[4]
        value = make()
        self._entry = (view, events, count, deck, value)
        return value

    def clear(self) -> None:
        self._entry = None
