"""Flip 7 (`flip-7`): push your luck, one card at a time.

Rules page of this ruleset, after the seed rulebook (`002_767dfbb72fcf16e3.txt`) and the
rulings (`shared/rules/flip-7.md`). "Flip 7" is a trademark of its owner (The Op); this
is an unofficial implementation for AI research.

How to play
    Each round, build a row of number cards in front of you. On your turn, hit (take the
    next card) or stay (bank the row's points). A number you already have busts you: 0 for
    the round. Seven different numbers end the round with +15. Modifier cards add to your
    row's points; Freeze, Flip Three and Second Chance are handed to a player of your
    choice. The first to reach the target score after a round wins (a tie plays on).

Players
    1 to 36. 3+ is the real game, 2 is allowed for head-to-head tables, 1 is the solo
    challenge (how many rounds to reach `target_score`; fewer is better). Seats are
    0 .. players-1 clockwise; "left of" seat s is seat s+1.

Deck
    94 cards: numbers "0".."12" (n copies of n, one "0"), modifiers "+2", "+4", "+6",
    "+8", "+10", "x2" (one each), actions "freeze", "flip-three", "second-chance" (three
    each). Above 18 players two such decks are shuffled together (188 cards). Cards are
    one-sided: a card is just its face string. Everything on the table is public; the
    only hidden thing is the order of the deck.

Round
    Seat 0 deals round 1; the deal passes left each round. The dealer deals one card to
    each player starting left of the dealer, dealer last. An action card dealt during
    the deal is resolved at once (its target chosen, a Flip Three played out), then the
    deal goes on. A player who is no longer active when the deal reaches them (frozen,
    or busted by a Flip Three) is skipped by the deal. One frozen before receiving their
    deal card banks what their row already holds, like any frozen player (0 unless a
    Flip Three dealt them cards; the ruling, amended in turn 2). One dealt cards by a
    Flip Three before their deal card, and still active, gets their deal card when the
    deal reaches them. Then, starting left of the dealer,
    each active player in turn chooses hit or stay, around the table, until nobody is
    active. Stay needs at least one card of any kind in front of the player.
    A number equal to one already in the row busts the player (0 this round; the cards
    stay on the table, the duplicate included, until the round ends). Seven different
    numbers (Flip 7) end the round at once for everyone, with +15 for that player.

Action cards
    freeze / flip-three: the player dealt it gives it to any ACTIVE player, themself
    included (the only active player must take it: a single legal action). The card is
    placed in front of its target. Freeze: the target banks their points and is out of
    the round. Flip Three: the target takes the next three cards one at a time; every
    card counts toward the three; it stops early on a bust or a Flip 7. A Second Chance
    among the three is handled at once (kept, used later in the same Flip Three, or
    passed on); using one discards it with the duplicate and the Flip Three goes on with
    its remaining cards. A Freeze or Flip Three among the three is set aside and, after
    the three cards, handed out by the target one at a time in the order flipped (each
    one fully resolved, a nested Flip Three included, before the next is handed out),
    unless the target busted or flipped 7 (then they are discarded). A target who
    leaves the round during the hand-out (frozen by one of the cards, or busted by a
    Flip Three they gave themself) still hands out the rest; a card with no active
    player left to receive it is discarded.
    second-chance: kept if the player holds none. A second one is given by that player to
    another active player holding none (their choice), or discarded if nobody
    qualifies. On a duplicate number the holder discards the duplicate and the Second
    Chance and stays in the round; on a hit that ends their turn (no replacement card).
    Unused Second Chances are discarded at the end of the round.
    Turn order is not changed by action cards: after a hit and everything it set off
    is resolved, the next hit-or-stay turn goes to the next active player after the
    player whose turn it was.

Scoring and the deck between rounds
    Round score: sum of numbers, doubled by x2 (numbers only), plus +2..+10, plus 15 for
    a Flip 7; busted players score 0. A lone +N scores N, a lone x2 scores 0. At the end
    of a round every card on the table goes to the set-aside pile (not shuffled back);
    the deck carries on into the next round. Cards discarded during a round (a used
    Second Chance and its duplicate, a surplus Second Chance, set-aside action cards that
    are thrown away) go to the set-aside pile at once. When a card must be drawn and the
    deck is empty, the set-aside pile is shuffled (the game's seeded RNG) into a new deck,
    even mid-round; cards in front of players stay where they are.

End of the game
    After a round in which someone's total is >= `target_score`: if exactly one player
    has the highest total, the game ends; if the top is tied, EVERYONE plays another
    round. Standing by total score (ties share a place). Solo: the game ends after the
    round in which the total reaches `target_score`. `outcome()` always includes
    ``"rounds"`` (rounds played) and ``"reason"``: "target", or "max_rounds" when the
    `max_rounds` safety valve stopped the game (then, as for every ruleset's turn limit,
    all players are tied first; "scores" still holds the totals).

Options
    target_score (int >= 1, default 200): the total that ends the game.
    max_rounds (int >= 1, default 1000): safety valve; the game stops after this many
    rounds. Real games end in ~10-40 rounds; it exists so that no pathological bot
    pairing can loop forever.
    deck (list of card names, default the 94 cards above): the cards of one deck, for
    small variants (docs/rl.md: a deck of six cards is small enough for exact solvers).
    Each card at most as often as in the standard deck, one number card at least; above
    18 players two such decks are used. With a small deck the "deck is empty" rules
    above come into play every round.

Action grammar (legal_actions, in this order)
    "hit", "stay"          a hit-or-stay turn ("stay" only with a card in front of you)
    "freeze:<seat>"        give the Freeze you were dealt (or are handing out) to <seat>
    "flip-three:<seat>"    give the Flip Three likewise
    "second-chance:<seat>" give your surplus Second Chance to <seat>
    Targets are listed in seat order.

View fields (view(seat); identical for every seat: everything is public)
    round          1-based round number
    dealer         the dealer's seat
    phase          "deal" (the deal is still going on), "play" or "over"
    turn           the seat that decides now (None when the game is over)
    decision       "hit-or-stay", "freeze", "flip-three", "second-chance" or None
    turn_seat      whose hit-or-stay turn it is, or None during the deal
    rows           per seat: {"numbers": [ints, in arrival order; a busted row ends with
                   the duplicate], "modifiers": ["+4", "x2", ...], "actions": ["freeze",
                   "flip-three" played on this seat], "second_chance": bool (holds one),
                   "status": "active" | "stayed" | "busted" | "frozen" | "flip7",
                   "number_sum": int, "score": round score so far (0 if busted)}
    totals         total score per seat before this round
    deck_size      cards left in the deck
    set_aside      {card: count} of the set-aside pile (finished rounds and discards)
    unseen         {card: count} of the deck: the composition minus every visible
                   card (public by card counting; only the ORDER is hidden)
    pending        what is still to be resolved, outermost first: {"kind": "deal",
                   "next": [seats still to be dealt]}, {"kind": "flip-three", "target": s,
                   "cards_left": k, "set_aside": [cards to hand out]}, {"kind":
                   "hand-out", "seat": s, "cards": [cards still to hand out]}
    target_score   the option, for convenience
    Count dicts list card strings in the canonical order "0".."12", "+2".."+10", "x2",
    "freeze", "flip-three", "second-chance", and omit zero counts.

Event types (all public; every seat receives every event)
    round-start {round, dealer}
    card        {seat, card, source: "deal" | "hit" | "flip-three"}: seat received card
    set-aside   {seat, card}: an action card put aside during a Flip Three
    stay        {seat, score}
    bust        {seat, card}
    flip-7      {seat}
    second-chance-used {seat, card}: the duplicate and the Second Chance are discarded
    give        {seat, card, to}: seat gave an action card / surplus Second Chance to `to`
                (for a Freeze: also "score", what the target banked)
    discard     {seat, cards, reason: "no-recipient" | "bust" | "no-active"}
    reshuffle   {cards}: the set-aside pile became the deck
    deck-empty  {}: no card left anywhere; the round ends (see below)
    round-end   {round, scores, totals, reason: "flip-7" | "no-active" | "no-cards"}
    game-end    {totals, reason, rounds}

Decisions where the rulings are silent (recorded here)
    - A player given a Flip Three before their own deal card still gets their deal
      card if they are still active when the deal reaches them (now also a ruling).
    - The duplicate that busts a player stays in their row (shown last in "numbers").
    - Used Freeze / Flip Three cards lie in front of their target ("actions") until the
      round ends; they count as "a card in front of the player" for staying.
    - Cards discarded mid-round join the set-aside pile at once, so a mid-round
      reshuffle includes them.
    - If a card must be drawn while the deck and the set-aside pile are both empty (all
      cards in front of players: only possible with very many players), the round ends
      at once and everybody not busted banks their row.
    - A hand-out, once begun (the target did not bust during its three cards), goes on
      even if the target leaves the round during it.

Version
    "3". Version "1" scored 0 for a player frozen before their deal card, even one a Flip
    Three had dealt cards; "2" (rulings turn 2) lets them bank their row. "3" adds the
    option ``deck``; with its default, games are those of "2" (same decisions, outcomes).

Tests stack the deck with ``Flip7.lay_out(players, deck_top=["5", "freeze", ...])`` (top
first; also ``exact``, ``totals``, ``dealer``).
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Mapping

from arena.errors import OptionError
from arena.rules.base import Option, Ruleset
from arena.rules.flip_7.deck import MODIFIERS, ONE_DECK, deck_problem
from arena.rules.flip_7.engine import Flip7State
from arena.rules.flip_7.evaluation import evaluate_flip_7
from arena.rules.flip_7.text import Flip7Renderer
from arena.rules.flip_7.value import VALUE_ID, VALUE_VERSION, pairwise_value, permute_unrevealed


class Flip7(Ruleset):
    """Flip 7: hit or stay, bust on a duplicate, seven different numbers end the round."""

    id = "flip-7"
    version = "3"
    title = "Flip 7"
    min_players = 1
    max_players = 36
    options = {
        "target_score": Option(200, "total that ends the game (after the round it is reached)",
                               minimum=1, test_range=(1, 400)),
        "max_rounds": Option(1000, "safety valve: stop after this many rounds (all tied)",
                             minimum=1, test_range=(1, 1000)),
        "deck": Option(list(ONE_DECK), "the cards, as a list of card names, each at most as often as in the "
                       "standard deck; default: the standard 94 cards", kind=list),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        for name in ("target_score", "max_rounds"):
            value = options[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OptionError(f"option {name!r} must be an integer of at least 1, not {value!r}")
        problem = deck_problem(options["deck"])
        if problem:
            raise OptionError(f"option 'deck' {problem}")

    capabilities = frozenset({"sample_state", "lay_out", "encoding", "evaluate", "chance_outcomes",
                              "pairwise_value", "permute_unrevealed"})
    pairwise_value_identity = (VALUE_ID, VALUE_VERSION)
    unrevealed_is_draw_pile = True   # the deck's order is the only thing hidden
    renderer = Flip7Renderer
    card_faces = {**{bonus: ("green", bonus) for bonus in ("+2", "+4", "+6", "+8", "+10")},
                  "x2": ("bright-green", "x2"), "freeze": ("teal", "freeze"),
                  "flip-three": ("yellow", "flip three"), "second-chance": ("purple", "second chance")}
    # cards are one-sided face strings; a seat's row lists them by kind; two piles are counts
    site_view = {"one_sided": {**{card: ["modifier"] for card in MODIFIERS},
                               "freeze": ["action", "teal", "❄"], "flip-three": ["action", "orange", "③"],
                               "second-chance": ["action", "pink", "♥"]},
                 "seat_rows": {"rows": ["numbers", "modifiers", "actions"]},
                 "counted": {"unseen": "unseen (not yet dealt this deck)",
                             "set_aside": "set aside (out of play until the deck is reshuffled)"}}
    # the round's end comes before 60 decisions; what follows it is mostly noise for this
    # round's hit-or-stay; the prior hurts here (the heuristic is a fixed threshold)
    search_hints = {"playout_depth": 60, "random_playout_depth": 60, "playout_stop": "round-end", "prior_weight": 0.0}
    option_presets = {
        # a game of a few rounds instead of about ten
        "learning": {"target_score": 50},
        # one round (target 1, one round at most: equal rows tie) from a deck of six cards
        "small": {"deck": ["1", "2", "2", "3", "freeze"], "target_score": 1, "max_rounds": 1},
    }

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return 0.01  # standing by total score; a tie at the top plays on

    bot_example = '''
        row = view["rows"][me]  # your row this round: numbers, modifiers, status, score...
        if view["decision"] == "hit-or-stay":
            # Your strategy: when to stop. Example: stay once the row is worth 20 points.
            if "stay" in legal and row["score"] >= 20:
                return "stay"
            if "hit" in legal:
                return "hit"
        elif view["decision"] in ("freeze", "flip-three"):
            # Example: aim a Freeze or Flip Three at the best row that is not yours.
            others = [a for a in legal if int(a.split(":")[1]) != me]
            if others:
                return max(others, key=lambda a: view["rows"][int(a.split(":")[1])]["score"])
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                deck_top: Iterable[str] = (), exact: bool = False, totals: Iterable[int] | None = None,
                dealer: int = 0) -> Flip7State:
        """A game whose deck starts with `deck_top` (first card drawn first; with `exact`
        the deck is exactly these cards), with `totals` carried in, round 1 dealt by
        `dealer` at once (see `Ruleset.capabilities`)."""
        state = cls.new_game(players, cls.resolve_options(options), random.Random(seed), start=False)
        state._stack_deck(list(deck_top), exact=exact)
        if totals is not None:
            state.totals = list(totals)
        state.dealer = dealer
        state.start()
        return state

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random,
                 start: bool = True) -> Flip7State:
        """Shuffle and deal round 1. With ``start=False`` the deck is shuffled but
        nothing is dealt (`lay_out` stacks it, then calls `start()`)."""
        cls.check_players(players)
        state = Flip7State(players, options, rng)
        if start:
            state.start()
        return state

    evaluate = staticmethod(evaluate_flip_7)   # the `evaluate` capability: flip_7/evaluation.py
    encoding_function = "arena.rules.flip_7.encoding:encoding"
    sampler_function = "arena.rules.flip_7.sampler:sample_flip7_state"   # the unseen cards in a random deck order
    pairwise_value = staticmethod(pairwise_value)   # flip_7/value.py
    permute_unrevealed = staticmethod(permute_unrevealed)   # shuffles the deck, the only unrevealed cards

    @classmethod
    def chance_outcomes(cls, players: int, options: Mapping[str, Any]) -> int:
        """A bound on the outcomes of one chance draw (a shuffle's first pick, a place
        in a pile): the cards in play, and one."""
        return 94 * (2 if players > 18 else 1) + 1


# the engine's states name their ruleset (`GameState.ruleset`); set here, where it is defined,
# since the engine does not import this module
Flip7State.ruleset = Flip7
