"""The documentation site builds with ``mkdocs build --strict``: every page is in the
navigation, and no link or anchor between the pages is broken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "rules" / "index.html").is_file()
    assert "12. House rules" in (tmp_path / "rules" / "index.html").read_text(encoding="utf-8")


def test_every_code_citation_of_the_rules_names_a_section_of_the_rules_page() -> None:
    import re

    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", rules, flags=re.M))
    sections |= set(re.findall(r"^- \*\*(\d+\.\d+) ", rules, flags=re.M))
    cited = set()
    for folder in ("dokobot", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(re.findall(r"RULES §(\d+(?:\.\d+)?)", path.read_text(encoding="utf-8")))
    assert cited, "the code cites no section"
    assert cited <= sections, cited - sections
