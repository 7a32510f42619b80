"""Live standings: TrueSkill per ruleset, updated as results arrive; and the published
table, in the order of the refit (`arena.ladder.ranking`), with the live columns beside.

`LiveStandings.add` rates one stored game (gate games are not rated) under a lock, in
the order the games were stored (the games table's id): the service calls it right
after the game's row commits, and `rebuild` replays every stored game in that order
when the server starts, so a restarted server has the same ratings as one that never
stopped. A rating belongs to a version; the standings list each bot's current version.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping, Sequence

import trueskill

from arena.ratings import default_draw_probability


class LiveStandings:
    """Per ruleset label: a TrueSkill environment and each version's rating and games."""

    def __init__(self, rulesets: Sequence[tuple[str, Any, int]]):
        """`rulesets`: (label, ruleset class, players) for each ruleset of the ladder."""
        self.lock = threading.Lock()
        self.envs = {label: trueskill.TrueSkill(draw_probability=default_draw_probability(cls, players))
                     for label, cls, players in rulesets}
        self.ratings: dict[str, dict[int, trueskill.Rating]] = {label: {} for label in self.envs}
        self.games: dict[str, dict[int, int]] = {label: {} for label in self.envs}
        self.faults: dict[str, dict[int, int]] = {label: {} for label in self.envs}
        self.last = 0  # the id of the last game rated

    def add(self, game_id: int, label: str, seats: Sequence[int], standing: Sequence[int],
            faults: Sequence[int]) -> None:
        """Rate game `game_id` (stored in this order) of ruleset `label`; a game already rated is ignored."""
        with self.lock:
            if game_id <= self.last or label not in self.envs:
                return
            self.last = game_id
            env, ratings = self.envs[label], self.ratings[label]
            before = [(ratings.get(v, env.create_rating()),) for v in seats]
            after = env.rate(before, ranks=list(standing))
            for version, (rating,), fault in zip(seats, after, faults):
                ratings[version] = rating
                self.games[label][version] = self.games[label].get(version, 0) + 1
                self.faults[label][version] = self.faults[label].get(version, 0) + fault

    def table(self, label: str, names: Mapping[int, tuple[str, int]], current: Sequence[int]) -> list[dict[str, Any]]:
        """The standings of ruleset `label` over the `current` versions (`names`: version
        id -> (bot name, version number)), best conservative rating (mu - 3 sigma) first."""
        with self.lock:
            env, ratings = self.envs[label], self.ratings[label]
            rows = []
            for version in current:
                rating = ratings.get(version, env.create_rating())
                bot, number = names[version]
                rows.append({"bot": bot, "version": number, "version_id": version, "mu": round(rating.mu, 3),
                             "sigma": round(rating.sigma, 3), "score": round(rating.mu - 3 * rating.sigma, 3),
                             "games": self.games[label].get(version, 0),
                             "faults": self.faults[label].get(version, 0)})
        rows.sort(key=lambda row: (-row["score"], row["bot"]))
        for rank, row in enumerate(rows, 1):
            row["rank"] = rank
        return rows


def refit_rows(live: Sequence[dict[str, Any]], order: Sequence[int], published: Any) -> list[dict[str, Any]]:
    """The live rows (`LiveStandings.table`) in the refit's `order` (version ids, best first):
    each row's `rank` is its refit rank, `strength` its Bradley-Terry log-strength, and
    `mark` the verdict on it against the row below (separated, equal, reversed, unsettled;
    the last row: None) and `vs_next` the same in the published standings' words; the live view is `live_rank` (by mu - 3 sigma), mu, sigma, score."""
    by_id = {row["version_id"]: dict(row, live_rank=row["rank"]) for row in live}
    rows = []
    for rank, (version, content) in enumerate(zip(order, published.order), 1):
        row = by_id[version]
        mark = published.marks[rank - 1] if rank <= len(published.marks) else None
        row.update(rank=rank, strength=round(published.strength[content], 3), mark=mark,
                   vs_next=_SITE_WORDS.get(mark, mark) if mark else None)
        rows.append(row)
    return rows


_SITE_WORDS = {"unsettled": "not separated"}  # the published standings' word for a pair not settled


def top_comparison(rows: Sequence[dict[str, Any]], top: Any) -> dict[str, Any]:
    """The refit's verdict on its first two `rows` (`top`: a `PairVerdict` or None) in the
    form `arena.publish.verdict_line` reads a tournament's pairwise comparison."""
    settled = all(row["vs_next"] in ("separated", "equal") for row in rows[:-1])
    if top is None or len(rows) < 2 or not top.deals:
        return {"results": [], "settled": settled}
    verdict = _SITE_WORDS.get(top.status, top.status)
    return {"results": [{"a": rows[0]["bot"], "b": rows[1]["bot"], "mean": top.mean, "low": top.interval.low,
                         "high": top.interval.high, "deals": top.deals, "verdict": verdict}],
            "settled": settled}
