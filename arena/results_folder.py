"""A results folder: its lock, its store (opened, created or extended, with the checks
that the file and the installed bots still match it), the plan the store keeps and the
seed commitment the provenance publishes.

Split out of arena.runner (issue 37 item 4): the runner's loop gets an open, locked
store from a `ResultsFolder` and knows nothing of how it was made.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import msgspec

import arena
from arena.errors import ConfigError
from arena.pairwise import BETTING
from arena.records import Plan, PlanEntry, PlanRuleset, PlanStop
from arena.seeding import seed_commitment
from arena.store import Store, StoreError, store_path
from arena.tournament import SEED_DERIVATION, Tournament


class ResultsFolder:
    """A results folder, locked while open (`with ResultsFolder(out) as folder:`): one
    `arena run` at a time per folder."""

    def __init__(self, out: str | Path):
        self.out = Path(out)
        self._handle: Any = None

    def __enter__(self) -> "ResultsFolder":
        self._handle = _lock(self.out)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._handle.close()  # releases the lock; the file stays (see _lock)
        self._handle = None

    def open_store(self, tournament: Tournament, restart: bool, echo: Callable[[str], None]) -> tuple[Store, str | None]:
        """The folder's store for `tournament` (see `open_store`)."""
        return open_store(tournament, self.out, restart, echo)


def make_plan(tournament: Tournament, seed: int) -> dict[str, Any]:
    """What the store keeps about the tournament: enough to rate and publish without plugins."""
    counts = tournament.schedule(seed).counts
    total = sum(counts)
    memo: dict[Any, str | None] = {}
    stop = tournament.stop
    plan = Plan(
        name=tournament.name,
        format=tournament.format,
        seed_derivation=SEED_DERIVATION,
        challengers=list(tournament.challengers),
        stop=None if stop is None else PlanStop(kind=stop.kind, confidence=stop.confidence, margin=stop.margin,
                                                bot=stop.bot, baseline=stop.baseline, alpha=stop.alpha,
                                                beta=stop.beta),
        look_every=tournament.look_every if stop is not None else None,
        intervals=BETTING,
        luck=tournament.luck_plan(),
        deals=tournament.deals,
        max_games=tournament.max_games,
        total_games=total,
        max_faults=tournament.max_faults,
        entries=[PlanEntry(bot=b.display, uses=b.uses, package=b.package, version=b.version, params=b.params,
                           files_sha256=_files_sha256(b, memo)) for b in tournament.bots],
        rulesets=[PlanRuleset(label=r.label, id=r.id, version=r.version, package=r.package,
                              package_version=r.package_version, players=r.players, options=r.options,
                              draw_probability=r.draw_probability, entries=list(r.entries), games=games)
                  for r, games in zip(tournament.rulesets, counts)],
    )
    return msgspec.to_builtins(plan)


def _files_sha256(bot: Any, memo: dict[Any, str | None]) -> str | None:
    """An entry's `bot_files_sha256`, once per class (a command bot's version already hashes its files)."""
    if bot.command is not None:
        return bot.version
    if getattr(bot, "submission", None) is not None:  # its content hash names its files
        return "sha256:" + bot.submission.sha256
    if (bot.cls, bot.package) not in memo:
        memo[bot.cls, bot.package] = bot_files_sha256(bot.cls, bot.package)
    return memo[bot.cls, bot.package]


def bot_files_sha256(cls: type, package: str) -> str | None:
    """SHA-256 over the files a bot is made of, so that a bot changed without a new
    version is noticed: the files its distribution lists (``RECORD``, through
    importlib.metadata) and the source tree of the bot's top-level module (all an
    editable or RECORD-less install has), bytecode caches left out; one line
    ``<path>\0<sha256>`` per file (path relative to the install folder, ``/``-separated),
    in sorted order. None if no file can be found."""
    import importlib.metadata

    files: dict[str, Path] = {}
    try:
        dist = importlib.metadata.distribution(package)
        for listed in dist.files or ():
            if listed.suffix != ".pyc" and "__pycache__" not in listed.parts:
                files[listed.as_posix()] = Path(str(dist.locate_file(listed)))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        pass
    top = sys.modules.get(cls.__module__.split(".")[0])
    if top is not None and top.__name__ == "arena":  # a stand-in class of the harness: its version says it
        top = None
    top_name, top_file = getattr(top, "__name__", ""), getattr(top, "__file__", None)
    for folder in getattr(top, "__path__", None) or ():  # a package: every file under it
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file() and path.suffix != ".pyc" and "__pycache__" not in path.parts:
                files.setdefault(f"{top_name}/{path.relative_to(folder).as_posix()}", path)
    if top is not None and getattr(top, "__path__", None) is None and top_file:
        files.setdefault(Path(top_file).name, Path(top_file))
    digest = hashlib.sha256()
    found = False
    for name in sorted(files):
        try:
            content = files[name].read_bytes()
        except OSError:
            continue  # listed but absent (e.g. a script pip did not install): not part of the bot
        found = True
        digest.update(f"{name}\0{hashlib.sha256(content).hexdigest()}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest() if found else None


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _extend(store: Store, tournament: Tournament, plan: dict[str, Any], echo: Callable[[str], None]) -> None:
    """The file changed: if it only adds entries, rulesets or deals, renumber the store to
    it and say what is added (arena.extend); ConfigError otherwise."""
    from arena.extend import apply_extension, plan_extension

    n = store.count()
    try:
        extension = plan_extension(store, tournament, plan)
    except ConfigError as exc:
        raise ConfigError(f"{exc}; rerun with --restart to discard its {n:,} stored games, or use --out for a new "
                          "results folder") from None
    stored = store.plan()
    echo(f"extending {store.path.parent}: {'; '.join(extension.added) or 'nothing new to play'}: keeping its "
         f"{n:,} stored games, {plan['total_games'] - n:,} new games to play (of {plan['total_games']:,}, "
         f"was {stored['total_games']:,})")
    fresh = apply_extension(store, extension, tournament)
    if fresh:
        echo(f"its secret seed was revealed: the new games are dealt from a fresh secret seed, commitment "
             f"sha256:{fresh}")


def _changes(stored: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Installed bot and ruleset versions, and bots' files, that differ from the store's.
    (A store from before files were hashed has no files hash to compare.)"""
    changes = []
    for old, new in zip(stored["entries"], current["entries"]):
        if (old["package"], old["version"]) != (new["package"], new["version"]):
            changes.append(f"bot {new['uses']!r} was {old['package']} {old['version']}, "
                           f"is now {new['package']} {new['version']}")
        elif old.get("files_sha256") and old.get("files_sha256") != new.get("files_sha256"):
            changes.append(f"bot {new['uses']!r} ({new['package']} {new['version']}) has changed files "
                           f"(files sha256 {old['files_sha256'][:12]} -> {str(new.get('files_sha256'))[:12]})")
    old_luck, new_luck = stored.get("luck") or {}, current.get("luck") or {}
    for old, new, ruleset in zip(old_luck.get("rulesets") or [], new_luck.get("rulesets") or [], current["rulesets"]):
        if old and new and (old["value"], old["version"]) != (new["value"], new["version"]):
            changes.append(f"ruleset {ruleset['id']!r}'s pairwise value was {old['value']} {old['version']}, "
                           f"is now {new['value']} {new['version']} (its luck corrections would not match)")
    for old, new in zip(stored["rulesets"], current["rulesets"]):
        if (old["version"], old["package"], old["package_version"]) != \
                (new["version"], new["package"], new["package_version"]):
            changes.append(f"ruleset {new['id']!r} was version {old['version']} ({old['package']} "
                           f"{old['package_version']}), is now {new['version']} ({new['package']} "
                           f"{new['package_version']})")
    return changes


def open_store(tournament: Tournament, out: Path, restart: bool,
               echo: Callable[[str], None]) -> tuple[Store, str | None]:
    """Open the store in `out` for `tournament`, or create it; and say which: "created",
    "extended" (the file only adds to the store's: arena.extend) or None. Refuses
    (ConfigError) a store made from another tournament file or other bot/ruleset versions
    unless `restart`."""
    path = store_path(out)
    if path.exists() and restart:
        Store.remove(path)
        echo(f"--restart: removed the previous results store {path}")
    if path.exists():
        store = Store.open(path, migrate=True)
        stored_hash = store.get("tournament_sha256")
        seed = store.get("seed")
        if store.plan().get("seed_derivation", 1) != SEED_DERIVATION:
            store.close()
            raise ConfigError(f"{path} was made by an older arena (deal seeds by file position, seed derivation 1); "
                              "rerun with --restart to play it again, or use --out for a new results folder")
        current = make_plan(tournament, seed)
        extended = stored_hash != tournament.sha256
        if extended:
            try:
                _extend(store, tournament, current, echo)
            except BaseException:
                store.close()
                raise
        try:
            changes = _changes(store.plan(), current)
        except StoreError:
            store.close()
            raise
        if changes:
            store.close()
            raise ConfigError(f"installed bots or rulesets changed since {path} was created: {'; '.join(changes)}; "
                              "rerun with --restart to start again, or use --out for a new results folder")
        return store, "extended" if extended else None
    secret: dict[str, Any]
    if tournament.seed is None:
        seed, salt = secrets.randbits(63), secrets.token_hex(16)
        secret = {"seed": seed, "seed_secret": True, "seed_salt": salt, "seed_commitment": seed_commitment(seed, salt)}
    else:
        secret = {"seed": tournament.seed, "seed_secret": False, "seed_salt": None, "seed_commitment": None}
    plan = make_plan(tournament, secret["seed"])
    store = Store.create(path, {
        "plan": plan, "tournament_file": tournament.path, "tournament_text": tournament.text,
        "tournament_sha256": tournament.sha256, "arena_version": arena.__version__,
        "started_at": now(), "finished_at": None, **secret,
    })
    return store, "created"


LOCK_NAME = ".lock"


def _lock(out: Path) -> Any:
    """Hold an exclusive `flock` on ``out/.lock`` for the run (released when the returned
    file is closed, or the process dies): two runs on one results folder would play the
    same games. The lock file is never deleted: a run that deleted it while holding it
    would let the next two runs each lock a different file. It holds the holder's pid."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / LOCK_NAME, "a+")
    except OSError as exc:
        raise ConfigError(f"{out}: cannot make a results folder there ({exc.strerror or exc})") from None
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip()[:20]
        handle.close()
        by = f" (pid {holder})" if holder.isdigit() else ""
        raise ConfigError(f"{out} is in use by another `arena run`{by}; wait for it or stop it") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
