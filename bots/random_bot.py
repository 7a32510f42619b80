"""`random`: picks uniformly among the legal actions, in every ruleset."""

import arena


class RandomBot(arena.Bot):
    """Uniform over `legal_actions`, drawn from `self.rng`: the baseline of every table."""

    name = "random"
    rulesets = "*"

    def act(self, observation):
        return self.rng.choice(observation["legal_actions"])
