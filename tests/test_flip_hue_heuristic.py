"""The flip-hue-heuristic bot: legal play, sensible choices, and it beats random."""

from __future__ import annotations

import random

from arena.match import Entrant, play_game
from arena.rules.flip_hue import FLIP, FlipHue, FlipHueState
from arena.seeding import bot_seed
from arena_bots.flip_hue_heuristic import FlipHueHeuristicBot
from arena_bots.flip_hue_play import Hand, HueJudge, hand_of, simulate
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation

FACTIONS = [("red", "blue"), ("green", "yellow"), ("orange", "purple")]
MIXED = [("orange", "green"), ("purple", "orange"), ("yellow", "purple"), ("green", "orange"),
         ("purple", "yellow")]
FILLER = [("yellow", "orange"), ("purple", "green"), ("blue", "yellow"), ("orange", "red")]


def _state(hands, active=0) -> FlipHueState:
    return FlipHue.lay_out(3, factions=FACTIONS, hands=hands, draw=FILLER, active=active)


def _decide(state: FlipHueState) -> str:
    bot = FlipHueHeuristicBot()
    bot.rng = random.Random(1)
    seat = state.current_seat()
    observation = make_observation(FlipHue, state, seat)
    action = bot.act(observation)
    assert action in observation["legal_actions"]
    return action


def test_bot_is_registered_for_flip_hue_only():
    assert FlipHueHeuristicBot.name == "flip-hue-heuristic"
    assert FlipHueHeuristicBot.plays("flip-hue") and not FlipHueHeuristicBot.plays("flip-7")


def test_pulls_a_card_whose_back_is_its_faction_color():
    # seat 0 (red/blue) holds four red faces; seat 2's card 3 shows a red back
    hands = [[("red", "orange")] * 4 + [("green", "purple")], list(MIXED),
             [("orange", "green"), ("purple", "orange"), ("yellow", "purple"), ("green", "red"),
              ("purple", "yellow")]]
    state = _state(hands)
    state.apply("give:4:1")
    assert _decide(state) == "pull:2:3"


def test_flips_its_own_hand_when_its_backs_are_its_color():
    # seat 0 remembers its backs from the deal: four blue backs and a Flip face
    hands = [[(FLIP, "green")] + [(c, "blue") for c in ("orange", "green", "yellow", "purple")],
             list(MIXED), list(MIXED)]
    state = _state(hands)
    assert _decide(state) == "flip:0:0"


def test_blocks_a_pull_that_matters_and_allows_one_that_does_not():
    # seat 0 (red/blue) holds four red faces and a Flip card; seat 1 pulls at it
    hands = [[(FLIP, "yellow"), ("red", "green"), ("red", "purple"), ("red", "orange"), ("red", "yellow")],
             list(MIXED), list(MIXED)]
    state = _state(hands, active=1)
    state.apply("give:4:2")
    state.apply("pull:0:2")  # a red face: block
    assert _decide(state) == "block:0"
    hands[0][1] = ("green", "red")
    state = _state(hands, active=1)
    state.apply("give:4:2")
    state.apply("pull:0:1")  # a green face that seat 0 does not need: keep the Flip card
    assert _decide(state) == "allow"


def test_only_legal_actions_over_whole_games():
    for players, seed in ((2, 1), (3, 2), (6, 4)):
        # play_game raises if a bot answers an illegal action
        result = play_game(FlipHue, [Entrant(FlipHueHeuristicBot)] * players, seed)
        assert result.record["outcome"]["reason"] in ("win", "max_turns")


def test_beats_random_bots():
    wins = games = 0
    for seed in range(2):
        for seat in range(4):
            entrants = [Entrant(RandomBot)] * 4
            entrants[seat] = Entrant(FlipHueHeuristicBot)
            seeds = [bot_seed(seed, s, seat) for s in range(4)]
            outcome = play_game(FlipHue, entrants, seed, bot_seeds=seeds).record["outcome"]
            wins += outcome["reason"] == "win" and outcome["standing"][seat] == 1
            games += 1
    assert wins >= games // 2  # a random seat wins about a quarter of the decided games


# -- the judge's board: hands with tallies ------------------------------------------------

SYMBOLS = ("red", "blue", "green", "yellow", FLIP, None)


def _random_board(rng: random.Random, players: int) -> list:
    return [hand_of([(rng.choice(SYMBOLS), rng.choice(SYMBOLS)) for _ in range(rng.randrange(0, 7))])
            for _ in range(players)]


def _judge(me: int, players: int, rng: random.Random) -> HueJudge:
    tops = tuple(color for color, _ in FACTIONS[:players])
    return HueJudge(me, players, me, FACTIONS[me], tops, {}, {}, 0.15, 0.7, 4.0, 4, rng)


def test_a_hands_tallies_follow_its_cards_through_every_move():
    rng = random.Random(3)
    for _ in range(300):
        players = rng.choice((2, 3))
        board = _random_board(rng, players)
        me = rng.randrange(players)
        actions = [f"discard:{p}" for p in range(len(board[me].cards))]
        actions += [f"give:{p}:{s}" for p in range(len(board[me].cards)) for s in range(players) if s != me]
        actions += [f"flip:{p}:{s}" for p in range(len(board[me].cards)) for s in range(players)]
        actions += [f"pull:{s}:{p}" for s in range(players) if s != me for p in range(len(board[s].cards))]
        for action in actions:
            for hand in simulate(board, me, action):
                again = Hand(hand.cards, sum(f for f, _ in hand.cards), sum(b for _, b in hand.cards))
                assert (hand.faces, hand.backs) == (again.faces, again.backs), action


def test_a_boards_score_does_not_depend_on_the_order_of_cards_in_hands():
    rng = random.Random(4)
    for _ in range(200):
        board = _random_board(rng, 3)
        shuffled = []
        for hand in board:
            cards = list(hand.cards)
            rng.shuffle(cards)
            shuffled.append(Hand(tuple(cards), hand.faces, hand.backs))
        me = rng.randrange(3)
        # separate judges: the second cannot reuse the first's values
        assert _judge(me, 3, rng).score(board) == _judge(me, 3, rng).score(shuffled)


def test_the_best_pull_is_the_best_score_over_every_single_pull():
    rng = random.Random(5)
    for _ in range(200):
        board = _random_board(rng, 3)
        me = rng.randrange(3)
        judge = _judge(me, 3, rng)
        pulls = [f"pull:{s}:{p}" for s in range(3) if s != me for p in range(len(board[s].cards))]
        expected = max((judge.score(simulate(board, me, pull)) for pull in pulls), default=None)
        assert judge.best_pull(board) == expected
