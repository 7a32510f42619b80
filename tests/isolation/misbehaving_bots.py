"""Bots that misbehave on purpose, for the process-isolation tests.

Installed by the tests as a throwaway plugin (see test_isolation.py)."""

import gc
import json
import os
import sys
import time

import arena


class Hang(arena.Bot):
    name = "hang"

    def act(self, observation):
        time.sleep(3600)


class Raiser(arena.Bot):
    name = "raiser"

    def act(self, observation):
        raise RuntimeError("nope")


class Exiter(arena.Bot):
    name = "exiter"

    def act(self, observation):
        os._exit(3)


class Hog(arena.Bot):
    name = "hog"

    def act(self, observation):
        hoard = bytearray(2 * 1024**3)
        return hoard and observation["legal_actions"][0]


class Chatty(arena.Bot):
    name = "chatty"

    def act(self, observation):
        print("junk {not json")  # must go to the log, not the protocol channel
        return self.rng.choice(observation["legal_actions"])


class Illegal(arena.Bot):
    name = "illegal"

    def act(self, observation):
        return "resign"


class Malformed(arena.Bot):
    name = "malformed"

    def act(self, observation):
        return 42


class EndRaiser(arena.Bot):
    name = "end-raiser"

    def act(self, observation):
        return self.rng.choice(observation["legal_actions"])

    def end(self, outcome):
        raise RuntimeError("sore loser")


class Quitter(arena.Bot):
    name = "quitter"

    def act(self, observation):
        sys.exit(0)


class Forker(arena.Bot):
    name = "forker"

    def start(self, info):
        pid = os.fork()
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        print(f"CHILD {pid}", file=sys.stderr, flush=True)

    def act(self, observation):
        return self.rng.choice(observation["legal_actions"])


class Spy(arena.Bot):
    """Looks everywhere for engine state or the seed, and reports on stderr."""

    name = "spy"
    reported = False

    def act(self, observation):
        if self.reported:
            return self.rng.choice(observation["legal_actions"])
        self.reported = True
        from arena.rules.base import GameState
        from arena.rules.cards import TwoFacedTable

        engine = [type(o).__name__ for o in gc.get_objects() if isinstance(o, (GameState, TwoFacedTable))]
        frames = sorted({f.f_code.co_filename for f in sys._current_frames().values()})
        report = {"engine": engine, "env": dict(os.environ), "files": os.listdir("."),
                  "frames": frames, "parent_cmdline": _read(f"/proc/{os.getppid()}/cmdline")}
        print("SPY " + json.dumps(report), file=sys.stderr, flush=True)
        return self.rng.choice(observation["legal_actions"])


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError as exc:
        return str(exc)


@arena.hookimpl
def register_bots(register):
    for bot in (Hang, Raiser, Exiter, Hog, Chatty, Illegal, Malformed, EndRaiser, Quitter, Forker, Spy):
        register(bot)
