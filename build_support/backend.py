"""The build backend: setuptools' own, plus mypy as a build requirement when
`FLIP_ARENA_COMPILE=1` asks for a compiled install (setup.py, docs/compiled.md)."""

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (every other hook as setuptools has it)

COMPILER = ["mypy>=1.11"]


def _requires(hook, config_settings):
    """setuptools' requirements (it runs setup.py to find them: not compiling then, since
    mypy is not installed yet), plus mypy when compiling."""
    asked = os.environ.get("FLIP_ARENA_COMPILE")
    os.environ["FLIP_ARENA_COMPILE"] = "0"
    try:
        requires = hook(config_settings)
    finally:
        if asked is None:
            del os.environ["FLIP_ARENA_COMPILE"]
        else:
            os.environ["FLIP_ARENA_COMPILE"] = asked
    return requires + (COMPILER if asked == "1" else [])


def get_requires_for_build_wheel(config_settings=None):
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _requires(_setuptools.get_requires_for_build_editable, config_settings)
