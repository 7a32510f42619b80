"""Attacks in whole sandboxed tournaments (`isolation = "sandbox"`, the default):
a bot hunting for the tournament file, the seed and the store by path and through
/proc; a command bot beside the tournament file looking around its own folder; a
command bot replying with JSON nested 5,000 deep. The tournament completes, faults
are charged to the attacker only, it resumes, and nothing secret is found."""

from __future__ import annotations

import json
import shutil

import pytest

from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_attacks import ATTACKS, reports
from test_attacks import attack_site, sandbox  # noqa: F401  (fixtures)

SEED = 4815162342


@pytest.fixture
def field(tmp_path, monkeypatch, attack_site, sandbox):
    """A folder holding a tournament file and its command bots, open to the sandbox's uids."""
    monkeypatch.syspath_prepend(str(attack_site))  # installed plugins: the harness lists them
    tmp_path.chmod(0o755)
    for script in ("peek.py", "rude_json.py"):
        shutil.copy(ATTACKS / script, tmp_path / script)
    return tmp_path


def write(folder, bots: str):
    path = folder / "hunt.toml"
    path.write_text(f'[tournament]\nname = "hunt"\nseed = {SEED}\ndeals = 1\ntime_per_decision = 3.0\n'
                    f'time_bank = 3.0\n{bots}\n[[rulesets]]\nuse = "flip-7"\nplayers = 2\n'
                    f'options = {{ target_score = 40 }}\n')
    return path


def run(path, out):
    return run_and_publish(load_tournament(path, load_registry()), out, workers=1, progress=False,
                           echo=lambda line: None)


def records(out):
    with Store.open(store_path(out)) as store:
        return [store.record(i) for i in range(store.count())]


def logs_of(recs, display):
    for rec in recs:
        for seat, entry in enumerate(rec["seats"]):
            if entry["display"] == display:
                yield rec, seat, (rec.get("logs") or {})


def test_a_sandboxed_tournament_keeps_its_file_seed_and_store_from_bots_and_survives_deep_json(field):
    out = field / "results"
    store = store_path(out)
    bots = f'''
[[bots]]
use = "random"

[[bots]]
use = "random"
as = "random-2"

[[bots]]
use = "attack-seed-hunter"
params = {{ needle = "{SEED}", paths = ["{field / 'hunt.toml'}", "{out}", "{store}", "{field}"] }}

[[bots]]
command = ["./rude_json.py", "deep"]
as = "deep-json"
'''
    path = write(field, bots)
    first = run(path, out)
    assert first.complete
    recs = records(out)
    assert len(recs) == 12  # C(4,2) tables, two seatings each
    hunted = 0
    for rec in recs:
        names = [s["display"] for s in rec["seats"]]
        faulty = {names[f["seat"]] for f in rec["faults"]}
        assert faulty <= {"deep-json"}, rec["faults"]
        if "deep-json" in names:
            assert [f["kind"] for f in rec["faults"]] == ["garbage"]
    for rec, seat, logs in logs_of(recs, "attack-seed-hunter"):
        text = logs.get(str(seat), logs.get(seat, "")) if isinstance(logs, dict) else logs[seat]
        for report in reports(text, "seed-hunt"):
            hunted += 1
            assert report["needle_in_files"] == [] and report["proc_hits"] == [], report
            assert all(not v.startswith(("read", "listed")) for v in report["got"].values()), report
    assert hunted >= 3, "the seed hunter never reported"
    standings = (out / "standings.json").read_text()
    again = run(path, out)  # resumes: nothing left to play, the same standings
    assert again.complete and len(records(out)) == 12
    assert json.loads((out / "standings.json").read_text())["overall"] == json.loads(standings)["overall"]


def test_a_command_bot_beside_the_tournament_file_cannot_read_it_or_the_results(field):
    out = field / "results"
    path = write(field, f'''
[[bots]]
use = "random"

[[bots]]
command = ["./peek.py", "{SEED}"]
as = "peek"
''')
    assert run(path, out).complete
    peeked = 0
    for rec, seat, logs in logs_of(records(out), "peek"):
        text = logs.get(str(seat), logs.get(seat, "")) if isinstance(logs, dict) else logs[seat]
        for report in reports(text, "peek"):
            peeked += 1
            assert report["toml"] == [] and report["read_with_needle"] == [], report
    assert peeked >= 1
