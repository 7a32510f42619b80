"""What README.md says about the reference tournament is what its published standings show:
the sentences and tables between the README's `readme-reference` markers are written from
results/reference/standings.json by benchmarks/readme_reference.py, and checked here."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("readme_reference", ROOT / "benchmarks" / "readme_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(bot, uses):
    return {"bot": bot, "uses": uses, "win_rate": 0.5, "win_rate_low": 0.4, "win_rate_high": 0.6, "games": 60}


def _doc(verdicts):
    """A two-ruleset standings document: a heuristic and random in each, with the given verdicts
    of heuristic against random, by ruleset."""
    rulesets = {name: [_row("heuristic", "heuristic"), _row("chance", "random")] for name in verdicts}
    pairs = {name: {"results": [{"a": "heuristic", "b": "chance", "deals": 20, "mean": 0.9, "low": 0.7,
                                 "high": 1.1, "verdict": verdict}],
                    "stop": {"stopped": True, "reason": "settled", "deals": 12}}
             for name, verdict in verdicts.items()}
    return {"tournament": {"games_stored": 72}, "rulesets": rulesets,
            "pairwise": {"rulesets": pairs, "overall": {"results": []}}}


def test_the_readmes_reference_sections_are_what_the_published_standings_say(generator):
    doc = json.loads((ROOT / "results" / "reference" / "standings.json").read_text())
    readme = (ROOT / "README.md").read_text()
    updated, written = generator.rewrite(readme, generator.sections(doc))
    assert sorted(written) == sorted(generator.sections(doc)), "README.md lacks a readme-reference marker"
    assert updated == readme, "README.md's reference sections are stale: run benchmarks/readme_reference.py --update-readme"


def test_every_bot_is_said_separated_from_random_only_when_each_such_pair_is(generator):
    assert "every built-in bot is separated from random" in generator.random_sentence(
        _doc({"g1": "separated", "g2": "separated"}))
    said = generator.random_sentence(_doc({"g1": "separated", "g2": "not separated"}))
    assert "every built-in bot is separated" not in said
    assert "1 of the 2 bot-vs-random pairs are separated (not: heuristic in g2)" in said


def test_random_is_found_by_what_an_entry_uses_and_a_pair_counts_in_either_order(generator):
    doc = _doc({"g1": "separated"})
    assert generator.pairs_table(doc).count("\n") == 1  # the header only: heuristic-vs-chance is a random pair
    reversed_doc = copy.deepcopy(doc)
    pair = reversed_doc["pairwise"]["rulesets"]["g1"]["results"][0]
    pair.update(a="chance", b="heuristic", mean=0.1, low=-0.1, high=0.3, verdict="reversed")
    assert "every built-in bot is separated from random" in generator.random_sentence(reversed_doc)
    pair.update(mean=0.9, low=0.7, high=1.1, verdict="separated")  # random ahead of the heuristic
    assert "(not: heuristic in g1)" in generator.random_sentence(reversed_doc)


def test_the_stops_sentence_says_where_each_ruleset_stopped(generator):
    doc = _doc({"g1": "separated", "g2": "separated"})
    doc["pairwise"]["rulesets"]["g2"]["stop"] = {"stopped": True, "reason": "max_deals", "deals": 20}
    assert generator.stops_sentence(doc) == ("It played 72 games: g1 settled after 12 deals; "
                                             "g2 ran to max_deals (20 deals) unsettled")


def test_the_generator_writes_only_between_its_markers(generator):
    readme = "a <!-- readme-reference:random -->old<!-- /readme-reference --> b <!-- readme-reference:other -->x<!-- /readme-reference -->"
    updated, written = generator.rewrite(readme, {"random": "new"})
    assert written == ["random"]
    assert updated == "a <!-- readme-reference:random -->new<!-- /readme-reference --> b <!-- readme-reference:other -->x<!-- /readme-reference -->"
