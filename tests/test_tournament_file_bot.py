"""A tournament file's ``use = "./policy.py:Class"``: a bot in a file, its path relative to
the tournament file, played in a sandbox like a submission with its folder bound read-only
(it reads its own weights and imports numpy; it cannot see files elsewhere, nor the
tournament file)."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError
from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_attacks import sandbox  # noqa: F401  (fixture)

POLICY = '''
import json, os
import numpy  # a numerical library imported at load (its threads must not stop the sandbox's zygote)
from arena import Bot

HERE = os.path.dirname(os.path.abspath(__file__))


class Careful(Bot):
    """Stays at a score read from weights.json beside it; fails its game if it sees what it must not."""

    name = "careful"
    rulesets = ("flip-7",)

    def __init__(self, hidden=()):
        self.hidden = list(hidden)

    def start(self, info):
        with open(os.path.join(HERE, "weights.json")) as f:
            self.limit = json.load(f)["stay_at"]
        seen = [path for path in self.hidden if os.path.exists(path)]
        if seen:
            raise RuntimeError(f"visible: {seen}")

    def act(self, observation):
        legal = observation["legal_actions"]
        row = observation["view"]["rows"][observation["seat"]]
        return "stay" if "stay" in legal and numpy.float64(row["score"]) >= self.limit else legal[0]
'''


def write_bot(folder):
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    (folder / "policy.py").write_text(POLICY)
    (folder / "weights.json").write_text('{"stay_at": 15}')


def write_tournament(path, use, hidden, isolation="sandbox"):
    path.write_text(f'[tournament]\nname = "file-bot"\nseed = 9\ndeals = 2\nisolation = "{isolation}"\n'
                    f'[[bots]]\nuse = "{use}"\nparams = {{ hidden = {[str(h) for h in hidden]!r} }}\n'
                    '[[bots]]\nuse = "random"\n'
                    '[[rulesets]]\nuse = "flip-7"\nplayers = 2\noptions = { target_score = 40 }\n'.replace("'", '"'))
    return path


def play(path, out):
    result = run_and_publish(load_tournament(path, load_registry()), out, workers=1, progress=False,
                             echo=lambda line: None)
    with Store.open(store_path(out)) as store:
        return result, [store.record(i) for i in range(store.count())]


def test_a_bot_in_a_file_plays_sandboxed_reading_its_folder_and_nothing_else(tmp_path, sandbox):  # noqa: F811
    tmp_path.chmod(0o755)
    write_bot(tmp_path / "bots")
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.parent.chmod(0o755)
    secret.write_text("not for bots")
    secret.chmod(0o644)
    path = write_tournament(tmp_path / "t.toml", "./bots/policy.py:Careful", [secret])
    result, records = play(path, tmp_path / "results")
    assert result.complete and len(records) == 4
    for record in records:
        assert record["faults"] == [], record["faults"]
        assert "careful" in [seat["display"] for seat in record["seats"]]
    # Control: a bot that sees the secret does fault, so the assertion above can fail.
    path = write_tournament(tmp_path / "t2.toml", "./bots/policy.py:Careful", [tmp_path / "bots" / "weights.json"])
    _, records = play(path, tmp_path / "results2")
    assert all(record["faults"] for record in records)


def test_a_bot_beside_the_tournament_file_reads_its_weights_but_not_the_tournament_file(tmp_path, sandbox):  # noqa: F811
    write_bot(tmp_path)
    path = write_tournament(tmp_path / "t.toml", "./policy.py:Careful", [tmp_path / "t.toml"])
    result, records = play(path, tmp_path / "results")
    assert result.complete and records and all(record["faults"] == [] for record in records)


def test_a_missing_file_or_inline_isolation_is_refused_naming_the_key(tmp_path):
    write_bot(tmp_path)
    with pytest.raises(ConfigError, match=r"bots\[0\]\.use.*no file .*relative to the tournament file"):
        load_tournament(write_tournament(tmp_path / "t.toml", "./absent.py:Careful", []), load_registry())
    with pytest.raises(ConfigError, match=r"bots\[0\]\.use.*not inline"):
        load_tournament(write_tournament(tmp_path / "t.toml", "./policy.py:Careful", [], isolation="inline"),
                        load_registry())
