"""The static site of a results folder: ``RESULTS_DIR/site/``.

`write_site(results_dir, store)` writes, from the results store alone (plus the
installed rulesets, to re-play games for the replay viewer):

- ``index.html``: the overall and per-ruleset leaderboards (sortable; mu with a
  sigma error bar; sorted by the conservative rating), each bot's rating over the
  tournament (inline SVG), the head-to-head heat map, the faults, the replays
  and the provenance;
- ``replay.html``: the replay viewer (``replay.html?game=N#view=god&d=8``: decision
  8, numbered from 1), which loads ``replays/<N>.js`` with a script tag, so that the
  site works from file:// as well as from any static host; it steps or autoplays,
  marks faults and replacement actions and shows the bots' logs;
- ``bots/<slug>.html``: a page per bot entry (`arena.site.bot_pages`);
- ``static/``: CSS, plain JavaScript and the favicon.

Every page reads on a 390 px phone without sideways scrolling: tables scroll in their
own boxes and hide their lower-priority columns there.

No build step, no external requests. Templates are Jinja2 (``templates/``).
`arena serve` (arena.site.server) serves the site and makes any game's replay file
on demand.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena.site.data import (OKABE_ITO, chart_svg, choose_replays, error_bar_svg, faults_rows,
                             head_to_head_matrix, heat_color, pairwise_view, rate_with_history, series_style)
from arena.site.bot_pages import bot_pages
from arena.site.replay import error_script, replay_data, replay_script
from arena.ratings import scope_plan
from arena.store import Store

HERE = Path(__file__).resolve().parent
SITE_DIR = "site"
MAX_FAULT_ROWS = 2000

COLUMN_TIPS = {
    "conservative": "mu - 3 sigma: a rating the bot is very likely above (TrueSkill); the table is sorted by it, "
                    "so a bot with few games is not ranked high on luck",
    "mu": "TrueSkill's estimate of the bot's skill (mu), with its uncertainty sigma; the bar shows mu, mu ± σ "
          "and mu ± 3σ",
    "sigma": "sigma: how uncertain the skill estimate is; it shrinks as the bot plays more games",
    "wins": "Games it finished first, alone or shared (a game every player tied is nobody's win)",
    "win_rate": "Wins / games, with its 95% Wilson interval",
    "avg_position": "Average finishing position (1 = first; tied players share the mean of the places they span): "
                    "lower is better",
    "mean_score": "Average of the game's own score (overall: the plain mean over every ruleset's scores)",
    "faults": "Decisions or calls where the bot crashed, hung, answered garbage or an illegal action",
}
"""The leaderboard's header tooltips."""

__all__ = ["write_site", "write_standings_site", "replay_file_text", "build_context", "SITE_DIR"]


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                              autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)


def installed_rulesets(plan: Mapping[str, Any]) -> dict[str, Any]:
    """The installed ruleset classes by id (those of the plan that are installed)."""
    from arena.plugins import load_registry

    try:
        registry = load_registry()
    except Exception:  # a broken plugin environment: no replays, but the tables still publish
        return {}
    return {r["id"]: registry.rulesets[r["id"]].cls for r in plan["rulesets"] if r["id"] in registry.rulesets}


def replay_file_text(store: Store, index: int, rulesets: Mapping[str, Any] | None = None) -> str:
    """The ``replays/<index>.js`` file for stored game `index` (an error script that
    says why when it cannot be made)."""
    record = store.record(index)
    if record is None:
        return error_script(index, f"game {index} is not in the results store")
    if rulesets is None:
        rulesets = installed_rulesets(store.get("plan"))
    meta = record["ruleset"]
    cls = rulesets.get(meta["id"])
    if cls is None:
        return error_script(index, f"ruleset {meta['id']} is not installed here")
    try:
        return replay_script(replay_data(record, cls, index))
    except Exception as exc:  # ReplayMismatchError (another version), or a broken engine
        return error_script(index, f"{type(exc).__name__}: {exc}")


def build_context(store: Store, standings: Mapping[str, Any] | None = None,
                  replay_games: Sequence[dict[str, Any]] = (),
                  history: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything index.html shows (plain data plus SVG markup). `standings` and `history`:
    the run's one rating pass (its live rating followers' or, with a stop,
    `arena.ratings.rate_with_history`); rated here only when either is missing, as for
    `arena publish` or `arena serve` on a results folder with no run to hand them over."""
    from arena.publish import provenance

    plan = store.get("plan")
    if standings is None or history is None:
        rated, history = rate_with_history(store)
        standings = standings if standings is not None else rated
    faults = faults_rows(store, plan)
    return {
        **_page_context(provenance(store), plan, standings, history, shared=scope_plan(plan) == [0]),
        "faults": faults[:MAX_FAULT_ROWS], "faults_total": len(faults), "faults_all": faults,
        "faults_cut": len(faults) > MAX_FAULT_ROWS,
        "replays": list(replay_games), "replay_set": {g["game"] for g in replay_games},
        "results_name": str(store.path.parent), "missing": None, "bot_pages": True,
    }


def build_standings_context(results_dir: Path, doc: Mapping[str, Any], missing: str) -> dict[str, Any]:
    """What index.html shows of a results folder that has its published standings
    (`doc`, standings.json) but no store: the tables and head to head, no charts,
    fault details or replays; `missing` says so on the page."""
    p = doc["tournament"]
    plan = {"entries": [{"bot": bot} for bot in p.get("bots", {})],
            "rulesets": [{"label": label} for label in p.get("rulesets", {})]}
    tables = list(doc["rulesets"].values())
    shared = len(tables) == 1 and {r["bot"] for r in tables[0]} == {e["bot"] for e in plan["entries"]}
    return {
        **_page_context(p, plan, doc, None, shared=shared),
        "faults": [], "faults_total": 0, "faults_cut": False, "replays": [], "replay_set": set(),
        "results_name": str(results_dir), "missing": missing, "bot_pages": False,
    }


def _page_context(p: Mapping[str, Any], plan: Mapping[str, Any], standings: Mapping[str, Any],
                  history: Mapping[str, Any] | None, shared: bool) -> dict[str, Any]:
    """The leaderboards, the rating charts (none without a `history`), head to head and
    provenance; `shared`: one ruleset that every bot plays (its table is the overall one)."""
    from markupsafe import Markup

    from arena.publish import overall_note, overall_shown, provenance_lines, verdict_line

    labels = [r["label"] for r in plan["rulesets"]]
    order = [e["bot"] for e in plan["entries"]]
    colors = {bot: series_style(i)[0] for i, bot in enumerate(order)}
    scopes = []
    tables = [("overall", standings["overall"]), *standings["rulesets"].items()]
    pairwise = standings.get("pairwise") or {}
    comparisons = pairwise.get("rulesets") or {}
    if shared:
        tables = tables[:1]
    elif pairwise and not overall_shown(standings):
        tables = tables[1:]  # it would rank only baselines, or nobody: the note says so
    for label, rows in tables:
        games = [r for r in rows if r["games"]] or list(rows)  # the scale of the error bars
        low = min((r["mu"] - 3 * r["sigma"] for r in games), default=0.0)
        high = max((r["mu"] + 3 * r["sigma"] for r in games), default=1.0)
        comparison = (comparisons.get(labels[0]) if shared else pairwise.get("overall")) if label == "overall" \
            else comparisons.get(label)
        shown = []
        for r, below in zip(rows, [*rows[1:], None]):
            shown.append(dict(r, color=colors.get(r["bot"], OKABE_ITO[0]),
                              bar=Markup(error_bar_svg(r["mu"], r["sigma"], low, high)),
                              next_score=_next_score(comparison, r, below)))
        bots = [r["bot"] for r in rows]
        # A bot keeps its color (by its place in the plan) in every chart and table.
        chart = "" if history is None else chart_svg(
            history.get(label, {}), bots, f"rating over the tournament: {label}",
            styles={bot: series_style(i) for i, bot in enumerate(order)})
        scopes.append({
            "label": label, "slug": _slug(label),
            "title": (f"Overall ({labels[0]}, the only ruleset)" if shared else "Overall") if label == "overall"
            else label,
            "rows": shown, "chart": Markup(chart),
            "verdict": verdict_line(labels[0] if shared else label, rows, comparison) if pairwise else "",
            "matrix": head_to_head_matrix(rows, standings["head_to_head"].get(label, {})),
            # With one ruleset that everyone plays, its pairs (with intervals) are the overall ones.
            "pairwise": pairwise_view(rows, standings.get("pairwise"), labels[0] if shared else label),
        })
    leads = [s["verdict"] for s in scopes if s["verdict"]]
    return {"p": p, "provenance_lines": [line.lstrip("- ").replace("`", "") for line in provenance_lines(p)],
            "scopes": scopes, "leads": leads,
            "overall_note": overall_note(standings) if pairwise and not shared else "",
            "overall_missing": not shared and bool(pairwise) and not overall_shown(standings),
            "heat": heat_color, "history": history or {}, "tips": COLUMN_TIPS,
            "bots": [{"name": bot, "slug": bot_slug(bot, order)} for bot in order],
            "challengers": list(p.get("challengers") or []),
            "bot_slugs": {bot: bot_slug(bot, order) for bot in order}}


def _next_score(comparison: Mapping[str, Any] | None, row: Mapping[str, Any], below: Mapping[str, Any] | None
                ) -> str:
    """The row's mean paired score against the row below, with its interval, as text
    ("" for the last row or a pair without results)."""
    if below is None or not comparison:
        return ""
    pair = next((r for r in comparison.get("results", []) if (r["a"], r["b"]) == (row["bot"], below["bot"])), None)
    if pair is None or pair.get("mean") is None:
        return ""
    if pair.get("low") is None:
        return f"{pair['mean']:.2f}"
    return f"{pair['mean']:.2f} ({pair['low']:.2f}\u2013{pair['high']:.2f})"


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label.lower())


def bot_slug(bot: str, order: Sequence[str]) -> str:
    """The file name (without .html) of `bot`'s page: its name made safe, with its place in
    the plan, so that two names made alike stay apart."""
    return f"{order.index(bot) + 1}-{_slug(bot)[:60]}"


def _game_summary(index: int, record: Mapping[str, Any], label: str) -> dict[str, Any]:
    outcome = record["outcome"]
    seats = [s.get("display", s.get("bot", "?")) for s in record.get("seats", [])]
    text = ", ".join(f"{name} ({outcome['standing'][i]}, {outcome['scores'][i]})" for i, name in enumerate(seats))
    return {"game": index, "ruleset": label, "seats": seats, "seats_text": text,
            "decisions": len(record["decisions"]), "reason": outcome.get("reason", ""),
            "faults": len(record.get("faults") or [])}


def write_site(results_dir: str | Path, store: Store, replays: int | None = None,
               standings: Mapping[str, Any] | None = None, history: Mapping[str, Any] | None = None) -> Path:
    """Write ``RESULTS_DIR/site/`` from `store` and return its path.

    `replays`: how many games get a replay file (None: every game of a tournament
    of at most 200 games, else a deterministic sample of 100; 0: none); see
    `arena.site.data.choose_replays`. `standings`: the standings already rated
    (as `arena.publish.publish` takes them) and `history` (the rating history the charts
    draw, from the same pass): a run hands both over; rated here if None (`arena publish`
    or `arena serve` on an existing folder, with no run). Replay files are
    rewritten each time (the folder is replaced)."""
    results_dir = Path(results_dir)
    plan = store.get("plan")
    labels = [r["label"] for r in plan["rulesets"]]
    rows = list(store.iter_rows())
    with_faults = [r.index for r in rows if any(r.faults)]
    groups = {r.index: r.ruleset for r in rows}
    chosen = choose_replays([r.index for r in rows], replays, with_faults, groups)

    tmp = _fresh_tmp(results_dir)
    (tmp / "replays").mkdir(parents=True)
    shutil.copytree(HERE / "static", tmp / "static")
    rulesets = installed_rulesets(plan) if chosen else {}
    games = []
    records = {}
    for index in chosen:
        record = store.record(index)
        if record is None:
            continue
        (tmp / "replays" / f"{index}.js").write_text(replay_file_text(store, index, rulesets), encoding="utf-8")
        games.append(_game_summary(index, record, labels[groups[index]]))
        records[index] = record
    (tmp / "replays" / "index.js").write_text(
        "window.ARENA_REPLAY_INDEX = " + json.dumps([g["game"] for g in games]) + ";\n", encoding="utf-8")

    context = build_context(store, standings, games, history)
    context["replays_all"] = len(games) == len(rows)
    _render_pages(tmp, context)
    _render_bot_pages(tmp, context, bot_pages(plan, rows, context["scopes"], context["faults_all"], records,
                                              context["bots"]))
    return _swap_in(results_dir, tmp)


def write_standings_site(results_dir: str | Path, missing: str) -> Path:
    """Write ``RESULTS_DIR/site/`` from the published ``standings.json`` alone (a
    folder without a results store, e.g. a fresh clone's ``results/reference``): the
    tables and head to head, with `missing` on the page saying what is not there."""
    results_dir = Path(results_dir)
    doc = json.loads((results_dir / "standings.json").read_text(encoding="utf-8"))
    tmp = _fresh_tmp(results_dir)
    (tmp / "replays").mkdir(parents=True)
    shutil.copytree(HERE / "static", tmp / "static")
    (tmp / "replays" / "index.js").write_text("window.ARENA_REPLAY_INDEX = [];\n", encoding="utf-8")
    _render_pages(tmp, build_standings_context(results_dir, doc, missing))
    return _swap_in(results_dir, tmp)


def _fresh_tmp(results_dir: Path) -> Path:
    tmp = results_dir / (SITE_DIR + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    return tmp


def _render_bot_pages(folder: Path, context: Mapping[str, Any], pages: Sequence[Mapping[str, Any]]) -> None:
    template = _environment().get_template("bot.html")
    (folder / "bots").mkdir()
    for page in pages:
        (folder / "bots" / f"{page['slug']}.html").write_text(template.render(**context, bot=page), encoding="utf-8")


def _render_pages(folder: Path, context: Mapping[str, Any]) -> None:
    env = _environment()
    for name in ("index.html", "replay.html"):
        (folder / name).write_text(env.get_template(name).render(**context), encoding="utf-8")


def _swap_in(results_dir: Path, tmp: Path) -> Path:
    """Replace ``site/`` by `tmp` (a reader sees the old site or the new one, never half of one)."""
    site = results_dir / SITE_DIR
    old = results_dir / (SITE_DIR + ".old")
    if old.exists():
        shutil.rmtree(old)
    if site.exists():
        site.rename(old)
    tmp.rename(site)
    if old.exists():
        shutil.rmtree(old)
    return site
