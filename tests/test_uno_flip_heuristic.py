"""The `uno-flip-heuristic` bot: legal, sensible, and far better than random."""

from __future__ import annotations

import random

from arena.match import Entrant, play_game
from arena.rules.uno_flip import UnoFlip
from arena_bots.random_bot import RandomBot
from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot


def decide(view, legal, seat=0):
    bot = UnoFlipHeuristicBot()
    bot.rng = random.Random(0)
    return bot.act({"ruleset": "uno-flip", "version": "1", "options": {}, "seat": seat,
                    "players": len(view["hands"]), "view": view, "events": [], "legal_actions": legal})


def card(face, back="orange-1"):
    return {"face": face, "back": back}


def hidden(back):
    return {"face": None, "back": back}


def base_view(my_hand, others, color="red", phase="play", pending=None, side="light"):
    return {"side": side, "round": 1, "dealer": 0, "turn": 0, "phase": phase, "color": color,
            "direction": 1, "hands": [my_hand] + others, "draw_pile": {"size": 40, "top": None},
            "discard": {"size": 3, "top": {"up": f"{color}-5", "down": "pink-1"}},
            "scores": [0] * (1 + len(others)), "turns": 5, "max_turns": 1000, "pending": pending}


def test_it_only_plays_legal_actions_at_every_table_size():
    for players in range(2, 11):
        entrants = [Entrant(UnoFlipHeuristicBot)] * (players // 2) + [Entrant(RandomBot)] * (players - players // 2)
        # ask_forced: the bot is asked even when one action is legal; play_game checks legality
        play_game(UnoFlip, entrants, players, {"target_score": 100, "max_turns": 300}, ask_forced=True)


def test_it_beats_three_random_bots_on_duplicate_seated_deals():
    wins = games = 0
    for deal in range(25):
        for seat in range(4):
            entrants = [Entrant(RandomBot)] * 4
            entrants[seat] = Entrant(UnoFlipHeuristicBot)
            outcome = play_game(UnoFlip, entrants, 5000 + deal, {"target_score": 0}).record["outcome"]
            games += 1
            wins += outcome["reason"] == "win" and outcome["standing"][seat] == 1
    assert wins / games > 0.6  # random would win about a quarter


def test_it_calls_uno():
    view = base_view([card("red-2"), card("blue-3")], [[hidden("pink-1")] * 3])
    assert decide(view, ["play:0", "play:0:uno", "draw"]) == "play:0:uno"


def test_it_sheds_the_high_value_card_and_saves_the_wild():
    view = base_view([card("red-2"), card("red-skip"), card("wild"), card("blue-3")], [[hidden("pink-1")] * 5])
    legal = ["play:0", "play:1", "play:2:blue", "play:2:green", "play:2:red", "play:2:yellow", "draw"]
    assert decide(view, legal) == "play:1"


def test_it_draws_rather_than_spend_its_only_wild_early():
    view = base_view([card("blue-2"), card("wild"), card("blue-3"), card("green-4")], [[hidden("pink-1")] * 6])
    legal = ["play:1:blue", "play:1:green", "play:1:red", "play:1:yellow", "draw"]
    assert decide(view, legal) == "draw"


def test_it_names_the_color_it_holds_most_of():
    view = base_view([card("wild"), card("green-2"), card("green-7"), card("blue-3")], [[hidden("pink-1")] * 1])
    legal = ["play:0:blue", "play:0:green", "play:0:red", "play:0:yellow", "draw"]
    assert decide(view, legal) == "play:0:green"


def test_it_does_not_bluff_a_wild_draw():
    view = base_view([card("wild-draw-two"), card("red-9"), card("blue-3")], [[hidden("pink-1")] * 2])
    legal = ["play:0:blue", "play:0:green", "play:0:red", "play:0:yellow", "play:1", "draw"]
    assert decide(view, legal) == "play:1"


def test_it_punishes_a_next_player_close_to_going_out():
    view = base_view([card("red-draw-one"), card("red-9"), card("blue-3")], [[hidden("pink-1")] * 1, [hidden("pink-2")] * 6])
    assert decide(view, ["play:0", "play:1", "draw"]) == "play:0"


def test_it_challenges_when_it_has_seen_a_matching_card_and_accepts_when_none_can_match():
    pending = {"type": "challenge", "card": "wild-draw-two", "offender": 1, "color": "blue", "prior_color": "red"}
    seen_red = base_view([card("green-2")], [[card("red-4", "pink-3"), hidden("pink-5")]], color="blue",
                         phase="challenge", pending=pending)
    assert decide(seen_red, ["accept", "challenge"]) == "challenge"
    # every card whose active face is hidden is paired only with non-red, non-wild faces
    clean = base_view([card("green-2")], [[card("blue-4", "pink-3")]], color="blue", phase="challenge",
                      pending=pending)
    assert decide(clean, ["accept", "challenge"]) == "accept"
