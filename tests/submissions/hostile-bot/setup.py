# Runs when pip builds the submission: it must run only inside the build's sandbox.
import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack  # noqa: E402

attack.attack("setup")
setup()
