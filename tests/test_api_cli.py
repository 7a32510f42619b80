"""Local and foreign bots from the command line: PATH.py:Class and --command in match, play and validate."""

import json
import random
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.rules.flip_7 import Flip7

LOCAL_BOT = """import arena

class LastLegal(arena.Bot):
    def act(self, observation):
        return observation["legal_actions"][-1]
"""

# The smallest protocol bot (docs/protocol.md): first legal action, seeded by nothing.
PROTOCOL_BOT = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "shutdown":
        break
    reply = ({"type": "hello", "protocol": 1, "bot": "first"} if kind == "hello"
             else {"type": "action", "action": message["observation"]["legal_actions"][0]} if kind == "act"
             else {"type": "ok"})
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


@pytest.fixture
def bots(tmp_path):
    (tmp_path / "mine.py").write_text(LOCAL_BOT)
    (tmp_path / "first.py").write_text(PROTOCOL_BOT)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_match_seats_a_local_file_an_installed_bot_and_a_protocol_program_in_that_order(bots):
    command = f"{sys.executable} {bots / 'first.py'}"
    result = run("match", "flip-7", f"{bots / 'mine.py'}:LastLegal", "random", "--command", command,
                 "--seed", "3", "--isolation", "process", "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert [s["display"] for s in record["seats"]] == ["last-legal", "random", "first"]
    # The program answers the first legal action, the local bot the last one, at every decision of theirs.
    state = Flip7.new_game(3, record["ruleset"]["options"], random.Random(3))
    for seat, action in record["decisions"]:
        legal = state.legal_actions()
        if seat == 2 or seat == 0 and len(legal) > 1:
            assert action == legal[0 if seat == 2 else -1]
        state.apply(action)
    inline = run("match", "flip-7", f"{bots / 'mine.py'}:LastLegal", "random", "--command", command,
                 "--seed", "3", "--isolation", "inline", "--json")
    assert json.loads(inline.output)["transcript_hash"] == record["transcript_hash"]


@pytest.mark.parametrize("args, message", [
    (["flip-7"], "name at least one BOT or give a --command"),
    (["flip-7", "nowhere.py:Bot", "random"], "no file nowhere.py"),
    (["flip-7", "random", "--command", "'unclosed"], "--command"),
])
def test_bad_local_or_command_bots_are_one_line_errors(args, message):
    result = run("match", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_play_seats_a_protocol_program_against_the_person(bots):
    command = f"{sys.executable} {bots / 'first.py'}"
    result = run("play", "flip-7", "--command", command, "--seed", "4", "--color", "never",
                 input="1\n" * 400 + "n\n")
    assert result.exit_code == 0, result.output
    assert "seat 1 (first)" in result.output


def test_validate_checks_a_local_file_and_a_protocol_program(bots):
    local = run("validate", f"{bots / 'mine.py'}:LastLegal", "--games", "2", "--ruleset", "flip-7", "--json")
    assert local.exit_code == 0, local.output
    report = json.loads(local.output[local.output.index("{"):])
    assert report["passed"] and report["bots"][0]["rulesets"][0]["deterministic"] is True
    command = run("validate", "--command", f"{sys.executable} {bots / 'first.py'}", "--games", "2",
                  "--ruleset", "flip-7", "--isolation", "process", "--json")
    assert command.exit_code == 0, command.output
    assert json.loads(command.output[command.output.index("{"):])["bots"][0]["rulesets"][0]["games"] == 2


def test_validate_fails_a_protocol_program_that_answers_illegally(tmp_path):
    (tmp_path / "bad.py").write_text(PROTOCOL_BOT.replace('message["observation"]["legal_actions"][0]', '"nope"'))
    result = run("validate", "--command", f"{sys.executable} {tmp_path / 'bad.py'}", "--games", "1",
                 "--ruleset", "flip-7", "--isolation", "process")
    assert result.exit_code == 1
    assert "illegal" in result.output
