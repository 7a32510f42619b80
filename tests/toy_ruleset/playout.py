"""toy-high-card's playout policy for search bots: play the card whose face side ranks
highest, face up (registered with `register_playouts`, with its fast path)."""

import arena


def _rank(action, hand):
    _, position, side = action.split(":")
    card = hand[int(position)]
    return int(card[side].split("-")[1]), side == "face"


class FaceUpBot(arena.Bot):
    name = "toy-face-up"
    rulesets = ("toy-high-card",)

    def act(self, observation):
        hand = observation["view"]["hand"]
        return max(observation["legal_actions"], key=lambda action: _rank(action, hand))


def face_up_move(bot, state, seat, actions):
    """What `FaceUpBot.act` plays, off the state's own hand (no view built)."""
    hand = [{"face": face, "back": back} for face, back in state.hands[seat]]
    return max(actions, key=lambda action: _rank(action, hand))
