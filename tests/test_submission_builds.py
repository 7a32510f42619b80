"""Builds are bounded (issue 33, item 2): a submission's build writes only into a
filesystem of its own with a byte and a file quota, archives are checked before anything
unpacks them, and no process of a build outlives pip or its deadline.

Each attack is refused with a one-line error. The default suite builds with a small
quota (64 MiB, 2,000 files); the `slow` tests run the issue's attacks against the
default quota (1 GiB, 100,000 files). Archive checks need no sandbox; builds need one and,
for the quota itself, root, a loop device and mkfs.ext4 (skipped, saying which, if not)."""

import io
import json
import os
import shutil
import stat
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from arena import build_space
from arena.archives import MAX_RATIO, archive_problem
from arena.build_space import Quota, QuotaSpace, move_tree, quota_unavailable, tree_size
from arena.sandbox import sandbox_unavailable
from arena.submissions import SubmissionError, build

SMALL = Quota(64, 2000)
FIXTURES = Path(__file__).parent / "submissions"
needs_sandbox = pytest.mark.skipif(sandbox_unavailable() is not None,
                                   reason=f"no sandbox can be made here: {sandbox_unavailable()}")
needs_quota = pytest.mark.skipif(quota_unavailable() is not None,
                                 reason=f"no loop-mounted build filesystem here: {quota_unavailable()}")

SETUP_TAIL = '\nfrom setuptools import setup\nsetup(name="attack-bot", version="0.1", py_modules=[])\n'


def attack_project(folder: Path, code: str) -> Path:
    """A project folder whose setup.py runs `code` (at every call pip makes of it)."""
    folder.mkdir(parents=True)
    (folder / "setup.py").write_text("import os, subprocess, sys, tempfile\n" + textwrap.dedent(code) + SETUP_TAIL)
    return folder


def one_line_error(excinfo: pytest.ExceptionInfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and "Traceback" not in message, message
    return message


def processes_with(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.fixture
def host_bytes(monkeypatch):
    """The most of the host's disk each build's image held (its allocated blocks at close)."""
    seen: list[int] = []
    close = QuotaSpace.close

    def measured(self):
        if self.image.exists():
            seen.append(os.stat(self.image).st_blocks * 512)
        close(self)

    monkeypatch.setattr(QuotaSpace, "close", measured)
    return seen


# -- archives, before anything unpacks them ------------------------------------------------


def wheel(path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


def sdist(path: Path, members: dict[str, bytes], symlink: str | None = None, hardlink: str | None = None) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, kind in ((symlink, tarfile.SYMTYPE), (hardlink, tarfile.LNKTYPE)):
            if name is not None:
                info = tarfile.TarInfo(name)
                info.type, info.linkname = kind, "/etc/passwd"
                archive.addfile(info)
    return path


def test_a_plain_wheel_and_sdist_pass_the_archive_checks(tmp_path):
    assert archive_problem(wheel(tmp_path / "ok-0.1-py3-none-any.whl", {"ok.py": b"x = 1\n" * 100}), SMALL) is None
    assert archive_problem(sdist(tmp_path / "ok-0.1.tar.gz", {"ok-0.1/setup.py": b"pass\n"}), SMALL) is None


def test_a_zip_bomb_wheel_is_refused_before_it_is_unpacked(tmp_path):
    bomb = wheel(tmp_path / "bomb-0.1-py3-none-any.whl", {"bomb/zeros.bin": bytes(20 << 20)})
    assert bomb.stat().st_size < (20 << 20) // MAX_RATIO
    assert "zip bomb" in archive_problem(bomb, SMALL)


def test_an_sdist_that_unpacks_past_the_byte_quota_is_refused(tmp_path):
    big = sdist(tmp_path / "big-0.1.tar.gz", {f"big-0.1/part{i}.bin": os.urandom(1 << 20) for i in range(3)})
    assert "more than 2 MiB" in archive_problem(big, Quota(2, 500))


def test_an_archive_with_more_members_than_the_file_quota_is_refused(tmp_path):
    many = wheel(tmp_path / "many-0.1-py3-none-any.whl", {f"many/m{i}.py": b"" for i in range(1001)})
    assert "more than 1,000 members" in archive_problem(many, Quota(64, 1000))


@pytest.mark.parametrize("member", ["../../evil.py", "/etc/cron.d/evil", "pkg/../../evil.py", "pkg\\..\\evil.py",
                                    "C:/evil.py"])
def test_an_archive_member_outside_its_folder_is_refused(tmp_path, member):
    problem = archive_problem(wheel(tmp_path / "trav-0.1-py3-none-any.whl", {member: b"x"}), SMALL)
    assert problem is not None and ("outside" in problem or "backslashes" in problem)
    problem = archive_problem(sdist(tmp_path / "trav-0.1.tar.gz", {member: b"x"}), SMALL)
    assert problem is not None and ("outside" in problem or "backslashes" in problem)


def test_link_members_are_refused_in_wheels_and_sdists(tmp_path):
    assert "not a file or folder" in archive_problem(
        wheel(tmp_path / "l-0.1-py3-none-any.whl", {"l/a.py": b""}, link="l/passwd"), SMALL)
    assert "is a link" in archive_problem(sdist(tmp_path / "s-0.1.tar.gz", {"s/a.py": b""}, symlink="s/p"), SMALL)
    assert "is a link" in archive_problem(sdist(tmp_path / "h-0.1.tar.gz", {"h/a.py": b""}, hardlink="h/p"), SMALL)


def test_a_member_named_twice_is_refused(tmp_path):
    path = tmp_path / "dup-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive, pytest.warns(UserWarning):
        archive.writestr("dup/a.py", "1")
        archive.writestr("dup/a.py", "2")
    assert "twice" in archive_problem(path, SMALL)


@needs_sandbox
def test_build_refuses_a_bomb_before_making_anything(tmp_path):
    bomb = wheel(tmp_path / "bomb-0.1-py3-none-any.whl", {"bomb/zeros.bin": bytes(20 << 20)})
    with pytest.raises(SubmissionError) as excinfo:
        build(bomb, tmp_path / "staging", quota=SMALL)
    assert "zip bomb" in one_line_error(excinfo)
    assert not (tmp_path / "staging").exists()


# -- the build's filesystem ---------------------------------------------------------------


@needs_quota
def test_the_quota_space_holds_its_bytes_and_files_and_gives_blocks_back(tmp_path):
    space = QuotaSpace(tmp_path, Quota(64, 1000))
    root = space.open()
    try:
        with pytest.raises(OSError) as full:
            with open(root / "fill", "wb") as out:
                for _ in range(80):
                    out.write(b"\xa5" * (1 << 20))
        assert full.value.errno in build_space.NO_SPACE and space.full()
        assert os.stat(space.image).st_blocks * 512 <= Quota(64, 1000).bytes
        (root / "fill").unlink()
        with pytest.raises(OSError) as files:
            for i in range(1200):
                (root / f"f{i}").touch()
        assert files.value.errno in build_space.NO_SPACE
    finally:
        space.close()
    assert not space.image.exists() and not root.exists()


def test_move_tree_keeps_hard_and_symbolic_links_and_refuses_sparse_giants(tmp_path):
    source = tmp_path / "venv"
    (source / "lib").mkdir(parents=True)
    (source / "lib" / "a.py").write_bytes(b"a" * 4096)
    os.link(source / "lib" / "a.py", source / "lib" / "b.py")
    os.symlink("/etc/passwd", source / "lib" / "passwd")
    move_tree(source, tmp_path / "out", Quota(64, 1000))
    moved = tmp_path / "out" / "lib"
    assert os.path.samefile(moved / "a.py", moved / "b.py") and os.readlink(moved / "passwd") == "/etc/passwd"
    assert tree_size(tmp_path / "out") == (4096, 4) and not any(source.rglob("*.py"))
    giant = tmp_path / "giant"
    giant.mkdir()
    with open(giant / "sparse.bin", "wb") as out:
        out.truncate(100 << 20)  # no block on disk, 100 MiB when copied
    with pytest.raises(build_space.OverQuota) as excinfo:
        move_tree(giant, tmp_path / "giant-out", Quota(64, 1000))
    assert "sparse" in str(excinfo.value) and not (tmp_path / "giant-out").exists()


@needs_quota
def test_a_space_left_mounted_by_a_killed_harness_is_removed_by_the_next(tmp_path):
    space = QuotaSpace(tmp_path, Quota(64, 1000))
    space.open()
    os.close(space._lock)  # as if its process had died with -9: nothing holds the image
    space._lock = None
    build_space.remove_stale()
    assert not os.path.ismount(space.path) and not space.image.exists() and not space.path.exists()


@needs_quota
def test_a_space_in_use_is_left_alone_by_the_stale_cleanup(tmp_path):
    space = QuotaSpace(tmp_path, Quota(64, 1000))
    space.open()
    try:
        build_space.remove_stale()
        assert os.path.ismount(space.path) and space.image.exists()
    finally:
        space.close()
    assert not os.path.ismount(space.path)


# -- attacks from setup.py ------------------------------------------------------------------


@needs_sandbox
@needs_quota
def test_a_setup_py_writing_past_the_byte_quota_is_a_one_line_build_failure(tmp_path, host_bytes):
    project = attack_project(tmp_path / "filler", """
        chunk = b"\\xa5" * (1 << 20)  # not zeros: nothing could store it sparse
        for i in range(8):
            with open(os.path.join(tempfile.gettempdir(), f"fill-{i}"), "wb") as out:
                for _ in range(20):
                    out.write(chunk)
    """)
    with pytest.raises(SubmissionError) as excinfo:
        build(project, tmp_path / "staging", quota=SMALL)
    assert "more than its quota of 64 MiB and 2,000 files" in one_line_error(excinfo)
    assert host_bytes and max(host_bytes) <= SMALL.bytes
    assert not list((tmp_path / "staging").glob("*.img"))


@needs_sandbox
@needs_quota
def test_a_setup_py_writing_past_the_file_quota_is_a_one_line_build_failure(tmp_path):
    project = attack_project(tmp_path / "spray", """
        where = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spray")
        os.makedirs(where, exist_ok=True)
        for i in range(3000):
            open(os.path.join(where, str(i)), "w").close()
    """)
    with pytest.raises(SubmissionError) as excinfo:
        build(project, tmp_path / "staging", quota=SMALL)
    assert "more than its quota" in one_line_error(excinfo)


@needs_sandbox
def test_a_detached_child_of_the_build_ends_when_pip_exits(tmp_path):
    token = f"arena-detached-{os.getpid()}-{tmp_path.name}"
    project = attack_project(tmp_path / "daemon", f"""
        marker = os.path.join(sys.prefix, "daemon-started")
        subprocess.Popen([sys.executable, "-c", "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(3600)",
                          marker, {token!r}],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    """)
    build(project, tmp_path / "staging", quota=SMALL, timeout=120)  # not its deadline: pip's exit ended it
    assert (tmp_path / "staging" / "venv" / "daemon-started").exists()  # it ran during the build
    assert processes_with(token) == []


@needs_sandbox
def test_a_build_held_open_past_its_deadline_is_killed_whole(tmp_path):
    token = f"arena-holder-{os.getpid()}-{tmp_path.name}"
    project = attack_project(tmp_path / "holder", f"""
        # keeps pip's output pipe open, so pip waits for it forever
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", {token!r}], start_new_session=True)
    """)
    with pytest.raises(SubmissionError) as excinfo:
        build(project, tmp_path / "staging", quota=SMALL, timeout=8)
    assert "took longer than 8 s" in one_line_error(excinfo)
    assert processes_with(token) == []
    assert not list((tmp_path / "staging").glob("*.img"))


# -- the attacks at the default quota (slow) ------------------------------------------


@pytest.mark.slow
@needs_sandbox
@needs_quota
def test_eight_times_500_mib_from_setup_py_never_reach_the_host(tmp_path, host_bytes):
    project = attack_project(tmp_path / "filler", """
        chunk = b"\\xa5" * (1 << 20)
        for i in range(8):
            with open(os.path.join(tempfile.gettempdir(), f"fill-{i}"), "wb") as out:
                for _ in range(500):
                    out.write(chunk)
    """)
    with pytest.raises(SubmissionError) as excinfo:
        build(project, tmp_path / "staging")
    assert "more than its quota of 1,024 MiB and 100,000 files" in one_line_error(excinfo)
    assert host_bytes and max(host_bytes) <= Quota().bytes


@pytest.mark.slow
@needs_sandbox
@needs_quota
def test_more_files_than_the_default_quota_is_a_build_failure(tmp_path):
    project = attack_project(tmp_path / "spray", """
        where = os.path.join(tempfile.gettempdir(), "spray")
        os.makedirs(where, exist_ok=True)
        for i in range(110_000):
            open(os.path.join(where, str(i)), "w").close()
    """)
    with pytest.raises(SubmissionError) as excinfo:
        build(project, tmp_path / "staging")
    assert "more than its quota" in one_line_error(excinfo)


@pytest.mark.slow
def test_a_3_mb_wheel_that_unpacks_to_3_gib_is_refused(tmp_path):
    path = tmp_path / "bomb-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for part in range(3):
            with archive.open(f"bomb/part{part}.bin", "w", force_zip64=True) as member:
                for _ in range(1024):
                    member.write(bytes(1 << 20))
    assert path.stat().st_size < 4 << 20
    problem = archive_problem(path, Quota())
    assert problem is not None and ("zip bomb" in problem or "more than 1,024 MiB" in problem)


def test_where_the_quota_space_should_work_but_cannot_be_made_the_build_fails_in_one_line(tmp_path, monkeypatch):
    from arena import submissions

    def broken(self):
        raise OSError("mkfs.ext4 failed: no\nspace on the host")

    monkeypatch.setattr(submissions, "quota_unavailable", lambda: None)
    monkeypatch.setattr(QuotaSpace, "_open", broken)
    with pytest.raises(SubmissionError) as excinfo:
        build(FIXTURES / "fixture-bot", tmp_path / "staging", quota=SMALL)
    assert "cannot make its build's filesystem (loop-mounted ext4 image): mkfs.ext4 failed: no space" in \
        one_line_error(excinfo)
    assert not (tmp_path / "staging" / "venv").exists()


# -- the quota in tournaments, arena validate and the provenance -----------------------------


def tournament(folder: Path, entry: str, head: str = "") -> Path:
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "quota"\nseed = 5\ndeals = 1\n{head}\n'
                    f'[[bots]]\nuse = "random"\n\n[[bots]]\nuse = "flip7-threshold"\n\n[[bots]]\n{entry}\n\n'
                    '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')
    return path


@needs_sandbox
@needs_quota
def test_a_tournaments_build_quota_bounds_its_builds_and_the_provenance_records_the_folder(tmp_path):
    from arena.cli import main
    from arena.store import Store, store_path
    from click.testing import CliRunner

    shutil.copytree(FIXTURES / "fixture-bot", tmp_path / "fixture-bot")
    attack_project(tmp_path / "filler", """
        with open(os.path.join(tempfile.gettempdir(), "fill"), "wb") as out:
            for _ in range(100):
                out.write(b"\\xa5" * (1 << 20))
    """)
    head = "build_quota_mb = 64\nbuild_quota_files = 2000"
    out = tmp_path / "results"
    refused = CliRunner().invoke(main, ["run", str(tournament(tmp_path, 'submission = "filler"', head)), "--out",
                                        str(out), "--workers", "1"])
    assert refused.exit_code == 2, refused.output
    (line,) = [line for line in refused.output.splitlines() if line.startswith("error:")]
    assert "bots[2].submission: filler: its build wrote more than its quota of 64 MiB and 2,000 files" in line
    assert not out.exists()
    played = CliRunner().invoke(main, ["run", str(tournament(tmp_path, 'submission = "fixture-bot"', head)), "--out",
                                       str(out), "--workers", "1"])
    assert played.exit_code == 0, played.output
    with Store.open(store_path(out)) as store:
        footprint = store.get("isolation")["submissions"]["fixture-bot"]
    (home,) = [p for p in (out / "submissions").iterdir() if p.is_dir()]
    assert footprint["sha256"] == home.name and footprint["build_quota"] == build_space.MECHANISM
    assert (footprint["build_quota_mb"], footprint["build_quota_files"]) == (64, 2000)
    assert (footprint["folder_bytes"], footprint["folder_files"]) == tree_size(home) and footprint["folder_bytes"] > 0
    assert json.loads((out / "run.json").read_text())["isolation"]["submissions"]["fixture-bot"] == footprint


@needs_sandbox
def test_validate_reports_the_folder_size_and_how_the_build_was_bounded(tmp_path):
    from arena.validate import Settings, format_report, validate_path

    report = validate_path(FIXTURES / "fixture-bot", Settings(games=1), quota=SMALL)
    install = report["install"]
    assert report["passed"] and install["folder_bytes"] > 0 and install["folder_files"] > 0
    assert (install["build_quota_mb"], install["build_quota_files"]) == (64, 2000)
    if quota_unavailable() is None:
        assert install["build_quota"] == build_space.MECHANISM
    assert (f"in {install['folder_files']:,} files (build quota 64 MiB and 2,000 files: {install['build_quota']})"
            in format_report(report))


@needs_sandbox
def test_where_no_quota_space_can_be_made_the_build_says_so_and_still_runs(tmp_path, monkeypatch):
    from arena import submissions

    monkeypatch.setattr(submissions, "quota_unavailable", lambda: "mounting a filesystem image needs root")
    said: list[str] = []
    build(FIXTURES / "fixture-bot", tmp_path / "staging", echo=said.append, quota=SMALL)
    assert (tmp_path / "staging" / "venv" / "bin" / "python").exists()
    assert any(line.startswith("warning:") and "without a quota (mounting a filesystem image needs root)" in line
               for line in said)
    assert submissions.quota_mechanism().startswith("not enforced (mounting a filesystem image needs root")
