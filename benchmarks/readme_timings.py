"""The README's two timings, measured as a new user meets them: on a fresh clone of this
repository's HEAD (committed work only), in a fresh virtualenv.

1. the quickstart: ``pip install -e .`` then ``arena run tournaments/quickstart.toml``;
2. the tests: ``pip install -e '.[test]'`` then ``pytest`` (the default run: not ``slow``,
   ``ray`` or ``browser``; CI's compiled run is not part of it).

Each install and each command is timed on its own, and the machine's cores (those this
process may use) and load averages are printed with them: the figures grow with load, so
quote them with it. The commands run without ``PYTHONDONTWRITEBYTECODE`` (a new user's
Python writes its bytecode caches; a machine that sets it compiles every module again in
each test worker and bot process: collecting the tests took 12.2 CPU seconds without the
caches against 2.8 with them, on a loaded machine). ``--update-readme`` writes the figures of this run into README.md
between its ``<!-- readme-timings:... -->`` markers, so that the README quotes the last
run of this script and nothing else.

    .venv/bin/python benchmarks/readme_timings.py                    # both; the tests take minutes
    .venv/bin/python benchmarks/readme_timings.py --only quickstart  # the quickstart alone
    .venv/bin/python benchmarks/readme_timings.py --update-readme    # and write them into README.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# What a new user's shell has: bytecode caches written (see the module docstring).
USER_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
MARKER = re.compile(r"<!-- readme-timings:(?P<key>[a-z]+) -->(?P<text>.*?)<!-- /readme-timings -->", re.S)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def timed(command: list[str], cwd: Path, log: Path) -> float:
    """Seconds `command` took in `cwd` (its output appended to `log`); exits on failure."""
    start = time.monotonic()
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(command)}\n")
        out.flush()
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=USER_ENV)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"readme_timings: `{' '.join(command)}` failed (exit {done.returncode}); see {log}")
    return seconds


def fresh_clone(into: Path) -> Path:
    clone = into / "flip-arena"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    return clone


def measure(only: str | None, keep: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="readme-timings-"))
    log = work / "log.txt"
    figures: dict = {"cores": cores(), "load_before": load(), "commit": subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip(),
        "date": datetime.date.today().isoformat(), "python": sys.version.split()[0]}
    try:
        clone = fresh_clone(work)
        venv = clone / ".venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip, bin_dir = str(venv / "bin" / "pip"), venv / "bin"
        if only in (None, "quickstart"):
            figures["quickstart_install_s"] = timed([pip, "install", "-q", "-e", "."], clone, log)
            figures["quickstart_s"] = timed([str(bin_dir / "arena"), "run", "tournaments/quickstart.toml"], clone, log)
        if only in (None, "tests"):
            figures["tests_install_s"] = timed([pip, "install", "-q", "-e", ".[test]"], clone, log)
            figures["tests_s"] = timed([str(bin_dir / "pytest"), "-q"], clone, log)
        figures["load_after"] = load()
    finally:
        if keep:
            print(f"kept {work} (the clone, its virtualenv and log.txt)", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return figures


def sentences(f: dict) -> dict[str, str]:
    """The README's wording of each measured figure."""
    machine = f"{f['cores']} cores, load {f['load_before']} before and {f['load_after']} after"
    out = {}
    if "quickstart_s" in f:
        out["quickstart"] = (f"{f['quickstart_s']:.0f} s for the run on {machine} (the install took "
                             f"{f['quickstart_install_s']:.0f} s), measured by `benchmarks/readme_timings.py` "
                             f"at {f['commit']} on {f['date']}")
    if "tests_s" in f:
        minutes, seconds = divmod(round(f["tests_s"]), 60)
        out["tests"] = (f"{minutes} min {seconds} s for the run on {machine} (the install took "
                        f"{f['tests_install_s']:.0f} s), measured by `benchmarks/readme_timings.py` "
                        f"at {f['commit']} on {f['date']}")
    return out


def update_readme(texts: dict[str, str]) -> list[str]:
    """Write `texts` between README.md's markers of the same key; return the keys written."""
    readme = README.read_text(encoding="utf-8")
    written = []

    def replace(match: re.Match) -> str:
        key = match.group("key")
        if key not in texts:
            return match.group(0)
        written.append(key)
        return f"<!-- readme-timings:{key} -->{texts[key]}<!-- /readme-timings -->"

    README.write_text(MARKER.sub(replace, readme), encoding="utf-8")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["quickstart", "tests"], help="Time one of the two commands.")
    parser.add_argument("--update-readme", action="store_true", help="Write the figures into README.md.")
    parser.add_argument("--keep", action="store_true", help="Keep the clone, its virtualenv and the log.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()
    figures = measure(args.only, args.keep)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"commit {figures['commit']}, Python {figures['python']}, {figures['cores']} cores, "
              f"load {figures['load_before']} before, {figures['load_after']} after")
        for key, label in (("quickstart_install_s", "quickstart install (pip install -e .)"),
                           ("quickstart_s", "quickstart run (arena run tournaments/quickstart.toml)"),
                           ("tests_install_s", "tests install (pip install -e '.[test]')"),
                           ("tests_s", "tests run (pytest)")):
            if key in figures:
                print(f"  {label}: {figures[key]:.1f} s")
    if args.update_readme:
        written = update_readme(sentences(figures))
        print(f"README.md: wrote {', '.join(written) or 'nothing (no markers)'}", file=sys.stderr)


if __name__ == "__main__":
    main()
