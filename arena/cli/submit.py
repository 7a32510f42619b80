"""`arena new-bot` and `arena validate`: writing a bot and checking it before a tournament.

Plain click commands, attached to the `arena` group by `arena.cli`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from arena.cli.support import SEED_RANGE, UserError, load_plugins, print_json, user_errors
from arena.build_space import QUOTA_BOUNDS, Quota, quota_problem
from arena.seats import LIMIT_BOUNDS, Limits, limit_problem

if TYPE_CHECKING:
    from arena.validate import Settings


@click.command("new-bot")
@click.argument("name")
@click.option("--ruleset", "rulesets", multiple=True, metavar="ID",
              help="A ruleset the bot plays (repeatable; default: every installed ruleset).")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the package (default: ./NAME).")
@user_errors
def new_bot(name: str, rulesets: tuple[str, ...], directory: Path | None) -> None:
    """Write a ready bot package NAME: pyproject.toml with the `arena` entry point, a bot
    that plays legally with a method per ruleset showing where strategy goes, a test
    and a README.

    Example: arena new-bot my-bot --ruleset flip-7 && pip install -e ./my-bot
    """
    from arena.scaffold import module_name, new_bot as write_bot

    directory = directory if directory is not None else Path(name)
    files = write_bot(name, list(rulesets), directory, load_plugins())
    module = module_name(name)
    shown = str(directory) if directory.is_absolute() or str(directory).startswith(".") else f"./{directory}"
    click.echo(f"wrote {len(files)} files in {directory}/:")
    for path in files:
        click.echo(f"  {path.relative_to(directory)}")
    click.echo(f"""
next:
  pip install -e '{shown}[test]'     # then `arena bots list` shows {name}
  edit {shown}/{module}/__init__.py  # the act_... methods are where strategy goes
  pytest {shown}
  arena validate {name}""")


@click.command()
@click.argument("target", metavar="NAME_OR_PATH", required=False)
@click.option("--command", "command", metavar="CMD", default=None,
              help="Validate a program speaking the bot protocol instead, e.g. \"node bot.js\" (docs/protocol.md), "
                   "in its own sandbox or process, on every ruleset (or each --ruleset).")
@click.option("--games", type=click.IntRange(1, 100_000), default=10, show_default=True,
              help="Games per ruleset (each played twice, to check determinism).")
@click.option("--seed", type=SEED_RANGE, default=0, show_default=True, help="Seed the validation games derive from.")
@click.option("--time-per-decision", type=click.FloatRange(*LIMIT_BOUNDS["time_per_decision"]),
              default=Limits.time_per_decision,
              show_default=True, help="Seconds per decision, as in a tournament.")
@click.option("--time-bank", type=click.FloatRange(*LIMIT_BOUNDS["time_bank"]), default=Limits.time_bank,
              show_default=True,
              help="Extra seconds per game that slow decisions draw on.")
@click.option("--memory-mb", type=click.IntRange(int(LIMIT_BOUNDS["memory_mb"][0]), int(LIMIT_BOUNDS["memory_mb"][1])), default=Limits.memory_mb,
              show_default=True, help="Memory limit of the bot process (MiB).")
@click.option("--ruleset", "rulesets", multiple=True, metavar="ID",
              help="Check only this ruleset of the bot's (repeatable; default: every ruleset it declares).")
@click.option("--isolation", type=click.Choice(["sandbox", "process"]), default="sandbox", show_default=True,
              help="An installed bot in its own sandbox (as `arena run`) or its own process; a path is always "
                   "built, probed and played in sandboxes.")
@click.option("--wheelhouse", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              metavar="DIR", help="For a path: build it from the wheels and sdists in DIR (build backends "
                                  "included; default: with this environment's setuptools).")
@click.option("--allow-network", is_flag=True, help="For a path: let pip reach the network while it builds.")
@click.option("--build-quota-mb", type=click.IntRange(*QUOTA_BOUNDS["build_quota_mb"]), default=Quota.mb,
              show_default=True, help="For a path: the MiB its build may write (as the tournament key).")
@click.option("--build-quota-files", type=click.IntRange(*QUOTA_BOUNDS["build_quota_files"]), default=Quota.files,
              show_default=True, help="For a path: the files its build may make (as the tournament key).")
@click.option("--keep", is_flag=True, help="Keep the throwaway virtualenv (for a path) and print where it is.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@user_errors
def validate(target: str | None, command: str | None, games: int, seed: int, time_per_decision: float, time_bank: float, memory_mb: int,
             rulesets: tuple[str, ...], isolation: str, wheelhouse: Path | None, allow_network: bool,
             build_quota_mb: int, build_quota_files: int, keep: bool, as_json: bool) -> None:
    """Check a bot before a tournament: exit code 0 when it passes, 1 when it does not.

    NAME_OR_PATH is the name of an installed bot, or a submission: a project folder, a
    wheel or an sdist, built into a throwaway virtualenv and probed inside a sandbox, as
    `arena run` enters it (none of its code runs in this process). Each bot plays --games
    games per ruleset it declares against that ruleset's built-in bots, seated and seeded as
    in a tournament, in its sandbox with the tournament limits; validate reports faults and
    illegal actions, time per decision (p50/p99/max), peak memory, and whether the same
    seeds give the same decisions in a fresh sandbox.

    NAME_OR_PATH may also be a bot in a local file, PATH.py:ClassName: it plays the same
    games in this process (it is your code; limits and memory are not enforced there).
    With --command CMD instead, a program in any language speaking the bot protocol is
    checked in its own sandbox (or process).

    Examples: arena validate my-bot; arena validate ./my-bot; arena validate dist/my_bot-0.1.0-py3-none-any.whl;
    arena validate ./bot.py:MyBot; arena validate --command "node bot.js" --ruleset flip-7
    """
    from arena.api import is_local_bot
    from arena.validate import Settings, format_report

    if problem := limit_problem("memory_mb", memory_mb):
        raise UserError(f"--memory-mb: {problem}")
    if problem := quota_problem(build_quota_mb, build_quota_files):
        raise UserError(f"--build-quota-files: {problem}")
    settings = Settings(games, seed, time_per_decision, time_bank, memory_mb, tuple(rulesets))

    def progress(line: str) -> None:
        click.echo(line, err=True)

    if (target is None) == (command is None):
        raise UserError("give either NAME_OR_PATH or --command CMD")
    if target is None or is_local_bot(target):  # (target None: a --command)
        report = _validate_here(target, command, settings, isolation, progress)
    else:
        report = _validate_named(target, settings, isolation, progress, keep=keep, wheelhouse=wheelhouse,
                                 network=allow_network, quota=Quota(build_quota_mb, build_quota_files))
    if as_json:
        print_json(report)
    else:
        click.echo(format_report(report))
    sys.exit(0 if report["passed"] else 1)


def _validate_here(target: str | None, command: str | None, settings: Settings, isolation: str,
                   progress: Callable[[str], None]) -> dict[str, Any]:
    """The report on a `--command` program (in its sandbox or process) or a bot in a local file."""
    from arena.validate import validate_command, validate_local

    registry = load_plugins()
    for ruleset_id in settings.rulesets:
        registry.ruleset(ruleset_id)  # an unknown --ruleset is an error, not a skip
    if command is None:
        assert target is not None  # exactly one of the two is given (checked by the caller)
        return validate_local(target, settings, registry, progress)
    argv = _command_argv(command)
    from arena.api import command_name

    return validate_command(argv, settings, registry, progress, _isolation_here(isolation), command_name(argv))


def _validate_named(target: str, settings: Settings, isolation: str, progress: Callable[[str], None],
                    **build: Any) -> dict[str, Any]:
    """The report on an installed bot (by name) or a submission path (`build`: how to build it)."""
    from arena.validate import is_submission_path, validate_installed, validate_path

    installed = None
    if not is_submission_path(target):
        installed = load_plugins()
        if target not in installed.bots and not Path(target).exists():
            known = ", ".join(installed.bots) or "none"
            raise UserError(f"{target!r} is neither an installed bot (installed: {known}) nor a file or folder")
    elif not Path(target).exists():
        raise UserError(f"{target}: no such file or folder (give a project folder, a wheel, an sdist or an "
                        "installed bot's name)")
    if installed is not None and target in installed.bots:
        return validate_installed([target], settings, registry=installed, echo=progress,
                                  isolation=_isolation_here(isolation))
    return validate_path(target, settings, echo=progress, **build)


def _isolation_here(isolation: str) -> str:
    """`isolation`, but "process" (with a warning) where "sandbox" is asked and no sandbox can be made."""
    if isolation == "sandbox":
        from arena.sandbox import sandbox_unavailable

        if reason := sandbox_unavailable():
            click.echo(f"warning: no sandbox can be made here ({reason}); the bot runs in its own process",
                       err=True)
            return "process"
    return isolation


def _command_argv(command: str) -> list[str]:
    import shlex

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UserError(f"--command {command!r}: {exc}") from None
    if not argv:
        raise UserError("--command must not be empty")
    return argv
