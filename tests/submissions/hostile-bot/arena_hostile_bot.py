"""A bot that attacks at import time, in its constructor and in act() (see attack.py)."""

import attack

import arena

attack.attack("import")


class HostileBot(arena.Bot):
    name = "hostile-bot"
    rulesets = ("flip-7",)

    def __init__(self):
        attack.attack("constructor")
        self.attacked = False

    def act(self, observation):
        if not self.attacked:
            attack.attack("act")
            self.attacked = True
        return observation["legal_actions"][0]


@arena.hookimpl
def register_bots(register):
    register(HostileBot)
