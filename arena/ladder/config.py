"""A ladder's configuration: a TOML file like a tournament's, or embedded defaults.

`load_config(path)` reads and checks it; every problem is a `LadderConfigError` whose
one line names the file and the key (``ladder.toml: quotas.upload_bytes: must be an
integer, not 'big'``). docs/ladder.md documents every key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

import msgspec

from arena.errors import ConfigError

MAX_UPLOAD_BYTES = 256 << 20


class LadderConfigError(ConfigError):
    """A ladder file that cannot be used; one line naming the file and the key."""


class _Table(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    pass


class LadderSection(_Table, frozen=True):
    """``[ladder]``: the ladder's name, seed and play settings."""

    name: str = "ladder"
    seed: int = 1
    signup: Literal["invite", "open"] = "invite"
    lease_seconds: float = 300.0
    """How long a worker holds a batch without a heartbeat before it is re-issued."""
    heartbeat_seconds: float = 30.0
    """How often a worker tells the server it is still playing its batch."""
    batch_games: int = 4
    """Games per batch a worker pulls."""
    deals_per_table: int = 20
    """Deals round-robin plays at each table of current versions (each in every rotation)."""
    scheduler: Literal["information", "round-robin"] = "information"
    """What chooses the games: arena.ladder.information (default) or the first, round-robin one."""
    confidence: float = 0.95
    """1 - the error rate spent over versions entered on the standings' settled marks."""
    margin: float = 0.05
    """Paired scores within 1/2 +- margin are shown equal."""
    seed_games: int = 30
    """A new version's first games, played in series (information scheduler)."""
    pair_cap: int = 2000
    """Games one pair may play (information scheduler; top-ten meetings aside)."""
    refit_every: int = 50
    """Stored games between refits of the published order (fewer while few are stored)."""
    time_per_decision: float | None = 5.0
    on_fault: Literal["forfeit", "replace"] = "forfeit"


class QuotaSection(_Table, frozen=True):
    """``[quotas]``: what one author may upload."""

    uploads_per_day: int = 20
    upload_bytes: int = 8 << 20
    bots_per_author: int = 5


class RulesetEntry(_Table, frozen=True):
    """``[[rulesets]]``: a ruleset the ladder plays, at tables of `players`."""

    id: str
    players: int = 2
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    label: str = ""

    @property
    def name(self) -> str:
        """The ruleset's label in game identities and standings (its id unless given)."""
        return self.label or self.id


class LadderConfig(_Table, frozen=True):
    ladder: LadderSection = LadderSection()
    quotas: QuotaSection = QuotaSection()
    rulesets: list[RulesetEntry] = msgspec.field(default_factory=lambda: [RulesetEntry("flip-7")])

    def ruleset(self, name: str) -> RulesetEntry:
        return next(r for r in self.rulesets if r.name == name)


_NAMES = {"int": "an integer", "str": "a string", "float": "a number", "object": "a table", "array": "a list",
          "bool": "true or false", "float | null": "a number"}


def _where(message: str) -> tuple[str, str]:
    """msgspec's ``"Expected `int`, got `str` - at `$.quotas.upload_bytes`"`` as (key path, problem)."""
    text, _, at = message.partition(" - at `$")
    path = at.rstrip("`").lstrip(".")
    if text.startswith(("Object missing required field `", "Object contains unknown field `")):
        key = text.split("`")[1]
        path = f"{path}.{key}" if path else key
        return path, "missing" if text.startswith("Object missing") else "unknown key"
    if text.startswith("Expected `"):
        kind = text.split("`")[1]
        return path, f"must be {_NAMES.get(kind, kind)}"
    if text.startswith("Invalid enum value"):
        choices = _CHOICES.get(path.rpartition(".")[2], ())
        return path, f"must be one of {', '.join(map(repr, choices))}, not {text.split(' ', 3)[3]}"
    return path, text


_CHOICES = {"signup": ("invite", "open"), "on_fault": ("forfeit", "replace"),
            "scheduler": ("information", "round-robin")}


def decode_config(doc: dict[str, Any], source: str = "<config>") -> LadderConfig:
    """The parsed TOML `doc` as a checked `LadderConfig`; LadderConfigError naming `source` and the key."""
    try:
        config = msgspec.convert(doc, LadderConfig)
    except msgspec.ValidationError as exc:
        path, problem = _where(str(exc))
        raise LadderConfigError(f"{source}: {path}: {problem}") from None
    if bounds := _bounds_problem(config):
        raise LadderConfigError(f"{source}: {bounds}")
    return config


def _bounds_problem(config: LadderConfig) -> str | None:
    """What the keys' types allow but the ladder cannot use (None: nothing)."""
    from arena.plugins import load_registry

    ladder, quotas = config.ladder, config.quotas
    checks = [("ladder.lease_seconds", ladder.lease_seconds >= 5, "must be at least 5"),
              ("ladder.heartbeat_seconds", 0 < ladder.heartbeat_seconds <= ladder.lease_seconds / 2,
               "must be positive and at most half of ladder.lease_seconds"),
              ("ladder.batch_games", 1 <= ladder.batch_games <= 1000, "must be 1-1000"),
              ("ladder.deals_per_table", 1 <= ladder.deals_per_table <= 100_000, "must be 1-100000"),
              ("ladder.confidence", 0.5 <= ladder.confidence < 1, "must be at least 0.5 and below 1"),
              ("ladder.margin", 0 <= ladder.margin < 0.5, "must be at least 0 and below 0.5"),
              ("ladder.seed_games", 0 <= ladder.seed_games <= 10_000, "must be 0-10000"),
              ("ladder.pair_cap", ladder.pair_cap >= 1, "must be at least 1"),
              ("ladder.refit_every", 1 <= ladder.refit_every <= 100_000, "must be 1-100000"),
              ("quotas.uploads_per_day", quotas.uploads_per_day >= 1, "must be at least 1"),
              ("quotas.upload_bytes", 1024 <= quotas.upload_bytes <= MAX_UPLOAD_BYTES,
               f"must be 1024-{MAX_UPLOAD_BYTES}"),
              ("quotas.bots_per_author", quotas.bots_per_author >= 1, "must be at least 1"),
              ("rulesets", len(config.rulesets) >= 1, "must name at least one ruleset")]
    for key, ok, problem in checks:
        if not ok:
            return f"{key}: {problem}"
    registry = load_registry()
    names = [r.name for r in config.rulesets]
    for i, entry in enumerate(config.rulesets):
        if entry.id not in registry.rulesets:
            installed = ", ".join(sorted(registry.rulesets))
            return f"rulesets[{i}].id: no installed ruleset {entry.id!r} (installed: {installed})"
        if names.count(entry.name) > 1:
            return f"rulesets[{i}]: the label {entry.name!r} is used twice (give each a label)"
        cls = registry.rulesets[entry.id].cls
        try:
            cls.check_players(entry.players)
            cls.resolve_options(entry.options)
        except ConfigError as exc:
            return f"rulesets[{i}]: {exc}"
    return None


def load_config(path: Path | None) -> LadderConfig:
    """The ladder file at `path` (None: the embedded defaults, Flip 7 at tables of two)."""
    if path is None:
        return decode_config({}, "<defaults>")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LadderConfigError(f"{path}: cannot read it ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LadderConfigError(f"{path}: not TOML ({exc})") from None
    return decode_config(doc, str(path))
