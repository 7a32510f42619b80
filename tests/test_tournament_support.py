"""Helpers for the tournament tests (no tests here): a tiny, fast toy ruleset and toy
bots installed as a real `arena` plugin, so tournaments (also in subprocesses) do not
depend on the real rulesets, plus small tournament files."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.runner import InProcessBackend
from conftest import write_plugin

TOY_PLUGIN = '''
"""toy-race: take cards (1-10) until you stop or pass the limit; highest total wins."""


import arena
from arena.rules.base import GameState, Option, Ruleset, copy_rng, standing_from_scores


class ToyRace(Ruleset):
    id = "toy-race"
    version = "1"
    title = "Toy race"
    min_players = 1
    max_players = 6
    options = {"limit": Option(21, "bust above this", minimum=5, maximum=60)}
    draw_probability = 0.1

    @classmethod
    def new_game(cls, players, options, rng):
        return ToyState(players, options, rng)


class ToyState(GameState):
    ruleset = ToyRace

    def __init__(self, players, options, rng):
        super().__init__(players, options, rng)
        self.deck = [n for n in range(1, 11) for _ in range(4)]
        rng.shuffle(self.deck)
        self.totals = [0] * players
        self.active = [True] * players
        self.seat = 0

    def current_seat(self):
        return self.seat

    def legal_actions(self):
        return ["take", "stop"]

    def apply(self, action):
        if action not in ("take", "stop") or self.seat is None:
            raise self._illegal(action)
        seat = self.seat
        if action == "take":
            card = self.deck.pop()
            self.totals[seat] += card
            self.emit({"type": "take", "seat": seat, "card": card})
            if self.totals[seat] > self.options["limit"]:
                self.totals[seat] = 0
                self.active[seat] = False
        else:
            self.emit({"type": "stop", "seat": seat})
            self.active[seat] = False
        nxt = [(seat + i) % self.players for i in range(1, self.players + 1)]
        self.seat = next((s for s in nxt if self.active[s]), None)

    def view(self, seat):
        return {"turn": self.seat, "totals": list(self.totals), "active": list(self.active)}

    def outcome(self):
        scores = list(self.totals)
        return {"standing": standing_from_scores(scores), "scores": scores, "reason": "done"}

    def clone(self):
        twin = ToyState.__new__(ToyState)
        twin.__dict__.update(self.__dict__)
        twin.deck, twin.totals, twin.active = list(self.deck), list(self.totals), list(self.active)
        twin.rng = copy_rng(self.rng)
        twin._reset_events()
        return twin


class ToyCautious(arena.Bot):
    """Takes until its total reaches `threshold`."""

    name = "toy-cautious"
    rulesets = ("toy-race",)

    def __init__(self, threshold=15):
        if not isinstance(threshold, int) or threshold < 0:
            raise ValueError(f"threshold must be a non-negative integer, not {threshold!r}")
        self.threshold = threshold

    def act(self, observation):
        mine = observation["view"]["totals"][observation["seat"]]
        return "take" if mine < self.threshold else "stop"


class ToySleepy(arena.Bot):
    """Random, but slow: sleeps `delay` seconds per decision."""

    name = "toy-sleepy"
    rulesets = ("toy-race",)

    def __init__(self, delay=0.002):
        self.delay = delay

    def act(self, observation):
        time.sleep(self.delay)
        return self.rng.choice(observation["legal_actions"])


class ToyBroken(arena.Bot):
    """Raises at its first decision."""

    name = "toy-broken"
    rulesets = ("toy-race",)

    def act(self, observation):
        raise RuntimeError("toy-broken always breaks")


@arena.hookimpl
def register_rulesets(register):
    register(ToyRace)


@arena.hookimpl
def register_bots(register):
    register(ToyCautious)
    register(ToySleepy)
    register(ToyBroken)
'''

ROOT = Path(__file__).resolve().parents[1]


def install_toy(root: Path, version: str = "1.0.0") -> None:
    """Install the toy plugin as the distribution `arena-toy` under `root` (on sys.path)."""
    write_plugin(root, "arena-toy", "arena_toy_plugin", TOY_PLUGIN, version=version)


@pytest.fixture
def toy(plugin_dir, tmp_path, monkeypatch):
    """The toy plugin installed, and the test's folder as the working directory."""
    install_toy(plugin_dir)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(path: Path, out: Path, **kwargs):
    """`arena run`'s composition (`run_and_publish`: play, then publish) on the file at `path`,
    quietly (no progress bar, no echo unless given)."""
    from arena.plugins import load_registry
    from arena.run_and_publish import run_and_publish
    from arena.tournament import load_tournament

    kwargs.setdefault("progress", False)
    return run_and_publish(load_tournament(path, load_registry()), out,
                           echo=kwargs.pop("echo", lambda line: None), **kwargs)


def toy_file(path: Path, *, name: str = "toy", seed: int | None = 7, deals: int = 2, players: int = 3,
             bots: str | None = None, extra: str = "", rulesets: str | None = None) -> Path:
    """Write a small tournament file on the toy ruleset."""
    head = f'[tournament]\nname = "{name}"\n' + (f"seed = {seed}\n" if seed is not None else "")
    head += f"deals = {deals}\n{extra}"
    bots = bots if bots is not None else textwrap.dedent("""
        [[bots]]
        use = "random"
        as = "random-1"

        [[bots]]
        use = "random"
        as = "random-2"

        [[bots]]
        use = "toy-cautious"
        as = "cautious-15"

        [[bots]]
        use = "toy-cautious"
        as = "cautious-18"
        params = { threshold = 18 }
        """)
    rulesets = rulesets if rulesets is not None else f'\n[[rulesets]]\nuse = "toy-race"\nplayers = {players}\n'
    path.write_text(head + bots + rulesets)
    return path


def arena_subprocess(args: list[str], plugin_root: Path, cwd: Path, **kwargs) -> subprocess.Popen:
    """Start the real `arena` command line in a subprocess that sees the toy plugin."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(plugin_root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    code = "import sys; from arena.cli import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)


def kill_9_once_stored(proc: subprocess.Popen, store: Path, count_sql: str, at_least: int) -> int:
    """SIGKILL the `arena run` in `proc` once `count_sql` on its store reaches `at_least`
    (within 60 s); the count seen at the kill. Fails the test, with the run's stderr, if
    the run ended first."""
    count = 0
    try:
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            try:
                # read-only: a plain connect would create an empty file before the run
                # creates its store, and the run (which creates it exclusively) would fail
                with sqlite3.connect(f"{Path(store).resolve().as_uri()}?mode=ro", uri=True) as db:
                    count = db.execute(count_sql).fetchone()[0]
            except sqlite3.Error:
                count = 0
            if count >= at_least:
                break
            time.sleep(0.02)
        if proc.poll() is not None:
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"the run finished (exit code {proc.returncode}) before it could be killed: {err[-2000:]}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)
    return count


def without_provenance(path: Path) -> dict:
    doc = json.loads(Path(path).read_text())
    doc.pop("tournament")
    return doc


class InterruptingBackend(InProcessBackend):
    """Plays `batches` batches, then Ctrl-C arrives."""

    def __init__(self, batches):
        self.left = batches

    def submit(self, batch):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().submit(batch)
