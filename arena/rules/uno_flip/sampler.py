"""UNO Flip: the determinization sampler (`sample_state`): a full state consistent with
one seat's observation, for search bots."""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from arena.rules.cards import TwoFacedTable
from arena.rules.chance import sample, shuffle
from arena.rules.observation_cache import ObservationCache
from arena.rules.uno_flip.engine import (CHALLENGE, COLOR, DARK, LIGHT, OVER, SIDE_NAMES, UnoFlipDeck,
                                         UnoFlipState, deck_from_option)


# -- determinization ---------------------------------------------------------------

_SAMPLE_TRIES = 50


class _DeckIndex:
    """Per-deck tables for the sampler: card ids by (light, dark) pair and by face per side."""

    def __init__(self, deck: UnoFlipDeck):
        by_pair: dict[tuple[str, str], list[int]] = {}
        for card, pair in enumerate(deck.faces):
            by_pair.setdefault(pair, []).append(card)
        self.deck = deck
        self.by_pair = {pair: tuple(ids) for pair, ids in by_pair.items()}
        self.pairs_with: tuple[dict[str, list[tuple[str, str]]], ...] = ({}, {})  # per side: face -> the pairs that have it on that side
        for pair in self.by_pair:
            for side in (LIGHT, DARK):
                self.pairs_with[side].setdefault(pair[side], []).append(pair)
        self.tables: dict[int, TwoFacedTable] = {}

    def empty_table(self, players: int) -> TwoFacedTable:
        """A fresh table of this deck: a clone of one template per player count, so
        that whatever the table caches per deck (its view cache) is built once."""
        template = self.tables.get(players)
        if template is None:
            template = self.tables[players] = TwoFacedTable(self.deck.faces, players)
            template.hand_view(0, 0)   # warms the view cache, if the shared model keeps one
        return template.clone()


def _deck_index(deck: UnoFlipDeck) -> _DeckIndex:
    """The sampler's index of `deck`, made once and kept on the deck."""
    index = deck.sampler_index
    if index is None:
        index = deck.sampler_index = _DeckIndex(deck)
    return index


def _discard_from_events(events: Sequence[Mapping[str, Any]], active: int
                         ) -> list[list[str | None]] | None:
    """The current round's discard pile from `events`, bottom first, each card as
    [light face, dark face] (None where the events do not tell); None if the events
    hold no deal of this round or end on the other side than `active`."""
    replay = _replay_discard(events)
    if replay is None or replay[1] != active:
        return None
    return replay[0]


def _replay_discard(events: Sequence[Mapping[str, Any]]
                    ) -> tuple[list[list[str | None]], int] | None:
    """(the discard pile, the active side) after `events`, for `_discard_from_events`."""
    start = None
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("type") == "deal":
            start = i
            break
    if start is None:
        return None
    side = LIGHT
    pile: list[list[str | None]] = []
    for event in events[start + 1:]:
        kind = event.get("type")
        if kind == "opening":
            card: list[str | None] = [None, None]
            card[side] = event["card"]
            pile.append(card)
        elif kind == "play":
            card = [None, None]
            card[side] = event["card"]
            card[1 - side] = event["back"]
            pile.append(card)
        elif kind == "reinsert":
            if pile:
                pile.pop()
        elif kind == "flip":
            side ^= 1
            pile.reverse()
            if pile and pile[-1][side] is None:
                pile[-1][side] = event["top"]
        elif kind == "reshuffle":
            pile = pile[-1:]
    return pile, side


def _agrees(card: list[str | None], up_side: int, up: str | None, down: str | None) -> bool:
    """Whether faces known of a pile card ([light, dark]) fit a top view {up, down}."""
    return ((card[up_side] is None or up is None or card[up_side] == up)
            and (card[1 - up_side] is None or down is None or card[1 - up_side] == down))


def sample_uno_flip_state(observation: Mapping[str, Any], rng: random.Random,
                          events: Sequence[Mapping[str, Any]] | None = None,
                          deck: UnoFlipDeck | None = None) -> UnoFlipState:
    """`UnoFlip.sample_state`: the state described by `observation`, with what its seat
    has not seen drawn from `rng`; a full, playable state that a search bot can play
    forward, consistent with what the observing seat knows (and, given `events`, with
    the cards it saw go onto the discard pile). `deck` is a hook for tests.

    Every card in play is a *slot* whose light and dark faces are known or not (None):
      - each hand card: from the view's {"face", "back"} (face = active side); the seat's
        own cards are known on both faces, an opponent's card on its inactive face, and on
        both after a Flip it was held through or a challenge that showed it;
      - the draw pile's top: {"up" (inactive side), "down"}; the cards below it: nothing;
      - the discard pile's top: {"up" (active side), "down"}; the cards below it: nothing
        from the view alone. With `events`, the discard pile of the current round is
        replayed (deal, opening, reinsert, play, flip, reshuffle events), which gives every
        buried discard card's faces (both for a played card, the up face for an opening
        card) in pile order; if that replay does not match the view's pile size, it is
        ignored.
    The deck's cards (option ``deck``: fixed light/dark pairs) are dealt to the slots: slots known on
    both faces take a card of that pair; slots known on one face take a card with that face
    (chosen uniformly among the cards still free that have it, group by group); every other
    slot takes the rest in uniformly random order. With all one-face slots on the same side
    (the usual case: opponents' cards and the draw top show the inactive side) this is
    exactly uniform over the consistent deals; otherwise it retries on a dead end.
    Who has seen which side: the observing seat exactly as its view says; a holder has seen
    both faces of its own cards; every other seat the inactive face of held cards and, for
    cards of a hand other than the observer's, the active face if the observer has seen it
    (a Flip is public; a challenge's private look is not modelled); pile tops as the
    observer; buried discard cards both faces (each was a top, played from a hand).
    The pending Wild Draw's "held" count (the offender's hand when it was played, for the
    bluff test) is the offender's hand size, or 1 when the events show an UNO penalty after
    the play. Past rounds' turn counts (outcome "round_turns") are not in the observation:
    they are zeros. The returned state's rng is seeded from `rng` (one draw).
    A search samples one observation many times: what the observation fixes (`_PreparedDeal`)
    is prepared once and kept while the same view object, events list (of the same length)
    and deck come back (`ObservationCache`): a view changed in place must be passed as a copy.
    """
    view = observation["view"]
    players = observation["players"]
    deal = _prepared_deal(observation, events, deck)
    cards = deal.cards(rng)
    state = _new_state(view, players, observation["options"], deal, rng)
    _deal_hands(state.table, deal, cards, observation["seat"])
    _deal_piles(state.table, deal, cards, view["discard"]["top"])
    pending = view["pending"]
    if state.phase == COLOR:
        state.color_reason = pending["reason"]
    elif state.phase == CHALLENGE:
        offender = pending["offender"]
        state.challenge_info = (offender, pending["card"], pending["prior_color"],
                                _held(deal.hand_sizes[offender], offender, events))
    return state


def _held(size: int, offender: int, events: Sequence[Mapping[str, Any]] | None) -> int:
    """The pending Wild Draw's "held" count: the offender's hand `size`, or 1 when the
    events show an UNO penalty of the offender's after the play."""
    if events:
        for event in reversed(events):
            kind = event.get("type")
            if kind == "uno-penalty" and event.get("seat") == offender:
                return 1
            if kind == "play":
                break
    return size


def _new_state(view: Mapping[str, Any], players: int, options: Mapping[str, Any], deal: _PreparedDeal,
               rng: random.Random) -> UnoFlipState:
    """The sampled state but for its cards' places: what the view and options say, its rng
    seeded from `rng` (one draw), an empty table."""
    state = UnoFlipState(players, options, rng.getrandbits(64), fresh=False)   # seeded at its first draw
    state.deck = deal.deck
    state.target = options["target_score"]
    state.lowest = options["scoring"] == "lowest"
    state.redraw = options["opening_action"] == "redraw"
    state.reverse_skips = bool(options["two_player_reverse_skips"]) and players == 2
    state.uno_penalty = options["uno_penalty"]
    state.max_turns = options["max_turns"]
    state.everyone = tuple(range(players))
    state.scores = list(view["scores"])
    state.round = view["round"]
    state.dealer = view["dealer"]
    state.round_turns = [0] * (state.round - 1)
    state.last_points = [0] * players
    state.last_hands = None
    state.winner = None
    state.reason = None
    state.active = deal.a
    state.direction = view["direction"]
    state.turns = view["turns"]
    state.color = view["color"]
    state.seat = view["turn"]
    state.phase = view["phase"]
    state.color_reason = None
    state.challenge_info = None
    state._legal = None
    state.table = deal.index.empty_table(players)
    return state


def _deal_hands(table: TwoFacedTable, deal: _PreparedDeal, cards: list[int], me: int) -> None:
    """The hands' cards (`cards`, in slot order) into `table`, active side up, with who has
    seen which side (as `sample_uno_flip_state` says)."""
    a, b = deal.a, 1 - deal.a
    slots, side, seen = deal.slots, table.side, table.seen
    everyone_bits = table._everyone
    mine = (1 << 2 * me, 2 << 2 * me)         # the observer's bit for side 0 / side 1
    pos = 0
    for holder, size in enumerate(deal.hand_sizes):
        hand = cards[pos:pos + size]
        table.hands[holder] = hand
        own_both = 3 << 2 * holder
        for card, slot in zip(hand, slots[pos:pos + size]):
            side[card] = a
            # others see the back; the holder sees both
            bits = (everyone_bits[b] & ~(1 << (2 * holder + b))) | own_both
            if holder != me and slot[a] is not None:
                bits |= everyone_bits[a]
            # the observer: exactly what its view says
            bits &= ~(mine[0] | mine[1])
            if slot[0] is not None:
                bits |= mine[0]
            if slot[1] is not None:
                bits |= mine[1]
            seen[card] = bits
        pos += size


def _deal_piles(table: TwoFacedTable, deal: _PreparedDeal, cards: list[int], discard_top: Mapping[str, Any]) -> None:
    """The draw and discard piles' cards (`cards`, in slot order) into `table`: the draw
    pile inactive side up, its top seen as the observer saw it; buried discards seen on
    both sides, the discard top as the observer saw it."""
    a, b = deal.a, 1 - deal.a
    side, seen = table.side, table.seen
    everyone_bits = table._everyone
    draw_at, discard_at = deal.draw_at, deal.discard_at
    draw = cards[draw_at:discard_at]
    for card in draw:
        side[card] = b
    if draw:
        top_slot = deal.slots[discard_at - 1]
        bits = everyone_bits[b]
        if top_slot[a] is not None:
            bits |= everyone_bits[a]
        seen[draw[-1]] = bits
    discard = cards[discard_at:]
    both = everyone_bits[0] | everyone_bits[1]
    for card in discard:
        side[card] = a
        seen[card] = both
    if discard:
        bits = everyone_bits[a]
        if discard_top["down"] is not None:
            bits |= everyone_bits[b]
        seen[discard[-1]] = bits
    table.piles["draw"] = draw
    table.piles["discard"] = discard


def _view_slots(view: Mapping[str, Any], a: int, events: Sequence[Mapping[str, Any]] | None
                ) -> tuple[list[list[str | None]], int, int]:
    """Every card's slot ([light, dark] known faces) as the view shows it (`a`: the active
    side): the hands, then the draw pile, then the discard pile (its buried cards from
    `events` where they replay to the view's pile), each bottom first; and where the draw
    and the discard pile begin."""
    b = 1 - a
    slots: list[list[str | None]] = []
    for cards in view["hands"]:
        for card in cards:
            slot: list[str | None] = [None, None]
            slot[a] = card["face"]
            slot[b] = card["back"]
            slots.append(slot)
    draw_size = view["draw_pile"]["size"]
    draw_at = len(slots)
    if draw_size:
        slots.extend([None, None] for _ in range(draw_size - 1))
        top = view["draw_pile"]["top"]
        slot = [None, None]
        slot[b] = top["up"]
        slot[a] = top["down"]
        slots.append(slot)
    discard_size = view["discard"]["size"]
    discard_at = len(slots)
    discard_top = view["discard"]["top"]
    buried = _discard_from_events(events, a) if events else None
    if buried is not None and (len(buried) != discard_size or (buried and not _agrees(
            buried[-1], a, discard_top["up"], discard_top["down"]))):
        buried = None
    if buried is None:
        buried = [[None, None] for _ in range(discard_size)]
    slots.extend(buried)
    if discard_size:
        slot = slots[-1]
        slot[a] = discard_top["up"]
        if discard_top["down"] is not None:
            slot[b] = discard_top["down"]
    return slots, draw_at, discard_at


class _PreparedDeal:
    """What every sample from one observation shares: the slots (as [light, dark] known
    faces: hands, then the draw pile, then the discard pile, each bottom first), the cards
    that slots known on both faces take, each group of one-face slots with the free cards
    that fit it, and the cards left for the unknown slots; `cards` deals the rest at random."""

    def __init__(self, observation: Mapping[str, Any], events: Sequence[Mapping[str, Any]] | None,
                 deck: UnoFlipDeck | None):
        view = observation["view"]
        if view["phase"] == OVER or view["turn"] is None:
            raise ValueError("sample_state: the observation is of a finished game")
        self.deck = deck if deck is not None else deck_from_option(observation["options"].get("deck"))
        self.index = index = _deck_index(self.deck)
        self.a = SIDE_NAMES.index(view["side"])
        self.hand_sizes = [len(cards) for cards in view["hands"]]
        slots, self.draw_at, self.discard_at = _view_slots(view, self.a, events)
        self.slots = slots
        if len(slots) != len(self.deck.faces):
            raise ValueError(f"sample_state: the view holds {len(slots)} cards, the deck {len(self.deck.faces)}")
        # a slot known on both faces takes a card of that pair (the last one free)
        free = {pair: list(ids) for pair, ids in index.by_pair.items()}
        self.known: list[int] = [-1] * len(slots)
        partial: dict[tuple[int, str], list[int]] = {}
        self.unknown: list[int] = []
        for i, (light, dark) in enumerate(slots):
            if light is not None and dark is not None:
                ids = free.get((light, dark))
                if not ids:
                    raise ValueError(f"sample_state: no card {light}/{dark} is left for the view")
                self.known[i] = ids.pop()
            elif light is not None:
                partial.setdefault((LIGHT, light), []).append(i)
            elif dark is not None:
                partial.setdefault((DARK, dark), []).append(i)
            else:
                self.unknown.append(i)
        # per group of one-face slots: its side, its slots, the free cards with that face there
        self.groups: list[tuple[int, list[int], list[int]]] = [
            (side, places, [card for pair in index.pairs_with[side].get(face, ()) for card in free[pair]])
            for (side, face), places in partial.items()]
        self.both_sides = len({side for side, _, _ in self.groups}) > 1
        self.rest = [card for ids in free.values() for card in ids]   # the free cards, in deck order
        if len(self.rest) - sum(len(places) for _, places, _ in self.groups) != len(self.unknown):
            raise ValueError("sample_state: the view's cards do not add up to the deck")

    def cards(self, rng: random.Random) -> list[int]:
        """A card id for each slot, consistent with the faces known there (as
        `sample_uno_flip_state` says)."""
        cards = self.known.copy()
        rest = self.rest
        if self.groups:
            for _ in range(_SAMPLE_TRIES):
                taken = self._deal_groups(cards, rng)
                if taken is not None:
                    break
            else:
                raise ValueError("sample_state: no deal of the cards fits the faces in the view")
            rest = [card for card in rest if card not in taken]
        else:
            rest = rest.copy()
        shuffle(rest, rng)
        for i, card in zip(self.unknown, rest):
            cards[i] = card
        return cards

    def _deal_groups(self, cards: list[int], rng: random.Random) -> set[int] | None:
        """Deal each group of one-face slots from its free cards not yet taken; the cards
        taken, or None at a dead end."""
        used: set[int] = set()
        groups = self.groups
        if self.both_sides:
            # Groups on both sides may compete for a card: deal them in a random order.
            groups = sorted(groups, key=lambda group: rng.random())
        for _, places, fitting in groups:
            candidates = [card for card in fitting if card not in used] if used else fitting
            if len(candidates) < len(places):
                return None
            for i, card in zip(places, sample(candidates, len(places), rng)):
                cards[i] = card
                used.add(card)
        return used


# A search samples one observation many times: its deal is prepared once.
_prepared_cache = ObservationCache()


def _prepared_deal(observation: Mapping[str, Any], events: Sequence[Mapping[str, Any]] | None,
                   deck: UnoFlipDeck | None) -> _PreparedDeal:
    """The prepared deal of `observation` and `events`, kept for the next sample of the
    same observation (`ObservationCache`; `deck` is the test hook's)."""
    deal: _PreparedDeal = _prepared_cache.get(observation, events, deck,
                                              lambda: _PreparedDeal(observation, events, deck))
    return deal
