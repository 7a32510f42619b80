"""Luck corrections in a run: the tournament key, the plan, the store's luck table, verify and
rank (issue 43 item 2; docs/luck.md)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.luck import game_corrections, planned_method
from arena.plugins import load_registry
from arena.ratings import rate_store
from arena.rules.flip_7.ruleset import Flip7
from arena.runner import RunObserver, run_tournament
from arena.store import Look, Store, StoreError, after_stop_count, prepare_looks, read_luck, record_look, store_path
from arena.tournament import parse_tournament
from arena.verify import start_verification


def _text(luck: str | None, head: str = "deals = 3") -> str:
    key = "" if luck is None else f'luck = "{luck}"\n'
    return (f'[tournament]\nname = "luck"\nseed = 4\n{head}\nisolation = "inline"\n{key}\n'
            '[[bots]]\nuse = "flip7-threshold"\nas = "t23"\nparams = { threshold = 23 }\n\n'
            '[[bots]]\nuse = "flip7-threshold"\nas = "t31"\nparams = { threshold = 31 }\n\n'
            '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')


def _run(tmp_path: Path, text: str) -> Path:
    tournament = parse_tournament(text, load_registry(), str(tmp_path / "t.toml"))
    run_tournament(tournament, tmp_path / "out", workers=1, observer=RunObserver(lambda line: None))
    return store_path(tmp_path / "out")


def test_a_flip7_tournament_defaults_to_adjusted_and_raw_must_be_asked_for():
    registry = load_registry()
    default = parse_tournament(_text(None), registry, "t.toml")
    assert default.luck == "adjusted"
    assert default.luck_plan()["rulesets"] == [{"value": Flip7.pairwise_value_identity[0],
                                                "version": Flip7.pairwise_value_identity[1], "clones": 16,
                                                "intervals": "asymptotic", "t_star": 100}]
    raw = parse_tournament(_text("raw"), registry, "t.toml")
    assert raw.luck_plan() == {"mode": "raw", "rulesets": [None]}


def test_an_unknown_luck_mode_is_refused_naming_the_key():
    with pytest.raises(ConfigError, match="tournament.luck"):
        parse_tournament(_text("lucky"), load_registry(), "t.toml")


def test_a_raw_run_stores_no_corrections_and_ranks_raw(tmp_path):
    path = _run(tmp_path, _text("raw"))
    with Store.open(path) as store:
        assert read_luck(store) == {}
        assert planned_method(store.plan(), 0) is None
        assert "luck" not in rate_store(store)["pairwise"]["rulesets"]["flip-7"]


def test_an_adjusted_run_stores_each_games_corrections_and_verify_recomputes_them(tmp_path):
    path = _run(tmp_path, _text("adjusted"))
    with Store.open(path) as store:
        luck = read_luck(store)
        assert sorted(luck) == list(range(store.count()))
        record = store.record(0)
        assert luck[0] == game_corrections(Flip7, record, 16).corrections
        assert "recomputed exactly" in start_verification(store, processes=0).result().summary()
        assert rate_store(store)["pairwise"]["rulesets"]["flip-7"]["luck"] == "adjusted"
    with Store.open(path) as store:
        key = store.key(1)
    db = sqlite3.connect(path)
    corrections = json.loads(db.execute("SELECT corrections FROM luck WHERE game_key = ?", (key,)).fetchone()[0])
    corrections[0][1] += 1e-12
    db.execute("UPDATE luck SET corrections = ? WHERE game_key = ?", (json.dumps(corrections), key))
    db.commit()
    db.close()
    with Store.open(path) as store, pytest.raises(StoreError, match="game 1: its stored luck corrections"):
        start_verification(store, processes=0).result()


def test_verify_refuses_a_plan_whose_value_version_is_not_the_installed_one(tmp_path):
    path = _run(tmp_path, _text("adjusted", "deals = 1"))
    db = sqlite3.connect(path)
    plan = json.loads(db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()[0])
    plan["luck"]["rulesets"][0]["version"] = "0"
    db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    db.commit()
    db.close()
    with Store.open(path) as store, pytest.raises(StoreError, match="made with the value"):
        start_verification(store, processes=0).result()


def test_a_plan_without_the_luck_key_reads_as_raw():
    assert planned_method({"rulesets": [{}]}, 0) is None
    assert planned_method({"luck": {"mode": "raw", "rulesets": [None]}}, 0) is None


def test_games_past_a_stop_keep_their_corrections_and_both_are_left_out(tmp_path):
    path = _run(tmp_path, _text("adjusted", "deals = 2"))
    with Store.open(path) as store:
        prepare_looks(store)
        stored = store._read("SELECT COUNT(*) FROM luck")[0][0]
        past = record_look(store, Look(0, 1, 1, True, {}))   # a stop after deal 0: deal 1's games are past it
        assert past > 0 and past == after_stop_count(store)
        assert sorted(read_luck(store)) == [row.index for row in store.stored_rows()]
        assert len(read_luck(store)) == stored - past
        assert store._read("SELECT COUNT(*) FROM luck")[0][0] == stored   # nothing moved or deleted


def test_the_sites_rating_history_reads_an_adjusted_stores_corrections(tmp_path):
    from arena.site.data import rate_with_history

    path = _run(tmp_path, _text("adjusted", "deals = 1"))
    with Store.open(path) as store:
        standings, _ = rate_with_history(store)
        assert standings == rate_store(store)
        assert standings["pairwise"]["rulesets"]["flip-7"]["luck"] == "adjusted"


def test_a_store_made_before_the_luck_key_stays_raw_when_extended_and_resumed(tmp_path):
    path = _run(tmp_path, _text(None, "deals = 1"))
    db = sqlite3.connect(path)   # as an arena before luck corrections left it: no key, no table
    plan = json.loads(db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()[0])
    del plan["luck"]
    db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    db.execute("DELETE FROM luck")   # (such a store had no luck table: migrated, an empty one)
    db.commit()
    db.close()
    path = _run(tmp_path, _text(None, "deals = 2"))   # the same file with a deal more: an extension
    with Store.open(path) as store:
        assert store.count() == 4
        assert read_luck(store) == {}
        assert planned_method(store.plan(), 0) is None
        assert "luck" not in rate_store(store)["pairwise"]["rulesets"]["flip-7"]
        start_verification(store, processes=0).result()
