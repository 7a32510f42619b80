"""`arena new-bot`: a ready bot package, from nothing.

`new_bot` writes a folder that `pip install -e` turns into a registered bot:

    NAME/
      pyproject.toml          the distribution, with the `arena` entry point
      README.md               how to try, test, validate and submit it
      <module>/__init__.py    an `arena.Bot` subclass that plays legally, with one
                              method per chosen ruleset showing where strategy goes
      tests/test_<module>.py  plays a few games of each ruleset against random bots

The comments in each per-ruleset method quote that ruleset's action grammar and
view fields from its own docstring (`arena.reference`), so they match the engine
the bot was generated against. The example strategies for the built-in rulesets
are deliberately small: they read the observation the way a real strategy would
and fall back on a uniform choice from `self.rng`.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Sequence

import arena
from arena.bot import BOT_NAME
from arena.errors import ConfigError
from arena.plugins import Registry
from arena.reference import hint_lines
from arena.rules.base import Ruleset

RESERVED_MODULES = {"arena", "arena_bots", "tests", "test", "bots"}

# The body of `act_<ruleset>` for a ruleset that declares no `bot_example`: it has
# `observation`, `view`, `legal` and `me` (your seat) in scope.
GENERIC_EXAMPLE = '''
        # Your strategy goes here: read `view`, return one string of `legal`.
        return self.rng.choice(legal)
'''


def module_name(bot_name: str) -> str:
    """The import name of a new bot's package: the bot name with underscores,
    prefixed with ``bot_`` when it would not be a safe import name."""
    module = bot_name.replace("-", "_")
    if (not module.isidentifier() or keyword.iskeyword(module) or module in sys.stdlib_module_names
            or module in RESERVED_MODULES):
        module = "bot_" + module
    return module


def class_name(bot_name: str) -> str:
    name = "".join(part.capitalize() for part in bot_name.split("-"))
    if not name[0].isalpha():
        name = "Bot" + name
    return name if name.endswith("Bot") else name + "Bot"


def method_name(ruleset_id: str) -> str:
    return "act_" + re.sub(r"[^0-9a-zA-Z]+", "_", ruleset_id).strip("_").lower()


MAX_NAME = 64
"""The longest bot name `new_bot` accepts (it names a folder, a module and a distribution)."""


def new_bot(name: str, rulesets: Sequence[str], directory: Path, registry: Registry) -> list[Path]:
    """Write a bot package for `name` playing `rulesets` (default: every registered
    ruleset) into `directory`; return the files written."""
    if len(name) > MAX_NAME:
        raise ConfigError(f"bot name {name[:20]!r}... is {len(name)} characters long: use at most {MAX_NAME}")
    if not BOT_NAME.match(name):
        raise ConfigError(f"bot name {name!r}: use lowercase letters, digits and dashes (e.g. my-bot)")
    if name in registry.bots:
        origin = registry.bots[name].origin
        raise ConfigError(f"a bot named {name!r} is already installed (from {origin.package}); choose another name")
    chosen = list(dict.fromkeys(rulesets)) if rulesets else list(registry.rulesets)
    if not chosen:
        raise ConfigError("no ruleset is installed; nothing to write a bot for")
    classes = [registry.ruleset(r).cls for r in chosen]
    directory = Path(directory)
    try:
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise ConfigError(f"{directory} already exists and is not an empty folder")
    except OSError as exc:
        raise ConfigError(f"{directory}: cannot use it ({exc.strerror or exc})") from None
    module = module_name(name)
    files = {
        "pyproject.toml": pyproject_text(name, module, chosen),
        "README.md": readme_text(name, module, chosen),
        f"{module}/__init__.py": bot_module_text(name, classes),
        f"tests/test_{module}.py": scaffold_test_text(name, module),
        ".gitignore": "__pycache__/\n*.egg-info/\nbuild/\ndist/\n.venv/\n",
    }
    written = []
    for relative, text in files.items():
        path = directory / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot write it ({exc.strerror or exc})") from None
        written.append(path)
    return written


def _arena_requirement() -> str:
    match = re.match(r"(\d+)\.(\d+)", arena.__version__)
    return f"flip-arena>={match.group(1)}.{match.group(2)}" if match else "flip-arena"


def pyproject_text(name: str, module: str, rulesets: Sequence[str]) -> str:
    return f'''[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
description = "A Flip Arena bot for {", ".join(rulesets)}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["{_arena_requirement()}"]

[project.optional-dependencies]
test = ["pytest"]

# This is how arena finds the bot: the module's `register_bots` hook registers it.
[project.entry-points.arena]
{name} = "{module}"

[tool.setuptools]
packages = ["{module}"]
'''


def bot_module_text(name: str, rulesets: Sequence[type[Ruleset]]) -> str:
    """The bot package's module: a bot class dispatching each ruleset to its own method."""
    cls = class_name(name)
    ids = tuple(r.id for r in rulesets)
    dispatch = "\n".join(f'        if ruleset == "{r.id}":\n            return self.{method_name(r.id)}(observation)'
                         for r in rulesets)
    methods = [_method_text(ruleset) for ruleset in rulesets]
    return f'''"""`{name}`: a Flip Arena bot for {", ".join(ids)}.

Written by `arena new-bot`. The harness makes a fresh `{cls}` for every game, sets
`self.rng` (a `random.Random` seeded for that game and seat), calls `start(info)`,
then `act(observation)` for each decision of your seat, then `end(outcome)`.

Fair play: decide from the observation only (no reading files, the network, other
processes or the harness's memory), and take every random choice from `self.rng`
so the same seeds replay the same game. If your bot must depend on the clock (e.g.
an anytime search), set `time_dependent = True` on the class: `arena validate`
then reports the difference between two runs instead of failing.

Reference: CONTRIBUTING.md and docs/rulesets.md of flip-arena; `arena rulesets list`.
"""

import arena


class {cls}(arena.Bot):
    name = "{name}"
    rulesets = {_tuple_text(ids)}

    def __init__(self, **params):
        # Parameters come from the tournament file (`params = {{...}}`) or
        # `arena match ... --param {name}.KEY=VALUE`; keep defaults for everything.
        self.params = params

    def start(self, info):
        """Before the first decision: info = ruleset, version, options, seat, players, bots."""
        self.seat = info["seat"]

    def act(self, observation):
        """Return one string of observation["legal_actions"]."""
        ruleset = observation["ruleset"]
{dispatch}
        return self.rng.choice(observation["legal_actions"])
{"".join(methods)}
    def end(self, outcome):
        """After the game: outcome = standing (1 = first, per seat), scores, reason."""


@arena.hookimpl
def register_bots(register):
    register({cls})
'''


def _method_text(ruleset: type[Ruleset]) -> str:
    """The bot's method for one decision of `ruleset`: its hints as comments, then its example."""
    hints = hint_lines(ruleset)
    comment = "\n".join(f"        # {line}".rstrip() for line in hints)
    body = textwrap.indent(textwrap.dedent(getattr(ruleset, "bot_example", None) or GENERIC_EXAMPLE).strip("\n"), "        ")
    return f'''
    def {method_name(ruleset.id)}(self, observation):
        """One decision of {getattr(ruleset, "title", ruleset.id)} ({ruleset.id} {ruleset.version})."""
{comment}
        view = observation["view"]  # what your seat sees (the fields above)
        legal = observation["legal_actions"]
        me = observation["seat"]
{body}
'''


def _tuple_text(items: Sequence[str]) -> str:
    """A tuple literal of strings in double quotes, as the rest of the code writes them."""
    return "(" + ", ".join(json.dumps(item) for item in items) + ("," if len(items) == 1 else "") + ")"


def scaffold_test_text(name: str, module: str) -> str:
    cls = class_name(name)
    return f'''"""`{name}` plays legal, reproducible games against random bots (run: pytest)."""

import pytest

from arena.match import Entrant, play_game
from arena.plugins import load_registry
from {module} import {cls}

REGISTRY = load_registry()
GAMES = 3


def test_the_bot_is_registered_through_its_entry_point():
    assert REGISTRY.bot("{name}").cls.__name__ == "{cls}"


@pytest.mark.parametrize("ruleset_id", {cls}.rulesets)
def test_plays_only_legal_actions_and_replays_from_its_seed(ruleset_id):
    ruleset = REGISTRY.ruleset(ruleset_id).cls
    opponent = REGISTRY.bot("random").cls
    players = max(ruleset.min_players, min(3, ruleset.max_players))
    for seed in range(GAMES):
        seat = seed % players
        entrants = [Entrant(opponent)] * players
        entrants[seat] = Entrant({cls})
        first = play_game(ruleset, entrants, deal_seed=seed)  # an illegal action raises here
        again = play_game(ruleset, entrants, deal_seed=seed)
        assert first.record["decisions"] == again.record["decisions"]
'''


def readme_text(name: str, module: str, rulesets: Sequence[str]) -> str:
    first = rulesets[0]
    return f'''# {name}

A bot for [Flip Arena](https://pypi.org/project/flip-arena/) that plays {", ".join(f"`{r}`" for r in rulesets)}.
The strategy lives in `{module}/__init__.py`: one `act_...` method per ruleset, each
commented with that ruleset's action grammar and view fields.

## Try it

```bash
pip install -e '.[test]'            # into the environment where flip-arena is installed
arena bots list                     # {name} appears, with its package and version
arena match {first} {name} random --seed 7 --log
arena play {first} {name}             # play against it yourself
pytest                              # a few games per ruleset: legal and reproducible
```

## Check and submit it

```bash
arena validate {name}                # the organiser's entry check, on the installed bot
arena validate .                    # the same in a throwaway virtualenv, as the organiser runs it
pip wheel . --no-deps -w dist       # dist/{name.replace("-", "_")}-0.1.0-py3-none-any.whl: what you submit
```

`arena validate` plays games against random bots in a separate process and fails on
illegal actions, crashes, timeouts and games that do not replay from their seeds.

## Rules of fair play

- Decide from the observation only.
- Take every random choice from `self.rng`.
- Stay within the time and memory limits (by default 1 s per decision plus a 10 s bank
  per game, 1 GiB).
'''
