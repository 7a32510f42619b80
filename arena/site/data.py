"""The data the site's pages are built from, computed from a results store alone.

- `rate_with_history` (from arena.ratings, which alone reads a `Rater`): standings
  and each entry's rating history per scope, when no run hands them over (`arena
  publish` or `arena serve` on an existing folder; a run always does);
- `head_to_head_matrix`: a scope's head-to-head fractions as a matrix in
  leaderboard order;
- `pairwise_view`: a scope's pairwise results (mean paired scores, intervals, LOS,
  verdicts; standings["pairwise"]) as a matrix in leaderboard order and a list of pairs;
- `faults_rows`: every recorded fault with its ruleset label and bot name;
- `choose_replays`: which games get a replay file;
- `chart_svg`, `error_bar_svg`: server-side inline SVG (no script needed).
"""

from __future__ import annotations

import html
import math
from typing import Any, Iterable, Mapping, Sequence

from arena.decisions import shown_number
from arena.ratings import OVERALL, rate_with_history, thin  # noqa: F401 (rated in arena.ratings)
from arena.store import Store, StoreError

DEFAULT_REPLAY_SAMPLE = 100
"""Replays written for a tournament larger than `SMALL_TOURNAMENT` games when
``--replays`` is not given."""
SMALL_TOURNAMENT = 200
"""Every game gets a replay file when the tournament has at most this many games."""

# Okabe-Ito: a palette that reads for the common color-vision deficiencies.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


def head_to_head_matrix(rows: Sequence[Mapping[str, Any]], pairs: Mapping[str, Mapping[str, float]]
                        ) -> dict[str, Any]:
    """``{"bots": [...], "cells": [[fraction or None]]}``: row A, column B = the
    fraction of their shared games in which A finished ahead of B, bots in
    leaderboard order; None on the diagonal and for pairs that never met or are not
    compared (a gauntlet's field entries: `arena.ratings` leaves their pairs out)."""
    bots = [r["bot"] for r in rows]
    cells = [[None if a == b else pairs.get(a, {}).get(b) for b in bots] for a in bots]
    return {"bots": bots, "cells": cells}


_MARKS = {"separated": "\u25b2", "reversed": "\u25bc", "equal": "="}  # row above / below / equal to column
_MIRRORED = {"separated": "reversed", "reversed": "separated"}


def pairwise_view(rows: Sequence[Mapping[str, Any]], pairwise: Mapping[str, Any] | None,
                  label: str) -> dict[str, Any] | None:
    """Scope `label`'s pairs (``"overall"`` or a ruleset label) from standings["pairwise"],
    for the head-to-head: ``{"bots", "cells", "pairs", "interval", "overall",
    "stratified"}`` with bots in leaderboard order; ``cells[i][j]`` the row's result
    against the column's (None on the diagonal and for pairs not compared): ``{"mean",
    "low", "high", "los", "deals", "verdict", "mark", "title"}``, verdict and mark from the
    row's side (a mark for separated, reversed or equal; los None overall, and low and
    high too but with a betting plan's stratified interval); ``pairs`` the results as
    published (a ranked above b); ``stratified`` whether the overall verdicts are read
    from the mean of the rulesets' intervals (betting plans). None without pairwise
    results (standings published before them)."""
    if not pairwise:
        return None
    overall = label == OVERALL
    scope = pairwise.get("overall") if overall else (pairwise.get("rulesets") or {}).get(label)
    if scope is None:
        return None
    bots = [r["bot"] for r in rows]
    kind = ("fixed-sample" if pairwise.get("method") == "fixed" else "anytime-valid") + \
        f" {100 * pairwise.get('confidence', 0.95):g}%"
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for r in scope["results"]:
        mean = r["mean"]
        if mean is None:
            continue
        low, high, los = r.get("low"), r.get("high"), r.get("los")
        found[(r["a"], r["b"])] = _pair_cell(r["a"], r["b"], mean, low, high, los, r, r["verdict"], kind)
        found[(r["b"], r["a"])] = _pair_cell(r["b"], r["a"], round(1 - mean, 6), _mirror(high), _mirror(low), _mirror(los),
                                             r, _MIRRORED.get(r["verdict"], r["verdict"]), kind)
    cells = [[None if a == b else found.get((a, b)) for b in bots] for a in bots]
    return {"bots": bots, "cells": cells, "pairs": list(scope["results"]), "interval": pairwise.get("interval", ""),
            "overall": overall, "stratified": pairwise.get("intervals") == "betting"}


def _mirror(value: float | None) -> float | None:
    return None if value is None else round(1 - value, 6)


def _pair_cell(a: str, b: str, mean: float, low: float | None, high: float | None, los: float | None,
               result: Mapping[str, Any], verdict: str, kind: str) -> dict[str, Any]:
    if los is None:  # overall: the mean over rulesets (with a betting plan, its interval too)
        per = ", ".join(f"{label} {value if a == result['a'] else 1 - value:.3f}"
                        for label, value in (result.get("rulesets") or {}).items())
        interval = "" if low is None else f", interval {low:.3f}-{high:.3f}"
        title = f"{a} against {b}: mean paired score {mean:.3f} over the rulesets ({per}){interval}; {verdict}"
    else:
        bounds = "any" if low is None or high is None else f"{low:.3f}-{high:.3f}"  # too few deals to bound
        title = (f"{a} against {b}: mean paired score {mean:.3f} over {result['deals']} deals, "
                 f"{kind} interval {bounds}, LOS {los:.3f}; {verdict}")
    return {"mean": mean, "low": low, "high": high, "los": los, "deals": result["deals"], "verdict": verdict,
            "mark": _MARKS.get(verdict, ""), "title": title}


def faults_rows(store: Store, plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every recorded fault with its ruleset label and bot name (`arena faults`, the
    site): ``decision`` is the record's index, ``decision_number`` the 1-based number
    shown to people (None for a fault outside a decision); StoreError naming the game if
    its row names no ruleset or entry of the plan."""
    labels = [r["label"] for r in plan["rulesets"]]
    entries = plan["entries"]
    rows = []
    for f in store.faults():
        if not (0 <= f["ruleset"] < len(labels) and 0 <= f["entry"] < len(entries)):
            raise StoreError(f"{store.path}: game {f['game']}: its result row names a ruleset or bot entry "
                             "that is not in the plan")
        rows.append({"game": f["game"], "ruleset": labels[f["ruleset"]], "bot": entries[f["entry"]]["bot"],
                     "seat": f["seat"], "decision": f.get("decision"),
                     "decision_number": shown_number(f.get("decision")), "kind": f.get("kind"),
                     "detail": str(f.get("detail", ""))})
    return rows


def choose_replays(indices: Sequence[int], count: int | None, prefer: Iterable[int] = (),
                   groups: Mapping[int, int] | None = None) -> list[int]:
    """Which stored games (schedule `indices`, ascending) get a replay file.

    `count` None: all of them for a small tournament (at most `SMALL_TOURNAMENT`
    games), else `DEFAULT_REPLAY_SAMPLE`. Otherwise `count` games (all if fewer):
    games in `prefer` first (e.g. games with faults, at most a quarter of the
    sample), then evenly spread over each group (ruleset) in proportion to its
    size. Deterministic: the same store gives the same choice."""
    indices = sorted(indices)
    if count is None:
        count = len(indices) if len(indices) <= SMALL_TOURNAMENT else DEFAULT_REPLAY_SAMPLE
    if count >= len(indices):
        return indices
    if count <= 0:
        return []
    present = set(indices)
    chosen = [i for i in sorted(set(prefer)) if i in present][:count // 4]
    taken = set(chosen)
    by_group: dict[int, list[int]] = {}
    for index in indices:
        if index not in taken:
            by_group.setdefault((groups or {}).get(index, 0), []).append(index)
    left = count - len(chosen)
    total = sum(len(g) for g in by_group.values())
    shares = {g: (left * len(members)) // total for g, members in by_group.items()}
    # Hand out what rounding left over, largest groups first.
    for g in sorted(by_group, key=lambda g: (-len(by_group[g]), g)):
        if sum(shares.values()) >= left:
            break
        shares[g] += 1
    for g, members in sorted(by_group.items()):
        k = min(shares[g], len(members))
        if k:
            step = len(members) / k
            chosen += [members[int(i * step)] for i in range(k)]
    return sorted(chosen)


# -- inline SVG ----------------------------------------------------------------


def error_bar_svg(mu: float, sigma: float, low: float, high: float, width: int = 160, height: int = 16) -> str:
    """mu as a dot, mu +- sigma as a thick bar, mu +- 3 sigma as a thin one, on
    the scale [low, high] shared by a table."""
    span = (high - low) or 1.0

    def x(value: float) -> float:
        return round(4 + (width - 8) * (value - low) / span, 2)

    mid = height / 2
    title = f"mu {mu:.2f}, sigma {sigma:.2f}: mu - 3 sigma = {mu - 3 * sigma:.2f}, mu + 3 sigma = {mu + 3 * sigma:.2f}"
    return (f'<svg class="errbar" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>'
            f'<line x1="{x(mu - 3 * sigma)}" y1="{mid}" x2="{x(mu + 3 * sigma)}" y2="{mid}" stroke="#777" '
            f'stroke-width="1"/>'
            f'<line x1="{x(mu - 3 * sigma)}" y1="{mid - 4}" x2="{x(mu - 3 * sigma)}" y2="{mid + 4}" stroke="#0072B2" '
            f'stroke-width="2"/>'
            f'<line x1="{x(mu - sigma)}" y1="{mid}" x2="{x(mu + sigma)}" y2="{mid}" stroke="#0072B2" '
            f'stroke-width="4"/>'
            f'<circle cx="{x(mu)}" cy="{mid}" r="3.5" fill="#D55E00"/></svg>')


def series_style(i: int) -> tuple[str, str]:
    return OKABE_ITO[i % len(OKABE_ITO)], DASHES[(i // len(OKABE_ITO)) % len(DASHES)]


def chart_svg(series: Mapping[str, Sequence[Sequence[float]]], order: Sequence[str], title: str,
              width: int = 720, height: int = 300, styles: Mapping[str, tuple[str, str]] | None = None) -> str:
    """A line chart of mu (with a mu +- sigma band) against games played, one line
    per bot in `order`, with a legend naming every line. `styles`: (color, dash)
    per bot (default: by position in `order`)."""
    left, right, top, bottom = 48, 170, 16, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    points = [p for bot in order for p in series.get(bot, [])]
    if not points:
        return '<p class="muted">No games rated yet.</p>'
    max_x = max(p[0] for p in points) or 1
    lows = [p[2] - p[3] for p in points]
    highs = [p[2] + p[3] for p in points]
    low, high = math.floor(min(lows)), math.ceil(max(highs))
    if high - low < 1:
        high = low + 1

    def sx(v: float) -> float:
        return round(left + plot_w * v / max_x, 1)

    def sy(v: float) -> float:
        return round(top + plot_h * (high - v) / (high - low), 1)

    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#ccc"/>']
    for k in range(5):
        value = low + (high - low) * k / 4
        y = sy(value)
        parts.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="#e4e4e4"/>'
                     f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" class="tick">{value:.1f}</text>')
    for value in sorted({round(max_x * k / 4) for k in range(5)}):
        parts.append(f'<text x="{sx(value)}" y="{top + plot_h + 16}" text-anchor="middle" class="tick">{value}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" class="tick">'
                 'games played</text>')
    parts.append(f'<text x="12" y="{top + plot_h / 2}" text-anchor="middle" class="tick" '
                 f'transform="rotate(-90 12 {top + plot_h / 2})">mu</text>')
    for i, bot in enumerate(order):
        pts = series.get(bot, [])
        if not pts:
            continue
        color, dash = (styles or {}).get(bot) or series_style(i)
        band = " ".join(f"{sx(p[0])},{sy(p[2] + p[3])}" for p in pts) + " " + \
            " ".join(f"{sx(p[0])},{sy(p[2] - p[3])}" for p in reversed(pts))
        line = " ".join(f"{sx(p[0])},{sy(p[2])}" for p in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<g class="series" data-bot="{html.escape(bot)}"><title>{html.escape(bot)}</title>'
                     f'<polygon points="{band}" fill="{color}" fill-opacity="0.10" stroke="none"/>'
                     f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"{dash_attr}/></g>')
        ly = top + 8 + i * 18
        parts.append(f'<line x1="{left + plot_w + 10}" y1="{ly}" x2="{left + plot_w + 34}" y2="{ly}" '
                     f'stroke="{color}" stroke-width="3"{dash_attr}/>'
                     f'<text x="{left + plot_w + 40}" y="{ly + 4}" class="legend">{html.escape(bot)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def heat_color(fraction: float | None) -> str:
    """A blue (behind) - white (even) - orange (ahead) scale: readable for the common
    color-vision deficiencies, and every cell carries its number as text too."""
    if fraction is None:
        return "#eeeeee"
    f = max(0.0, min(1.0, fraction))
    blue, white, orange = (0x00, 0x72, 0xB2), (0xFF, 0xFF, 0xFF), (0xE6, 0x9F, 0x00)
    a, b, t = (blue, white, f * 2) if f < 0.5 else (white, orange, (f - 0.5) * 2)
    return "#" + "".join(f"{round(a[k] + (b[k] - a[k]) * t):02x}" for k in range(3))
