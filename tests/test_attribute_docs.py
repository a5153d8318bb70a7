"""An attribute's docstring stands right below the attribute it describes: two strings in a
row in a class or function body mean that one of them was left behind when an attribute
moved (the tools that read attribute docstrings take the string below an assignment)."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _is_string(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def misplaced(source: str) -> list[int]:
    """The lines of strings that follow another string in a body.

    >>> misplaced('class A:\\n    x: int = 0\\n    \"\"\"x.\"\"\"\\n    y: int = 0\\n')
    []
    >>> misplaced('class A:\\n    x: int = 0\\n    \"\"\"x.\"\"\"\\n    \"\"\"y.\"\"\"\\n    y: int = 0\\n')
    [4]
    """
    lines = []
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in pairwise(body):
            if _is_string(before) and _is_string(after):
                lines.append(after.lineno)
    return lines


def test_no_docstring_is_left_below_another() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "dokobot").rglob("*.py"))
        for line in misplaced(path.read_text(encoding="utf-8"))
    ]
    assert found == [], f"a docstring below another one (not below its attribute): {found}"
