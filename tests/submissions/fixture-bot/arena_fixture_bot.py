"""A small, well-behaved bot for the submission tests: plays the last legal action
in Flip 7 after drawing from self.rng, so its games replay."""

import arena


class FixtureBot(arena.Bot):
    name = "fixture-bot"
    rulesets = ("flip-7",)

    def act(self, observation):
        legal = observation["legal_actions"]
        return legal[-1] if self.rng.random() < 0.5 else legal[0]


@arena.hookimpl
def register_bots(register):
    register(FixtureBot)
