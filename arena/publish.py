"""Publishing standings: ``standings.md``, ``standings.csv``, ``standings.json`` and
``pairwise.csv`` in a results folder (tabulate is used only here); `summary_text`, the
compact tables `arena run` ends with.

- ``standings.json``: ``{"tournament": {provenance}, "overall": [rows], "rulesets":
  {"<label>": [rows]}, "head_to_head": {"overall" | "<label>": {"<A>": {"<B>": fraction}}},
  "pairwise": {...}}`` (``pairwise`` as `arena.ratings.assemble` makes it; the
  fields are documented in tournaments/README.md);
- ``standings.csv``: one row per entry and ruleset, ``ruleset`` column first
  (``overall`` for the overall table);
- ``pairwise.csv``: one row per compared pair (`PAIR_FIELDS`), ``ruleset`` first;
- ``standings.md``: provenance on top, then the overall table and one per ruleset, each
  ruleset's followed by its pairs.

Rows (`ROW_FIELDS`) are sorted by ``conservative`` (mu - 3 sigma), highest first; the
overall table holds only the entries entered in every ruleset.
Everything but the provenance depends only on the stored games; what varies by run or
machine (times, isolation and limits in force, bot file hashes) goes to ``run.json``
instead, so that the files above are the same for every run of the same games.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import textwrap
import unicodedata
from pathlib import Path
from typing import Any, Mapping

from tabulate import tabulate

import arena
from arena.ratings import rate_store
from arena.store import Store, read_looks

ROW_FIELDS = ("rank", "bot", "uses", "package", "version", "mu", "sigma", "conservative", "games", "wins",
              "win_rate", "win_rate_low", "win_rate_high", "avg_position", "mean_score", "faults", "disqualified",
              "vs_next")
PAIR_FIELDS = ("ruleset", "a", "b", "deals", "mean", "low", "high", "los", "verdict", "method")
FILES = ("standings.md", "standings.csv", "standings.json", "pairwise.csv")
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
        **({"earlier_seeds": plan["seed_history"]} if plan.get("seed_history") else {}),  # arena.extend
        "arena_version": meta.get("arena_version"),
        "published_by_arena_version": arena.__version__,
        "rulesets": {r["label"]: {"id": r["id"], "version": r["version"], "package": r.get("package"),
                                  "package_version": r.get("package_version"), "players": r["players"],
                                  "options": r.get("options", {}), "draw_probability": r["draw_probability"]}
                     for r in plan["rulesets"]},
        "bots": {e["bot"]: {"uses": e["uses"], "package": e["package"], "version": e["version"],
                            "params": e.get("params", {}), "files_sha256": e.get("files_sha256")}
                 for e in plan["entries"]},
        **({"challengers": [plan["entries"][c]["bot"] for c in plan.get("challengers") or ()]}
           if plan["format"] == "gauntlet" else {}),
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
            "rulesets": standings["rulesets"], "head_to_head": standings["head_to_head"],
            "pairwise": with_stops(standings["pairwise"], store)}


def with_stops(pairwise: dict[str, Any], store: Store) -> dict[str, Any]:
    """`pairwise` with, for each ruleset of a run with a `stop`, where it stands:
    ``"stop": {"looks", "deals", "stopped", "reason", "test", "decision"}`` from its last
    recorded look (reason "settled" or "max_deals" once stopped; decision the SPRT's, which
    also names its ``bot`` and ``baseline``)."""
    looks = read_looks(store)
    if not looks:
        return pairwise
    labels = [r["label"] for r in store.plan()["rulesets"]]
    last = {look.ruleset: look for look in looks}
    rulesets = dict(pairwise["rulesets"])
    for r, look in sorted(last.items()):
        if 0 <= r < len(labels) and labels[r] in rulesets:
            rulesets[labels[r]] = {**rulesets[labels[r]], "stop": {
                "looks": look.look, "deals": look.deals, "stopped": look.stopped, "reason": look.detail.get("reason"),
                "test": look.detail.get("test"), "decision": look.detail.get("decision"),
                **({key: look.detail.get(key) for key in ("bot", "baseline")} if look.detail.get("test") == "sprt"
                   else {}),
                **({"games_saved": look.detail["saved"]} if look.detail.get("saved") else {})}}
    return {**pairwise, "rulesets": rulesets}


def stop_text(comparison: dict[str, Any]) -> str:
    """Where a stopping run's ruleset stands, in a few words ("" without a stop)."""
    stop = comparison.get("stop")
    if not stop:
        return ""
    deals = f"{stop['deals']:,} deal{'' if stop['deals'] == 1 else 's'}"
    if not stop["stopped"]:
        return f"not stopped yet: looked after {deals}"
    if stop.get("test") == "sprt":
        return f"stopped after {deals}: " + sprt_outcome(stop)
    why = "settled" if stop.get("reason") == "settled" else "not settled by max_deals"
    saved = f", {stop['games_saved']:,} games saved by dealing no more to settled pairs" if stop.get("games_saved") \
        else ""
    return f"stopped after {deals}: {why}{saved}"


def sprt_outcome(stop: dict[str, Any]) -> str:
    """What an SPRT stop decided, in words: which hypothesis it accepted, or that it
    reached `max_deals` undecided."""
    bot, baseline = stop.get("bot") or "the bot", stop.get("baseline") or "its baseline"
    decision = stop.get("decision")
    if decision == "accept H1":
        return f"SPRT decided {bot} is better than {baseline} (H1 accepted)"
    if decision == "accept H0":
        return f"SPRT decided {bot} is not better than {baseline} (H0 accepted)"
    return f"SPRT undecided at max_deals ({bot} against {baseline} reached neither bound)"


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
    _write(paths[3], pairwise_csv_text(committed))
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
            writer.writerow([label] + ["" if row[f] is None else spreadsheet_text(row[f]) if f in _NAME_FIELDS
                                       else row[f] for f in ROW_FIELDS])
    return buffer.getvalue()


_NAME_FIELDS = frozenset({"bot", "uses", "package", "version", "a", "b"})
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: Any) -> Any:
    """A name as a CSV cell that a spreadsheet shows as text, never runs: one starting
    like a formula (=, +, -, @, tab, CR) gets a ' before it (the csv module quotes the rest)."""
    return f"'{value}" if isinstance(value, str) and value.startswith(_FORMULA_START) else value


def terminal_text(value: Any) -> str:
    """`value` safe to print on a terminal: control and format characters (escape
    sequences, bidirectional overrides) shown as ``\\uXXXX`` instead of acting."""
    return "".join(c if unicodedata.category(c)[0] != "C" else f"\\u{ord(c):04x}" for c in str(value))


def pairwise_csv_text(doc: dict[str, Any]) -> str:
    """pairwise.csv: the overall table's pairs (no interval or LOS: their verdict is the
    rulesets'), then each ruleset's; ``method`` is "fixed" or "sequence"."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PAIR_FIELDS)
    pairwise = doc.get("pairwise") or {}
    scopes = [("overall", (pairwise.get("overall") or {}).get("results", []), ""),
              *((label, c["results"], pairwise["method"]) for label, c in (pairwise.get("rulesets") or {}).items())]
    for label, results, method in scopes:
        for r in results:
            writer.writerow([label] + ["" if r.get(f) is None else spreadsheet_text(r[f]) if f in _NAME_FIELDS
                                       else r[f] for f in PAIR_FIELDS[1:-1]] + [method])
    return buffer.getvalue()


def challenger_names(doc: dict[str, Any]) -> list[str]:
    """A gauntlet's challengers by name ([] for any other format)."""
    return list(doc["tournament"].get("challengers") or [])


def shown_name(name: str, challengers: Any = ()) -> str:
    """A bot's name as a table shows it: a gauntlet's challenger marked as one."""
    return f"{name} (challenger)" if name in challengers else name


def table(rows: list[dict[str, Any]], fmt: str = "github", challengers: Any = ()) -> str:
    """One standings table as text (`challengers`: names marked as a gauntlet's challengers)."""
    headers = ["rank", "bot", "uses", "version", "conservative", "mu", "sigma", "games", "wins",
               "win rate (95% CI)", "avg position", "mean score", "faults", "vs next"]
    body = []
    for r in rows:
        if r["games"]:
            rate = f"{r['win_rate']:.3f} ({r['win_rate_low']:.3f}-{r['win_rate_high']:.3f})"
            position, score = f"{r['avg_position']:.2f}", f"{r['mean_score']:.1f}"
        else:
            rate = position = score = "-"
        name = markdown_text if fmt == "github" else terminal_text  # names are data, not markup
        body.append([r["rank"], name(shown_name(r["bot"], challengers)), name(r["uses"]), name(r["version"]),
                     f"{r['conservative']:.2f}", f"{r['mu']:.2f}", f"{r['sigma']:.2f}", r["games"], r["wins"], rate,
                     position, score, r["faults"], r.get("vs_next") or ""])
    align = ("right", "left", "left", "left") + ("right",) * 9 + ("left",)
    return tabulate(body, headers=headers, tablefmt=fmt, disable_numparse=True, colalign=align)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(value: Any) -> str:
    """`value` as literal text in Markdown (a table cell included): HTML's <, > and & as
    entities, and backslash escapes for what would be markup (pipes, backticks, emphasis,
    links), so a display name can neither break a table nor inject HTML."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(str(value), quote=False))


def provenance_lines(p: Mapping[str, Any]) -> list[str]:
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


def time_lines(p: Mapping[str, Any]) -> list[str]:
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


def _span(r: dict[str, Any]) -> str:
    """A pair's interval as text; an unbounded one (an adjusted pair of one deal) as "any"."""
    return "any" if r["low"] is None or r["high"] is None else f"{r['low']:.3f}-{r['high']:.3f}"


def pair_table(results: list[dict[str, Any]], fmt: str = "github") -> str:
    """A ruleset's pairs as text: A, B, deals, A's mean paired score against B, its
    interval, LOS and the verdict."""
    name = markdown_text if fmt == "github" else terminal_text
    body = [[name(r["a"]), name(r["b"]), r["deals"], f"{r['mean']:.3f}", _span(r),
             f"{r['los']:.3f}", r["verdict"]] for r in results]
    return tabulate(body, headers=["A", "B", "deals", "mean score of A", "interval", "LOS", "verdict"],
                    tablefmt=fmt, disable_numparse=True, colalign=("left", "left", "right", "right", "right", "right",
                                                                  "left"))


BASELINE_BOTS = (("flip-arena", "random"),)
"""(distribution, registered bot) of the bots that are baselines, not contenders: an
overall table that would rank only entries using them is left out (`overall_shown`)."""


def overall_shown(doc: Mapping[str, Any]) -> bool:
    """Whether the overall table is worth showing: it ranks at least two entries, and not
    only baselines (`BASELINE_BOTS`); a tournament of one ruleset always has it."""
    rows = doc["overall"]
    if len(doc["rulesets"]) <= 1 or not doc.get("pairwise"):
        return bool(rows)
    return len(rows) > 1 and not all((r["package"], r["uses"]) in BASELINE_BOTS for r in rows)


def overall_note(doc: Mapping[str, Any]) -> str:
    """Which bots the overall table ranks and why, in a sentence (or why it is left out)."""
    overall = (doc.get("pairwise") or {}).get("overall") or {}
    left_out = overall.get("left_out") or []
    if not left_out:
        return "Every bot plays every ruleset."
    members = overall.get("bots") or []
    some = (f"{', '.join(left_out)} play{'s' if len(left_out) == 1 else ''} only some rulesets and "
            f"{'is' if len(left_out) == 1 else 'are'} ranked in those rulesets' tables")
    if len(members) > 1 and not overall_shown(doc):
        return (f"No overall ranking: the only bots entered in every ruleset ({', '.join(members)}) are "
                f"baselines that play at random, and ranking them says nothing; {some}.")
    held = (f"Only the bots entered in every ruleset ({', '.join(members)}) are ranked here, since a ranking "
            "is fair only between bots that played the same rulesets" if len(members) > 1 else
            "No two bots are entered in every ruleset, so there is no overall ranking")
    return f"{held}: {some}."


_VERDICT_WORDS = {
    "separated": "separated, {a} is the better",
    "reversed": "reversed, the pairs put {b} ahead against the rating order",
    "equal": "equal within the margin",
    "not separated": "not separated, either could be the better",
    "not compared": "not compared (two field entries of a gauntlet)",
}


def verdict_line(label: str, rows: list[dict[str, Any]], comparison: dict[str, Any] | None) -> str:
    """One plain line on a table (`label`: a ruleset's label or "overall"): who leads, by
    what mean paired score and interval against the next, the verdict on that pair, and
    whether the whole ranking is settled (from the standings' verdicts)."""
    if not rows:
        return f"{label}: no bots ranked."
    leader = rows[0]["bot"]
    if len(rows) == 1:
        return f"{label}: {leader} alone."
    second = rows[1]["bot"]
    pair = next((r for r in (comparison or {}).get("results", []) if (r["a"], r["b"]) == (leader, second)), None)
    if pair is None or pair.get("mean") is None:
        return f"{label}: {leader} leads {second} on rating; no paired results yet."
    if pair.get("low") is not None:
        score = f"mean paired score {pair['mean']:.2f} (interval {pair['low']:.2f}-{pair['high']:.2f}, " \
                f"{pair['deals']:,} deals)"
    elif pair.get("los") is not None:  # a ruleset's pair with too few deals to bound
        score = f"mean paired score {pair['mean']:.2f} (interval any, {pair['deals']:,} deals)"
    else:
        score = f"mean paired score {pair['mean']:.2f} over the rulesets"
    verdict = _VERDICT_WORDS.get(pair["verdict"], pair["verdict"]).format(a=leader, b=second)
    if comparison and "settled" in comparison:
        ranking = "the whole ranking is settled" if comparison["settled"] else "the ranking is not settled"
        stopped = stop_text(comparison)
        ranking += f" ({stopped})" if stopped else ""
    else:  # overall: each pair's verdict is the rulesets'
        settled = all(r.get("vs_next") in ("separated", "equal", "not compared") for r in rows[:-1])
        ranking = "the ranking is settled on every ruleset" if settled else "the ranking is not settled on " \
            "every ruleset"
    return f"{label}: {leader} leads {second}, {score}: {verdict}; {ranking}."


def verdict_lines(doc: dict[str, Any]) -> list[str]:
    """`verdict_line` for the overall table (where `overall_shown` and there is more than
    one ruleset) and each ruleset, in that order."""
    pairwise = doc.get("pairwise") or {}
    comparisons = pairwise.get("rulesets") or {}
    lines = []
    if len(doc["rulesets"]) > 1 and overall_shown(doc):
        lines.append(verdict_line("overall", doc["overall"], pairwise.get("overall")))
    lines += [verdict_line(label, rows, comparisons.get(label)) for label, rows in doc["rulesets"].items()]
    return lines


def pairwise_note(doc: dict[str, Any]) -> str:
    """What the pairs and the "vs next" column say, in a paragraph."""
    pairwise = doc.get("pairwise")
    if not pairwise:
        return ""
    margin = f"; equal: within 1/2 +- {pairwise['margin']:g}" if pairwise.get("margin") else ""
    gauntlet = (" (not compared: two field entries of a gauntlet, whose results among themselves count nowhere)"
                if doc["tournament"].get("format") == "gauntlet" else "")
    return ("Pairs: A's mean paired score against B is, over deals (every rotation of a deal at the tables "
            "holding both), the share of games A finished ahead of B, ties a half; LOS is the likelihood "
            f"that A is the better of the two. Intervals: {pairwise['interval']}. \"vs next\": the verdict "
            "on a bot against the one ranked below it; separated: the pair's interval lies above 1/2; "
            f"reversed: below 1/2 (the data contradict the rating order){margin}; not separated otherwise"
            f"{gauntlet}. " + (
                "Overall, a pair's score is the mean of its rulesets' scores and its interval the mean of "
                "their intervals (each at its share of the error rate), read as a ruleset's is."
                if pairwise.get("intervals") == "betting" else
                "Overall, a pair is separated when it is separated, in the same order, on every ruleset.")
            + luck_note(doc))


def luck_note(doc: dict[str, Any]) -> str:
    """A sentence naming the rulesets whose pairs are luck-adjusted (docs/luck.md), and their
    intervals, or "" where none is."""
    rulesets = ((doc.get("pairwise") or {}).get("rulesets") or {})
    adjusted = [label for label, c in rulesets.items() if c.get("luck") == "adjusted"]
    if not adjusted:
        return ""
    sequence = (doc.get("pairwise") or {}).get("method") == "sequence"
    return (f" Luck-adjusted ({', '.join(adjusted)}): each game's comparison minus the luck of the draw "
            "(the change a chance event made in the game's own value of the position, less its expected "
            "change; docs/luck.md), so a score may pass 0 or 1; their intervals are "
            + ("an asymptotic confidence sequence (Waudby-Smith et al.)" if sequence else
               "Student t intervals (central limit)") + " on the adjusted scores, at the same error rate.")


def markdown(doc: dict[str, Any]) -> str:
    p = doc["tournament"]
    leads = [f"- {markdown_text(line)}" for line in verdict_lines(doc)] if doc.get("pairwise") else []
    parts = [f"# Standings: {p['name']}", "", *([*leads, ""] if leads else []), *provenance_lines(p), "",
             "Sorted by conservative rating (TrueSkill mu - 3 sigma). A win is a first place, alone or "
             "shared (a game that every player tied is nobody's win); average position: tied players share "
             "the mean of the positions they span.", ""]
    note = pairwise_note(doc)
    parts += [note, ""] if note else []
    parts += ["## Overall", ""]
    parts += [markdown_text(overall_note(doc)), ""] if doc.get("pairwise") else []
    marked = challenger_names(doc)
    parts += [table(doc["overall"], challengers=marked), ""] if overall_shown(doc) or not doc.get("pairwise") else []
    comparisons = (doc.get("pairwise") or {}).get("rulesets") or {}
    for label, rows in doc["rulesets"].items():
        parts += [f"## {label}", "", table(rows, challengers=marked), ""]
        if label in comparisons:
            c = comparisons[label]
            settled = "every adjacent pair is settled" if c["settled"] else "not every adjacent pair is separated"
            stopped = f"; {stop_text(c)}" if stop_text(c) else ""
            parts += [f"Pairs of {label} ({c['pairs']} compared, {interval_kind(doc)} intervals at error rate "
                      f"{c['alpha_per_pair']:.4g} each; {settled}{stopped}):", "",
                      pair_table(c["results"]) if c["results"] else "(no pairs played yet)", ""]
    return "\n".join(parts)


def interval_kind(doc: dict[str, Any]) -> str:
    """The run's kind of interval, briefly: "fixed-sample 95%" or "anytime-valid 95%"."""
    pairwise = doc.get("pairwise") or {}
    if not pairwise:
        return ""
    kind = "fixed-sample" if pairwise["method"] == "fixed" else "anytime-valid"
    return f"{kind} {100 * pairwise['confidence']:g}%"


SUMMARY_WIDTH = 100
_SUMMARY_NAME = 22  # the widest bot name `summary_text` shows whole


def summary_text(doc: dict[str, Any], results_dir: str | Path) -> str:
    """The compact tables `arena run` ends with, at most `SUMMARY_WIDTH` columns: per
    ruleset (and overall, where it ranks bots that play more than one ruleset) rank, bot,
    conservative rating, games, win rate, the verdict against the next bot and the mean
    paired score against it with its interval; then where to see the rest."""
    pairwise = doc.get("pairwise") or {}
    comparisons = pairwise.get("rulesets") or {}
    overall = pairwise.get("overall") or {}
    marked = challenger_names(doc)
    parts = []
    if len(doc["rulesets"]) > 1 and overall_shown(doc):
        parts += [_summary_block("overall (bots entered in every ruleset; score: the mean over rulesets)",
                                 doc["overall"], overall, marked), ""]
    for label, rows in doc["rulesets"].items():
        title = label if len(doc["rulesets"]) > 1 else f"{label} (the only ruleset: the overall table)"
        if stop_text(comparisons.get(label) or {}):
            title += f"; {stop_text(comparisons[label])}"
        parts += [_summary_block(title, rows, comparisons.get(label), marked), ""]
    if marked:
        parts += ["*: a challenger of the gauntlet (field entries are compared only with challengers)."]
    if pairwise:
        parts += ["score vs next: the mean paired score against the next bot, and its interval",
                  _clip(f"({interval_kind(doc)}, simultaneous over each ruleset's pairs).")]
    members = len(overall.get("bots") or [])
    if overall.get("left_out") and len(doc["rulesets"]) > 1:
        parts += [_clip("No overall table: fewer than two bots are entered in every ruleset." if members < 2 else
                        "No overall table: the only bots entered in every ruleset are random baselines."
                        if not overall_shown(doc) else
                        f"Overall ranks only the bots entered in every ruleset ({members} of "
                        f"{members + len(overall['left_out'])}).")]
    parts += [f"Everything (pairs, head-to-head, replays): arena serve {results_dir}"]
    return "\n".join(parts)


def _summary_block(title: str, rows: list[dict[str, Any]], comparison: dict[str, Any] | None,
                   challengers: Any = ()) -> str:
    by_pair = {(r["a"], r["b"]): r for r in (comparison or {}).get("results", [])}
    body = []
    for upper, lower in zip(rows, [*rows[1:], None]):
        pair = by_pair.get((upper["bot"], lower["bot"])) if lower else None
        score = "" if not pair or pair["mean"] is None else f"{pair['mean']:.2f}" + (
            f" ({pair['low']:.2f}-{pair['high']:.2f})" if pair.get("low") is not None else "")
        rate = f"{upper['win_rate']:.3f}" if upper["games"] else "-"
        name = _short(upper["bot"]) + (" *" if upper["bot"] in challengers else "")
        body.append([upper["rank"], name, f"{upper['conservative']:.2f}", upper["games"], rate,
                     (upper.get("vs_next") or "") if lower else "", score])
    text = tabulate(body, headers=["#", "bot", "rating", "games", "win rate", "vs next", "score vs next"],
                    tablefmt="simple", disable_numparse=True,
                    colalign=("right", "left", "right", "right", "right", "left", "left"))
    return "\n".join([_clip(title), *(_clip(line.rstrip()) for line in text.splitlines())])


def _short(name: str) -> str:
    name = terminal_text(name)
    return name if len(name) <= _SUMMARY_NAME else name[:_SUMMARY_NAME - 1] + "\N{HORIZONTAL ELLIPSIS}"


def _clip(line: str) -> str:
    return line if len(line) <= SUMMARY_WIDTH else line[:SUMMARY_WIDTH - 1] + "\N{HORIZONTAL ELLIPSIS}"


def text_tables(doc: dict[str, Any], overall_only: bool = False, wide: bool = False) -> str:
    """The tables for a terminal (`arena rank`): compact, within `SUMMARY_WIDTH` columns
    (who leads, then per table rank, bot, rating, games, win rate, the verdict and score
    against the next, and each ruleset's pairs); `wide`: every column, as standings.md has
    them."""
    comparisons = (doc.get("pairwise") or {}).get("rulesets") or {}
    marked = challenger_names(doc)
    if wide:
        parts = ["overall", table(doc["overall"], "simple", marked)]
        if not overall_only:
            for label, rows in doc["rulesets"].items():
                parts += ["", label, table(rows, "simple", marked)]
                if comparisons.get(label, {}).get("results"):
                    parts += ["", pair_table(comparisons[label]["results"], "simple")]
        return "\n".join(parts)
    parts = []
    if doc.get("pairwise"):
        for line in verdict_lines(doc):  # names are data: their control characters shown, not run
            parts += textwrap.wrap(terminal_text(line), SUMMARY_WIDTH, subsequent_indent="  ")
        parts.append("")
    overall = (doc.get("pairwise") or {}).get("overall")
    if overall_shown(doc) or not doc.get("pairwise"):
        parts += [_summary_block("overall", doc["overall"], overall, marked)]
    else:
        parts += textwrap.wrap("overall: " + overall_note(doc), SUMMARY_WIDTH, subsequent_indent="  ")
    if not overall_only:
        for label, rows in doc["rulesets"].items():
            parts += ["", _summary_block(label, rows, comparisons.get(label), marked)]
            if comparisons.get(label, {}).get("results"):
                parts += ["", *(_clip(line.rstrip()) for line in
                                _short_pairs(comparisons[label]["results"]).splitlines())]
    if marked:
        parts += ["", "*: a challenger of the gauntlet (field entries are compared only with challengers)."]
    parts += ["", "Every column (uses, version, mu, sigma, wins, mean score, faults): arena rank --wide"]
    return "\n".join(parts)


def _short_pairs(results: list[dict[str, Any]]) -> str:
    body = [[_short(r["a"]), _short(r["b"]), r["deals"], f"{r['mean']:.3f}", _span(r),
             f"{r['los']:.3f}", r["verdict"]] for r in results]
    return tabulate(body, headers=["A", "B", "deals", "score of A", "interval", "LOS", "verdict"],
                    tablefmt="simple", disable_numparse=True,
                    colalign=("left", "left", "right", "right", "right", "right", "left"))

