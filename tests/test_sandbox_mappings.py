"""The shared-writable-mapping check (`arena.sandbox.mappings`): the kernel's answer
(PROCMAP_QUERY) and the maps text's are the same, whatever the mappings are."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from arena.sandbox import mappings

MAPPED = {
    "shared-writable": "mmap.mmap(-1, 4096)",
    "shared-read-only": "mmap.mmap(-1, 4096, prot=mmap.PROT_READ)",
    "private-writable": "mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)",
    "shared-file": "mmap.mmap(os.open(os.path.abspath(__file__), os.O_RDWR), 0, flags=mmap.MAP_SHARED)",
    "nothing": "None",
}


def both_answers(path: str) -> tuple[str | None, str | None]:
    fd = os.open(path, os.O_RDONLY)
    try:
        return mappings._query(fd), mappings._from_text(fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", sorted(MAPPED))
def test_kernel_query_finds_the_shared_writable_mapping_the_maps_text_shows(kind, tmp_path):
    """Another process (as the harness checks a zygote): mapped `kind`, then stopped."""
    script = tmp_path / "mapper.py"
    script.write_text(textwrap.dedent(f"""
        import mmap, os, signal, sys
        kept = {MAPPED[kind]}
        print("mapped", flush=True)
        sys.stdin.read()
    """))
    child = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"mapped\n"
        try:
            queried, listed = both_answers(f"/proc/{child.pid}/maps")
        except OSError as exc:
            pytest.skip(f"this kernel has no PROCMAP_QUERY: {exc}")
        assert (queried is None) == (listed is None) == (kind not in ("shared-writable", "shared-file"))
        if listed is not None:
            assert queried is not None and queried.split()[:2] == listed.split()[:2]  # the same range, "rw-s"
            assert mappings.shared_writable(f"/proc/{child.pid}/maps") == queried
    finally:
        child.kill()
        child.wait()


def test_own_shared_writable_mapping_is_found_and_then_gone():
    """As the zygote checks itself (/proc/self/maps), in a fresh interpreter."""
    code = textwrap.dedent("""
        import mmap
        from arena.sandbox import mappings
        seen = [mappings.shared_writable("/proc/self/maps")]
        shared = mmap.mmap(-1, 4096)
        seen.append(mappings.shared_writable("/proc/self/maps"))
        shared.close()
        seen.append(mappings.shared_writable("/proc/self/maps"))
        print(repr(seen))
    """)
    before, found, after = eval(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                               text=True).stdout)
    assert before is None and after is None
    assert found is not None and " rw-s " in found
