"""Publishing standings: ``standings.md``, ``standings.csv`` and ``standings.json`` in a
results folder (tabulate is used only here).

- ``standings.json``: ``{"tournament": {provenance}, "overall": [rows], "rulesets":
  {"<label>": [rows]}, "head_to_head": {"overall" | "<label>": {"<A>": {"<B>": fraction}}}}``;
- ``standings.csv``: one row per entry and ruleset, ``ruleset`` column first
  (``overall`` for the overall table);
- ``standings.md``: provenance on top, then one GitHub-style table overall and one per ruleset.

Rows (`ROW_FIELDS`) are sorted by ``conservative`` (mu - 3 sigma), highest first.
Everything but the provenance depends only on the stored games; what varies by run or
machine (times, isolation and limits in force, bot file hashes) goes to ``run.json``
instead, so that the three files above are the same for every run of the same games.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any

from tabulate import tabulate

import arena
from arena.ratings import rate_store
from arena.store import Store

ROW_FIELDS = ("rank", "bot", "uses", "package", "version", "mu", "sigma", "conservative", "games", "wins",
              "win_rate", "win_rate_low", "win_rate_high", "avg_position", "mean_score", "faults", "disqualified")
FILES = ("standings.md", "standings.csv", "standings.json")
RUN_FILE = "run.json"


def provenance(store: Store) -> dict[str, Any]:
    """Where the standings come from: the file, the seed (or its commitment until the
    tournament is complete), versions, and times."""
    meta = store.meta()
    plan = store.plan()
    stored = store.count()
    complete = stored == plan["total_games"]
    secret = bool(meta.get("seed_secret"))
    revealed = complete or not secret
    return {
        "name": plan["name"],
        "file": meta.get("tournament_file"),
        "file_sha256": meta.get("tournament_sha256"),
        "file_text": meta.get("tournament_text"),
        "format": plan["format"],
        "games_total": plan["total_games"],
        "games_stored": stored,
        "complete": complete,
        "seed": meta.get("seed") if revealed else None,
        "seed_secret": secret,
        "seed_commitment": meta.get("seed_commitment"),
        "seed_salt": meta.get("seed_salt") if secret and revealed else None,
        "arena_version": meta.get("arena_version"),
        "published_by_arena_version": arena.__version__,
        "rulesets": {r["label"]: {"id": r["id"], "version": r["version"], "package": r.get("package"),
                                  "package_version": r.get("package_version"), "players": r["players"],
                                  "options": r.get("options", {}), "draw_probability": r["draw_probability"]}
                     for r in plan["rulesets"]},
        "bots": {e["bot"]: {"uses": e["uses"], "package": e["package"], "version": e["version"],
                            "params": e.get("params", {}), "files_sha256": e.get("files_sha256")}
                 for e in plan["entries"]},
        "isolation": meta.get("isolation"),
        "started_at": meta.get("started_at"),
        "finished_at": meta.get("finished_at"),
    }


def document(store: Store, standings: dict[str, Any] | None = None, workers: int = 0) -> dict[str, Any]:
    """The standings.json document for the games in `store`: `standings` if already
    rated (arena run rates while it plays), else rated here with `workers`
    processes (0: one per core)."""
    if standings is None:
        standings = rate_store(store, workers or _cores())
    return {"tournament": provenance(store), "overall": standings["overall"],
            "rulesets": standings["rulesets"], "head_to_head": standings["head_to_head"]}


def _cores() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def publish(out: str | Path, store: Store, standings: dict[str, Any] | None = None) -> list[Path]:
    """Write standings.md, .csv and .json into `out`; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc = document(store, standings)
    committed, run = split_run_details(doc)
    paths = [out / name for name in FILES]
    _write(paths[0], markdown(committed))
    _write(paths[1], csv_text(committed))
    _write(paths[2], json.dumps(committed, indent=2) + "\n")
    _write(out / RUN_FILE, json.dumps(run, indent=2) + "\n")
    return paths


def split_run_details(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`doc` without what varies by run or machine, and that part alone (``run.json``,
    not committed): the start and finish times, the isolation and limits in force, and
    each bot's ``files_sha256`` (it hashes installed files, whose paths and contents
    differ between checkouts). The rest is the same for the same stored games."""
    provenance = dict(doc["tournament"])
    run = {"name": provenance.get("name"),
           **{key: provenance.pop(key, None) for key in ("started_at", "finished_at", "isolation")}}
    bots = provenance.get("bots") or {}
    run["bots"] = {name: {"files_sha256": bot.get("files_sha256")} for name, bot in bots.items()}
    provenance["bots"] = {name: {k: v for k, v in bot.items() if k != "files_sha256"} for name, bot in bots.items()}
    return {**doc, "tournament": provenance}, run


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def csv_text(doc: dict[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("ruleset",) + ROW_FIELDS)
    for label, rows in [("overall", doc["overall"]), *doc["rulesets"].items()]:
        for row in rows:
            writer.writerow([label] + ["" if row[f] is None else row[f] for f in ROW_FIELDS])
    return buffer.getvalue()


def table(rows: list[dict[str, Any]], fmt: str = "github") -> str:
    """One standings table as text."""
    headers = ["rank", "bot", "uses", "version", "conservative", "mu", "sigma", "games", "wins",
               "win rate (95% CI)", "avg position", "mean score", "faults"]
    body = []
    for r in rows:
        if r["games"]:
            rate = f"{r['win_rate']:.3f} ({r['win_rate_low']:.3f}-{r['win_rate_high']:.3f})"
            position, score = f"{r['avg_position']:.2f}", f"{r['mean_score']:.1f}"
        else:
            rate = position = score = "-"
        name = markdown_text if fmt == "github" else str  # names are data, not markup
        body.append([r["rank"], name(r["bot"]), name(r["uses"]), name(r["version"]), f"{r['conservative']:.2f}",
                     f"{r['mu']:.2f}", f"{r['sigma']:.2f}", r["games"], r["wins"], rate, position, score, r["faults"]])
    align = ("right", "left", "left", "left") + ("right",) * 9
    return tabulate(body, headers=headers, tablefmt=fmt, disable_numparse=True, colalign=align)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(value: Any) -> str:
    """`value` as literal text in Markdown (a table cell included): HTML's <, > and & as
    entities, and backslash escapes for what would be markup (pipes, backticks, emphasis,
    links), so a display name can neither break a table nor inject HTML."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(str(value), quote=False))


def provenance_lines(p: dict[str, Any]) -> list[str]:
    if p["seed_secret"] and p["seed"] is None:
        seed = (f"secret until the tournament is complete; commitment sha256 `{p['seed_commitment']}` "
                "= SHA-256 of \"<seed>:<salt>\"")
    elif p["seed_secret"]:
        seed = (f"{p['seed']} (was secret; salt `{p['seed_salt']}`, commitment sha256 `{p['seed_commitment']}` "
                "= SHA-256 of \"<seed>:<salt>\")")
    else:
        seed = str(p["seed"])
    rulesets = ", ".join(f"{label} = {r['id']} {r['version']} ({r['package']} {r['package_version']}, "
                         f"{r['players']} players)" for label, r in p["rulesets"].items())
    bots = ", ".join(markdown_text(f"{name} = {b['uses']} ({b['package']} {b['version']})")
                     for name, b in p["bots"].items())
    state = "complete" if p["complete"] else "incomplete"
    return [
        f"- tournament file: `{p['file']}` (sha256 `{p['file_sha256']}`), format {p['format']}",
        f"- seed: {seed}",
        f"- games: {p['games_stored']:,} of {p['games_total']:,} ({state})",
        f"- arena {p['arena_version']}",
        f"- rulesets: {rulesets}",
        f"- bots: {bots}",
        *isolation_lines(p.get("isolation")),
        *time_lines(p),
    ]


def time_lines(p: dict[str, Any]) -> list[str]:
    """When the run started and finished, where `p` has them (a committed standings file
    does not: they are in run.json)."""
    if "started_at" not in p:
        return [f"- times, isolation, limits in force and bot file hashes: `{RUN_FILE}` beside this file "
                "(written by each run, not committed)"]
    return [f"- started {p['started_at']}, finished {p['finished_at'] or '-'}"]


def isolation_lines(isolation: dict[str, Any] | None) -> list[str]:
    """How the bots were hosted and which limits were in force (the last run's)."""
    if not isolation:
        return []
    used = isolation.get("used")
    fallback = f" (asked for {isolation.get('requested')}: {isolation['fallback']})" if isolation.get("fallback") else ""
    limits = "; ".join(f"{key}: {value}" for key, value in (isolation.get("limits") or {}).items()
                       if key != "isolation")
    return [markdown_text(f"- isolation: {used}{fallback}" + (f"; {limits}" if limits else ""))]


def markdown(doc: dict[str, Any]) -> str:
    p = doc["tournament"]
    parts = [f"# Standings: {p['name']}", "", *provenance_lines(p), "",
             "Sorted by conservative rating (TrueSkill mu - 3 sigma). A win is a first place, alone or "
             "shared (a game that every player tied is nobody's win); average position: tied players share "
             "the mean of the positions they span.", "",
             "## Overall", "", table(doc["overall"]), ""]
    for label, rows in doc["rulesets"].items():
        parts += [f"## {label}", "", table(rows), ""]
    return "\n".join(parts)


def text_tables(doc: dict[str, Any], overall_only: bool = False) -> str:
    """The tables for a terminal (`arena rank`, and the end of `arena run`)."""
    parts = ["overall", table(doc["overall"], "simple")]
    if not overall_only:
        for label, rows in doc["rulesets"].items():
            parts += ["", label, table(rows, "simple")]
    return "\n".join(parts)
