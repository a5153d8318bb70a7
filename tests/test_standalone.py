"""Issue 12, item 1: the repository stands alone; no test reads the workspace's shared folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

from testdata import CONFORMANCE

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def test_no_test_reads_outside_the_repository() -> None:
    folder = "sha" + "red"  # spelled apart so that this file does not match itself
    outside = re.compile(r'parent\.parent\.parent|ROOT\.parent|"\.\./|"' + folder + '"')
    offenders = [
        f"{path.name}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert offenders == []


def test_the_conformance_games_are_in_the_repository() -> None:
    assert CONFORMANCE.is_relative_to(ROOT)
    games = sum(
        1
        for path in CONFORMANCE.glob("*.expected.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
        if json.loads(line)
    )
    assert games == 76
    for path in CONFORMANCE.glob("*.expected.jsonl"):
        assert path.with_name(path.name.replace(".expected.jsonl", ".doko")).is_file()


def test_readme_links_the_rules_of_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "shared folder" not in readme
    links = re.findall(r"\]\(([^)#]+\.md)\)", readme)
    assert "docs/rules.md" in links
    for link in links:
        assert (ROOT / link).is_file(), link
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for heading in ("Cards", "Game types and trumps", "Reservations", "Announcements", "Options"):
        assert re.search(rf"^## \d+\. {heading}$", rules, flags=re.M), heading


def test_the_rules_document_lists_every_option() -> None:
    from dokobot.host.options import TableOptions

    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for name in TableOptions.names():
        assert f"| `{name}` |" in rules, name
