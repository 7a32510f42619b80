"""The results store's packed records (schema version 2 on), result hashes (version 3), reading
version 1 and 2 stores, and one-line errors for a store that does not decode."""

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.match import Entrant, play_game
from arena.errors import ConfigError
from arena.store import Store, StoredGame, StoreError, encode, record_result_hash, pack_record, record_zdict, unpack_record
from arena.store_migration import SCHEMAS
from arena_bots.random_bot import RandomBot
from test_tournament_ratings import coin_flips, round_robin


def _plan(players):
    """A plan of one table of `players` entries and 300 deals: game (deal d, rotation 0) is index d * players."""
    return round_robin([f"e{i}" for i in range(players)], players, 300, coin_flips(), deal_major=True)[0] | \
        {"seed_derivation": 2}


def _create(path, players):
    return Store.create(path, {"plan": _plan(players)})


def _uno_record(seed=3):
    from arena.plugins import load_registry
    ruleset = load_registry().ruleset("uno-flip").cls
    return play_game(ruleset, [Entrant(RandomBot)] * 3, seed).record


@pytest.mark.parametrize("record", [
    {}, {"synthetic": True}, {"decisions": [], "outcome": None},
    {"a": 1, "decisions": [[0, "x"]] * 300 + [[i % 7, str(i)] for i in range(300)], "z": [1.5, None]},
    {"decisions": [[0, 1]]},  # not [seat, action-string] pairs: kept whole
])
def test_pack_record_round_trips_exactly_with_and_without_a_dictionary(record):
    for zdict in (b"", record_zdict({"entries": ["x"]}).encode()):
        back = unpack_record(pack_record(encode(record), zdict), zdict)
        assert back == record and list(back) == list(record)


def test_a_real_record_packs_to_under_a_fifth_of_its_json_and_replays():
    record = _uno_record()
    zdict = record_zdict(None).encode()
    packed = pack_record(encode(record), zdict)
    assert len(packed) * 5 < len(encode(record))
    back = unpack_record(packed, zdict)
    assert encode(back) == encode(record)


def test_a_store_returns_the_stored_record_unchanged(tmp_path):
    record = _uno_record(5)
    store = _create(tmp_path / "games.sqlite", 3)
    assert store.version == 4
    store.add([StoredGame(0, 0, 0, 0, 0, encode([[0, 1, 2], [1, 2, 3], [0, 0, 0], [0, 0, 0]]),
                          record["transcript_hash"], encode(record), "ignored")], run=1)
    store.close()
    with Store.open(tmp_path / "games.sqlite") as again:
        assert again.record(0) == record
        row, = again.stored_rows()
        assert row.key == again.placement().identity(0, 0, 0, 0).key and row.names == ("e0", "e1", "e2")
        assert row.result_hash == record_result_hash(row.key, ["e0", "e1", "e2"], record, [0, 0, 0])


def _minimal_record(action):
    return {"ruleset": {"id": "x", "version": "1", "options": {}}, "players": 1, "deal_seed": 0, "seats": [{}],
            "decisions": [[0, action]], "outcome": {"standing": [1], "scores": [0]}, "transcript_hash": "h"}


OLDEST_RECORD = {  # format 1 before it said so: no format, bot seeds, forfeits or reason; faults as counts
    "ruleset": {"id": "x", "version": "1", "options": {}}, "players": 2, "deal_seed": 0, "seats": [{}, {}],
    "decisions": [[0, "a"], [1, "b"]], "outcome": {"standing": [1, 2], "scores": [1, 0]}, "faults": [1, 0],
    "transcript_hash": "h"}


def test_a_record_of_the_oldest_schema_still_reads_unchanged(tmp_path):
    from arena.records import check_record

    typed = check_record(OLDEST_RECORD)
    assert (typed.format, typed.faults, typed.outcome.reason, typed.forfeited) == (1, [1, 0], "", [])
    store = _create(tmp_path / "games.sqlite", 2)
    store.add([StoredGame(0, 0, 0, 0, 0, b"[[0,1],[1,2],[1,0],[1,0]]", "h", encode(OLDEST_RECORD))], run=1)
    assert store.record(0) == OLDEST_RECORD and list(store.record(0)) == list(OLDEST_RECORD)


@pytest.mark.parametrize("change, problem", [
    ({"faults": [{"seat": 0, "decision": 1, "kind": "hiccup", "detail": ""}]},
     "faults[0].kind: must be one of crash, timeout, garbage, illegal, memory, error, not 'hiccup'"),
    ({"faults": [{"seat": 0, "decision": 1, "detail": ""}]}, "faults[0].kind: missing"),
    ({"faults": [{"seat": 5, "decision": 1, "kind": "crash", "detail": ""}]}, "faults: must list faults with a seat"),
    ({"format": 2}, "format: 2 is a newer record format; this arena reads format 1"),
    ({"decisions": [[0, "a"], [5, "b"]]}, "decisions: its table of [seat, action] pairs holds [5, 'b'], not a seat "
                                          "below 2"),  # packed: checked once per distinct pair
    ({"decisions": [[0, "a"], [1, 2]]}, "decisions[1]: must be [seat, action] with a seat below 2, not [1, 2]"),
    ({"outcome": {"standing": [1, 2], "scores": [1, "lots"]}}, "outcome.scores[1]: must be a number, not 'lots'"),
])
def test_a_stored_record_with_an_unknown_fault_kind_or_a_newer_format_is_a_store_error(tmp_path, change, problem):
    store = _create(tmp_path / "games.sqlite", 2)
    store.add([StoredGame(0, 0, 0, 0, 0, b"[[0,1],[1,2],[1,0],[1,0]]", "h", encode(dict(OLDEST_RECORD, **change)))],
              run=1)
    with pytest.raises(StoreError, match=re.escape(f"game 0: its record is malformed: {problem}")):
        store.record(0)


def _old_store(path, version, players, records):
    """A store as arena's schema `version` wrote it: `records` at deals 0, 1, ... (rotation 0)."""
    import json

    db = sqlite3.connect(path)
    db.executescript(SCHEMAS[version])
    db.execute(f"PRAGMA user_version = {version}")
    plan = _plan(players)
    zdict = record_zdict(plan)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("plan", json.dumps(plan)), ("seed", "1")] +
                   ([("record_zdict", json.dumps(zdict))] if version >= 2 else []))
    for deal, record in enumerate(records):
        seats = list(range(players))
        blob = encode(record).decode() if version == 1 else pack_record(encode(record), zdict.encode())
        hashed = [record_result_hash(deal * players, seats, record, [0] * players)] if version == 3 else []
        db.execute(f"INSERT INTO games VALUES (?, 0, 0, ?, 0, ?, 'h', ?, {'?, ' * len(hashed)}1, 0)",
                   (deal * players, deal, encode([seats, [1] * players, [0] * players, [0] * players]).decode(), blob,
                    *hashed))
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_store_of_an_older_schema_is_read_through_a_copy_and_migrated_in_place_to_play_on(tmp_path, version):
    path = _old_store(tmp_path / "games.sqlite", version, 1, [_minimal_record("a"), _minimal_record("b")])
    before = path.read_bytes()
    with Store.open(path) as old:
        assert old.migrated_from == version and old.version == 4
        assert old.record(0) == _minimal_record("a") and old.record(1) == _minimal_record("b")
        hashes = [row.result_hash for row in old.stored_rows()]
    assert (hashes == [None, None]) == (version < 3)
    assert path.read_bytes() == before   # reading rewrote nothing
    with Store.open(path, migrate=True) as store:
        assert store.migrated_from == version and store.record(1) == _minimal_record("b")
        store.add([StoredGame(2, 0, 0, 2, 0, b"[[0],[1],[0],[0]]", "h", encode(_minimal_record("c")))], run=2)
    with Store.open(path) as again:
        assert again.migrated_from is None and again.count() == 3 and again.record(2) == _minimal_record("c")
        if version == 3:   # the old hash was checked, then keyed by identity
            row = next(again.stored_rows())
            assert row.result_hash == record_result_hash(row.key, ["e0"], _minimal_record("a"), [0])


def test_a_version_3_row_whose_result_hash_does_not_match_keeps_one_that_never_will(tmp_path):
    path = _old_store(tmp_path / "games.sqlite", 3, 1, [_minimal_record("a")])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET result_hash = ?", ("0" * 64,))
    with Store.open(path) as store:
        assert next(store.stored_rows()).result_hash == "mismatch:" + "0" * 64


def test_a_store_with_games_and_luck_past_a_stop_is_migrated_with_them_left_out(tmp_path):
    import json

    path = _old_store(tmp_path / "games.sqlite", 3, 1, [_minimal_record(str(d)) for d in range(4)])
    with sqlite3.connect(path) as db:   # schema 3 after a stop at 2 deals: deals 2, 3 moved out
        db.executescript("""CREATE TABLE looks (ruleset INTEGER, look INTEGER, deals INTEGER, stopped INTEGER,
                            detail TEXT, PRIMARY KEY (ruleset, look));
                            CREATE TABLE games_after_stop AS SELECT * FROM games WHERE 0;
                            CREATE TABLE luck (game_index INTEGER PRIMARY KEY, corrections TEXT NOT NULL);
                            CREATE TABLE luck_after_stop AS SELECT * FROM luck WHERE 0;""")
        db.execute("INSERT INTO looks VALUES (0, 1, 2, 1, '{}')")
        db.execute("INSERT INTO games_after_stop SELECT * FROM games WHERE deal >= 2")
        db.execute("DELETE FROM games WHERE deal >= 2")
        db.executemany("INSERT INTO luck VALUES (?, ?)", [(i, json.dumps([[float(i)]])) for i in (0, 1)])
        db.executemany("INSERT INTO luck_after_stop VALUES (?, ?)", [(i, json.dumps([[float(i)]])) for i in (2, 3)])
    from arena.store import after_stop_count, read_luck

    with Store.open(path, migrate=True) as store:
        assert store.count() == 2 and after_stop_count(store) == 2
        assert read_luck(store) == {0: [[0.0]], 1: [[1.0]]}
        assert store._read("SELECT COUNT(*) FROM luck")[0][0] == 4
        tables = {row[0] for row in store._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not tables & {"games_after_stop", "luck_after_stop", "old_games", "old_luck"}


FIXTURE_V2 = Path(__file__).parent / "fixtures" / "store_v2" / "games.sqlite"


def test_a_committed_version_2_store_is_read_ranked_and_migrated(tmp_path):
    """tests/fixtures/store_v2: 12 games of the quickstart written by arena before result
    hashes (commit c34f1af, schema 2; the other games deleted, so marked unfinished): still
    read, verified against replays where its ruleset versions are installed, and ranked as
    before once migrated in place."""
    from click.testing import CliRunner

    from arena.cli import main
    from arena.ratings import rate_store

    shutil.copy(FIXTURE_V2, tmp_path / "games.sqlite")
    with Store.open(tmp_path / "games.sqlite") as old:
        assert old.migrated_from == 2 and old.count() == 12
        assert old.record(360)["ruleset"]["id"] == "flip-hue"
        standings = rate_store(old)
    ranked = CliRunner().invoke(main, ["rank", str(tmp_path)])
    assert ranked.exit_code == 0, ranked.output
    assert "verified 12 stored games" in ranked.stderr and "12 stored before result hashes" in ranked.stderr
    assert "quickstart: 12 of 420 games" in ranked.stdout
    with Store.open(tmp_path / "games.sqlite", migrate=True) as migrated:
        assert migrated.record(360)["ruleset"]["id"] == "flip-hue" and rate_store(migrated) == standings


def _store_with_a_game(path):
    record = _uno_record(5)
    store = _create(path, 3)   # game 4: deal 1, rotation 1
    store.add([StoredGame(4, 0, 0, 1, 1, encode([[1, 2, 0], [1, 2, 3], [0, 0, 0], [0, 0, 0]]),
                          record["transcript_hash"], encode(record))], run=1)
    return store


def test_a_corrupt_record_blob_is_a_store_error_naming_the_game(tmp_path):
    store = _store_with_a_game(tmp_path / "games.sqlite")
    store.db.execute("UPDATE games SET record = ? WHERE deal = 1", (b"\x78\x9cgarbage",))
    store.db.commit()
    with pytest.raises(StoreError, match=r"games.sqlite: game 4: its record blob is corrupt"):
        store.record(4)
    with pytest.raises(StoreError, match="game 4"):
        list(store.stored_rows())


def test_a_record_that_is_not_a_game_record_is_a_store_error(tmp_path):
    store = _store_with_a_game(tmp_path / "games.sqlite")
    store.db.execute("UPDATE games SET record = ? WHERE deal = 1", (pack_record(b'{"decisions": []}',
                                                                                     store._zdict),))
    store.db.commit()
    with pytest.raises(StoreError, match=r"game 4: its record is malformed: ruleset: missing"):
        store.record(4)


@pytest.mark.parametrize("result", ["[[0,1,2],[1,2", "[[0,1,2],[1,2,3],[0,0,0]]", '{"seats": 1}',
                                    '[[0,1,2],[1,2],[0,0,0],[0,0,0]]', '[["a",1,2],[1,2,3],[0,0,0],[0,0,0]]'])
def test_a_bad_result_row_is_a_store_error_naming_the_game(tmp_path, result):
    store = _store_with_a_game(tmp_path / "games.sqlite")
    store.db.execute("UPDATE games SET result = ? WHERE deal = 1", (result,))
    store.db.commit()
    with pytest.raises(StoreError, match=r"game 4: its result row is malformed"):
        store.rows()


@pytest.mark.parametrize("plan, problem", [
    ("{not json", "meta 'plan' is not JSON"),
    ('{"name": "t"}', "its plan is malformed: format: missing"),
    ('{"name": "t", "format": "round-robin", "deals": 1, "total_games": 1, "entries": [{"bot": "a"}], '
     '"rulesets": []}', "entries[0].uses: missing"),
])
def test_a_bad_plan_is_a_store_error_naming_the_store(tmp_path, plan, problem):
    store = _store_with_a_game(tmp_path / "games.sqlite")
    store.db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (plan,))
    store.db.commit()
    with pytest.raises(StoreError, match=re.escape(problem)) as caught:
        store.plan()
    assert str(tmp_path / "games.sqlite") in str(caught.value) and "\n" not in str(caught.value)


def test_a_store_without_the_columns_of_its_schema_version_is_refused_at_open(tmp_path):
    path = tmp_path / "games.sqlite"
    db = sqlite3.connect(path)
    db.executescript(SCHEMAS[2])  # no result_hash column, but it claims version 3
    db.execute("PRAGMA user_version = 3")
    db.close()
    with pytest.raises(ConfigError, match=r"not a results store of schema version 3 \(its games table has no "
                                          r"result_hash\)"):
        Store.open(path)


def test_a_damaged_database_file_is_a_store_error_not_a_traceback(tmp_path):
    path = tmp_path / "games.sqlite"
    store = _store_with_a_game(path)
    for i in range(5, 200):
        store.add([StoredGame(i, 0, 0, i, 0, encode([[0, 1, 2], [1, 2, 3], [0, 0, 0], [0, 0, 0]]), "h",
                              encode(_minimal_record(str(i))))], run=1)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data), page):  # every page's header but the first's (the schema)
        data[offset:offset + 16] = b"\xff" * 16
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="games.sqlite: cannot read it .*damaged"):
        with Store.open(path) as damaged:  # (the meta page may be the damaged one)
            list(damaged.stored_rows())


def test_the_committed_plans_follow_the_plan_schema_and_a_broken_one_is_named_by_its_key_path():
    """The Plan schema reads the schema 2 fixture's committed plan (the plan arena run writes
    today is checked by test_the_plan_a_run_writes_follows_the_plan_schema); a plan that breaks it is named by
    key path. Results stores are not committed, so none is read from results/."""
    import json

    from arena.records import plan_problem

    fixtures = Path(__file__).parent / "fixtures"
    for path in [fixtures / "store_v2" / "games.sqlite"]:
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)  # no -wal, -shm or header write
        plan = json.loads(db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()[0])
        db.close()
        assert plan_problem(plan) is None, path
        broken = json.loads(json.dumps(plan))
        del broken["rulesets"][0]["players"]
        assert plan_problem(broken) == "rulesets[0].players: missing"
        broken["rulesets"] = []
        assert plan_problem(broken) == "rulesets: empty"
    assert plan_problem(None) == "no plan object" and plan_problem({"name": "t"}) == "format: missing"


def test_the_plan_a_run_writes_follows_the_plan_schema():
    """make_plan (what `arena run` stores) and the Plan schema (what reading checks) agree."""
    from arena.plugins import load_registry
    from arena.records import plan_problem
    from arena.runner import make_plan
    from arena.tournament import load_tournament

    root = Path(__file__).parent.parent
    tournament = load_tournament(root / "tournaments" / "quickstart.toml", load_registry())
    assert plan_problem(make_plan(tournament, 20261129)) is None


def test_the_plan_is_built_as_the_plan_struct_key_for_key():
    """make_plan builds a `Plan`: the stored plan's keys (and its entries' and rulesets')
    are the Struct's fields in their order, and it reads back as the same Struct."""
    import msgspec

    from arena.plugins import load_registry
    from arena.records import Plan, PlanEntry, PlanRuleset, PlanStop
    from arena.runner import make_plan
    from arena.tournament import load_tournament

    root = Path(__file__).parent.parent
    tournament = load_tournament(root / "tournaments" / "reference.toml", load_registry())
    plan = make_plan(tournament, 20261129)
    assert list(plan) == list(Plan.__struct_fields__)
    assert list(plan["stop"]) == list(PlanStop.__struct_fields__)
    assert all(list(entry) == list(PlanEntry.__struct_fields__) for entry in plan["entries"])
    assert all(list(ruleset) == list(PlanRuleset.__struct_fields__) for ruleset in plan["rulesets"])
    assert msgspec.to_builtins(msgspec.convert(plan, Plan)) == plan
