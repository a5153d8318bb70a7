"""Platform knowledge lives in its adapter: no module outside ``dokobot/adapters/`` names a
chat platform in its code.

The rule: no identifier (a name, an attribute, an argument, a keyword, a function, class
or imported module) and no string that is not a docstring in ``dokobot/`` outside
``dokobot/adapters/`` contains ``discord``, ``matrix``, ``slash`` or ``irc`` (as a word or a
word's part: ``irc_networks``, ``"irc:"``). Docstrings and comments may name a platform as
an example. :data:`WIRING` is the layer that builds the adapters from the configuration;
the words people read and type are in the language files, which this test does not read.
No module is excepted (the last one, the PostgreSQL schema, lost its platforms' lease keys
with its migration 4: see tests/test_pg_schema_upgrade.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "dokobot"
PLATFORM = re.compile(r"(?i)discord|matrix|slash|(?<![a-z])irc(?![a-z])")
WIRING = frozenset({"config.py", "runner.py", "cli.py"})
"""The programs: they read each adapter's settings and start the adapters."""


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def words(source: str) -> Iterator[tuple[int, str]]:
    """(line, word) of every identifier and every string but docstrings in ``source``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.arg):
            yield line, node.arg
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.value.lineno, node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.alias)):
            yield line, node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        ):
            yield line, node.value


def platform_words(source: str) -> list[str]:
    return [f"{line}: {word[:40]!r}" for line, word in words(source) if PLATFORM.search(word)]


def test_no_module_outside_the_adapters_names_a_platform() -> None:
    naming = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("adapters/") or rel in WIRING:
            continue
        found = platform_words(path.read_text(encoding="utf-8"))
        if found:
            naming[rel] = found
    assert naming == {}, {k: v[:3] for k, v in naming.items()}


def test_the_rule_finds_a_platform_in_code_not_in_docstrings() -> None:
    source = '''
"""A module that mentions IRC and Discord in its docstring."""
from dokobot.adapters.discord import x
def f(irc_networks, *, slash=1):
    """IRC, only as an example."""
    key = "irc:" + str(irc_networks)
    return matrix_of(key, discord=True)
'''
    found = [hit.split(": ", 1)[1] for hit in platform_words(source)]
    assert sorted(found) == sorted(
        ["'dokobot.adapters.discord'", "'irc_networks'", "'irc_networks'", "'slash'",
         "'irc:'", "'matrix_of'", "'discord'"]
    )  # fmt: skip
    assert platform_words('"""Discord."""\nx = "circle"\n') == []
