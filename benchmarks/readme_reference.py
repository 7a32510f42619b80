"""The README's sentences and tables about the reference tournament, written from its published
standings (``results/reference/standings.json``) and nothing else, so that what the README says
about the reference is what the reference shows.

``--update-readme`` writes them into README.md between its ``<!-- readme-reference:KEY -->``
markers; ``--check`` exits 1 if the README differs from what the standings give (a test runs
the same check). Run it after publishing the reference again:

    .venv/bin/python benchmarks/readme_reference.py --update-readme
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
STANDINGS = ROOT / "results" / "reference" / "standings.json"
MARKER = re.compile(r"<!-- readme-reference:(?P<key>[a-z-]+) -->(?P<text>.*?)<!-- /readme-reference -->", re.S)
BASELINE = "random"


def _is_random(doc: dict[str, Any], bot: str) -> bool:
    """Whether the entry named `bot` plays the random bot (by its `uses`, not its display name)."""
    for rows in doc["rulesets"].values():
        for row in rows:
            if row["bot"] == bot:
                return row["uses"] == BASELINE
    return False


def _pairs(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every per-ruleset pair as (ruleset, result), in the standings' order."""
    return [(ruleset, result) for ruleset, table in doc["pairwise"]["rulesets"].items()
            for result in table["results"]]


def _against_random(doc: dict[str, Any]) -> list[tuple[str, str, float, bool]]:
    """(ruleset, bot, the bot's mean paired score against random, separated above it) per pair."""
    out = []
    for ruleset, r in _pairs(doc):
        a_random, b_random = _is_random(doc, r["a"]), _is_random(doc, r["b"])
        if a_random == b_random:
            continue
        bot, mean = (r["b"], 1 - r["mean"]) if a_random else (r["a"], r["mean"])
        # "reversed": the interval lies below 1/2, so b is the better of the two
        separated = r["verdict"] == ("reversed" if a_random else "separated")
        out.append((ruleset, bot, mean, separated))
    return out


def _interval(r: dict[str, Any]) -> str:
    """A result's interval clipped to [0, 1] (standings before the betting intervals had none overall)."""
    if "low" not in r:
        return "(no interval)"
    low, high = max(0.0, r["low"]), min(1.0, r["high"])
    return f"[{low:.2f}, {high:.2f}]"


def _scores(doc: dict[str, Any], ruleset: str) -> str:
    table = doc["pairwise"]["rulesets"][ruleset]
    return "luck-adjusted" if table.get("luck") == "adjusted" else "raw"


def _stop(doc: dict[str, Any], ruleset: str) -> str:
    stop = doc["pairwise"]["rulesets"][ruleset].get("stop") or {}
    if stop.get("reason") == "max_deals":
        return f"ran to max_deals ({stop['deals']} deals) unsettled"
    if stop.get("stopped"):
        return f"settled after {stop['deals']} deals"
    return "not stopped"


def random_sentence(doc: dict[str, Any]) -> str:
    """How the bots fare against random: the range of their mean paired scores, and how many of
    those pairs are separated (all of them, or which are not)."""
    pairs = _against_random(doc)
    low, high = min(p[2] for p in pairs), max(p[2] for p in pairs)
    unseparated = [f"{bot} in {ruleset}" for ruleset, bot, _, separated in pairs if not separated]
    head = f"Against random, every bot's mean paired score is between {low:.2f} and {high:.2f}"
    if not unseparated:
        return f"{head}, and each of the {len(pairs)} bot-vs-random pairs is separated: every built-in bot is separated from random in every ruleset it plays"
    return (f"{head}; {len(pairs) - len(unseparated)} of the {len(pairs)} bot-vs-random pairs are separated "
            f"(not: {', '.join(unseparated)})")


def random_count(doc: dict[str, Any]) -> str:
    """How many of the per-ruleset bot-vs-random pairs are separated."""
    pairs = _against_random(doc)
    return f"{sum(p[3] for p in pairs)} of its {len(pairs)} per-ruleset bot-vs-random pairs are separated"


def stops_sentence(doc: dict[str, Any]) -> str:
    """Where each ruleset stopped, and how many games were played of the file's maximum."""
    t = doc["tournament"]
    parts = [f"{ruleset} {_stop(doc, ruleset)}" for ruleset in doc["pairwise"]["rulesets"]]
    return f"It played {t['games_stored']} games: " + "; ".join(parts)


def win_rate_table(doc: dict[str, Any]) -> str:
    """Each ruleset's ranking by TrueSkill with win rates and their 95% intervals."""
    lines = ["| ruleset | ranking by TrueSkill: win rate [95%] (games a bot) |", "|---|---|"]
    for ruleset, rows in doc["rulesets"].items():
        cells = [f"{row['bot']} {row['win_rate']:.3f} [{row['win_rate_low']:.3f}, {row['win_rate_high']:.3f}] ({row['games']})"
                 for row in rows]
        lines.append(f"| {ruleset} | {'; '.join(cells)} |")
    return "\n".join(lines)


def pairs_table(doc: dict[str, Any]) -> str:
    """The per-ruleset pairs between non-random bots: deals, mean paired score, interval, verdict."""
    lines = ["| ruleset | A | B | deals | scores | mean paired score of A [95%] | verdict |",
             "|---|---|---|---:|---|---|---|"]
    for ruleset, r in _pairs(doc):
        if _is_random(doc, r["a"]) or _is_random(doc, r["b"]):
            continue
        lines.append(f"| {ruleset} | {r['a']} | {r['b']} | {r['deals']} | {_scores(doc, ruleset)} | "
                     f"{r['mean']:.3f} {_interval(r)} | {r['verdict']} |")
    return "\n".join(lines)


def overall_sentence(doc: dict[str, Any]) -> str:
    """The overall table's verdict on the bots entered in every ruleset."""
    results = doc["pairwise"]["overall"]["results"]
    if not results:
        return "No bot pair is ranked overall"
    r = results[0]
    return (f"Overall (the bots entered in every ruleset), {r['a']} against {r['b']}: mean paired score "
            f"{r['mean']:.3f} {_interval(r)} over {r['deals']} deals, {r['verdict']}")


def sections(doc: dict[str, Any]) -> dict[str, str]:
    """The README's text for each marker key."""
    return {"stops": stops_sentence(doc), "win-rates": "\n\n" + win_rate_table(doc) + "\n\n",
            "pairs": "\n\n" + pairs_table(doc) + "\n\n", "random": random_sentence(doc),
            "random-count": random_count(doc),
            "overall": overall_sentence(doc)}


def rewrite(readme: str, texts: dict[str, str]) -> tuple[str, list[str]]:
    """`readme` with `texts` between the markers of the same key, and the keys written."""
    written: list[str] = []

    def replace(match: re.Match[str]) -> str:
        key = match.group("key")
        if key not in texts:
            return match.group(0)
        written.append(key)
        return f"<!-- readme-reference:{key} -->{texts[key]}<!-- /readme-reference -->"

    return MARKER.sub(replace, readme), written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update-readme", action="store_true", help="Write the sections into README.md.")
    parser.add_argument("--check", action="store_true", help="Exit 1 if README.md differs from the standings.")
    args = parser.parse_args()
    texts = sections(json.loads(STANDINGS.read_text(encoding="utf-8")))
    readme = README.read_text(encoding="utf-8")
    updated, written = rewrite(readme, texts)
    if args.update_readme:
        README.write_text(updated, encoding="utf-8")
        print(f"README.md: wrote {', '.join(written)}")
    elif args.check:
        missing = sorted(set(texts) - set(written))
        if missing or updated != readme:
            print(f"README.md's reference sections differ from {STANDINGS.relative_to(ROOT)}"
                  + (f" (no marker for {', '.join(missing)})" if missing else "")
                  + ": run benchmarks/readme_reference.py --update-readme", file=sys.stderr)
            sys.exit(1)
    else:
        for key, text in texts.items():
            print(f"[{key}]{text}")


if __name__ == "__main__":
    main()
