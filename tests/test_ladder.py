"""The hosted ladder (arena.ladder, docs/ladder.md): config, tokens, versions and their
gate, leases, results stored once, the first scheduler and live standings, on SQLite
and on PostgreSQL (tests/ladder_support.py says how PostgreSQL is found; without it
the PostgreSQL cases fail). Workers here are the in-process stand-in of ladder_support
(the server's checks, no sandboxes); tests/test_ladder_sandbox.py runs real workers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from ladder_support import inline_result

from arena.errors import ArenaError, ConfigError
from arena.ladder.accounts import AccessError
from arena.ladder.config import LadderConfigError, decode_config, load_config
from arena.ladder.db import SCHEMA_VERSION, connect, database_url, games, schema, tasks, tokens
from arena.ladder.service import Ladder, LeaseError
from arena.ladder.versions import UploadError, upload_content

pytest.importorskip("starlette")


def make_ladder(url: str, bots_per_author: int = 3, **ladder_keys) -> Ladder:
    doc = {"ladder": {"deals_per_table": 2, "batch_games": 3, "lease_seconds": 60, "scheduler": "round-robin",
                      **ladder_keys},
           "quotas": {"uploads_per_day": 5, "upload_bytes": 4096, "bots_per_author": bots_per_author}}
    return Ladder(connect(url), decode_config(doc, "test.toml"))


def admin_of(ladder: Ladder):
    return ladder.caller(f"Bearer {ladder.create_admin('boss')}")


def drain(ladder: Ladder, worker, limit: int = 200) -> int:
    """Lease and return work until there is none; tasks returned."""
    done = 0
    for _ in range(limit):
        lease = ladder.lease(worker)
        if not lease["tasks"]:
            return done
        for task in lease["tasks"]:
            ladder.complete(worker, task["id"], inline_result(task))
            done += 1
    raise AssertionError("the ladder never ran out of work")


def setup_bots(ladder: Ladder, names=("alpha", "beta")):
    admin = admin_of(ladder)
    worker = ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}")
    for name in names:
        ladder.submit(admin, name, f"{name}.whl", f"{name} wheel".encode())
    return admin, worker


# -- config ----------------------------------------------------------------------------


@pytest.mark.parametrize("doc, message", [
    ({"quotas": {"upload_bytes": "big"}}, "cfg.toml: quotas.upload_bytes: must be an integer"),
    ({"ladder": {"colour": 1}}, "cfg.toml: ladder.colour: unknown key"),
    ({"ladder": {"signup": "closed"}}, "cfg.toml: ladder.signup: must be one of 'invite', 'open', not 'closed'"),
    ({"rulesets": [{"players": 2}]}, "cfg.toml: rulesets[0].id: missing"),
    ({"rulesets": [{"id": "chess"}]}, "cfg.toml: rulesets[0].id: no installed ruleset 'chess'"),
    ({"ladder": {"heartbeat_seconds": 400}}, "cfg.toml: ladder.heartbeat_seconds: must be positive and at most half"),
])
def test_config_problems_are_one_line_naming_file_and_key(doc, message):
    with pytest.raises(LadderConfigError) as caught:
        decode_config(doc, "cfg.toml")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_config_file_is_read_and_defaults_are_embedded(tmp_path):
    path = tmp_path / "ladder.toml"
    path.write_text('[ladder]\nname = "weekly"\nsignup = "open"\n[[rulesets]]\nid = "flip-7"\nplayers = 3\n')
    config = load_config(path)
    assert (config.ladder.name, config.ladder.signup, config.rulesets[0].players) == ("weekly", "open", 3)
    assert load_config(None).rulesets[0].id == "flip-7"
    path.write_text("[ladder\n")
    with pytest.raises(LadderConfigError, match=f"^{path}: not TOML"):
        load_config(path)


# -- database --------------------------------------------------------------------------


def test_schema_is_migrated_once_and_a_newer_one_is_refused(db_url):
    engine = connect(db_url)
    engine = connect(db_url)  # a second start runs no migration again
    with engine.connect() as conn:
        assert conn.execute(sa.select(schema.c.version)).scalars().all() == [SCHEMA_VERSION]
    with engine.begin() as conn:
        conn.execute(schema.update().values(version=SCHEMA_VERSION + 1))
    with pytest.raises(ConfigError, match="newer than this arena's"):
        connect(db_url)


def test_a_database_of_schema_step_2_gets_the_rated_games_index(db_url):
    from arena.ladder.db import games_rated

    engine = connect(db_url)
    with engine.begin() as conn:
        games_rated.drop(conn)
        conn.execute(schema.update().values(version=2))
    engine = connect(db_url)
    with engine.connect() as conn:
        assert "games_rated" in {index["name"] for index in sa.inspect(conn).get_indexes("games")}
        assert conn.execute(sa.select(schema.c.version)).scalar() == SCHEMA_VERSION == 3


def test_database_urls():
    assert database_url("postgresql://u@h/db", Path(".")) == "postgresql+psycopg://u@h/db"
    with pytest.raises(ConfigError, match="give postgresql"):
        database_url("mysql://x", Path("."))


# -- people and tokens -----------------------------------------------------------------


def test_tokens_are_stored_hashed_scoped_and_revocable(db_url):
    ladder = make_ladder(db_url)
    admin_token = ladder.create_admin("boss")
    admin = ladder.caller(f"Bearer {admin_token}")
    worker_token = ladder.issue_token(admin, "worker")
    with ladder.engine.connect() as conn:
        stored = [r.digest for r in conn.execute(sa.select(tokens)).all()]
    assert admin_token not in stored and worker_token not in stored and len(stored) == 2
    worker = ladder.caller(f"Bearer {worker_token}")
    with pytest.raises(AccessError, match="needs a submit token"):
        ladder.submit(worker, "alpha", "a.whl", b"x")
    author = ladder.caller(f"Bearer {ladder.sign_up('ann', ladder.invite(admin))}")
    with pytest.raises(AccessError, match="only an admin makes worker tokens"):
        ladder.issue_token(author, "worker")
    with pytest.raises(AccessError, match="leasing work needs a worker token"):
        ladder.lease(author)
    listed = ladder.tokens(admin)
    assert [t["scope"] for t in listed] == ["admin", "worker"] and worker_token not in json.dumps(listed)
    assert ladder.revoke(admin, listed[1]["id"]) == 1
    with pytest.raises(AccessError, match="unknown or revoked"):
        ladder.caller(f"Bearer {worker_token}")


def test_sign_up_is_by_one_use_invitation_unless_open(db_url):
    ladder = make_ladder(db_url)
    admin = admin_of(ladder)
    with pytest.raises(AccessError, match="by invitation"):
        ladder.sign_up("ann", None)
    code = ladder.invite(admin)
    assert ladder.sign_up("ann", code).startswith("submit_")
    with pytest.raises(AccessError, match="already used"):
        ladder.sign_up("bob", code)
    open_ladder = Ladder(ladder.engine, decode_config({"ladder": {"signup": "open", "scheduler": "round-robin"}}))
    assert open_ladder.sign_up("bob", None).startswith("submit_")
    with pytest.raises(ArenaError, match="taken"):
        open_ladder.sign_up("bob", None)


# -- versions, quotas and the gate -----------------------------------------------------


def test_identical_upload_is_refused_naming_the_version_and_quotas_hold(db_url):
    ladder = make_ladder(db_url, bots_per_author=2)
    admin = admin_of(ladder)
    author = ladder.caller(f"Bearer {ladder.sign_up('ann', ladder.invite(admin))}")
    assert ladder.submit(author, "alpha", "alpha.whl", b"one")["version"] == 1
    with pytest.raises(UploadError, match="identical to alpha version 1") as caught:
        ladder.submit(author, "alpha", "alpha.whl", b"one")
    assert caught.value.status == 409
    assert ladder.submit(author, "alpha", "alpha.whl", b"two")["version"] == 2
    with pytest.raises(UploadError, match="larger than 4,096 bytes"):
        ladder.submit(author, "alpha", "alpha.whl", b"x" * 4097)
    with pytest.raises(AccessError, match="belongs to another author"):
        ladder.submit(ladder.caller(f"Bearer {ladder.sign_up('bob', ladder.invite(admin))}"), "alpha", "a.whl", b"3")
    ladder.submit(author, "beta", "beta.whl", b"b")
    with pytest.raises(UploadError, match="quotas.bots_per_author"):
        ladder.submit(author, "gamma", "gamma.whl", b"g")
    ladder.submit(author, "beta", "beta.whl", b"b2")
    ladder.submit(author, "beta", "beta.whl", b"b3")  # the fifth upload of the day
    with pytest.raises(UploadError, match="5 uploads in the last 24 hours .quotas.uploads_per_day.") as caught:
        ladder.submit(author, "beta", "beta.whl", b"b4")
    assert caught.value.status == 429
    for name in ("delta.exe", "../delta.whl", "delta\n.whl", ".whl"):
        with pytest.raises(UploadError, match="upload a wheel"):
            ladder.submit(admin, "delta", name, b"d")


def test_upload_content_is_the_submissions_content_hash(tmp_path):
    from arena.submissions import content_sha256

    (tmp_path / "bot-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 not really")
    assert upload_content("bot-1.0-py3-none-any.whl", b"PK\x03\x04 not really") == content_sha256(
        tmp_path / "bot-1.0-py3-none-any.whl")


def test_a_passing_version_replaces_the_previous_one_which_keeps_its_games(db_url):
    ladder = make_ladder(db_url)
    admin, worker = setup_bots(ladder)
    drain(ladder, worker)
    table = ladder.standings_table("flip-7")
    assert [(r["bot"], r["version"]) for r in sorted(table, key=lambda r: r["bot"])] == [("alpha", 1), ("beta", 1)]
    assert all(r["games"] == 2 * 2 for r in table)  # deals_per_table 2, both rotations
    ladder.submit(admin, "alpha", "alpha2.whl", b"alpha two")
    drain(ladder, worker)
    page = ladder.bot_page("alpha")
    assert [v["state"] for v in page["versions"]] == ["passed", "passed"]
    assert page["current"] == page["versions"][1]["version_id"]
    old = page["versions"][0]["version_id"]
    assert sum(old in g["seats"] for g in page["games"] if g["gate"] is None) == 4  # kept
    assert {(r["bot"], r["version"]) for r in ladder.standings_table("flip-7")} == {("alpha", 2), ("beta", 1)}


def test_a_failed_gate_keeps_the_version_out_and_its_log_is_the_authors(db_url):
    ladder = make_ladder(db_url)
    admin, worker = setup_bots(ladder, names=("alpha",))
    author = ladder.caller(f"Bearer {ladder.sign_up('ann', ladder.invite(admin))}")
    ladder.submit(author, "beta", "beta.whl", b"beta")
    lease = ladder.lease(worker)
    ladder.complete(worker, lease["tasks"][0]["id"], inline_result(lease["tasks"][0]))
    task = ladder.lease(worker)["tasks"][0]
    ladder.complete(worker, task["id"], {"passed": False, "log": "pip could not build it"})
    assert ladder.gate_log(author, "beta", 1) == {"bot": "beta", "version": 1, "state": "failed",
                                                  "log": "pip could not build it"}
    with pytest.raises(AccessError, match="author's to read"):
        ladder.gate_log(author, "alpha", 1)
    assert [r["bot"] for r in ladder.standings_table("flip-7")] == ["alpha"]
    assert ladder.lease(worker)["tasks"] == []  # one current version: nothing to play


def test_a_forged_record_is_refused_and_its_game_played_again(db_url):
    ladder = make_ladder(db_url)
    _, worker = setup_bots(ladder)
    for _ in range(2):
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
    task = ladder.lease(worker)["tasks"][0]
    result = inline_result(task)
    result["record"]["outcome"]["standing"] = list(reversed(result["record"]["outcome"]["standing"]))
    with pytest.raises(LeaseError, match="refused") as caught:
        ladder.complete(worker, task["id"], result)
    assert caught.value.status == 422
    assert task["id"] in [t["id"] for t in ladder.lease(worker)["tasks"]]  # queued again


def test_a_record_whose_transcript_hash_alone_is_wrong_is_refused_by_the_replay(tmp_path):
    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = setup_bots(ladder)
    for _ in range(2):  # the two gates
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
    stored = ladder.counts()["games"]
    task = ladder.lease(worker)["tasks"][0]
    result = inline_result(task)
    result["record"]["transcript_hash"] = "0" * 64  # the game itself is honest
    with pytest.raises(LeaseError, match="transcript hash does not match") as caught:
        ladder.complete(worker, task["id"], result)
    assert caught.value.status == 422 and ladder.counts()["games"] == stored


def test_a_result_s_check_reads_its_form_once_hashes_once_and_resolves_no_options(tmp_path, monkeypatch):
    import arena.match

    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = setup_bots(ladder)
    for _ in range(3):  # the two gates, then one game: the ladder's options resolved by then
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
    task = ladder.lease(worker)["tasks"][0]
    result = inline_result(task)
    calls: list[str] = []
    cls = ladder.rulesets[task["spec"]["ruleset"]["label"]]["cls"]
    form, hashed, resolve = arena.match.record_problem, arena.match.transcript_hash, cls.resolve_options
    monkeypatch.setattr(arena.match, "record_problem", lambda *a, **k: calls.append("form") or form(*a, **k))
    monkeypatch.setattr(arena.match, "transcript_hash", lambda r: calls.append("hash") or hashed(r))
    monkeypatch.setattr(cls, "resolve_options", classmethod(lambda c, given=None: calls.append("options")
                                                            or resolve(given)))
    assert ladder.complete(worker, task["id"], result)["stored"] is True
    assert sorted(calls) == ["form", "hash"]


def test_a_gate_with_one_forged_record_stores_none_of_its_games_and_runs_again(db_url):
    ladder = make_ladder(db_url)
    admin, worker = setup_bots(ladder, names=("alpha",))
    task = ladder.lease(worker)["tasks"][0]
    report = inline_result(task)
    report["records"][1]["deal_seed"] += 1
    with pytest.raises(LeaseError, match="gate game 2: its seeds are not the ones"):
        ladder.complete(worker, task["id"], report)
    assert ladder.counts()["games"] == 0 and ladder.gate_log(admin, "alpha", 1)["state"] == "pending"
    again = ladder.lease(worker)["tasks"][0]
    assert again["id"] == task["id"]
    assert ladder.complete(worker, again["id"], inline_result(again))["stored"] is True
    assert ladder.counts()["games"] == 2 and ladder.gate_log(admin, "alpha", 1)["state"] == "passed"


def test_bot_logs_are_served_to_their_author_only(db_url):
    ladder = make_ladder(db_url)
    admin = admin_of(ladder)
    worker = ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}")
    ann = ladder.caller(f"Bearer {ladder.sign_up('ann', ladder.invite(admin))}")
    bob = ladder.caller(f"Bearer {ladder.sign_up('bob', ladder.invite(admin))}")
    ladder.submit(ann, "alpha", "alpha.whl", b"a")
    ladder.submit(bob, "beta", "beta.whl", b"b")
    for _ in range(2):
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
    task = ladder.lease(worker)["tasks"][0]
    result = inline_result(task)
    result["record"]["logs"] = {"0": f"seat 0 ({task['spec']['seats'][0]['name']}) thinking", "1": "seat 1 here"}
    ladder.complete(worker, task["id"], result)
    game = max(g["game"] for g in ladder.bot_page("alpha")["games"])
    alpha_seat = str([s["name"] for s in task["spec"]["seats"]].index("alpha"))
    assert ladder.game_logs(ann, game)["logs"] == {alpha_seat: result["record"]["logs"][alpha_seat]}
    assert list(ladder.game_logs(bob, game)["logs"]) == [str(1 - int(alpha_seat))]
    assert len(ladder.game_logs(admin, game)["logs"]) == 2
    assert "logs" not in ladder.game_record(game)


# -- leases: expiry, re-issue, results stored once --------------------------------------


def test_an_expired_lease_is_reissued_and_its_games_stored_once(db_url):
    ladder = make_ladder(db_url)
    _, worker = setup_bots(ladder)
    for _ in range(2):  # the gates
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
    first = ladder.lease(worker)
    assert len(first["tasks"]) == 3 and first["heartbeat_seconds"] < first["lease_seconds"]
    assert ladder.heartbeat(worker, first["lease"])["held"] == [t["id"] for t in first["tasks"]]
    with ladder.engine.begin() as conn:  # the lease runs out (no heartbeat)
        conn.execute(tasks.update().where(tasks.c.lease == first["lease"]).values(expires=time.time() - 1))
    second = ladder.lease(worker)
    assert [t["id"] for t in second["tasks"]] == [t["id"] for t in first["tasks"]]
    assert ladder.heartbeat(worker, first["lease"])["held"] == []
    for task in second["tasks"]:
        assert ladder.complete(worker, task["id"], inline_result(task))["stored"] is True
    for task in first["tasks"]:  # the first worker comes back late with the same games
        assert ladder.complete(worker, task["id"], inline_result(task)) == {"task": task["id"], "stored": False,
                                                                            "note": "already stored"}
    drain(ladder, worker)
    with ladder.engine.connect() as conn:
        keys = conn.execute(sa.select(games.c.key).where(games.c.gate.is_(None))).scalars().all()
    assert len(keys) == len(set(keys)) == 4
    assert sum(r["games"] for r in ladder.standings_table("flip-7")) == 8  # each game rated once (2 seats)


def test_a_task_whose_leases_keep_expiring_is_given_up(db_url):
    ladder = make_ladder(db_url)
    admin, worker = setup_bots(ladder, names=("alpha", "beta"))
    gate = ladder.lease(worker)["tasks"][0]
    ladder.complete(worker, gate["id"], inline_result(gate))
    for attempt in range(5):  # beta's gate: leased, never returned
        held = ladder.lease(worker)["tasks"]
        assert [t["kind"] for t in held] == ["gate"], attempt
        with ladder.engine.begin() as conn:
            conn.execute(tasks.update().where(tasks.c.id == held[0]["id"]).values(expires=time.time() - 1))
    assert ladder.lease(worker)["tasks"] == []  # given up; alpha alone has no one to play
    assert ladder.gate_log(admin, "beta", 1)["state"] == "failed"
    assert "no worker returned its gate in 5 leases" in ladder.gate_log(admin, "beta", 1)["log"]
    assert ladder.counts()["tasks_failed"] == 1


def test_standings_after_a_restart_are_those_rated_live(db_url):
    ladder = make_ladder(db_url)
    _, worker = setup_bots(ladder, names=("alpha", "beta", "gamma"))
    drain(ladder, worker)
    live = ladder.standings_table("flip-7")
    assert sum(r["games"] for r in live) == 3 * 4 * 2
    assert make_ladder(db_url).standings_table("flip-7") == live


# -- the first scheduler -----------------------------------------------------------------


def test_scheduler_plays_new_versions_first_then_round_robin():
    from arena.ladder.scheduler import RoundRobinFirst
    from arena.scheduling.base import DONE, WAIT, FieldEntry, MemoryState, StoredResult

    field = [FieldEntry(n, f"{n}-hash", ("flip-7",)) for n in ("a", "b", "c")]
    scheduler = RoundRobinFirst([("flip-7", 2)], deals_per_table=2)
    state = MemoryState(entries=field)
    order = []
    while True:
        decision = scheduler.next(state, 5)
        if decision is DONE:
            break
        for game in decision.games:
            order.append((tuple(e.name for e in game.table), game.deal, game.rotation))
            state.store(StoredResult(game.identity, (0, 1), (1.0, 0.0), (0, 0)))
    assert order[:4] == [(("b", "c"), 0, 0), (("b", "c"), 0, 1), (("b", "c"), 1, 0), (("b", "c"), 1, 1)]
    assert [t for t, _, _ in order[4:8]] == [("a", "c")] * 4 and [t for t, _, _ in order[8:]] == [("a", "b")] * 4
    assert scheduler.next(MemoryState(entries=field, flying=set(state._keys)), 3) is WAIT  # all in flight
    assert scheduler.next(state, 1) is DONE


# -- the command line ------------------------------------------------------------------------


def test_ladder_commands_fail_in_one_line_with_exit_code_2(tmp_path):
    from click.testing import CliRunner
    from ladder_support import _free_port

    from arena.cli import main

    away = f"http://127.0.0.1:{_free_port()}"
    bad = tmp_path / "bad.toml"
    bad.write_text("[quotas]\nupload_bytes = 'big'\n")
    wheel = tmp_path / "bot-1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    cases = [
        (["ladder", "serve", "--config", str(bad), "--folder", str(tmp_path / "l")],
         f"{bad}: quotas.upload_bytes: must be an integer"),
        (["ladder", "serve", "--pages-nice", "5", "--folder", str(tmp_path / "l")], "--pages-nice needs --worker-port"),
        (["ladder", "serve", "--worker-processes", "2", "--folder", str(tmp_path / "l")],
         "--worker-processes needs --worker-port"),
        (["ladder", "admin", "create", "Not A Name", "--folder", str(tmp_path / "l")], "person name 'Not A Name'"),
        (["ladder", "submit", str(wheel), "--to", away, "--token", "submit_x"], "name the bot with --bot NAME"),
        (["ladder", "submit", str(wheel), "--to", away, "--token", "submit_x", "--bot", "b"], "cannot reach"),
        (["ladder", "standings", "--to", away], "cannot reach"),
        (["ladder", "worker", "--to", away], "no token: pass --token or set ARENA_LADDER_TOKEN"),
    ]
    for args, message in cases:
        done = CliRunner().invoke(main, args, env={"ARENA_LADDER_TOKEN": ""})
        assert done.exit_code == 2 and message in done.output and len(done.output.strip().splitlines()) == 1, \
            (args, done.output)
