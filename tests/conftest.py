"""Shared fixtures: throwaway plugins installed as real entry points on sys.path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def write_plugin(root: Path, dist: str, module: str, source: str, version: str = "1.2.3") -> None:
    """Make `module` an `arena` entry point of a distribution `dist` under `root`,
    the way pip would install it (a module plus a .dist-info folder)."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{module} = {module}\n")


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A folder on sys.path where tests drop throwaway plugin distributions."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root
