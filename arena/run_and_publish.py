"""`arena run`'s composition: play a tournament (arena.runner.run_tournament), show its
progress (a tqdm bar on a terminal, `ProgressReport` lines) and publish its standings
and web page (arena.publish, arena.site): placeholder standings when the store is
created or extended, the real ones when the schedule is complete.

`run_and_publish` is what callers that read the published files use (the CLI, tests,
benchmarks); callers that need only the store call `run_tournament` directly.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

from arena.backends import Backend
from arena.runner import RunObserver, RunSummary, run_tournament
from arena.store import Store
from arena.tournament import Tournament

RUN_REPLAYS = 24
"""Replay files the web page gets when `arena run` publishes (`arena publish --replays N`
writes more; `arena serve` shows any game)."""


def run_and_publish(tournament: Tournament, out: Path, workers: int | None = None, restart: bool = False,
                    progress: bool | None = None, echo: Callable[[str], None] = print,
                    backend: Backend | None = None, batch_size: int | None = None,
                    replays: int | None = RUN_REPLAYS, report_every: int | None = None,
                    scheduler: str | None = None, registry: Any = None) -> RunSummary:
    """`run_tournament`, with `echo` for its lines, a progress bar on stderr when `progress`
    (default: when stderr is a terminal), a `ProgressReport` line every `report_every`
    games (default: never with the bar, else every twentieth of the schedule), and the
    standings and web page (with `replays` replay files: `arena.site.write_site`) published
    into `out` when complete; the summary's `written` and `provenance` say what was.
    `scheduler` and `registry`: as `run_tournament` takes them (a plugin's scheduler, its observers)."""
    observer = PublishingObserver(tournament, Path(out), progress, echo, replays, report_every)
    return run_tournament(tournament, out, workers=workers, restart=restart, backend=backend,
                          batch_size=batch_size, observer=observer, scheduler=scheduler, registry=registry)


class PublishingObserver(RunObserver):
    """Draws the bar and the report lines, and publishes (see `run_and_publish`)."""

    def __init__(self, tournament: Tournament, out: Path, progress: bool | None, echo: Callable[[str], None],
                 replays: int | None, report_every: int | None):
        super().__init__(echo)
        self.tournament = tournament
        self.out = out
        self.terminal = sys.stderr.isatty() if progress is None else progress
        self.replays = replays
        self.report_every = report_every
        self.bar: Any = None
        self.report: ProgressReport | None = None

    def line(self, text: str) -> None:
        if self.bar is None or self.bar.disable:
            self.echo(text)
        else:
            self.bar.write(text, file=sys.stderr)

    def opened(self, store: Store, created: str | None, summary: RunSummary) -> None:
        from arena import publish
        from arena.ratings import unplayed_standings

        if created == "created":
            summary.written = publish.publish(self.out, store, unplayed_standings(store.plan()))
        elif created == "extended":  # the published provenance names the new file (and a fresh commitment)
            summary.written = publish.publish(self.out, store)

    def play_started(self, store: Store, total: int, stored_before: int, will_play: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=stored_before, unit="game", disable=not will_play or not self.terminal,
                        dynamic_ncols=True, smoothing=0.05, file=sys.stderr)
        every = self.report_every if self.report_every is not None else (
            None if self.terminal else max(1, total // 20))
        self.report = ProgressReport(self.tournament, total, every, self.line)
        if every and stored_before:
            self.report.add_rows(store.iter_rows())

    def stored(self, games: list[Any]) -> None:
        assert self.report is not None  # play_started made it
        self.bar.update(len(games))
        self.report.add(games)

    def total_changed(self, total: int) -> None:
        self.bar.total = total
        self.bar.refresh()

    def interrupting(self, text: str, abandon: bool) -> None:
        if self.bar is not None:
            self.bar.close() if abandon else self.bar.clear()
        self.echo(text)

    def play_ended(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def completed(self, store: Store, summary: RunSummary) -> None:
        from arena import publish
        from arena.site import write_site

        summary.written = publish.publish(self.out, store, summary.standings)
        summary.written.append(write_site(self.out, store, replays=self.replays, standings=summary.standings,
                                          history=summary.history) / "index.html")
        summary.provenance = publish.provenance(store)


class ProgressReport:
    """Every `every` games stored (None: never), one line per ruleset with games: games
    stored of the total and the ruleset's leaders so far, each with its share of
    table-mates beaten (finished ahead of, ties a half) over the stored games, labelled and
    as a percentage (not a win rate); every line fits `WIDTH` columns (fewer leaders, then shortened names). On a
    terminal the lines are written above the progress bar."""

    LEADERS = 3
    WIDTH = 100

    def __init__(self, tournament: Tournament, total: int, every: int | None, echo: Callable[[str], None]):
        self.labels = [r.label for r in tournament.rulesets]
        self.names = [b.display for b in tournament.bots]
        self.total = total
        self.every = every
        self.echo = echo
        self.halves: list[dict[int, list[int]]] = [{} for _ in self.labels]  # entry -> [half-points, meetings]
        self.stored = 0
        self.next_at = every or 0

    def add_rows(self, rows: Any) -> None:
        """Count games already stored (a resumed run), without a line."""
        for row in rows:
            self._count(row.ruleset, row.seats, row.standing)
            self.stored += 1
        if self.every:
            self.next_at = (self.stored // self.every + 1) * self.every

    def add(self, games: Any) -> None:
        from arena.store import decode

        for game in games:
            seats, standing = decode(game.result)[:2]
            self._count(game.ruleset, seats, standing)
        self.stored += len(games)
        if self.every and self.stored >= self.next_at:
            self.echo(self.line())
            while self.next_at <= self.stored:
                self.next_at += self.every

    def _count(self, ruleset: int, seats: list[int], standing: list[int]) -> None:
        tally = self.halves[ruleset]
        for i, entry in enumerate(seats):
            cell = tally.setdefault(entry, [0, 0])
            for j in range(len(seats)):
                if j != i:
                    cell[0] += 2 if standing[i] < standing[j] else 1 if standing[i] == standing[j] else 0
                    cell[1] += 2

    def line(self) -> str:
        """The report: one line per ruleset with games (see the class docstring)."""
        lines = []
        for label, tally in zip(self.labels, self.halves):
            if not tally:
                continue
            best = sorted(tally, key=lambda e: (-tally[e][0] / tally[e][1], e))[:self.LEADERS]
            head = f"[{self.stored:,}/{self.total:,} games] {label}, table-mates beaten: "
            lines.append(self._fit(head, [(self.names[e], tally[e][0] / tally[e][1]) for e in best]))
        return "\n".join(lines)

    def _fit(self, head: str, leaders: list[tuple[str, float]]) -> str:
        for count in range(len(leaders), 0, -1):
            text = head + ", ".join(f"{name} {share:.0%}" for name, share in leaders[:count])
            if len(text) <= self.WIDTH:
                return text
        name, share = leaders[0]
        room = max(8, self.WIDTH - len(head) - 6)
        short = name if len(name) <= room else name[:room - 1] + "\N{HORIZONTAL ELLIPSIS}"
        text = head + f"{short} {share:.0%}"
        return text if len(text) <= self.WIDTH else text[:self.WIDTH - 1] + "\N{HORIZONTAL ELLIPSIS}"
