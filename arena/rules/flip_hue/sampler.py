"""Flip Hue: the determinization sampler (`sample_state`): a full state consistent with
one seat's observation, for search bots."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.rules.chance import Chance
from arena.rules.cards import TwoFacedTable, seen_toward
from arena.rules.flip_hue.engine import (CLEANUP, DISCARD, DRAW, FLIP, OVER, PUSH, FlipHueState,
                                         fit_for_faction)
from arena.rules.matching import CardMatching
from arena.rules.observation_cache import ObservationCache
from arena.rules.recall import AnonymousFaces, RecallCache


# -- determinization ---------------------------------------------------------------------

def sample_state(observation: Mapping[str, Any], rng: random.Random,
                 events: list[dict[str, Any]] | None = None) -> FlipHueState:
    """A playable `FlipHueState` consistent with one seat's observation.

    Uses only the observation (``options``, ``players``, ``seat``, ``view``) and,
    when given, `events`: every event the seat received since the game began.

    - Cards: the faction cards, every hand card and both pile tops are slots with
      the sides the seat has seen. Fully seen cards are taken out of the deck
      multiset (``options["deck"]``); a half-seen card (another seat's faction
      bottom, another seat's face, an own back not seen, a pile top's down side)
      gets a remaining card with the seen face, its other face becoming the hidden
      side (`matching.CardMatching`, shared: a randomized search weighted by
      copies left, see there); a faction card must stay fit (two different colors,
      no Flip). The rest of the deck is shuffled into the buried parts of the draw
      and discard piles, each card either way up.
    - At the push step (right after a win check that found nothing) no player may
      already qualify for a win; such a sample is drawn again (up to 50 times, then
      kept). Later in a turn a hand may qualify (it is only checked at step 4).
    - With `events` (starting with the ``faction`` deals): the public moves are
      replayed on anonymous cards (`_Recall`), which gives exactly what every seat
      has seen of every card (who saw which side depends only on the moves; a
      discard's side up is read off the event; only a one-color card's is
      ambiguous, then the face is taken) and what this seat remembers of the buried
      discard pile cards (their seen sides are kept). A reshuffle forgets the
      cards' history, as in the engine. The replay is cached for the same (growing)
      events list. Events that do not reproduce the view are ignored.
    - Without events, knowledge is estimated. The seat's seen sides are always
      exactly those of the view. Another seat S has seen: every faction top and its
      own faction bottom; its own faces and backs (the deal and every draw show a
      holder both sides of its card); the
      back of every other hand card; another holder's face when the observing seat
      has seen it (a card that came by a give or pull, whose face everyone but the
      giver saw) unless that holder is the observing seat; both pile tops' up sides
      and their down sides when the observing seat has seen them. Buried pile cards
      count as unseen by everyone (a reshuffle forgets them).
    - The state's rng is seeded from `rng`; the sample depends on nothing else.
    - A search samples one observation many times: its slots and card matching are worked
      out once and kept while the same view object, events list (of the same length) and
      deck come back (`ObservationCache`): a view changed in place must be passed as a copy.
    """
    view = observation["view"]
    if view.get("to_act") is None or view.get("step") == OVER:
        raise ValueError("sample_state needs an observation of a game in progress")
    slots, seen, matching = _prepared.get(observation, events, observation["options"]["deck"],
                                          lambda: _prepare(observation, events))
    state = None
    for _ in range(50):
        pairs = matching.assign(rng)
        state = _build_state(observation, pairs, slots, seen)
        if state.step != PUSH or state.find_win() is None:
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
    slots: list[tuple[str | None, str | None]] = []
    for faction in view["factions"]:
        slots.append((faction["top"], faction["bottom"]))
    for hand in view["hands"]:
        for card in hand:
            slots.append((card["face"], card["back"]))
    recall = _recall(observation, events) if events else None
    for name in ("draw_pile", "discard_pile"):
        pile = view[name]
        top = pile["top"]
        if top is not None:
            if recall is not None and name == "discard_pile":
                slots.extend(recall.buried(DISCARD))
            else:
                slots.extend([(None, None)] * (pile["size"] - 1))
            slots.append((top["up"], top["down"]))
    seen = recall.seen() if recall is not None else None
    if len(slots) != len(deck):
        raise ValueError(f"the observation shows {len(slots)} cards, the deck has {len(deck)}")
    kinds = [1] * players + [0] * (len(slots) - players)  # 1: a faction card
    return slots, seen, CardMatching(deck, slots, _fits, kinds)


def _fits(kind: int, pair: tuple[str, str]) -> bool:
    """May a card of `pair` (toward, away) fill a slot of `kind` (1: a faction card)?"""
    return not kind or fit_for_faction(pair)


def _build_state(observation: Mapping[str, Any], pairs: list[tuple[str, str]],
                 slots: list[tuple[str | None, str | None]], exact: list[int] | None = None) -> FlipHueState:
    """The state whose card `i` is `pairs[i]` = (toward/up/top, away/down/bottom),
    side 0 toward, in slot order (factions, hands seat by seat, the draw pile bottom
    first, the discard pile bottom first). `exact`: every card's seen bits (side 0 =
    toward) from a replay, else they are estimated."""
    view = observation["view"]
    seat = observation["seat"]
    players = observation["players"]
    options = observation["options"]
    state = FlipHueState(players, options, 0, fresh=False)   # its chance replaced by the caller
    state.max_turns = options["max_turns"]
    table = state.table = TwoFacedTable(pairs, players)
    state.faction = list(range(players))
    _estimate_seen(table, view, slots, seat, players)
    if exact is not None:
        table.seen = exact[:]
    state.active = view["turn"]
    state.to_act = view["to_act"]
    state.step = view["step"]
    state.turn = view["turn_number"]
    pull = view["pull"]
    state.pull_target = pull["target"] if pull else -1
    state.pull_pos = pull["pos"] if pull else -1
    state.cleanup_index = (state.to_act - state.active) % players if state.step == CLEANUP else 0
    state.winner = None
    state.reason = ""
    state._legal = None
    return state


def _estimate_seen(table: TwoFacedTable, view: Mapping[str, Any], slots: list[tuple[str | None, str | None]],
                   seat: int, players: int) -> None:
    """Every card's seen bits (two per seat, side 0 = toward) as the view lets `seat` guess
    them: its own from what it was shown (`slots`), the others' from where the card has been."""
    seen = table.seen
    everyone0 = sum(1 << (2 * s) for s in range(players))
    everyone1 = everyone0 << 1
    mine = 3 << (2 * seat)

    def known(slot: int) -> int:
        toward, away = slots[slot]
        return (1 if toward is not None else 0) | (2 if away is not None else 0)

    for owner in range(players):
        seen[owner] = (((everyone0 | (3 << (2 * owner))) & ~mine) | (known(owner) << (2 * seat)))
    card = players
    for holder, hand in enumerate(view["hands"]):
        cards = table.hands[holder]
        for _ in hand:
            mask = known(card)
            bits = (3 << (2 * holder)) | (everyone1 & ~(3 << (2 * holder)))
            if holder != seat and mask & 1:
                bits |= everyone0
            seen[card] = (bits & ~mine) | (mask << (2 * seat))
            cards.append(card)
            card += 1
    for name, pile_name in (("draw_pile", DRAW), ("discard_pile", DISCARD)):
        size = view[name]["size"]
        pile = list(range(card, card + size))
        card += size
        table.piles[pile_name] = pile
        if pile:
            top = pile[-1]
            mask = known(top)
            bits = everyone0 | (everyone1 if mask & 2 else 0)
            seen[top] = (bits & ~mine) | (mask << (2 * seat))
    assert card == len(table.faces)


class _Recall(AnonymousFaces):
    """The public moves of a game replayed on anonymous cards for one seat.

    ``table`` is a `TwoFacedTable` with placeholder faces whose sides, hands, piles
    and seen bits follow the real game (they depend only on the moves; after a
    reshuffle the draw pile's cards are interchangeable, as everyone forgot them).
    ``values[card][side]`` is the face this seat saw on that side (None: unseen).
    """

    def __init__(self, players: int, seat: int, count: int):
        self.players = players
        self.seat = seat
        self.table = TwoFacedTable([("", "")] * count, players)
        self.values: list[list[str | None]] = [[None, None] for _ in range(count)]
        self.faction = [-1] * players
        self.done = 0
        self.first: Any = None
        self.checked: Any = None  # the view last checked by `matches`, at `checked_at` events
        self.checked_at = -1
        self.ok = False
        self.memo: dict[Any, Any] = {}
        self.broken = False
        self.dealt = False

    def note(self, card: int, toward: str | None, away: str | None) -> None:
        side = self.table.side[card]
        values = self.values[card]
        if toward is not None:
            values[side] = toward
        if away is not None:
            values[1 - side] = away

    def note_hand(self, holder: int, shown: list[dict[str, Any]]) -> None:
        for card, view in zip(self.table.hands[holder], shown):
            self.note(card, view["face"], view["back"])

    def feed(self, events: list[dict[str, Any]]) -> None:
        """Replay `events[self.done:]`."""
        table = self.table
        try:
            for event in events[self.done:]:
                kind = event["type"]
                if not self.done:
                    if kind != "faction":
                        raise ValueError("the events do not start with the faction cards")
                    count = len(table.faces)
                    table.new_pile(DRAW, range(count), up_sides=[0] * count)
                    table.new_pile(DISCARD, [])
                if kind == "faction":
                    self._faction(event)
                elif kind in ("deal", "draw"):
                    if kind == "deal":
                        self.dealt = True
                    card = table.deal(DRAW, event["seat"], toward="down")
                    if kind == "deal":
                        table.see_both(card, event["seat"])
                    self.note(card, event["card"]["face"], event["card"]["back"])
                elif kind == "reshuffle":
                    self._reshuffle(event)
                elif kind in ("give", "take"):
                    giver, receiver = ((event["seat"], event["to"]) if kind == "give"
                                       else (event["from"], event["seat"]))
                    card = table.give(giver, event["pos"], receiver)
                    self.note(card, event["card"]["face"], event["card"]["back"])
                elif kind in ("push_flip", "block"):
                    card = table.place(event["seat"], event["pos"], DISCARD, "face")
                    self.note(card, FLIP, None)
                    flipped = event["target"] if kind == "push_flip" else event["puller"]
                    table.flip_hand(flipped)
                    self.note_hand(flipped, event["hand"])
                elif kind == "discard":
                    self._discard(event)
                self.done += 1
        except (KeyError, IndexError, TypeError, ValueError):
            self.broken = True

    def _faction(self, event: dict[str, Any]) -> None:
        """A faction card turned from the draw pile: kept, or to the discard pile."""
        table, piles = self.table, self.table.piles
        if self.dealt:
            raise ValueError("a faction card after the deal")
        card = piles[DRAW].pop()
        table.show_top(DRAW)
        table.see_both(card, event["seat"])
        self.note(card, event["top"], event.get("bottom"))
        if event["kept"]:
            self.faction[event["seat"]] = card
        else:
            piles[DISCARD].append(card)
            table.show_top(DISCARD)

    def _reshuffle(self, event: dict[str, Any]) -> None:
        """The discard pile becomes the draw pile, forgotten by everyone but its top."""
        table, piles = self.table, self.table.piles
        if not self.dealt or piles[DRAW]:
            raise ValueError("a reshuffle the replay cannot place")
        table.move_pile(DISCARD, DRAW)
        for card in piles[DRAW]:
            table.seen[card] = 0
            self.values[card] = [None, None]
        table.show_top(DRAW)
        self.note(piles[DRAW][-1], event["top"], None)

    def _discard(self, event: dict[str, Any]) -> None:
        """A card from a hand to the discard pile, with the side up that shows what was shown."""
        table = self.table
        seat, pos, shown = event["seat"], event["pos"], event["card"]
        card = table.hands[seat][pos]
        up = "face" if self._fits_up(card, table.side[card], shown) else "back"
        table.place(seat, pos, DISCARD, up)
        self.note(card, shown["up"], shown["down"])

    def _fits_up(self, card: int, up: int, shown: Mapping[str, Any]) -> bool:
        """Could side `up` of `card` going up show this seat `shown` ({up, down})?"""
        bits = self.table.seen[card] >> (2 * self.seat)
        values = self.values[card]
        if values[up] is not None and values[up] != shown["up"]:
            return False
        down = 1 - up
        if (shown["down"] is not None) != bool(bits >> down & 1):
            return False
        return shown["down"] is None or values[down] is None or values[down] == shown["down"]

    def matches(self, view: Mapping[str, Any]) -> bool:
        """True if the replay shows this seat exactly the sides `view` shows (the
        view fills in faces no event named)."""
        table = self.table
        if self.broken or not self.dealt or -1 in self.faction:
            return False
        for owner, shown in zip(self.faction, view["factions"]):
            if not self._agrees(owner, shown["top"], shown["bottom"]):
                return False
        if [len(h) for h in table.hands] != [len(h) for h in view["hands"]]:
            return False
        for holder, hand in enumerate(view["hands"]):
            for card, shown in zip(table.hands[holder], hand):
                if not self._agrees(card, shown["face"], shown["back"]):
                    return False
        for name, pile in (("draw_pile", DRAW), ("discard_pile", DISCARD)):
            cards = table.piles[pile]
            if len(cards) != view[name]["size"]:
                return False
            top = view[name]["top"]
            if top is not None and not self._agrees(cards[-1], top["up"], top["down"]):
                return False
        return True


    def buried(self, pile: str) -> list[tuple[str | None, str | None]]:
        """A pile's cards below its top (bottom first) as (up, down) this seat saw."""
        return [self._shown(card) for card in self.table.piles[pile][:-1]]

    def seen(self) -> list[int]:
        if "seen" not in self.memo:
            self.memo["seen"] = self._seen()
        return self.memo["seen"]

    def _seen(self) -> list[int]:
        """Every card's seen bits in slot order (factions, hands, draw, discard),
        re-based so that side 0 is the side toward the holder / up / on top."""
        table = self.table
        order = list(self.faction) + [c for hand in table.hands for c in hand] \
            + table.piles[DRAW] + table.piles[DISCARD]
        return seen_toward(table, order)


# One replay per events list (a few lists kept): an ISMCTS bot samples many times from
# the same, growing list, so the replay only ever runs over new events.
_recall_cache = RecallCache(8)


def _recall(observation: Mapping[str, Any], events: list[dict[str, Any]]) -> _Recall | None:
    """The replay of `events` for the observing seat, or None if it does not
    reproduce the observation's view."""
    return _recall_cache.get(observation, events, _Recall)


# Precomputed action strings and their parsed form (hot path): _GIVE[pos][seat],
# _FLIP[pos][seat], _PULL[seat][pos], _BLOCK[pos], _DISCARD[pos]. Hands hold at most
# 6 cards in play; `lay_out` keeps hand-set hands within MAX_HAND - 2.
