"""What a bot's sandbox imports (issue 33 item 5): `arena`, the distribution of its bot,
those of the rulesets it plays and of their helpers (`Registry.sandbox_distributions`),
not every installed plugin; a check failure caused by a plugin's import names its
distribution."""

from __future__ import annotations

import pytest

from arena.faults import BotFault
from arena.plugins import load_registry
from arena.sandbox import SandboxHost, sandbox_unavailable
from arena.seats import Limits
from conftest import flip7_copy_plugin, write_plugin

REASON = sandbox_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no sandbox can be made here: {REASON}")

LIMITS = Limits(time_per_decision=2.0, time_bank=2.0, memory_mb=400, time_for_start=30)
INFO = {"ruleset": "flip-7-copy", "version": "1", "options": {}, "seat": 0, "players": 2, "bots": ["a", "b"]}
OUTCOME = {"standing": [1, 2], "scores": [1, 0], "reason": "test"}

SPY = """
    import sys

    import arena

    class ModuleSpy(arena.Bot):
        '''Answers every decision with the fixture plugins' modules imported in its process.'''

        name = "module-spy"
        rulesets = ("flip-7-copy",)

        def act(self, observation):
            return ",".join(sorted(m for m in sys.modules if m.startswith("fixture_")))

    @arena.hookimpl
    def register_bots(register):
        register(ModuleSpy)
"""
RULES = flip7_copy_plugin("Flip7Copy", "flip-7-copy")
HELPER = """
    import arena
    from arena_bots.random_bot import RandomBot

    @arena.hookimpl
    def register_playouts(register):
        register("flip-7-copy", RandomBot)
"""
UNNEEDED = """
    import os
    import sys
    import threading
    import time

    import arena

    class Other(arena.Bot):
        name = "other-bot"

    if sys.argv[0].endswith(os.path.join("sandbox", "zygote.py")):  # in a zygote: unfit to fork
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()

    @arena.hookimpl
    def register_bots(register):
        register(Other)
"""


@pytest.fixture
def plugins(plugin_dir):
    """The spy bot, the ruleset it plays and that ruleset's helper (each its own
    distribution), and an installed plugin none of them needs, whose import makes a
    zygote unfit to fork."""
    plugin_dir.chmod(0o755)  # the sandbox's own uid reads it
    for dist, module, source in (("fixture-spy", "fixture_spy", SPY), ("fixture-rules", "fixture_rules", RULES),
                                 ("fixture-helper", "fixture_helper", HELPER),
                                 ("fixture-unneeded", "fixture_unneeded", UNNEEDED)):
        write_plugin(plugin_dir, dist, module, source)
    return load_registry()


def test_a_sandbox_imports_its_bots_rulesets_and_helpers_plugins_and_no_other(plugins):
    needed = plugins.sandbox_distributions("fixture-spy", ["flip-7-copy"])
    assert needed == ("fixture-helper", "fixture-rules", "fixture-spy")
    host = SandboxHost.for_bot("module-spy", LIMITS, distributions=needed)
    try:
        host.start_game(1, {}, INFO)
        imported = host.act({"legal_actions": ["stay"]}, 5.0)
        host.end_game(OUTCOME)
    finally:
        host.close()
    assert imported == "fixture_helper,fixture_rules,fixture_spy"


def test_with_every_plugin_loaded_the_unneeded_ones_import_is_refused_naming_its_distribution(plugins):
    host = SandboxHost.for_bot("module-spy", LIMITS)  # no distributions named: every installed plugin
    try:
        with pytest.raises(BotFault, match=r"sandbox check failed: 2 threads are running .*"
                                           r"after importing the distribution 'fixture-unneeded'"):
            host.start_game(1, {}, INFO)
    finally:
        host.close()


def test_a_needed_plugin_whose_import_unfits_the_zygote_is_named(plugins):
    needed = plugins.sandbox_distributions("fixture-spy", ["flip-7-copy"]) + ("fixture-unneeded",)
    host = SandboxHost.for_bot("module-spy", LIMITS, distributions=needed)
    try:
        with pytest.raises(BotFault, match="after importing the distribution 'fixture-unneeded'"):
            host.start_game(1, {}, INFO)
    finally:
        host.close()


def test_a_tournaments_host_pool_names_each_entrants_distributions_to_its_sandbox(plugins):
    import arena.rulesets
    from arena.match import Entrant
    from arena.worker import HostPool, Job

    flip7, copy = plugins.ruleset("flip-7").cls, plugins.ruleset("flip-7-copy").cls
    entrants = (Entrant(plugins.bot("module-spy").cls), Entrant(plugins.bot("random").cls))
    arena.rulesets.registry.cache_clear()  # this process's registry, with the fixture plugins
    pool = HostPool(Job(((flip7, {}), (copy, {})), entrants, isolation="sandbox", limits=LIMITS))
    try:
        spy, random_bot = pool.host(0), pool.host(1)
        assert spy.spec.argv[-4:] == ("--plugins-of", "fixture-helper", "fixture-rules", "fixture-spy")
        assert random_bot.spec.argv[-4:] == ("--plugins-of", "fixture-helper", "fixture-rules", "flip-arena")
    finally:
        pool.close()
        arena.rulesets.registry.cache_clear()
