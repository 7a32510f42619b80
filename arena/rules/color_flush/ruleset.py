"""Color Flush (`color-flush`): be the first to hold a hand whose faces are all one color.

Sources: the seed rulebook ``004_50eddf11bc4c1fec.txt`` and the rulings
``../shared/rules/color-flush.md``. Version "1".

How to play
-----------
Be the first whose hand shows one color on every face toward you (white counts as any
color). Every card has two faces. On your turn you give a card to a player (or place it
on the pile), take a card from a player (seeing only its back) or from the pile, and flip
one of your cards, in the order you choose. Placing a white face on the pile swaps hands
with a player; a black face toward you flips your whole hand. Hands keep 4 to 10 cards.

Players
-------
3 to 6 officially; 2 are allowed (ruling: "2 allowed as an option"). The
option is the player count itself: ``min_players`` is 2, so a table of two is
legal wherever a tournament asks for one. Seats are ``0 .. players-1``; seat 0
plays first, then clockwise (seat + 1).

Deck
----
50 two-faced cards by default (provisional, ours): 5 colors (red, yellow,
green, blue, purple); 40 two-color cards (each of the 10 pairs of different
colors, 4 copies); 5 white cards (white / one of each color); 5 black cards
(black / one of each color). Option ``deck`` replaces it with any list of face
pairs ``[[side_a, side_b], ...]``: each face a lowercase word (``[a-z][a-z0-9-]*``);
``"white"`` is the joker, ``"black"`` forces flips, any other word is a color.
A card may not be black on both faces. The deck must hold 14 to 1000 cards and at
least 7 per player (checked when the game is dealt).

Setup: every black face down; every other card lies with a side chosen by a fair
coin from the game's RNG (a real deck comes out of its box any way round; the
rulebook only says black faces go down). Then the pile is shuffled with the
seeded RNG, keeping each card's orientation. Each player draws 7 cards from the
top of the draw pile, one at a time, round-robin from seat 0; a drawn card keeps
the side that showed on the pile toward its taker (so nobody starts with a black
face toward them, and every seat saw every dealt face on the pile: at the start
everybody knows every other player's faces, and nobody knows their own backs).

A turn
------
The active player does each of three actions exactly once, in the order they
choose, one decision at a time:

1. ``give``: give one hand card to another player, or place it on top of the
   draw pile (the side toward the placer goes up);
2. ``take``: take one card from another player, chosen by position (the taker
   sees only its back; it arrives with that back toward the taker), or the top
   card of the draw pile (the side that showed up ends toward the taker);
3. ``flip``: turn one card of their own hand around.

Hand limits 4..10 bind every player at every moment: a form of an action that
would take any player outside them is not legal (giving or placing needs 5+
cards in the giver's hand and at most 9 in the receiver's; taking needs at most
9 in the taker's hand and 5+ in the victim's, or a non-empty draw pile).
A remaining action with no legal form *now* is simply not offered now: it may
become legal after another action of the same turn (take first, then give).
The turn ends when all three are done or when none of the remaining actions has
a legal form; those are dropped (event ``dropped``). ``flip`` always has a legal
form, so every turn has at least one decision.

White and black
---------------
- A white face toward its holder is a joker (any color); an all-white hand wins.
- Placing a card whose face toward the placer is white on the pile: the placer
  then chooses an opponent and the two swap whole hands without flipping (face
  and back of every card swap relative to its new holder). Option
  ``white_swap``: ``"must"`` (default, the seed) or ``"may"`` (BGA; adds
  ``no-swap``). The swap is its own decision right after the place.
- Whenever a player has a black face toward them (after a take, a give to them,
  a flip or a swap) they flip their whole hand, then flip on its own every card
  whose newly facing side is black. After a swap both players resolve, active
  player first. Forced flips resolve before any win is checked.

Winning and the end
-------------------
After every single change (deal completed, give, place, take, flip, swap, each
followed by its forced flips) every player's hand is checked: a hand wins when
its faces, whites counting as any color, are all one color. Several at once: the
active player wins, else the first in turn order after them. (In play only the
active player and one other can qualify at once; all of them can at the deal.) The
winner reveals their hand (event ``win``; every seat now knows those faces).
Standing: winner 1, everyone else 2; scores 1 / 0. Option ``max_turns`` (default
200): after that many completed turns (one turn = one player's three actions)
the game ends with everyone tied (reason ``"max_turns"``, scores all 0).

ACTION GRAMMAR (positions 0-based in the hand as ordered by arrival; seats absolute)
----------------------------------------------------------------------------------
- ``place:<pos>``         place own card ``pos`` on the draw pile (the give action)
- ``give:<pos>:<seat>``   give own card ``pos`` to player ``seat`` (the give action)
- ``take:<seat>:<pos>``   take card ``pos`` of player ``seat`` (the take action)
- ``take:pile``           take the draw pile's top card (the take action)
- ``flip:<pos>``          flip own card ``pos`` (the flip action)
- ``swap:<seat>``         after placing a white: swap hands with ``seat``
- ``no-swap``             after placing a white, only with ``white_swap = "may"``

Legal actions come in this order: for each position ``place:p`` then
``give:p:s`` (seats ascending); then ``take:s:p`` (seats ascending, positions
ascending), ``take:pile``; then ``flip:p``. While a swap is awaited:
``swap:s`` (seats ascending), then ``no-swap``.

VIEW FIELDS (``view(seat)``, fresh plain data, perfect recall)
--------------------------------------------------------------
- ``turn``: the seat whose decision it is (None once the game is over);
- ``active``: the active player (the seat whose turn it is);
- ``turn_number``: completed turns so far; ``max_turns``;
- ``awaiting``: ``"action"``, ``"swap"`` (the active player must choose whom to
  swap with) or None (over);
- ``actions_left``: the active player's actions not yet done this turn, from
  ``["give", "take", "flip"]`` (``give`` covers place);
- ``hands``: for every seat (own included), the cards by position as
  ``{"face", "back"}`` relative to their holder, each side None where this seat
  has not seen it (own faces and others' backs are always known);
- ``hand_sizes``; ``draw_pile``: ``{"size", "top"}`` with ``top`` =
  ``{"up", "down"}`` (``down`` None unless seen) or None when empty;
- ``winner``: the winning seat or None.

EVENT TYPES (each seat gets them as it saw them; ``card`` values are card views
as the receiving seat knows the card right after the move, relative to its holder)
-------------------------------------------------------------------------------
- ``deal``: ``faces`` (per seat, the 7 faces dealt, all seen on the pile), ``top``;
- ``turn``: ``seat`` starts turn number ``turn``;
- ``place``: ``seat``, ``pos``, ``card`` = ``{"up", "down"}``;
- ``give``: ``seat``, ``pos``, ``to``, ``card`` (in the receiver's hand);
- ``take``: ``seat``, ``from`` (a seat or ``"pile"``), ``pos`` (for a seat),
  ``card`` (in the taker's hand); from the pile also ``top``, the new pile top;
- ``flip``: ``seat``, ``pos``, ``card``;
- ``hand_flip``: ``seat``, ``cards`` (forced by a black face);
- ``black_flip``: ``seat``, ``pos``, ``card`` (a newly facing black flipped alone);
- ``swap``: ``seat``, ``with``, ``hand`` (seat's new hand), ``with_hand``;
- ``no_swap``: ``seat``; ``dropped``: ``seat``, ``actions``;
- ``win``: ``seat``, ``hand`` (the revealed faces); ``end``: ``reason``, ``turns``.

Decisions where the rulings are silent
--------------------------------------
- Orientation of non-black cards at setup: a fair coin each (see Deck).
- The deal is round-robin from seat 0, one card at a time.
- Wins are first checked when the deal is complete (seat 0 counts as active for
  the tie order); a game can in principle end before any decision.
- Temporarily impossible actions are postponed, not dropped (see A turn).
- The place of a white face and the swap that follows are two changes, each
  checked for a win (removing a joker never completes a hand, so the check after
  the place cannot end the game; the swap's can).
- A win reveals the winner's faces to everyone ("the player reveals their hand").
- With ``white_swap = "may"`` declining is the decision ``no-swap``.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from arena.errors import OptionError
from arena.rules.base import Option, Ruleset, winner_takes_all_draws
from arena.rules.color_flush.deck import DEFAULT_DECK, check_deck
from arena.rules.color_flush.engine import ACTION_NAMES, DEAL_SIZE, MAX_SEATS, PILE, ColorFlushState
from arena.rules.color_flush.evaluation import evaluate_color_flush
from arena.rules.color_flush.text import ColorFlushRenderer
from arena.rules.color_flush.value import VALUE_ID, VALUE_VERSION, pairwise_value, permute_unrevealed


# -- the ruleset -----------------------------------------------------------------

class ColorFlush(Ruleset):
    """Color Flush: give, take and flip two-faced cards until a hand is one color."""

    id = "color-flush"
    version = "1"
    title = "Color Flush"
    min_players = 2
    max_players = MAX_SEATS
    options = {
        "deck": Option(DEFAULT_DECK, "the cards as a list of face pairs [[side_a, side_b], ...]",
                       kind=list),
        "white_swap": Option("must", "placing a white face forces a hand swap ('must') or offers "
                             "one ('may')", choices=("must", "may")),
        "max_turns": Option(200, "the game ends in a tie after this many turns", minimum=1,
                            maximum=1_000_000),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        check_deck(options["deck"])

    capabilities = frozenset({"sample_state", "lay_out", "encoding", "evaluate", "chance_outcomes",
                              "pairwise_value", "permute_unrevealed"})
    pairwise_value_identity = (VALUE_ID, VALUE_VERSION)
    pairwise_value = staticmethod(pairwise_value)   # color_flush/value.py
    permute_unrevealed = staticmethod(permute_unrevealed)   # the never-seen pile cards, coins tossed again

    renderer = ColorFlushRenderer
    # the heuristic looks one to two plies ahead (~1 ms a decision): short playouts, a prior
    search_hints = {"playout_depth": 3, "random_playout_depth": 0, "playout_stop": None, "prior_weight": 1.0,
                    "opponents": "policy"}   # measured: benchmarks/strength_notes.md
    option_presets = {"learning": {}}   # random play already ends well before the turn limit

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return winner_takes_all_draws(players)

    card_faces = {face: (face, face) for pair in sorted(DEFAULT_DECK) for face in pair}   # a face is a color

    bot_example = '''
        hand = view["hands"][me]  # {"face": toward you, "back": toward the others or None}
        # Example: collect the color you see most in your hand (white is a joker).
        counts = {}
        for card in hand:
            if card["face"] not in ("white", "black"):
                counts[card["face"]] = counts.get(card["face"], 0) + 1
        target = max(sorted(counts), key=counts.get) if counts else None
        for action in legal:
            # Flip a card whose face is off-color but whose back (when you know it) is on it.
            if action.startswith("flip:"):
                card = hand[int(action.split(":")[1])]
                if card["face"] not in (target, "white") and card["back"] in (target, "white"):
                    return action
            # Give away (or place on the pile) a card that is off-color.
            if action.startswith(("give:", "place:")):
                if hand[int(action.split(":")[1])]["face"] not in (target, "white"):
                    return action
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                hands: Sequence[Sequence[Sequence[str]]] | None = None, pile: Sequence[Sequence[str]] = (),
                active: int = 0, left: Sequence[str] = ("give", "take", "flip"),
                turns: int = 0) -> ColorFlushState:
        """A state built from a table layout (see `Ruleset.capabilities`): `hands[seat]`
        lists ``(face, back)`` pairs relative to the holder, in position order; `pile`
        lists ``(up, down)`` pairs, bottom first. Each holder has seen their faces,
        everyone else the backs, everyone the pile top. The deck option becomes exactly
        these cards (its size is not checked); no win or black check is made. Without
        `hands`, the deal of `seed`."""
        if hands is None:
            return cls.new_game(players, cls.resolve_options(options), random.Random(seed))
        if len(hands) != players:
            raise ValueError(f"lay_out: {len(hands)} hands for {players} players")
        return _layout_state(hands, pile, active=active, left=left, turns=turns, options=options, seed=seed)

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> ColorFlushState:
        cls.check_players(players)
        if len(options["deck"]) < DEAL_SIZE * players:
            raise OptionError(f"option 'deck' has {len(options['deck'])} cards, too few to deal "
                              f"{DEAL_SIZE} to each of {players} players")
        state = ColorFlushState(players, options, rng)
        state._deal()
        return state

    evaluate = staticmethod(evaluate_color_flush)   # the `evaluate` capability: color_flush/evaluation.py
    encoding_function = "arena.rules.color_flush.encoding:encoding"
    sampler_function = "arena.rules.color_flush.sampler:sample_state"
    deck_option = "deck"   # chance_outcomes: the cards in play, and one


# -- a constructor for hand-set states (`ColorFlush.lay_out`) -----------------------

def _layout_state(hands, pile, *, active: int, left, turns: int, options: Mapping[str, Any] | None,
                  seed: int) -> ColorFlushState:
    """`ColorFlush.lay_out` with a layout."""
    players = len(hands)
    given = dict(options or {})
    given.pop("deck", None)
    resolved = ColorFlush.resolve_options(given)
    cards = [tuple(card) for hand in hands for card in hand] + [tuple(card) for card in pile]
    resolved["deck"] = [list(card) for card in cards]
    state = ColorFlushState(players, resolved, random.Random(seed))
    table = state.table
    card = 0
    for seat, hand in enumerate(hands):
        for _ in hand:
            table.side[card] = 0
            table.hands[seat].append(card)
            table._show_held(seat, card)
            card += 1
    table.new_pile(PILE, list(range(card, len(cards))), up_sides=[0] * len(pile))
    state.active = active
    state.turns = turns
    state.left = sum(bit for bit, name in ACTION_NAMES if name in left)
    return state


ColorFlushState.ruleset = ColorFlush
