"""Live ratings: the standings computed while a tournament is played.

`RatingFollowers` starts one process per independent rating chain (overall, each
ruleset); each follows the results store in schedule order while the workers play,
so that only the last few games' rating is left when play ends. Each also keeps its
chain's rating history (`arena.ratings.RatingHistory`), so the run hands the site the
standings and the history of one rating pass.

A follower rates the store from its first game, whatever was stored before this run
started (a resumed run), so both cover every stored game in schedule order.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.ratings import Rater, assemble, scope_plan
from arena.store import Store
from arena.worker import watch_parent


# Followers run at the workers' priority: at a lower one they would only rate once
# play is over (all cores busy), and the whole rating would come after the last game.
FOLLOWER_NICENESS = 0


def _follow(path: str, chain: Any, conn: Any, parent: int) -> None:
    """A rating process: follows the store in schedule order while games are
    played; on "finish", rates the rest and sends back its part of the standings and
    its chain's rating history (thinned as the site draws it)."""
    if FOLLOWER_NICENESS:
        try:
            os.nice(FOLLOWER_NICENESS)
        except (AttributeError, OSError):
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent)
    with Store.open(path) as store:
        rater = Rater(store.plan(), [chain], history=True)
        while True:
            more = rater.drain(store, budget=0.25, stop_at_gap=True)
            if conn.poll(0 if more else 0.05):
                conn.recv()
                rater.drain(store, stop_at_gap=False)
                assert rater.history is not None
                conn.send((rater.parts(), rater.history.thinned()))
                return


class RatingFollowers:
    """One process per independent rating chain (overall, each ruleset), rating
    the stored games while the workers play them: the rating is never what a
    tournament waits for, except for the last few games (see arena.runner.RunSummary.rating_tail)."""

    def __init__(self, path: Path, plan: dict[str, Any]):
        self.plan = plan
        linux = sys.platform.startswith("linux")
        context = multiprocessing.get_context("fork") if linux else multiprocessing.get_context("spawn")
        self.processes = []
        for chain in scope_plan(plan):
            mine, theirs = context.Pipe()
            process = context.Process(target=_follow, args=(str(path), chain, theirs, os.getpid()), daemon=True,
                                      name=f"arena-rating-{chain}")
            process.start()
            theirs.close()
            self.processes.append((process, mine))

    def finish(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Wait for the rating of every stored game; return ``(standings, history)``, as
        `arena.ratings.rate_with_history` gives them for the same store."""
        for _, conn in self.processes:
            conn.send("finish")
        parts: dict[str, Any] = {}
        history: dict[str, Any] = {}
        for process, conn in self.processes:
            try:
                part, lines = conn.recv()
            except EOFError:
                raise ArenaError(f"rating process {process.name} died (exit code {process.exitcode})") from None
            parts.update(part)
            history.update(lines)   # in scope_plan's order, as one rater lists its scopes
            process.join()
        return assemble(self.plan, parts), history

    def stop(self) -> None:
        for process, conn in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
            conn.close()
