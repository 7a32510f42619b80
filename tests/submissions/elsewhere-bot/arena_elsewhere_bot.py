import arena


class Elsewhere(arena.Bot):
    name = "elsewhere-bot"
    rulesets = ("flip-7", "no-such-game")

    def act(self, observation):
        return observation["legal_actions"][0]


@arena.hookimpl
def register_bots(register):
    register(Elsewhere)
