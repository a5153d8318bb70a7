"""Issue 14: no import cycles in dokobot/.

Every ``import`` and ``from … import`` of every module counts, wherever it is: at module
level, inside a function, under ``if TYPE_CHECKING:``. Relative imports are resolved; ``from
package import name`` is an import of the submodule ``package.name`` when there is one.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dokobot"


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of dokobot that module ``name`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            subs = [f"{mod}.{alias.name}" for alias in node.names]
            # ``from . import statements``: the module, not the package's __init__ (which
            # Python runs before any of its modules anyway)
            targets = subs if all(sub in modules for sub in subs) else [mod, *subs]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]  # a name in a module: the module
            if target and target != name:
                found.add(target)
    return found


@functools.cache
def _parsed() -> dict[str, frozenset[str]]:
    """The graph, parsed once per test process (this module and ``test_layers`` ask for it
    five times; each parse reads every module of dokobot/)."""
    modules = _modules()
    return {name: frozenset(_imports(name, path, modules)) for name, path in modules.items()}


def _graph() -> dict[str, set[str]]:
    """Module -> the modules of dokobot it imports (a copy of its own to change)."""
    return {name: set(deps) for name, deps in _parsed().items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(frozenset(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_relative_function_level_and_type_checking_imports() -> None:
    graph = _graph()
    assert "dokobot.host.router" in graph["dokobot.cli"]  # inside a function
    assert "dokobot.host.table" in graph["dokobot.host.router"]  # relative
    assert "dokobot.stats" in graph["dokobot.host.context"]  # under TYPE_CHECKING
    assert "dokobot.host.handlers.actions" in graph["dokobot.host.handlers"]  # from . import


def test_dokobot_has_no_import_cycles() -> None:
    found = cycles(_graph())
    assert [sorted(c) for c in found] == []


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for dep in graph[todo.pop()]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_computer_players_import_only_the_base() -> None:
    graph = _graph()
    players = ("dokobot.ai.simple", "dokobot.ai.heuristic", "dokobot.ai.search")
    assert not _reachable(graph, "dokobot.ai.base") & {"dokobot.ai.levels", *players}
    for player in players:
        assert "dokobot.ai.levels" not in _reachable(graph, player), player
    assert "dokobot.host.table" not in _reachable(graph, "dokobot.host.series")


def test_split_modules_keep_their_names_importable_from_the_old_places() -> None:
    from dokobot.engine import deck, game, playout
    from dokobot.host import bots, narration, prompts, seats, table

    assert table.sorted_hand is prompts.sorted_hand
    assert table.command_for is prompts.command_for
    assert table.illegal_params is narration.illegal_params
    assert table.SeatInfo is seats.SeatInfo
    assert table.BotFactory is bots.BotFactory and table.Bot is bots.Bot
    assert game.shuffled_deck is deck.shuffled_deck
    assert game.hands_from_kinds is deck.hands_from_kinds
    # The playout is the method itself (no wrapper frame on the rollouts' hot path).
    assert game.Game.playout is playout.playout
