"""A cache of event replays for determinization samplers (see `sample_state`).

A search bot samples many states from one observation and one growing list of
events. A sampler that replays those events to recover what every seat has seen
keeps its replay here, per events list, and feeds it only the new events.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping


class RecallCache:
    """The replays of the last few events lists, each checked once per observation.

    A replay object is made by ``make(players, seat, deck_size)`` and must offer
    ``feed(events)`` (replay the events it has not seen), ``matches(view)`` (does the
    replay reproduce this view), and the attributes ``done`` (events replayed),
    ``first``, ``checked``, ``checked_at``, ``ok`` and ``memo`` that this cache manages.
    """

    def __init__(self, size: int = 8):
        self.size = size
        # (events list, seat, players, deck size, replay), oldest first; found by identity
        self._entries: list[tuple[list[dict[str, Any]], int, int, int, Any]] = []

    def get(self, observation: Mapping[str, Any], events: list[dict[str, Any]],
            make: Callable[[int, int, int], Any]) -> Any | None:
        """The replay of `events` for the observing seat, or None if it does not
        reproduce the observation's view."""
        seat, players, count = observation["seat"], observation["players"], len(observation["options"]["deck"])
        found = next((i for i, entry in enumerate(self._entries)
                      if entry[0] is events and entry[1] == seat and entry[2] == players and entry[3] == count),
                     None)
        recall = self._entries[found][4] if found is not None else None
        if recall is None or recall.done > len(events) or recall.first is not events[0]:
            recall = make(players, seat, count)
            recall.first = events[0]
            entry = (events, seat, players, count, recall)
            if found is not None:
                self._entries[found] = entry
            else:
                if len(self._entries) >= self.size:
                    del self._entries[0]
                self._entries.append(entry)
        recall.feed(events)
        view = observation["view"]
        if recall.checked is not view or recall.checked_at != recall.done:
            # a search bot samples many times from one observation: check it once
            recall.ok = recall.matches(view)
            recall.checked, recall.checked_at = view, recall.done
            recall.memo = {}
        return recall if recall.ok else None


class AnonymousFaces:
    """What a replay learns about anonymous cards: ``values[card]`` holds each side's
    face once some seat saw it, ``table`` the replayed TwoFacedTable, ``seat`` the
    observer. Subclasses set those three."""

    table: Any
    seat: int
    values: list[list[str | None]]

    def _agrees(self, card: int, toward: str | None, away: str | None) -> bool:
        side = self.table.side[card]
        bits = self.table.seen[card] >> (2 * self.seat)
        values = self.values[card]
        for index, shown in ((side, toward), (1 - side, away)):
            if (shown is not None) != bool(bits >> index & 1):
                return False
            if shown is not None:
                if values[index] is not None and values[index] != shown:
                    return False
                values[index] = shown
        return True

    def _shown(self, card: int) -> tuple[str | None, str | None]:
        """(toward, away) as this seat has seen them."""
        side = self.table.side[card]
        bits = self.table.seen[card] >> (2 * self.seat)
        values = self.values[card]
        return (values[side] if bits >> side & 1 else None,
                values[1 - side] if bits >> (1 - side) & 1 else None)
