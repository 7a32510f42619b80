"""The events of a run's loop, as pluggy hooks: what observers subscribe to.

The loop (arena.runner) calls these hooks as a run reaches them; an observer is any
object with methods of these names (all optional), registered on the run's
`RunHooks` (the way pytest's terminal reporter is a plugin of its run loop): the
caller's observer (arena.run_and_publish's progress bar and publishing, or
`arena.runner.RunObserver`), then the observers plugins register for every run
(``register_run_observers``, arena.hookspecs). Their order: `opened` once the store is
open; `play_started`; `stored` after each batch is stored; `total_changed` when a
stopping run's looks shrink the schedule; `interrupting` on a Ctrl-C; `play_ended`
(always, even on an error); `completed` once the standings are rated, with the store
still open and locked. `line`s for the user come at any time.
"""

from __future__ import annotations

from typing import Any

import pluggy

RUN_PROJECT = "arena-run"
run_hookspec = pluggy.HookspecMarker(RUN_PROJECT)


class RunHookSpecs:
    """The events of a run, in the order above."""

    @run_hookspec
    def line(self, text: str) -> None:
        """A line for the user."""

    @run_hookspec
    def opened(self, store: Any, created: str | None, summary: Any) -> None:
        """The store is open (`created`: "created", "extended" or None)."""

    @run_hookspec
    def play_started(self, store: Any, total: int, stored_before: int, will_play: bool) -> None:
        """Play starts (`will_play`: False when nothing is left to play)."""

    @run_hookspec
    def stored(self, games: list[Any]) -> None:
        """A batch of games was stored (`arena.store.StoredGame`s)."""

    @run_hookspec
    def total_changed(self, total: int) -> None:
        """A stopping run's looks changed the games the standings count."""

    @run_hookspec
    def interrupting(self, text: str, abandon: bool) -> None:
        """A Ctrl-C (`abandon`: the second one, the games in flight are dropped)."""

    @run_hookspec
    def play_ended(self) -> None:
        """Play is over (always called, even on an error)."""

    @run_hookspec
    def completed(self, store: Any, summary: Any) -> None:
        """The standings are rated (`summary.standings`); the store is still open and locked."""


HOOK_NAMES = tuple(name for name in vars(RunHookSpecs) if not name.startswith("_"))


class RunHooks(pluggy.PluginManager):
    """A run's hooks: every method of a registered observer named as a hook implements it."""

    def __init__(self, *observers: Any):
        super().__init__(RUN_PROJECT)
        self.add_hookspecs(RunHookSpecs)
        for observer in observers:
            self.register(observer)

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if name in HOOK_NAMES and callable(getattr(plugin, name, None)):
            return {"wrapper": False, "hookwrapper": False, "optionalhook": False, "tryfirst": False,
                    "trylast": False, "specname": None}
        return super().parse_hookimpl_opts(plugin, name)
