"""The results store's packed records (schema version 2) and reading version 1 stores."""

import sqlite3

import pytest

from arena.match import Entrant, play_game
from arena.store import Store, StoredGame, encode, pack_record, record_zdict, unpack_record
from arena_bots.random_bot import RandomBot


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
    store = Store.create(tmp_path / "games.sqlite", {"plan": {"entries": []}})
    assert store.version == 2
    store.add([StoredGame(0, 0, 0, 0, 0, encode([[0, 1, 2], [1, 2, 3], [0, 0, 0], [0, 0, 0]]),
                          record["transcript_hash"], encode(record))], run=1)
    store.close()
    with Store.open(tmp_path / "games.sqlite") as again:
        assert again.record(0) == record


def test_a_version_1_store_is_still_read_and_extended(tmp_path):
    path = tmp_path / "games.sqlite"
    store = Store.create(path, {"plan": {}})
    store.close()
    db = sqlite3.connect(path)  # make it what version 1 wrote: JSON text records
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO games VALUES (0, 0, 0, 0, 0, '[[0],[1],[0],[0]]', 'h', '{\"decisions\":[[0,\"a\"]]}', 1, 0)")
    db.commit()
    db.close()
    with Store.open(path) as old:
        assert old.version == 1
        assert old.record(0) == {"decisions": [[0, "a"]]}
        old.add([StoredGame(1, 0, 0, 0, 0, b"[[0],[1],[0],[0]]", "h", b'{"decisions":[[0,"b"]]}')], run=2)
        assert old.record(1) == {"decisions": [[0, "b"]]}
        assert old.db.execute("SELECT typeof(record) FROM games WHERE game_index = 1").fetchone()[0] == "text"
