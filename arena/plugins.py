"""Finding bots and rulesets: pluggy hooks over the `arena` entry-point group.

A plugin is a module, named by an entry point in the group ``arena``, with
functions marked ``@arena.hookimpl`` (the hooks are specified in `arena.hookspecs`):

- ``register_bots(register)``: call ``register(BotSubclass)`` for each bot;
- ``register_rulesets(register)``: call ``register(RulesetSubclass)`` for each ruleset;
- ``register_playouts(register)``: call ``register(ruleset_id, BotSubclass, fast_move=None)``
  for each ruleset the plugin has a search playout policy for (`Registry.playouts`);
- ``register_schedulers(register)``: call ``register(name, factory)`` for each scheduler (`Registry.schedulers`);
- ``register_run_observers(register)``: call ``register(factory)`` for each observer of runs (`Registry.observers`);
- ``register_commands(cli)``: add commands to the ``arena`` command line (`arena.cli`).

Built-in bots and rulesets register through the very same entry points. Nothing
is loaded at import time: `load_registry()` builds the plugin manager on demand.
It may load only the plugins of named distributions (`distributions`, or for the
whole process `restrict`): a bot's sandbox loads those its bot and its rulesets need
(`Registry.sandbox_distributions`), not every installed plugin.
"""

from __future__ import annotations

import importlib.metadata
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import pluggy

from arena.bot import BOT_NAME, Bot
from arena.errors import PlayerCountError, PluginError, UnknownNameError
from arena.hookspecs import PROJECT, HookSpecs, hookimpl, hookspec  # noqa: F401 (their old home)
from arena.rules.base import Ruleset

ENTRY_POINT_GROUP = "arena"

_scope: frozenset[str] | None = None
"""The distributions (canonical names) this process loads plugins of; None: every one."""


def canonical(distribution: str) -> str:
    """A distribution's name as packaging compares them (PEP 503): "Flip_Arena" -> "flip-arena"."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def restrict(distributions: Iterable[str] | None) -> None:
    """From now on, load the plugins of these distributions only in this process (every
    `load_registry` without `distributions` of its own, `arena.rulesets` included); None:
    every installed plugin again. A bot's sandbox (`arena.sandbox.zygote`) calls it first."""
    global _scope
    _scope = None if distributions is None else frozenset(canonical(d) for d in distributions)


def entry_points_of(distributions: Iterable[str] | None = None) -> list[importlib.metadata.EntryPoint]:
    """The `arena` entry points of `distributions` (default: `restrict`'s, else all), in
    the order plugins are loaded (by distribution, then entry point name)."""
    wanted = _scope if distributions is None else frozenset(canonical(d) for d in distributions)
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    kept = [ep for ep in found if wanted is None or canonical(ep.dist.name if ep.dist else "") in wanted]
    return sorted(kept, key=lambda ep: (ep.dist.name if ep.dist else "", ep.name))


@dataclass(frozen=True)
class Origin:
    """Where a registration came from: the plugin and its distribution."""

    plugin: str
    package: str
    version: str


@dataclass(frozen=True)
class BotEntry:
    cls: type[Bot]
    origin: Origin

    @property
    def name(self) -> str:
        return self.cls.name


@dataclass(frozen=True)
class RulesetEntry:
    cls: type[Ruleset]
    origin: Origin

    @property
    def id(self) -> str:
        return self.cls.id


@dataclass(frozen=True)
class PlayoutEntry:
    """A ruleset's playout policy for search bots (`HookSpecs.register_playouts`)."""

    ruleset_id: str
    bot: type[Bot]
    fast_move: Callable[[Any, Any, int, list[str]], str | None] | None
    origin: Origin


@dataclass(frozen=True)
class PluginEntry:
    """A scheduler or run observer a plugin registered: its factory (and name, for a scheduler)."""

    name: str
    factory: Callable[..., Any]
    origin: Origin


@dataclass(frozen=True)
class BrokenPlugin:
    """A plugin that could not be loaded or whose hook raised."""

    plugin: str
    package: str
    version: str
    error: str


@dataclass
class Registry:
    """Every bot and ruleset the installed plugins provide, sorted by name."""

    bots: dict[str, BotEntry] = field(default_factory=dict)
    rulesets: dict[str, RulesetEntry] = field(default_factory=dict)
    broken: list[BrokenPlugin] = field(default_factory=list)
    playouts: dict[str, PlayoutEntry] = field(default_factory=dict)
    """Search bots' playout policies by ruleset id (`HookSpecs.register_playouts`)."""
    schedulers: dict[str, PluginEntry] = field(default_factory=dict)
    """Plugins' schedulers by name: factories (`HookSpecs.register_schedulers`)."""
    observers: list[PluginEntry] = field(default_factory=list)
    """Plugins' run observers: factories (`HookSpecs.register_run_observers`)."""

    def bot(self, name: str) -> BotEntry:
        """The bot registered as `name`; UnknownNameError if there is none."""
        try:
            return self.bots[name]
        except KeyError:
            raise UnknownNameError(f"unknown bot {name!r} (known: {', '.join(self.bots) or 'none'})") from None

    def ruleset(self, ruleset_id: str) -> RulesetEntry:
        """The ruleset registered as `ruleset_id`; UnknownNameError if there is none."""
        try:
            return self.rulesets[ruleset_id]
        except KeyError:
            known = ", ".join(self.rulesets) or "none"
            raise UnknownNameError(f"unknown ruleset {ruleset_id!r} (known: {known})") from None

    def check_seating(self, ruleset_id: str, bot_names: Iterable[str]) -> type[Ruleset]:
        """Check that these bots may play `ruleset_id` together; return the ruleset."""
        ruleset = self.ruleset(ruleset_id).cls
        names = list(bot_names)
        ruleset.check_players(len(names))
        for name in names:
            if not self.bot(name).cls.plays(ruleset_id):
                raise PlayerCountError(f"bot {name!r} does not play {ruleset_id}")
        return ruleset

    def sandbox_distributions(self, bot_package: str | None, ruleset_ids: Iterable[str]) -> tuple[str, ...]:
        """What a bot's sandbox loads plugins of (sorted): `bot_package`, the distribution
        that provides the bot (None: a bot from a file, which brings its folder instead),
        and for each ruleset of `ruleset_ids` it plays, the distribution providing the
        ruleset and those of the plugins that register helpers for it (its playouts).
        Ruleset ids this registry does not know add nothing."""
        needed = {bot_package} if bot_package else set()
        for ruleset_id in ruleset_ids:
            for entry in (self.rulesets.get(ruleset_id), self.playouts.get(ruleset_id)):
                if entry is not None:
                    needed.add(entry.origin.package)
        return tuple(sorted(needed))


def build_plugin_manager(extra_plugins: Iterable[tuple[str, Any]] = (), entry_points: bool = True,
                         distributions: Iterable[str] | None = None,
                         ) -> tuple[pluggy.PluginManager, dict[str, Origin], list[BrokenPlugin]]:
    """A plugin manager with the `arena` entry points of `distributions` loaded (default:
    `restrict`'s, else every one; a plugin that fails to import becomes a warning and a
    BrokenPlugin; the others still load), plus `extra_plugins` as (name, module-or-object) pairs."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(HookSpecs)
    origins: dict[str, Origin] = {}
    broken: list[BrokenPlugin] = []
    for entry_point in entry_points_of(distributions) if entry_points else []:
        package = entry_point.dist.name if entry_point.dist else "?"
        version = entry_point.dist.version if entry_point.dist else "?"
        plugin_name = f"{package}:{entry_point.name}"
        if plugin_name in origins:
            continue  # the same distribution seen twice on sys.path
        try:
            module = entry_point.load()
            if manager.is_registered(module):  # two distributions ship a module of the same name
                raise _ModuleClash(_clash_message(manager.get_name(module), package, module))
            manager.register(module, name=plugin_name)
        except Exception as exc:  # a broken plugin must not stop the others
            clash = isinstance(exc, _ModuleClash)
            message = str(exc) if clash else f"{type(exc).__name__}: {exc}"
            warnings.warn(f"arena plugins: {message}" if clash else
                          f"arena plugin {plugin_name} ({entry_point.value}) failed to load: {message}", stacklevel=2)
            broken.append(BrokenPlugin(plugin_name, package, version, message))
            continue
        origins[plugin_name] = Origin(plugin_name, package, version)
    for name, plugin in extra_plugins:
        manager.register(plugin, name=name)
        origins[name] = Origin(name, getattr(plugin, "__package__", None) or name, "0")
    return manager, origins, broken


class _ModuleClash(Exception):
    """Two distributions' entry points load the same module (the same import name)."""


def _clash_message(first_plugin: str | None, package: str, module: Any) -> str:
    first = (first_plugin or "?").split(":", 1)[0]
    name = getattr(module, "__name__", repr(module))
    return (f"{first} and {package} both provide the module {name!r}; only {first}'s is loaded "
            f"(rename one package's module)")


def load_registry(extra_plugins: Iterable[tuple[str, Any]] = (), entry_points: bool = True,
                  distributions: Iterable[str] | None = None) -> Registry:
    """Load the plugins of `distributions` (default: `restrict`'s, else every installed
    plugin) and collect what they register.

    Raises PluginError when two plugins register the same bot or ruleset name
    (the message names both packages) or when a registration breaks the contract.
    """
    manager, origins, broken = build_plugin_manager(extra_plugins, entry_points, distributions)
    registry = Registry(broken=list(broken))
    bots: dict[str, BotEntry] = {}
    rulesets: dict[str, RulesetEntry] = {}

    def registrar(origin: Origin, kind: str) -> Callable[[Any], None]:
        def register(cls: Any) -> None:
            if kind == "bot":
                _check_bot_class(cls, origin)
                _add(bots, cls.name, BotEntry(cls, origin), "bot")
            else:
                _check_ruleset_class(cls, origin)
                _add(rulesets, cls.id, RulesetEntry(cls, origin), "ruleset")
        return register

    # Each hook implementation is called with a `register` bound to its own plugin,
    # so every registration knows the package it came from.
    for hook_name, kind in (("register_rulesets", "ruleset"), ("register_bots", "bot")):
        for impl in getattr(manager.hook, hook_name).get_hookimpls():
            origin = origins[impl.plugin_name]
            try:
                impl.function(register=registrar(origin, kind))
            except PluginError:
                raise
            except Exception as exc:
                message = f"{hook_name} raised {type(exc).__name__}: {exc}"
                warnings.warn(f"arena plugin {origin.plugin}: {message}", stacklevel=2)
                registry.broken.append(BrokenPlugin(origin.plugin, origin.package, origin.version, message))
    registry.bots = dict(sorted(bots.items()))
    registry.rulesets = dict(sorted(rulesets.items()))
    registry.playouts = _playouts(manager, origins, registry.broken)
    registry.schedulers, registry.observers = _run_plugins(manager, origins)
    return registry


def _run_plugins(manager: pluggy.PluginManager,
                 origins: dict[str, Origin]) -> tuple[dict[str, PluginEntry], list[PluginEntry]]:
    """Every plugin's `register_schedulers` (by name) and `register_run_observers`."""
    schedulers: dict[str, PluginEntry] = {}
    observers: list[PluginEntry] = []
    for impl in manager.hook.register_schedulers.get_hookimpls():
        origin = origins[impl.plugin_name]

        def scheduler(name: str, factory: Any, origin: Origin = origin) -> None:
            # Imported here: loading a registry no scheduler is registered in (a sandbox's)
            # does not import the scheduling (a tenth of a second).
            from arena.scheduling.tournament import BUILTIN_SCHEDULERS

            if not isinstance(name, str) or not callable(factory):
                raise PluginError(f"plugin {origin.plugin}: a scheduler is registered as (name, factory), "
                                  f"not ({name!r}, {factory!r})")
            if name in BUILTIN_SCHEDULERS:
                raise PluginError(f"plugin {origin.plugin}: scheduler name {name!r} is a built-in one")
            _add(schedulers, name, PluginEntry(name, factory, origin), "scheduler")

        impl.function(register=scheduler)
    for impl in manager.hook.register_run_observers.get_hookimpls():
        origin = origins[impl.plugin_name]
        impl.function(register=lambda factory, origin=origin: observers.append(PluginEntry("", factory, origin)))
    return dict(sorted(schedulers.items())), observers


def _playouts(manager: pluggy.PluginManager, origins: dict[str, Origin],
              broken: list[BrokenPlugin]) -> dict[str, PlayoutEntry]:
    """Every plugin's `register_playouts`, by ruleset id (a raising hook is a broken plugin)."""
    playouts: dict[str, PlayoutEntry] = {}
    for impl in manager.hook.register_playouts.get_hookimpls():
        origin = origins[impl.plugin_name]

        def register(ruleset_id: str, bot_class: type[Bot], fast_move: Any = None, origin: Origin = origin) -> None:
            if not isinstance(ruleset_id, str):
                raise PluginError(f"plugin {origin.plugin}: a playout's ruleset id must be a string, "
                                  f"not {ruleset_id!r}")
            if not (isinstance(bot_class, type) and issubclass(bot_class, Bot)):
                raise PluginError(f"plugin {origin.plugin}: the playout of {ruleset_id!r} is {bot_class!r}, "
                                  "not an arena.Bot subclass")
            if fast_move is not None and not callable(fast_move):
                raise PluginError(f"plugin {origin.plugin}: the fast move of {ruleset_id!r} is not callable")
            if ruleset_id in playouts:
                first = playouts[ruleset_id].origin
                raise PluginError(f"the playout of ruleset {ruleset_id!r} is registered twice: by {first.package} "
                                  f"({first.plugin}) and by {origin.package} ({origin.plugin})")
            playouts[ruleset_id] = PlayoutEntry(ruleset_id, bot_class, fast_move, origin)

        try:
            impl.function(register=register)
        except PluginError:
            raise
        except Exception as exc:
            message = f"register_playouts raised {type(exc).__name__}: {exc}"
            warnings.warn(f"arena plugin {origin.plugin}: {message}", stacklevel=3)
            broken.append(BrokenPlugin(origin.plugin, origin.package, origin.version, message))
    return dict(sorted(playouts.items()))


def _add(table: dict[str, Any], name: str, entry: Any, kind: str) -> None:
    if name in table:
        first = table[name].origin
        raise PluginError(
            f"{kind} name {name!r} is registered twice: by {first.package} ({first.plugin}) "
            f"and by {entry.origin.package} ({entry.origin.plugin})")
    table[name] = entry


def _check_bot_class(cls: Any, origin: Origin) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise PluginError(f"plugin {origin.plugin} registered {cls!r}, which is not an arena.Bot subclass")
    if not isinstance(cls.name, str) or not BOT_NAME.match(cls.name):
        raise PluginError(f"plugin {origin.plugin}: bot class {cls.__name__} has name {cls.name!r}; "
                          "a bot name is lowercase letters, digits and dashes")
    if cls.rulesets != "*" and not (isinstance(cls.rulesets, tuple) and all(isinstance(r, str) for r in cls.rulesets)):
        raise PluginError(f"plugin {origin.plugin}: bot {cls.name!r} has rulesets {cls.rulesets!r}; "
                          'use a tuple of ruleset ids or "*"')


def _check_ruleset_class(cls: Any, origin: Origin) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Ruleset)):
        raise PluginError(f"plugin {origin.plugin} registered {cls!r}, which is not an arena Ruleset subclass")
    for attribute in ("id", "version", "min_players", "max_players"):
        if not hasattr(cls, attribute):
            raise PluginError(f"plugin {origin.plugin}: ruleset {cls.__name__} lacks {attribute!r}")
