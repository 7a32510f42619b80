"""Submissions: bot packages named by file, built, probed and played only in sandboxes.

A tournament entry ``submission = "submissions/alice/"`` (a project folder, a
wheel or an sdist) is untrusted code. The harness never imports it, never runs
its ``setup.py`` and never calls its constructor; everything that runs its code
runs in a sandbox (`arena.sandbox.launcher`) under an unprivileged uid of its own:

1. **check, copy and hash** (the harness, running no submitted code): a wheel's
   or sdist's members are checked before anything unpacks it
   (`arena.archives`); the source is copied without following symlinks into the
   build's quota space (`arena.build_space`: a loop-mounted filesystem of the
   entry's `Quota`); its SHA-256 over paths and contents is the submission's
   identity;
2. **build** (sandbox): a virtualenv made from the harness's own interpreter
   (``venv --without-pip``), with a ``.pth`` file that appends the harness's
   site-packages: the submission imports the very same ``arena`` (and finds
   pip, setuptools and the harness's trusted plugins) read-only, and a
   dependency on flip-arena is already satisfied. pip installs the submission
   into it, with no network unless the organiser allows it, from the organiser's
   wheelhouse if one is named (build backends included), else with the harness's
   setuptools (``--no-build-isolation``). Only the quota space is writable
   (``TMPDIR``, ``HOME`` and pip's cache are in it); it is owned by the
   sandbox's uid during the build, and by root (read-only) after it; the
   virtualenv is then moved out of it and the space deleted;
3. **probe** (sandbox, the virtualenv read-only): ``python -m arena.submissions``
   loads the plugins of the virtualenv and prints, as one JSON line, the bots
   that the submission's own distributions register (name, rulesets, package,
   version) and whether the chosen bot's constructor accepts the entry's
   params. The harness reads that line as untrusted input: at most
   `PROBE_BYTES`, nested at most `arena.protocol.MAX_REPLY_DEPTH`, every field
   checked (`parse_probe`).

The virtualenv is kept in ``<results>/submissions/<sha256>/venv`` and reused
whenever a submission with the same content is entered again (a resumed run);
a changed submission gets a new one. Games run it through
`arena.sandbox.SandboxHost.for_bot` with the virtualenv's interpreter.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import resource
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, cast

from arena.archives import archive_problem
from arena.bot import BOT_NAME, Bot
from arena.build_space import (MECHANISM, NO_SPACE, OverQuota, Quota, QuotaSpace, move_tree, quota_unavailable,
                               space_name, tree_size)
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.sandbox.cgroups import BotCgroup
    from arena.sandbox.launcher import SandboxSpec

SOURCE_SUFFIXES = (".whl", ".tar.gz", ".zip")
COPY_IGNORE = (".git", ".hg", ".venv", "venv", ".tox", ".nox", "build", "dist", "*.egg-info", "__pycache__",
               ".pytest_cache", ".hypothesis", ".mypy_cache", "node_modules")
"""What of a project folder is neither hashed nor copied (caches, virtualenvs, build output)."""
MAX_SOURCE_BYTES = 256 << 20
MAX_SOURCE_FILES = 20_000
BUILD_TIMEOUT = 600.0
PROBE_TIMEOUT = 120.0
BUILD_MEMORY_MB = 2048
BUILD_PROCESSES = 256
BUILD_TMP_MB = 64
"""The size of a build's ``/tmp``, a tmpfs charged to its cgroup's memory; ``TMPDIR``
points into its quota space (`arena.build_space`), so little lands here."""
BUILD_FILE_LIMIT = 512 << 20
"""The largest file a build may write (its log included)."""
PROBE_BYTES = 1 << 20
"""The most of a probe's output the harness reads."""
MAX_BOTS = 64
BUILT_MARKER = "built.json"
PYTHON_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "PYTHONUNBUFFERED": "1",
              "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PIP_NO_CACHE_DIR": "1",
              "PIP_ROOT_USER_ACTION": "ignore"}

Echo = Callable[[str], None]


def _quiet(_line: str) -> None:
    pass


class SubmissionError(ArenaError):
    """A submission cannot be built, probed or entered; the message says why, in one line."""


# -- what the probe found ---------------------------------------------------------------


@dataclass(frozen=True)
class SubmittedBot:
    """One bot a submission registers, as its probe reported it (checked)."""

    name: str
    rulesets: tuple[str, ...] | str
    package: str
    version: str
    time_dependent: bool = False


@dataclass(frozen=True)
class Submission:
    """A built submission: its content hash, its virtualenv and what it registers."""

    source: str
    sha256: str
    folder: str
    """``<results>/submissions/<sha256>``: the virtualenv's home once installed."""
    bots: tuple[SubmittedBot, ...]
    chosen: str = ""
    """The bot of it this entry plays (``use``, or its only bot)."""
    wheelhouse: str | None = None
    network: bool = False
    quota: Quota = Quota()
    """What its build may write (a rebuild on another machine uses the same)."""

    @property
    def venv(self) -> str:
        return os.path.join(self.folder, "venv")

    @property
    def python(self) -> str:
        return os.path.join(self.venv, "bin", "python")

    @property
    def bot(self) -> SubmittedBot:
        return next(b for b in self.bots if b.name == self.chosen)

    @property
    def version(self) -> str:
        """What records and the store call its version: declared version and short content hash."""
        return f"{self.bot.version}+sha256.{self.sha256[:12]}"

    def stand_in(self) -> type[Bot]:
        """The class standing for the chosen bot in the harness (see `stand_in`)."""
        return stand_in(self.bot)

    def footprint(self) -> dict[str, Any]:
        """What its folder holds now, and what its build was allowed (the provenance's)."""
        size, files = tree_size(Path(self.folder))
        return {"sha256": self.sha256, "folder_bytes": size, "folder_files": files,
                "build_quota_mb": self.quota.mb, "build_quota_files": self.quota.files,
                "build_quota": quota_mechanism()}

    def read_only(self) -> list[str]:
        """What a sandbox playing it binds read-only: the harness's Python and the virtualenv."""
        return harness_mounts() + [self.venv]


class _StandIn(type):
    """The metaclass of submission stand-ins: pickled by value (name, rulesets), never by import."""

    name: str
    rulesets: tuple[str, ...] | str
    time_dependent: bool


def _rebuild_stand_in(name: str, rulesets: Any, time_dependent: bool) -> type[Bot]:
    return stand_in(SubmittedBot(name, rulesets if rulesets == "*" else tuple(rulesets), "", "", time_dependent))


def stand_in(bot: SubmittedBot) -> type[Bot]:
    """A class standing for a submitted bot in the harness (records, schedules): its
    name and rulesets only; `act` is never called here (the bot plays in its sandbox)."""

    def act(self: Bot, observation: dict[str, Any]) -> str:
        raise ArenaError(f"submitted bot {bot.name!r} plays only in its sandbox")

    # a class made by its metaclass: mypy cannot see that _StandIn(...) subclasses Bot
    return cast("type[Bot]", _StandIn(f"Submitted[{bot.name}]", (Bot,), {
        "name": bot.name, "rulesets": bot.rulesets, "time_dependent": bot.time_dependent, "act": act,
        "__module__": __name__, "submitted": True}))


def _reduce_stand_in(cls: _StandIn) -> tuple[Any, ...]:
    return _rebuild_stand_in, (cls.name, cls.rulesets, cls.time_dependent)


import copyreg  # noqa: E402 - registered right after the class it reduces

copyreg.pickle(_StandIn, _reduce_stand_in)


# -- the content of a source ---------------------------------------------------------


def source_problem(path: Path) -> str | None:
    """Why `path` is not a submission (project folder, wheel or sdist), or None."""
    if not path.exists():
        return f"{path} does not exist"
    if path.is_dir():
        if not ((path / "pyproject.toml").is_file() or (path / "setup.py").is_file()):
            return f"{path} is a folder without pyproject.toml or setup.py (not a project folder)"
        return None
    if not path.is_file():
        return f"{path} is not a file or folder"
    if not path.name.endswith(SOURCE_SUFFIXES):
        return f"{path} is not a wheel (.whl) or an sdist (.tar.gz, .zip)"
    if path.stat().st_size > MAX_SOURCE_BYTES:
        return f"{path} is larger than {MAX_SOURCE_BYTES >> 20} MiB"
    return None


def _ignored(name: str) -> bool:
    import fnmatch

    return any(fnmatch.fnmatch(name, pattern) for pattern in COPY_IGNORE)


def _walk(root: Path) -> Iterator[Path]:
    """The files, links and folders of a project folder, sorted, caches left out; never
    following a symbolic link."""
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if _ignored(entry.name):
            continue
        path = Path(entry.path)
        yield path
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(path)


def content_sha256(path: Path) -> str:
    """SHA-256 of a submission: of a file's bytes, or of a folder's paths, modes,
    link targets and file contents (caches and build output left out)."""
    digest = hashlib.sha256()
    if path.is_file():
        digest.update(b"file\0" + path.name.encode("utf-8", "surrogateescape") + b"\0")
        with open(path, "rb") as source:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    files = total = 0
    for item in _walk(path):
        name = item.relative_to(path).as_posix().encode("utf-8", "surrogateescape")
        info = item.lstat()
        if stat.S_ISLNK(info.st_mode):
            digest.update(b"link\0" + name + b"\0" + os.readlink(item).encode("utf-8", "surrogateescape") + b"\n")
        elif stat.S_ISDIR(info.st_mode):
            digest.update(b"dir\0" + name + b"\n")
        elif stat.S_ISREG(info.st_mode):
            files += 1
            total += info.st_size
            if files > MAX_SOURCE_FILES or total > MAX_SOURCE_BYTES:
                raise SubmissionError(f"{path} has more than {MAX_SOURCE_FILES:,} files or "
                                      f"{MAX_SOURCE_BYTES >> 20} MiB")
            with open(item, "rb") as source:
                content = hashlib.sha256(source.read()).hexdigest()
            executable = "x" if info.st_mode & 0o111 else "-"
            digest.update(f"file\0{executable}\0".encode() + name + f"\0{content}\n".encode())
    return digest.hexdigest()


def _copy_source(path: Path, target: Path) -> Path:
    """Copy the submission into `target` (links stay links: nothing outside it is read)."""
    target.mkdir()
    if path.is_file():
        copy = target / path.name
        shutil.copyfile(path, copy)
        return copy
    copy = target / "project"
    shutil.copytree(path, copy, symlinks=True, ignore=lambda _d, names: [n for n in names if _ignored(n)])
    return copy


# -- the harness's own Python, as sandboxes see it --------------------------------------


def harness_site_packages() -> list[str]:
    """The site-packages folders of the harness's environment (where `arena` and its
    dependencies are installed)."""
    found = [p for p in site.getsitepackages() if os.path.isdir(p)]
    purelib = sysconfig.get_paths()["purelib"]
    if purelib not in found and os.path.isdir(purelib):
        found.insert(0, purelib)
    return found


def harness_mounts() -> list[str]:
    """What a submission's sandbox binds read-only of the harness: the interpreter and
    its standard library, the harness's site-packages, and the folders of `arena` and
    of the installed `arena` plugins (an editable install keeps them elsewhere).
    Never the working directory, the results folder or the tournament file."""
    paths = [sys.base_prefix, os.path.dirname(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))]
    from arena.sandbox.host import plugin_folders

    paths += harness_site_packages() + plugin_folders()
    return list(dict.fromkeys(p for p in paths if os.path.exists(p)))


def _base_python() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


# -- building -------------------------------------------------------------------------


@dataclass
class _Sandboxed:
    returncode: int
    output: str
    seconds: float
    timed_out: bool = False


def _run_sandboxed(argv: list[str], read_only: list[str], writable: list[str], env: dict[str, str],
                   network: bool, timeout: float, tmp_mb: int, stdin: bytes | None = None,
                   stdout_limit: int = PROBE_BYTES, file_limit: int = BUILD_FILE_LIMIT,
                   chown: Sequence[Path] = ()) -> tuple[_Sandboxed, bytes]:
    """Run `argv` in a new sandbox (its own uid when root, a cgroup with the build
    limits); return its stderr (the log, its tail) and at most `stdout_limit` bytes of
    its stdout. `chown` folders are the sandbox uid's while it runs, root's after."""
    from arena.sandbox import sandbox_unavailable
    from arena.sandbox.cgroups import BotCgroup
    from arena.sandbox.launcher import SandboxSpec
    from arena.sandbox.uids import UidLease

    reason = sandbox_unavailable()
    if reason:
        raise SubmissionError(f"submissions are built and run only in a sandbox, and none can be made here "
                              f"({reason})")
    lease = UidLease() if os.geteuid() == 0 else None
    uid = lease.uid if lease else None
    group = BotCgroup.make(BUILD_MEMORY_MB, BUILD_PROCESSES)
    spec = SandboxSpec(tuple(argv), tuple(read_only), tuple(writable), env, tmp_mb, network)
    started = time.monotonic()
    try:
        if uid is not None:
            for folder in chown:
                _chown_tree(folder, uid)
        code, timed_out, text, data = _run_spec(spec, uid, _limiter(group, file_limit), timeout, stdin,
                                                stdout_limit)
    finally:
        if group is not None:
            group.remove()  # kills whatever it left behind
        if uid is not None:
            for folder in chown:
                _chown_tree(folder, 0)
        for folder in chown:
            _seal(folder)
        if lease is not None:
            lease.release()
    return _Sandboxed(code, text, time.monotonic() - started, timed_out), data


def _limiter(group: BotCgroup | None, file_limit: int) -> Callable[[], None]:
    """What runs in the sandbox's process between fork and exec: into the build's cgroup
    (`group`, or an address-space limit where there is none), no core files, files of at
    most `file_limit` bytes."""

    def preexec() -> None:  # between fork and exec: no imports, no locks
        if group is not None:
            group.join()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
        if group is None:
            memory = BUILD_MEMORY_MB << 20
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return preexec


def _run_spec(spec: SandboxSpec, uid: int | None, preexec: Callable[[], None], timeout: float, stdin: bytes | None,
              stdout_limit: int) -> tuple[int, bool, str, bytes]:
    """Run the sandbox `spec` (as `uid`) under seccomp: its return code (-9 when it ran past
    `timeout`), whether it did, its stderr's last 16 KiB and at most `stdout_limit` + 1
    bytes of its stdout."""
    from arena.sandbox import seccomp
    from arena.sandbox.launcher import bwrap_binary, command

    with tempfile.TemporaryFile(prefix="arena-submission-out-") as out, \
            tempfile.TemporaryFile(prefix="arena-submission-log-") as log:
        timed_out = False
        filter_fd = seccomp.program_file()
        try:
            done = subprocess.run(command(spec, bwrap_binary() or "bwrap", uid, filter_fd), cwd="/",
                                  timeout=timeout, input=stdin,
                                  stdin=None if stdin is not None else subprocess.DEVNULL,
                                  stdout=out, stderr=log, preexec_fn=preexec, start_new_session=True,
                                  pass_fds=() if filter_fd is None else (filter_fd,),
                                  env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
            code = done.returncode
        except subprocess.TimeoutExpired:
            timed_out, code = True, -9
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        out.seek(0)
        data = out.read(stdout_limit + 1)
        log.seek(0, os.SEEK_END)
        size = log.tell()
        log.seek(max(0, size - 16384))
        text = log.read().decode("utf-8", "replace")
    return code, timed_out, text, data


def _chown_tree(root: Path, uid: int) -> None:
    """Give `root` and all in it to `uid` (links themselves, never what they point to)."""
    os.lchown(root, uid, uid)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            try:
                os.lchown(os.path.join(folder, name), uid, uid)
            except FileNotFoundError:
                pass


def _seal(root: Path) -> None:
    """Read-only for everyone, readable by every sandbox uid; no set-id bits."""
    for folder, dirs, files in os.walk(root):
        for name in dirs + files + [""]:
            path = os.path.join(folder, name) if name else folder
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(info.st_mode):
                continue
            if stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o555)
            elif stat.S_ISREG(info.st_mode):
                os.chmod(path, 0o555 if info.st_mode & 0o100 else 0o444)
            else:  # sockets, fifos: nothing a virtualenv needs
                os.unlink(path)


def _unseal(root: Path) -> None:
    for folder, dirs, _files in os.walk(root):
        os.chmod(folder, 0o755)


def remove_tree(root: Path) -> None:
    """Delete a (sealed) staging or submission folder."""
    if root.exists():
        _unseal(root)
        shutil.rmtree(root, ignore_errors=True)


def _pip_reason(text: str) -> str:
    """What went wrong in pip's output: its last lines, or, where pip itself crashed
    (a traceback), the exception alone, naming pyproject.toml when that is what it read."""
    if "Traceback (most recent call last)" not in text:
        return _tail(text)
    last = _tail(text, 1)
    if "TOMLDecodeError" in last:
        return f"its pyproject.toml is not valid TOML: {last.split(': ', 1)[-1]}"
    return f"pip crashed: {last}"


def _tail(text: str, lines: int = 6) -> str:
    kept = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING: ")]
    return " | ".join(kept[-lines:])[-600:]


def pip_arguments(wheelhouse: str | None, network: bool) -> list[str]:
    """pip's options for a build: offline unless `network`; from `wheelhouse` (build
    backends included) when given; else with the harness's own setuptools."""
    args = ["--no-input", "--no-cache-dir", "--disable-pip-version-check", "--no-warn-script-location"]
    if not network:
        args.append("--no-index")
    if wheelhouse:
        args += ["--find-links", wheelhouse]
    elif not network:
        args.append("--no-build-isolation")
    return args


def build(source: Path, staging: Path, wheelhouse: str | None = None, network: bool = False,
          echo: Echo = _quiet, quota: Quota = Quota(), timeout: float = BUILD_TIMEOUT) -> str:
    """Check `source` (an archive's members, before anything unpacks it), copy it into a
    `QuotaSpace` of `quota` in `staging`, make the virtualenv there and pip-install the
    submission into it, in a sandbox; move the virtualenv to ``staging/venv``; return the
    content hash. Over quota, past `timeout` or failed: SubmissionError (one line)."""
    sha256 = content_sha256(source)
    if problem := archive_problem(source, quota):
        raise SubmissionError(problem)
    staging.mkdir(parents=True, exist_ok=True)
    os.chmod(staging, 0o755)
    space: QuotaSpace | None = None
    if quota_unavailable() is None:
        space = QuotaSpace(staging, quota)
        try:
            root = space.open()
        except OSError as exc:
            raise SubmissionError(f"cannot make its build's filesystem ({MECHANISM}): {exc}") from None
    else:
        echo(f"warning: building {source} without a quota ({quota_unavailable()}): only each file's size "
             f"is capped, at {BUILD_FILE_LIMIT >> 20} MiB")
        root = staging / space_name()
        root.mkdir(mode=0o755)
    try:
        result = _build_in(source, root, wheelhouse, network, echo, quota, timeout)
        full = space is not None and space.full()
        for folder in ("src", "tmp", "home"):
            remove_tree(root / folder)  # their blocks go back to the host (discard) before the move
        if result.timed_out:
            raise SubmissionError(f"its build took longer than {timeout:g} s (every process of it was killed)")
        if full or (result.returncode != 0 and _ran_out_of_space(result.output)):
            said = next((line.strip()[-200:] for line in reversed(result.output.splitlines())
                         if _ran_out_of_space(line)), "")
            raise SubmissionError(f"its build wrote more than its quota of {quota.describe()} (the tournament's "
                                  f"build_quota_mb, build_quota_files){': ' + said if said else ''}")
        if result.returncode != 0:
            raise SubmissionError(f"pip could not build and install it (exit code {result.returncode}): "
                                  f"{_pip_reason(result.output)}")
        _unseal(root)
        move_tree(root / "venv", staging / "venv", quota)
        _seal(staging / "venv")
    except OverQuota as exc:
        raise SubmissionError(str(exc)) from None
    finally:
        if space is not None:
            space.close()
        else:
            remove_tree(root)
    echo(f"built {source} in {result.seconds:.1f} s")
    return sha256


def _build_in(source: Path, root: Path, wheelhouse: str | None, network: bool, echo: Echo, quota: Quota,
              timeout: float) -> _Sandboxed:
    """Copy, make the virtualenv and run pip, all inside `root` (the build's only writable place)."""
    try:
        copy = _copy_source(source, root / "src")
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise SubmissionError(f"its source is larger than its build's quota of {quota.describe()}") from None
        raise
    venv = root / "venv"
    made = subprocess.run([_base_python(), "-m", "venv", "--without-pip", str(venv)], capture_output=True,
                          text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=120)
    if made.returncode != 0:
        raise SubmissionError(f"cannot make a virtualenv: {_tail(made.stderr + made.stdout)}")
    purelib = _venv_purelib(venv)
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in harness_site_packages())
    (purelib / "_arena_harness.pth").write_text(lines)
    for folder in ("tmp", "home"):
        (root / folder).mkdir(mode=0o755)
    env = {**PYTHON_ENV, "TMPDIR": str(root / "tmp"), "HOME": str(root / "home"),
           "PIP_CACHE_DIR": str(root / "home" / "cache"), "XDG_CACHE_HOME": str(root / "home" / "cache")}
    read_only = harness_mounts() + ([wheelhouse] if wheelhouse else [])
    argv = [str(venv / "bin" / "python"), "-m", "pip", "install", *pip_arguments(wheelhouse, network), str(copy)]
    echo(f"building {source} in a sandbox ({'network allowed' if network else 'no network'}"
         f"{', wheelhouse ' + wheelhouse if wheelhouse else ''}; quota {quota.describe()})")
    result, _ = _run_sandboxed(argv, read_only, [str(root)], env, network, timeout, BUILD_TMP_MB, chown=[root])
    return result


def _ran_out_of_space(log: str) -> bool:
    return "No space left on device" in log or "Errno 28]" in log or "Disk quota exceeded" in log


def quota_mechanism() -> str:
    """How builds on this machine are bounded, as the provenance and `arena validate` say it."""
    unbounded = quota_unavailable()
    return f"not enforced ({unbounded}; each file capped at {BUILD_FILE_LIMIT >> 20} MiB)" if unbounded else MECHANISM


def _venv_purelib(venv: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return venv / "lib" / version / "site-packages"


# -- probing ---------------------------------------------------------------------------


def probe(venv: Path, use: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """Run the probe in a sandbox over the (sealed) virtualenv `venv`; its checked report."""
    from arena.seats import Limits

    python = str(venv / "bin" / "python")
    request = json.dumps({"use": use, "params": params}).encode()
    result, data = _run_sandboxed([python, "-m", "arena.submissions"], harness_mounts() + [str(venv)], [],
                                  dict(PYTHON_ENV), False, PROBE_TIMEOUT, Limits.tmp_mb, stdin=request,
                                  file_limit=PROBE_BYTES * 4)
    if result.timed_out:
        raise SubmissionError(f"loading its plugins took longer than {PROBE_TIMEOUT:g} s")
    return parse_probe(data, result)


_TEXT = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _text(value: Any, limit: int = 300) -> str:
    return _TEXT.sub("?", str(value))[:limit]


def parse_probe(data: bytes, result: _Sandboxed | None = None) -> dict[str, Any]:
    """The probe's report, checked field by field (it comes from submitted code)."""
    from arena.protocol import ProtocolError, decode_reply

    how = f" (exit code {result.returncode}): {_tail(result.output)}" if result is not None else ""
    if len(data) > PROBE_BYTES:
        raise SubmissionError(f"its probe printed more than {PROBE_BYTES:,} bytes")
    line = data.strip().splitlines()[-1] if data.strip() else b""
    try:
        report = decode_reply(line)
    except ProtocolError as exc:
        raise SubmissionError(f"its plugins could not be listed{how or ': ' + str(exc)}") from None
    if report.get("type") != "probe":
        raise SubmissionError(f"its plugins could not be listed{how}")
    bots, errors = report.get("bots"), report.get("errors")
    if not isinstance(bots, list) or not isinstance(errors, list) or len(bots) > MAX_BOTS:
        raise SubmissionError(f"its probe's report is malformed (bots, errors){how}")
    checked = []
    for item in bots:
        if not isinstance(item, dict):
            raise SubmissionError("its probe's report is malformed (a bot is not an object)")
        name, rulesets = item.get("name"), item.get("rulesets")
        package, version = item.get("package"), item.get("version")
        if not (isinstance(name, str) and len(name) <= 64 and BOT_NAME.match(name)):
            raise SubmissionError(f"it registers a bot named {_text(name, 70)!r}: a bot name is lowercase letters, "
                                  "digits and dashes, at most 64")
        if rulesets != "*" and not (isinstance(rulesets, list) and 0 < len(rulesets) <= 64 and
                                    all(isinstance(r, str) and 0 < len(r) <= 100 for r in rulesets)):
            raise SubmissionError(f"bot {name!r} declares rulesets {_text(rulesets, 100)}: give ruleset ids or \"*\"")
        if not (isinstance(package, str) and 0 < len(package) <= 200 and isinstance(version, str) and
                0 < len(version) <= 100 and not _TEXT.search(package + version)):
            raise SubmissionError(f"bot {name!r} comes from a distribution with an unusable name or version")
        checked.append(SubmittedBot(name, "*" if rulesets == "*" else tuple(rulesets), package, version,
                                    item.get("time_dependent") is True))
    params_error = report.get("params_error")
    return {"bots": checked, "errors": [_text(e) for e in errors[:10]],
            "params_error": None if params_error is None else _text(params_error),
            "output": result.output if result is not None else ""}


def probe_main() -> int:
    """Inside the sandbox: list the bots this virtualenv's own distributions register,
    and try the chosen one's constructor with the params; one JSON line on stdout."""
    channel = os.dup(1)
    os.dup2(2, 1)  # whatever the submission prints goes to the log, not the report
    sys.stdout = sys.stderr
    report: dict[str, Any] = {"type": "probe", "bots": [], "errors": [], "params_error": None}
    try:
        request = json.loads(sys.stdin.read(1 << 20) or "{}")
        purelib = sysconfig.get_paths()["purelib"]
        own = {_normal(d.metadata["Name"] or "") for d in importlib.metadata.distributions(path=[purelib])}
        from arena.plugins import load_registry

        registry = load_registry()
        report["errors"] += [f"plugin {b.plugin} is broken: {b.error}" for b in registry.broken
                             if _normal(b.package) in own]
        mine = {n: e for n, e in registry.bots.items() if _normal(e.origin.package) in own}
        for name, entry in mine.items():
            rulesets = entry.cls.rulesets
            report["bots"].append({"name": name, "rulesets": rulesets if rulesets == "*" else list(rulesets),
                                   "package": entry.origin.package, "version": entry.origin.version,
                                   "time_dependent": getattr(entry.cls, "time_dependent", False) is True})
        use = request.get("use")
        if use is None and len(mine) == 1:
            use = next(iter(mine))
        if use in mine:
            try:
                mine[use].cls(**request.get("params", {}))
            except Exception as exc:  # the bot's own check of its params
                report["params_error"] = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # e.g. it registers a name another plugin has
        report["errors"].append(f"{type(exc).__name__}: {exc}")
    data = (json.dumps(report) + "\n").encode()
    while data:
        data = data[os.write(channel, data):]
    return 0


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# -- entering submissions -------------------------------------------------------------


@dataclass
class Builder:
    """Builds and probes the submissions of one tournament (or one `arena validate`).

    Builds go to a staging folder; `install` moves them to
    ``<results>/submissions/<sha256>`` once the whole tournament file has been
    checked (a file with a problem leaves nothing behind: `discard`)."""

    results: Path | None = None
    """The results folder; None: ``results/<tournament name>`` (as `arena run`)."""
    wheelhouse: Path | None = None
    """The organiser's wheelhouse (overrides the file's `wheelhouse`)."""
    network: bool = False
    echo: Echo = _quiet
    quota: Quota = Quota()
    """The default quota of builds (`resolve` takes a tournament's own)."""
    staged: dict[str, tuple[Path, Path]] = field(default_factory=dict)  # sha256 -> (staging, home)
    _staging_root: Path | None = None

    def folder(self, tournament_name: str) -> Path:
        return (self.results if self.results is not None else Path("results") / tournament_name).resolve()

    def resolve(self, source: Path, tournament_name: str, wheelhouse: Path | None = None, use: str | None = None,
                params: dict[str, Any] | None = None, quota: Quota | None = None) -> Submission:
        """Build (or reuse) the submission at `source` and probe it for `use` and `params`.
        SubmissionError (one line) if it cannot be built, registers no bot, or none by `use`."""
        problem = source_problem(source)
        if problem:
            raise SubmissionError(problem)
        source = source.resolve()
        house = self.wheelhouse or wheelhouse
        if house is not None and not house.is_dir():
            raise SubmissionError(f"wheelhouse {house} is not a folder")
        house_text = str(house.resolve()) if house is not None else None
        quota = quota or self.quota
        sha256 = content_sha256(source)
        home = self.folder(tournament_name) / "submissions" / sha256
        if (home / BUILT_MARKER).is_file():
            venv = home / "venv"
            self.echo(f"{source}: reusing its virtualenv {venv}")
        elif sha256 in self.staged:
            venv = self.staged[sha256][0] / "venv"
        else:
            if self._staging_root is None:
                self._staging_root = Path(tempfile.mkdtemp(prefix="arena-submissions-"))
                os.chmod(self._staging_root, 0o755)
            staging = self._staging_root / sha256
            try:
                build(source, staging, house_text, self.network, self.echo, quota)
            except BaseException:
                remove_tree(staging)
                raise
            self.staged[sha256] = (staging, home)
            venv = staging / "venv"
        report = probe(venv, use, dict(params or {}))
        if report["errors"]:
            raise SubmissionError(f"its plugins failed to load: {report['errors'][0]}")
        bots = report["bots"]
        if not bots:
            said = _tail(report["output"], 2)
            raise SubmissionError("it registers no bot: a bot package declares an entry point in the group "
                                  "`arena` whose module registers a bot with @arena.hookimpl register_bots"
                                  f"{' (its output: ' + said + ')' if said else ''}")
        names = [b.name for b in bots]
        if use is None and len(bots) > 1:
            raise SubmissionError(f"it registers several bots ({', '.join(names)}): pick one with use = \"...\"")
        chosen = use if use is not None else names[0]
        if chosen not in names:
            raise SubmissionError(f"it registers no bot {chosen!r} (it registers: {', '.join(names)})")
        if report["params_error"] is not None:
            raise SubmissionError(f"bot {chosen!r} does not accept {params!r}: {report['params_error']}")
        return Submission(str(source), sha256, str(home), tuple(bots), chosen, house_text, self.network, quota)

    def install(self) -> None:
        """Move the staged builds to their results folders (one already there wins)."""
        for sha256, (staging, home) in list(self.staged.items()):
            install_build(sha256, staging, home)
        self.discard()

    def discard(self) -> None:
        """Delete every staged build that was not installed."""
        for staging, _home in self.staged.values():
            remove_tree(staging)
        self.staged.clear()
        if self._staging_root is not None:
            shutil.rmtree(self._staging_root, ignore_errors=True)
            self._staging_root = None


def install_build(sha256: str, staging: Path, home: Path, source: str = "") -> None:
    """Move a staged build's virtualenv to `home` and mark it built (one already there
    wins: another run built the same content)."""
    if (home / BUILT_MARKER).is_file():
        return
    home.mkdir(parents=True, exist_ok=True)
    os.chmod(home, 0o755)
    os.chmod(home.parent, 0o755)
    with open(home.parent / ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (home / BUILT_MARKER).is_file():
            return
        if (home / "venv").exists():  # a build interrupted before its marker
            remove_tree(home / "venv")
        os.chmod(staging, 0o755)
        shutil.move(str(staging / "venv"), str(home / "venv"))
        marker = {"sha256": sha256, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        (home / BUILT_MARKER).write_text(json.dumps(marker, indent=1) + "\n")


def ensure_built(submission: Submission, echo: Echo = _quiet) -> None:
    """Make sure `submission`'s virtualenv is on this machine (a Ray node, or a results
    folder cleaned since): build it from its source, in a sandbox, if it is not."""
    home = Path(submission.folder)
    if (home / BUILT_MARKER).is_file() and Path(submission.python).exists():
        return
    source = Path(submission.source)
    if source_problem(source) or content_sha256(source) != submission.sha256:
        raise SubmissionError(f"{source}: not here, or not the content entered (sha256 {submission.sha256[:12]})")
    staging = Path(tempfile.mkdtemp(prefix="arena-submission-"))
    try:
        build(source, staging / "build", submission.wheelhouse, submission.network, echo, submission.quota)
        install_build(submission.sha256, staging / "build", home)
    finally:
        remove_tree(staging)


if __name__ == "__main__":
    sys.exit(probe_main())
