"""Where the tests' data lives: inside the repository, so a clone stands alone."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
# The 76 conformance games (replay files and their expected results), copied from the
# project's shared folder; see data/README.md.
CONFORMANCE = DATA
