import arena


class First(arena.Bot):
    name = "first-of-two"
    rulesets = ("flip-7",)

    def __init__(self, stay_at=None):
        if stay_at is not None and not isinstance(stay_at, int):
            raise TypeError("stay_at must be an integer")
        self.stay_at = stay_at

    def act(self, observation):
        return observation["legal_actions"][-1]


class Second(First):
    name = "second-of-two"


@arena.hookimpl
def register_bots(register):
    register(First)
    register(Second)
