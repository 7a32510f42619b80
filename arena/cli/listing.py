"""The listings: `arena bots list`, `arena rulesets list` (noun groups, each table with a
`--json` twin) and `arena docs` (the generated ruleset reference)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from arena.cli.support import load_plugins, print_json, user_errors


@click.group()
def bots() -> None:
    """Bots that the installed plugins provide."""


@bots.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_errors
def bots_list(as_json: bool) -> None:
    """List every registered bot with its package, version and rulesets."""
    registry = load_plugins()
    rows: list[dict[str, Any]] = [{"name": e.name, "package": e.origin.package, "version": e.origin.version,
             "rulesets": _plays(e.cls, registry.rulesets), "status": "ok"}
            for e in registry.bots.values()]
    rows += [{"name": None, "package": b.package, "version": b.version, "rulesets": None,
              "status": f"broken plugin {b.plugin}: {b.error}"} for b in registry.broken]
    if as_json:
        print_json(rows)
        return
    table = [[r["name"] or "-", r["package"], r["version"],
              r["rulesets"] if isinstance(r["rulesets"], str) else ", ".join(r["rulesets"] or []),
              r["status"]] for r in rows]
    click.echo(tabulate(table, headers=["bot", "package", "version", "rulesets", "status"]))


def _plays(cls: Any, installed: Any) -> str | list[str]:
    """What a bot plays: its declared `rulesets`, or, for a bot that decides in `plays`
    (e.g. by what a ruleset declares), the installed rulesets it says yes to."""
    from arena.bot import Bot

    if getattr(cls.plays, "__func__", None) is not Bot.__dict__["plays"].__func__:
        return [ruleset_id for ruleset_id in installed if cls.plays(ruleset_id)]
    return "*" if cls.rulesets == "*" else list(cls.rulesets)


@click.group()
def rulesets() -> None:
    """Rulesets that the installed plugins provide."""


@rulesets.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_errors
def rulesets_list(as_json: bool) -> None:
    """List every registered ruleset with its version, players and options."""
    registry = load_plugins()
    rows: list[dict[str, Any]] = []
    for entry in registry.rulesets.values():
        cls = entry.cls
        rows.append({
            "id": cls.id, "title": getattr(cls, "title", cls.id), "version": cls.version,
            "players": [cls.min_players, cls.max_players],
            "package": entry.origin.package,
            "options": {name: {"default": o.default, "help": o.help} for name, o in cls.options.items()},
        })
    if as_json:
        print_json(rows)
        return
    table = [[r["id"], r["version"], f"{r['players'][0]}-{r['players'][1]}",
              "\n".join(f"{n}={_short(o['default'])}" for n, o in r["options"].items())] for r in rows]
    click.echo(tabulate(table, headers=["ruleset", "version", "players", "options (defaults)"]))
    for broken in registry.broken:
        click.echo(f"broken plugin {broken.plugin}: {broken.error}", err=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else f"<{type(value).__name__} of {len(value)}>"


@click.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the reference to FILE (e.g. docs/rulesets.md) instead of printing it.")
@click.option("--check", "check_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Exit with code 1 if FILE differs from what the rulesets generate.")
@click.option("--ruleset", "ruleset_ids", multiple=True, metavar="ID",
              help="Document this installed ruleset (any plugin's; repeatable) instead of the built-in ones.")
@user_errors
def docs(out: Path | None, check_file: Path | None, ruleset_ids: tuple[str, ...]) -> None:
    """The observation and action reference of the built-in rulesets (docs/rulesets.md),
    or of the rulesets named, generated from their classes and docstrings."""
    from arena.reference import docs_status, rulesets_markdown

    chosen = [load_plugins().ruleset(ruleset_id).cls for ruleset_id in ruleset_ids] if ruleset_ids else None
    text = rulesets_markdown(chosen)
    if check_file is not None:
        problem = docs_status(check_file, text)
        if problem:
            click.echo(f"{problem}: run `arena docs --out {check_file}`", err=True)
            sys.exit(1)
        click.echo(f"{check_file} is up to date")
        return
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}")
        return
    click.echo(text, nl=False)
