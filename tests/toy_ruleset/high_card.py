"""toy-high-card: a two-faced high-card game (a ruleset that is one package plus its registration).

Twelve cards, each with two faces ("red-5" / "blue-2"). Each player is dealt three and sees
both faces of their own.

It declares what the environments and search bots need (`Ruleset.capabilities`): an
``encoding`` (numpy, imported when asked), an ``evaluate`` (tricks so far), its
``chance_outcomes`` (the deal's shuffle of twelve cards) and a ``sample_state``.

How to play
    In turn, each player plays a card with the face of their choice up; once everyone has
    played, the highest rank up takes the trick (a tie: nobody). After three tricks, most
    tricks wins.

Action grammar
    ``play:<position>:face`` or ``play:<position>:back``: play the card at that position of
    your hand (0-based) with that side up.

View fields
    ``hand`` (own cards, ``{"face", "back"}``), ``hand_sizes``, ``played`` (this trick's
    faces up, by seat), ``tricks``, ``turn``.

Event types
    ``play`` (``seat``, ``card``), ``trick`` (``winner``, None for a tie).
"""

import random

from arena.rules.base import GameState, Ruleset, standing_from_scores

COLORS = ("red", "blue", "green", "yellow")
DECK = [(f"{COLORS[i % 4]}-{i % 9 + 1}", f"{COLORS[(i + 1) % 4]}-{(5 * i) % 9 + 1}") for i in range(12)]


class HighCard(Ruleset):
    id, version, title = "toy-high-card", "1", "Toy high card"
    min_players, max_players = 2, 4
    bot_example = "        return max(legal, key=lambda a: int(a.split(':')[2] == 'face'))\n"
    card_faces = {f"{color}-{rank}": (color, str(rank)) for color in COLORS for rank in range(1, 10)}

    capabilities = frozenset({"sample_state", "encoding", "evaluate", "chance_outcomes"})
    search_hints = {"playout_depth": 6}
    option_presets = {"learning": {}}   # random play ends in a few tricks; no small variant

    @classmethod
    def draw_probability(cls, players):
        return 0.2

    @classmethod
    def encoding(cls, players, options):
        from .encoding import encoding   # numpy only when an environment asks

        return encoding(players)

    @staticmethod
    def evaluate(state, me):
        """Per seat: the share of the other seats it has more tricks than (a tie a half)."""
        tricks = state.tricks
        if state.players == 1:
            return [1.0]
        return [sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in tricks) / (state.players - 1)
                - 0.5 / (state.players - 1) for mine in tricks]

    @classmethod
    def chance_outcomes(cls, players, options):
        return len(DECK)   # the deal's shuffle: its first pick is one of the twelve

    @classmethod
    def sample_state(cls, observation, rng, events=None):
        """The seat's own hand and everything in its view kept; the cards it has not seen
        (the deck less its hand and the faces played, those of earlier tricks known from
        `events`) dealt at random to the other hands and the deck."""
        view, seat = observation["view"], observation["seat"]
        players = len(view["hand_sizes"])
        state = HighCardState(players, cls.resolve_options(), random.Random(rng.getrandbits(64)))
        own = [(card["face"], card["back"]) for card in view["hand"]]
        pool = list(DECK)
        for card in own:
            pool.remove(card)
        played = [event["card"] for event in events if event["type"] == "play"] if events is not None \
            else [face for face in view["played"] if face is not None]
        for face in played:
            having = [card for card in pool if face in card]
            if having:
                pool.remove(having[rng.randrange(len(having))])
        rng.shuffle(pool)
        state.hands = [own if s == seat else [pool.pop() for _ in range(view["hand_sizes"][s])]
                       for s in range(players)]
        state.deck = pool
        state.played, state.tricks, state.turn = list(view["played"]), list(view["tricks"]), view["turn"]
        return state

    @classmethod
    def new_game(cls, players, options, rng):
        cls.check_players(players)
        return HighCardState(players, options, rng)


class HighCardState(GameState):
    ruleset = HighCard

    def __init__(self, players, options, rng):
        super().__init__(players, options, rng)
        self.deck = list(DECK)
        self.chance.shuffle(self.deck)
        self.hands = [[self.deck.pop() for _ in range(3)] for _ in range(players)]
        self.played, self.tricks, self.turn = [None] * players, [0] * players, 0

    def current_seat(self):
        return self.turn

    def legal_actions(self):
        return [f"play:{i}:{side}" for i in range(len(self.hands[self.turn])) for side in ("face", "back")]

    def apply(self, action):
        if self.turn is None or action not in self.legal_actions():
            raise self._illegal(action)
        _, position, side = action.split(":")
        pair = self.hands[self.turn].pop(int(position))
        self.played[self.turn] = pair[side == "back"]
        self.emit({"type": "play", "seat": self.turn, "card": self.played[self.turn]})
        self.turn = (self.turn + 1) % self.players
        if all(self.played):
            ranks = [int(face.split("-")[1]) for face in self.played]
            best = [seat for seat, rank in enumerate(ranks) if rank == max(ranks)]
            winner = best[0] if len(best) == 1 else None
            if winner is not None:
                self.tricks[winner] += 1
            self.emit({"type": "trick", "winner": winner})
            self.played = [None] * self.players
            self.turn = None if not self.hands[self.turn] else self.turn

    def view(self, seat):
        return {"hand": [{"face": a, "back": b} for a, b in self.hands[seat]],
                "hand_sizes": [len(hand) for hand in self.hands], "played": list(self.played),
                "tricks": list(self.tricks), "turn": self.turn}

    def outcome(self):
        return {"standing": standing_from_scores(self.tricks), "scores": list(self.tricks), "reason": "tricks"}

    def clone(self):
        twin = HighCardState.__new__(HighCardState)
        twin.__dict__.update(self.__dict__)
        twin.chance = self.chance.copy()
        twin.deck, twin.played, twin.tricks = list(self.deck), list(self.played), list(self.tricks)
        twin.hands = [list(hand) for hand in self.hands]
        twin._reset_events()
        return twin

    def chance_pile(self):
        return self.deck, str
