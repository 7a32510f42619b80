"""Color Flush: the determinization sampler (`sample_state`): a full state consistent with
one seat's observation, for search bots."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.rules.cards import TwoFacedTable, seen_toward
from arena.rules.chance import Chance
from arena.rules.color_flush.engine import ACTION_NAMES, BLACK, PILE, ColorFlushState
from arena.rules.matching import CardMatching
from arena.rules.observation_cache import ObservationCache
from arena.rules.recall import AnonymousFaces, RecallCache


# -- determinization ---------------------------------------------------------------------

def sample_state(observation: Mapping[str, Any], rng: random.Random,
                 events: list[dict[str, Any]] | None = None) -> ColorFlushState:
    """A playable `ColorFlushState` consistent with one seat's observation.

    Uses only the observation (``options``, ``players``, ``seat``, ``view``) and,
    when given, `events`: every event the seat received since the game began.

    - Cards: every card in a hand and the pile top is a slot with the sides the seat
      has seen (face/back, up/down). Fully seen cards are taken out of the deck
      multiset (``options["deck"]``); a half-seen card gets a remaining card that has
      the seen face, its other face becoming the hidden side (`CardMatching`: a
      randomized depth-first search over classes of alike slots, least slack first,
      weighted by copies left, backtracking at a dead end; a tight position falls
      back to a flow plus random exchanges); the rest of the deck is shuffled into
      the buried part of the draw pile, each card either way up. No side toward a
      holder or up on the pile is black (the forced flips guarantee that in a real
      game).
    - Hands: no hand may already win (the game would be over); such a sample is
      drawn again (up to 50 times, then kept).
    - With `events` (starting with ``deal``): the public moves are replayed on
      anonymous cards (`_Recall`), which gives exactly what every seat has seen of
      every card (who saw which side depends only on the moves, never on the faces)
      and what this seat remembers of the buried pile cards (cards placed on the
      pile, former tops); buried cards the seat remembers keep their seen sides.
      The replay is cached for the same (growing) events list, so repeated calls
      cost only the new events. If the events do not reproduce the view (missing
      or foreign events) they are ignored.
    - Without events, knowledge is estimated: another seat S has seen the faces of
      its own cards, the backs of every other hand card, the up side of the pile
      top, and every side the observing seat has seen except S's own backs (in Color
      Flush nearly everything is seen by all at the deal and after each move; a
      holder does not see its backs). Buried pile cards count as unseen by everyone.
      The observing seat's seen sides are always exactly those of its view.
    - The state's rng is seeded from `rng`; the sample depends on nothing else.
    - A search samples one observation many times: its slots and card matching are worked
      out once and kept while the same view object, events list (of the same length) and
      deck come back (`ObservationCache`): a view changed in place must be passed as a copy.
    """
    view = observation["view"]
    players = observation["players"]
    if view.get("turn") is None or view.get("awaiting") is None:
        raise ValueError("sample_state needs an observation of a game in progress")
    slots, seen, matching = _prepared.get(observation, events, observation["options"]["deck"],
                                          lambda: _prepare(observation, events))
    state = None
    for _ in range(50):
        pairs = matching.assign(rng)
        state = _build_state(observation, pairs, slots, seen)
        if not any(state.hand_wins(s) for s in range(players)):
            break
    assert state is not None
    state.table.share_views()
    state.chance = Chance(rng.getrandbits(64))   # seeded at its first draw
    return state


# A search samples one observation many times: what it fixes is worked out once.
_prepared = ObservationCache()


def _prepare(observation: Mapping[str, Any], events: list[dict[str, Any]] | None
             ) -> tuple[list[tuple[str | None, str | None]], list[int] | None, CardMatching]:
    """The slots of `observation` (what its seat has seen of every card, in `_build_state`'s
    order), every card's seen bits from the replay of `events` (None without one), and their
    `CardMatching`."""
    view = observation["view"]
    players = observation["players"]
    deck = observation["options"]["deck"]
    hands_view = view["hands"]
    pile_view = view["draw_pile"]
    recall = _recall(observation, events) if events else None
    slots: list[tuple[str | None, str | None]] = []
    for holder in range(players):
        for card in hands_view[holder]:
            slots.append((card["face"], card["back"]))
    size = pile_view["size"]
    top = pile_view["top"]
    if recall is not None:
        slots.extend(recall.buried())
    else:
        slots.extend([(None, None)] * (size - 1 if top is not None else 0))
    if top is not None:
        slots.append((top["up"], top["down"]))
    if len(slots) != len(deck):
        raise ValueError(f"the observation shows {len(slots)} cards, the deck has {len(deck)}")
    seen = recall.seen() if recall is not None else None
    return slots, seen, CardMatching(deck, slots, _toward_not_black)


def _toward_not_black(kind: Any, pair: tuple[str, str]) -> bool:
    return pair[0] != BLACK


def _build_state(observation: Mapping[str, Any], pairs: list[tuple[str, str]],
                 slots: list[tuple[str | None, str | None]], exact: list[int] | None = None) -> ColorFlushState:
    """The state whose card `i` is `pairs[i]` = (toward/up, away/down), side 0
    toward, laid out in slot order (hands seat by seat, then the pile bottom first).
    `exact`: every card's seen bits (side 0 = toward) from a replay, else estimated."""
    view = observation["view"]
    seat = observation["seat"]
    players = observation["players"]
    state = ColorFlushState(players, observation["options"], 0, faces=pairs)   # chance replaced by the caller
    table = state.table
    count = len(pairs)
    seen = [0] * count
    everyone0 = sum(1 << (2 * s) for s in range(players))
    everyone1 = everyone0 << 1
    mine = 3 << (2 * seat)
    card = 0
    for holder, hand in enumerate(view["hands"]):
        cards = table.hands[holder]
        own = 3 << (2 * holder)
        for _ in hand:
            toward, away = slots[card]
            # structural: holder sees the face, everyone else the back
            bits = (1 << (2 * holder)) | (everyone1 & ~own)
            # what the observer has seen, everyone but the holder (own backs) has too
            known = (1 if toward is not None else 0) | (2 if away is not None else 0)
            shared = (everyone0 if known & 1 else 0) | (everyone1 if known & 2 else 0)
            bits |= shared & ~(2 << (2 * holder))
            bits = (bits & ~mine) | (known << (2 * seat))
            seen[card] = bits
            cards.append(card)
            card += 1
    pile = list(range(card, count))
    table.piles[PILE] = pile
    if pile:
        toward, away = slots[-1]
        known = (1 if toward is not None else 0) | (2 if away is not None else 0)
        bits = everyone0 | (everyone1 if known & 2 else 0)
        seen[-1] = (bits & ~mine) | (known << (2 * seat))
    table.seen = exact[:] if exact is not None else seen
    state.active = view["active"]
    state.turns = view["turn_number"]
    state.left = sum(bit for bit, name in ACTION_NAMES if name in view["actions_left"])
    state.awaiting_swap = view["awaiting"] == "swap"
    state._legal = None
    return state


class _Recall(AnonymousFaces):
    """The public moves of a game replayed on anonymous cards for one seat.

    ``table`` is a `TwoFacedTable` whose faces are placeholders: its sides, hands,
    pile and seen bits follow the real game exactly (they depend only on the moves).
    ``values[card][side]`` is the face this seat saw on that side (None: unseen).
    """

    def __init__(self, players: int, seat: int, count: int):
        self.players = players
        self.seat = seat
        self.table = TwoFacedTable([("", "")] * count, players)
        self.values: list[list[str | None]] = [[None, None] for _ in range(count)]
        self.done = 0
        self.first: Any = None
        self.checked: Any = None  # the view last checked by `matches`, at `checked_at` events
        self.checked_at = -1
        self.ok = False
        self.memo: dict[Any, Any] = {}
        self.broken = False

    def note(self, card: int, toward: str | None, away: str | None) -> None:
        side = self.table.side[card]
        values = self.values[card]
        if toward is not None:
            values[side] = toward
        if away is not None:
            values[1 - side] = away

    def feed(self, events: list[dict[str, Any]]) -> None:
        """Replay `events[self.done:]`."""
        table = self.table
        note = self.note
        hands = table.hands
        try:
            for event in events[self.done:]:
                kind = event["type"]
                if kind == "deal":
                    self._deal(event)
                elif not self.done and kind != "deal":
                    raise ValueError("the events do not start with the deal")
                elif kind == "place":
                    card = table.place(event["seat"], event["pos"], PILE, up="face")
                    note(card, event["card"]["up"], event["card"]["down"])
                elif kind == "give":
                    card = table.give(event["seat"], event["pos"], event["to"])
                    note(card, event["card"]["face"], event["card"]["back"])
                elif kind == "take":
                    self._take(event)
                elif kind in ("flip", "black_flip"):
                    card = table.flip_card(event["seat"], event["pos"])
                    note(card, event["card"]["face"], event["card"]["back"])
                elif kind == "hand_flip":
                    table.flip_hand(event["seat"])
                    for card, shown in zip(hands[event["seat"]], event["cards"]):
                        note(card, shown["face"], shown["back"])
                elif kind == "swap":
                    table.swap_hands(event["seat"], event["with"])
                    for holder, key in ((event["seat"], "hand"), (event["with"], "with_hand")):
                        for card, shown in zip(hands[holder], event[key]):
                            note(card, shown["face"], shown["back"])
                self.done += 1
        except (KeyError, IndexError, TypeError, ValueError):
            self.broken = True

    def _deal(self, event: dict[str, Any]) -> None:
        """The deal: every card in the pile, then the hands dealt face up, the pile's top shown."""
        if self.done:
            raise ValueError("a second deal")
        table = self.table
        count = len(table.faces)
        table.new_pile(PILE, range(count), up_sides=[0] * count)
        faces = event["faces"]
        for _ in range(len(faces[0])):
            for seat in range(self.players):
                table.deal(PILE, seat, toward="up")
        for seat, hand in enumerate(faces):
            for card, face in zip(table.hands[seat], hand):
                self.note(card, face, None)
        if event["top"] is not None:
            self.note(table.piles[PILE][-1], event["top"], None)

    def _take(self, event: dict[str, Any]) -> None:
        """A card taken from the pile (its new top shown) or from another seat's hand."""
        table = self.table
        if event["from"] == "pile":
            card = table.deal(PILE, event["seat"], toward="up")
            top = event.get("top")
            if top is not None:
                self.note(table.piles[PILE][-1], top["up"], top["down"])
        else:
            card = table.remove(event["from"], event["pos"])
            table.add(event["seat"], card, transferred=True)
        self.note(card, event["card"]["face"], event["card"]["back"])

    def matches(self, view: Mapping[str, Any]) -> bool:
        """True if the replay shows this seat exactly the sides `view` shows (the
        view fills in the faces no event named, e.g. the backs seen at the deal)."""
        table = self.table
        if self.broken or [len(h) for h in table.hands] != view["hand_sizes"]:
            return False
        if len(table.piles.get(PILE, ())) != view["draw_pile"]["size"]:
            return False
        for holder, hand in enumerate(view["hands"]):
            for card, shown in zip(table.hands[holder], hand):
                if not self._agrees(card, shown["face"], shown["back"]):
                    return False
        top = view["draw_pile"]["top"]
        if top is not None and not self._agrees(table.piles[PILE][-1], top["up"], top["down"]):
            return False
        return True


    def buried(self) -> list[tuple[str | None, str | None]]:
        """The buried pile cards (bottom first) as (up, down) this seat remembers."""
        return [self._shown(card) for card in self.table.piles[PILE][:-1]]

    def seen(self) -> list[int]:
        if "seen" not in self.memo:
            self.memo["seen"] = self._seen()
        return self.memo["seen"]

    def _seen(self) -> list[int]:
        """Every card's seen bits in slot order (hands, then the pile), re-based so
        that side 0 is the side toward the holder / up."""
        table = self.table
        order = [c for hand in table.hands for c in hand] + table.piles[PILE]
        return seen_toward(table, order)


# One replay per events list (a few lists kept): an ISMCTS bot samples many times from
# the same, growing list, so the replay only ever runs over new events.
_recall_cache = RecallCache(8)


def _recall(observation: Mapping[str, Any], events: list[dict[str, Any]]) -> _Recall | None:
    """The replay of `events` for the observing seat, or None if it does not
    reproduce the observation's view."""
    return _recall_cache.get(observation, events, _Recall)
