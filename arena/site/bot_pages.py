"""A page per bot entry (``site/bots/<slug>.html``): its standings in every table, its
results against each opponent (per ruleset: games together, finished ahead, tied,
behind), its games (a link to each replay: those with a replay file here, and every
game when `arena serve` serves the site), the games it finished last, its faults (each a
link to the replay at that decision) and what it wrote to stderr.

Built from the results store's compact game rows (every game) and the records the site
reads anyway for its replay files (the logs: every game of a small tournament, else the
sample, which takes the games with faults first). At most `MAX_GAMES` games are listed
per page; `arena faults` and `arena replay` see everything.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from arena.decisions import LOG_NOTE, seat_logs
from arena.store import GameRow

MAX_GAMES = 1000
"""Games listed on a bot's page (the first in schedule order); its standings count them all."""
MAX_LOGS = 60
"""Logs shown on a bot's page."""


def bot_pages(plan: Mapping[str, Any], rows: Iterable[GameRow], scopes: Sequence[Mapping[str, Any]],
              faults: Sequence[Mapping[str, Any]], records: Mapping[int, Mapping[str, Any]],
              bots: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
    """One page context per entry of `plan`, in plan order. `rows`: every stored game;
    `scopes`: the leaderboards (as the index page has them); `faults`: every fault row;
    `records`: the records read for replay files, by game; `bots`: names and slugs."""
    labels = [r["label"] for r in plan["rulesets"]]
    entries = plan["entries"]
    pages = [{"name": e["bot"], "slug": b["slug"], "entry": e, "standings": [], "games": [], "games_total": 0,
              "losses": [], "faults": [], "logs": [], "logs_total": 0, "opponents": {}} for e, b in zip(entries, bots)]
    for scope in scopes:
        for row in scope["rows"]:
            index = next((i for i, e in enumerate(entries) if e["bot"] == row["bot"]), None)
            if index is not None:
                pages[index]["standings"].append(dict(row, scope=scope["title"]))
    for game in rows:
        _add_game(pages, game, labels, entries)
    by_name = {page["name"]: page for page in pages}
    for fault in faults:
        if fault["bot"] in by_name:
            by_name[fault["bot"]]["faults"].append(fault)
    _add_logs(by_name, records)
    for page in pages:
        page["log_note"] = LOG_NOTE
        page["opponents"] = [
            {"ruleset": labels[r], "bot": entries[other]["bot"], "games": sum(met), "ahead": met[0], "tied": met[1],
             "behind": met[2], "share": (met[0] + met[1] / 2) / sum(met)}
            for (r, other), met in sorted(page["opponents"].items())]
    return pages


def _add_game(pages: list[dict[str, Any]], game: GameRow, labels: list[str], entries: Sequence[Mapping[str, Any]]
              ) -> None:
    """`game` on the page of every entry that played it: in its games (and losses), and its
    results against each table-mate."""
    players = len(game.seats)
    everyone_tied = len(set(game.standing)) == 1
    for seat, entry in enumerate(game.seats):
        page = pages[entry]
        page["games_total"] += 1
        summary = {
            "game": game.index, "ruleset": labels[game.ruleset], "seat": seat, "position": game.standing[seat],
            "players": players, "score": game.scores[seat], "faults": game.faults[seat],
            "others": [entries[other]["bot"] for i, other in enumerate(game.seats) if i != seat],
            "result": _result(game.standing, seat, everyone_tied),
        }
        if len(page["games"]) < MAX_GAMES:
            page["games"].append(summary)
        if summary["result"] == "last" and len(page["losses"]) < MAX_GAMES:
            page["losses"].append(summary)
        for other_seat, other in enumerate(game.seats):
            if other_seat != seat:
                met = page["opponents"].setdefault((game.ruleset, other), [0, 0, 0])  # ahead, tied, behind
                mine, theirs = game.standing[seat], game.standing[other_seat]
                met[0 if mine < theirs else 1 if mine == theirs else 2] += 1


def _add_logs(by_name: dict[str, dict[str, Any]], records: Mapping[int, Mapping[str, Any]]) -> None:
    """What each bot wrote to stderr in the games of `records`, on its page (at most MAX_LOGS)."""
    for number in sorted(records):
        record = records[number]
        entry_of_seat = [s.get("display", s.get("bot")) for s in record.get("seats", [])]
        for seat, text in seat_logs(record):
            logged = by_name.get(entry_of_seat[seat]) if seat < len(entry_of_seat) else None
            if logged is None:
                continue
            logged["logs_total"] += 1
            if len(logged["logs"]) < MAX_LOGS:
                logged["logs"].append({"game": number, "seat": seat, "text": text})


def _result(standing: Sequence[int], seat: int, everyone_tied: bool) -> str:
    if everyone_tied:
        return "tie"
    if standing[seat] == 1:
        return "win"
    return "last" if standing[seat] == max(standing) else "middle"
