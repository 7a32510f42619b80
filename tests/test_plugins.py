"""The plugin contract: entry-point discovery, broken plugins, duplicate names."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena.cli import main
from arena.errors import PluginError
from arena.plugins import HookSpecs, load_registry
from conftest import flip7_copy_plugin, write_plugin

THROWAWAY = """
    import arena

    class EchoBot(arena.Bot):
        name = "echo-first"
        rulesets = ("flip-7",)

        def act(self, observation):
            return observation["legal_actions"][0]

    @arena.hookimpl
    def register_bots(register):
        register(EchoBot)
"""


def test_public_contract_names_are_importable_from_arena():
    assert issubclass(arena.Bot, object)
    assert callable(arena.hookimpl)
    bot = arena.Bot()
    assert bot.plays("anything") and arena.Bot.rulesets == "*"


def test_builtin_bots_and_rulesets_are_found_through_the_entry_point():
    registry = load_registry()
    assert {"random", "flip7-threshold"} <= set(registry.bots)
    assert "flip-7" in registry.rulesets
    assert registry.bots["random"].origin.package == "flip-arena"
    assert registry.rulesets["flip-7"].origin.package == "flip-arena"


def test_throwaway_plugin_shows_in_bots_list(plugin_dir):
    write_plugin(plugin_dir, "throwaway-bots", "throwaway_bots", THROWAWAY)
    result = CliRunner().invoke(main, ["bots", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["echo-first"]["package"] == "throwaway-bots"
    assert rows["echo-first"]["version"] == "1.2.3"
    assert rows["echo-first"]["rulesets"] == ["flip-7"]


def test_plugin_that_raises_on_import_is_reported_and_others_still_load(plugin_dir):
    write_plugin(plugin_dir, "broken-bots", "broken_bots", "raise RuntimeError('boom at import')\n")
    with pytest.warns(UserWarning, match="broken-bots.*boom at import"):
        registry = load_registry()
    assert "random" in registry.bots
    assert [b.package for b in registry.broken] == ["broken-bots"]
    result = CliRunner().invoke(main, ["bots", "list"])
    assert result.exit_code == 0
    assert "broken plugin" in result.stdout and "boom at import" in result.stdout


def test_duplicate_bot_name_is_an_error_naming_both_packages(plugin_dir):
    write_plugin(plugin_dir, "copycat-bots", "copycat_bots", THROWAWAY.replace("echo-first", "random"))
    with pytest.raises(PluginError, match=r"'random' is registered twice: by copycat-bots .* and by flip-arena"):
        load_registry()
    result = CliRunner().invoke(main, ["bots", "list"])
    assert result.exit_code == 2
    assert "registered twice" in result.stderr and "Traceback" not in result.output


def test_registering_something_that_is_not_a_bot_is_a_plugin_error(plugin_dir):
    source = """
        import arena

        @arena.hookimpl
        def register_bots(register):
            register(object)
    """
    write_plugin(plugin_dir, "wrong-bots", "wrong_bots", source)
    with pytest.raises(PluginError, match="not an arena.Bot subclass"):
        load_registry()


def test_bot_names_must_be_lowercase_with_dashes(plugin_dir):
    write_plugin(plugin_dir, "shouty-bots", "shouty_bots", THROWAWAY.replace("echo-first", "Echo_First"))
    with pytest.raises(PluginError, match="lowercase letters, digits and dashes"):
        load_registry()


def test_every_hook_is_documented_and_exercised_by_a_test():
    """A hook without a docstring, or one no test in this file calls, fails here."""
    hooks = [name for name in vars(HookSpecs) if name.startswith("register_")]
    assert hooks == ["register_bots", "register_rulesets", "register_playouts", "register_schedulers",
                     "register_run_observers", "register_commands"]
    source = open(__file__).read()
    for name in hooks:
        assert (getattr(HookSpecs, name).__doc__ or "").strip(), f"hook {name} has no docstring"
        assert f"def {name}(" in source.replace(f"def {name}(self", ""), f"no test plugin implements {name}"


PLAYOUT_PLUGIN = """
    import arena
    from arena.rules.flip_7 import Flip7

    class TinyFlip7(Flip7):
        id = "tiny-flip-7"

    class StayBot(arena.Bot):
        name = "stay-first"
        rulesets = ("tiny-flip-7",)

        def act(self, observation):
            legal = observation["legal_actions"]
            return "stay" if "stay" in legal else legal[0]

    def stay_move(bot, state, seat, actions):
        return "stay" if "stay" in actions else None

    @arena.hookimpl
    def register_rulesets(register):
        register(TinyFlip7)

    @arena.hookimpl
    def register_playouts(register):
        register("tiny-flip-7", StayBot, fast_move=stay_move)
"""


def test_a_plugin_registers_a_playout_policy_that_ismcts_searches_with(plugin_dir):
    from arena_bots.flip7_threshold import Flip7ThresholdBot
    from arena_bots.ismcts import hints_from

    write_plugin(plugin_dir, "tiny-playouts", "tiny_playouts", PLAYOUT_PLUGIN)
    registry = load_registry()
    entry = registry.playouts["tiny-flip-7"]
    assert entry.bot.__name__ == "StayBot" and entry.origin.package == "tiny-playouts"
    assert registry.playouts["flip-7"].bot is Flip7ThresholdBot   # the built-ins come the same way
    hints = hints_from({}, entry, registry.rulesets["tiny-flip-7"].cls.evaluate)
    assert hints.playout_bot is entry.bot and hints.fast_move is entry.fast_move


def test_two_playouts_for_one_ruleset_are_an_error_naming_both_packages(plugin_dir):
    source = PLAYOUT_PLUGIN.replace('register("tiny-flip-7", StayBot', 'register("flip-7", StayBot')
    source = source.replace("register(TinyFlip7)", "pass")
    write_plugin(plugin_dir, "rival-playouts", "rival_playouts", source)
    with pytest.raises(PluginError, match=r"playout of ruleset 'flip-7' is registered twice: by flip-arena .* "
                                          r"and by rival-playouts"):
        load_registry()


def test_a_playout_that_is_not_a_bot_is_a_plugin_error(plugin_dir):
    source = """
        import arena

        @arena.hookimpl
        def register_playouts(register):
            register("flip-7", object)
    """
    write_plugin(plugin_dir, "odd-playouts", "odd_playouts", source)
    with pytest.raises(PluginError, match="playout of 'flip-7' is .* not an arena.Bot subclass"):
        load_registry()


def test_plugin_registering_a_ruleset_shows_in_rulesets_list(plugin_dir):
    write_plugin(plugin_dir, "tiny-rules", "tiny_rules", flip7_copy_plugin("TinyFlip7", "tiny-flip-7"))
    result = CliRunner().invoke(main, ["rulesets", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows["tiny-flip-7"]["package"] == "tiny-rules"
    assert rows["flip-7"]["options"]["target_score"]["default"] == 200


COMMAND_PLUGIN = """
    import click

    import arena

    @arena.hookimpl
    def register_commands(cli):
        @cli.command()
        @click.argument("name")
        @click.option("--times", type=int, default=1)
        def greet(name, times):
            \"\"\"Greet NAME (a plugin's verb).\"\"\"
            for _ in range(times):
                click.echo(f"hello {name}")

        @cli.command("run")
        def run_again():
            \"\"\"Tries to replace a built-in verb.\"\"\"
            click.echo("hijacked")
"""


def test_an_installed_plugin_adds_a_command_and_cannot_replace_a_built_in_one(plugin_dir):
    write_plugin(plugin_dir, "greeting-commands", "greeting_commands", COMMAND_PLUGIN)
    result = CliRunner().invoke(main, ["greet", "world", "--times", "2"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "hello world\nhello world\n"
    assert "'run' is already taken" in result.stderr

    listed = CliRunner().invoke(main, ["--help"])
    assert listed.exit_code == 0 and "greet" in listed.stdout and "Greet NAME" in listed.stdout

    hijack = CliRunner().invoke(main, ["run", "--help"])  # the built-in verb, without asking the plugins
    assert hijack.exit_code == 0 and "Play a tournament FILE" in hijack.stdout and "hijacked" not in hijack.output


def test_plugin_commands_are_asked_once_per_invocation_and_not_kept(plugin_dir):
    write_plugin(plugin_dir, "greeting-commands", "greeting_commands", COMMAND_PLUGIN)
    assert CliRunner().invoke(main, ["greet", "x"]).exit_code == 0
    assert "greet" not in main.commands  # the group itself is unchanged: the next invocation asks again


def test_a_command_hook_that_raises_is_a_warning_and_other_verbs_still_work(plugin_dir):
    source = """
        import arena

        @arena.hookimpl
        def register_commands(cli):
            raise RuntimeError("no verbs today")
    """
    write_plugin(plugin_dir, "grumpy-commands", "grumpy_commands", source)
    result = CliRunner().invoke(main, ["nonesuch"])
    assert result.exit_code == 2 and "No such command 'nonesuch'" in result.stderr
    assert "register_commands raised RuntimeError: no verbs today" in result.stderr
    assert CliRunner().invoke(main, ["bots", "list", "--json"]).exit_code == 0


def test_a_plugin_command_runs_from_the_arena_console_script(plugin_dir):
    write_plugin(plugin_dir, "greeting-commands", "greeting_commands", COMMAND_PLUGIN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin_dir),
                                                                      os.environ.get("PYTHONPATH")]))}
    arena_script = Path(sys.executable).with_name("arena")
    command = [str(arena_script)] if arena_script.exists() else [sys.executable, "-m", "arena"]
    done = subprocess.run([*command, "greet", "console"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello console\n"


RUN_PLUGIN = """
    import arena

    class Idle:
        name = "idle"

        def __init__(self, context):
            self.context = context

        def look(self, state):
            return ()

        def next(self, state, room):
            return arena.scheduling.DONE

    class Quiet:
        def __init__(self, tournament, out):
            self.out = out

    @arena.hookimpl
    def register_schedulers(register):
        register("idle", Idle)

    @arena.hookimpl
    def register_run_observers(register):
        register(Quiet)
"""


def test_an_installed_plugin_registers_a_scheduler_and_a_run_observer_with_its_origin(plugin_dir):
    import arena.scheduling  # noqa: F401 (the plugin's source names it)

    write_plugin(plugin_dir, "run-extras", "run_extras", RUN_PLUGIN)
    registry = load_registry()
    entry = registry.schedulers["idle"]
    assert entry.name == "idle" and entry.origin.package == "run-extras" and entry.factory.__name__ == "Idle"
    observers = [o for o in registry.observers if o.origin.package == "run-extras"]
    assert [o.factory.__name__ for o in observers] == ["Quiet"]


def test_two_schedulers_of_one_name_are_an_error_naming_both_packages(plugin_dir):
    write_plugin(plugin_dir, "run-extras", "run_extras", RUN_PLUGIN)
    write_plugin(plugin_dir, "run-rivals", "run_rivals", RUN_PLUGIN)
    with pytest.raises(PluginError, match="scheduler name 'idle' is registered twice: by run-extras .* and by "
                                          "run-rivals"):
        load_registry()


def test_loading_named_distributions_skips_the_plugins_of_every_other(plugin_dir):
    write_plugin(plugin_dir, "Throwaway_Bots", "throwaway_bots", THROWAWAY)
    write_plugin(plugin_dir, "never-loaded", "never_loaded_plugin", "raise RuntimeError('imported after all')\n")
    registry = load_registry(distributions=["throwaway-bots"])  # names compare as packaging does
    assert list(registry.bots) == ["echo-first"] and registry.rulesets == {} and registry.broken == []
    assert "never_loaded_plugin" not in sys.modules
    both = load_registry(distributions=["flip-arena", "throwaway.bots"])
    assert {"echo-first", "random"} <= set(both.bots) and "flip-7" in both.rulesets


def test_restrict_scopes_every_registry_the_process_loads_until_lifted(plugin_dir):
    from arena.plugins import restrict

    write_plugin(plugin_dir, "throwaway-bots", "throwaway_bots", THROWAWAY)
    restrict(["throwaway-bots"])
    try:
        assert list(load_registry().bots) == ["echo-first"]
        assert "random" in load_registry(distributions=["flip-arena"]).bots  # an explicit list wins
    finally:
        restrict(None)
    assert {"echo-first", "random"} <= set(load_registry().bots)


def test_a_sandbox_needs_the_bots_rulesets_and_helpers_distributions_only(plugin_dir):
    helper = """
        import arena
        from arena_bots.random_bot import RandomBot

        @arena.hookimpl
        def register_playouts(register):
            register("flip-7-copy", RandomBot)
    """
    write_plugin(plugin_dir, "copy-rules", "copy_rules", flip7_copy_plugin("Flip7Copy", "flip-7-copy"))
    write_plugin(plugin_dir, "copy-helpers", "copy_helpers", helper)
    write_plugin(plugin_dir, "throwaway-bots", "throwaway_bots", THROWAWAY)
    registry = load_registry()
    assert registry.sandbox_distributions("throwaway-bots", ["flip-7"]) == ("flip-arena", "throwaway-bots")
    assert registry.sandbox_distributions("throwaway-bots", ["flip-7-copy"]) == (
        "copy-helpers", "copy-rules", "throwaway-bots")
    assert registry.sandbox_distributions(None, ["flip-7-copy", "not-installed"]) == ("copy-helpers", "copy-rules")
