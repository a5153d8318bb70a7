"""Issue 14: no import cycle between host/series and host/table, nor between ai/base and the
computer players (imports inside functions and under TYPE_CHECKING count too)."""

from __future__ import annotations

import ast
from pathlib import Path

import dokobot

ROOT = Path(dokobot.__file__).parent


def _module_name(path: Path) -> str:
    parts = ["dokobot", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every dokobot module -> the dokobot modules it imports anywhere in its text."""
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{module}.{a.name}" for a in node.names]
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    deps.add(target)
        graph[name] = deps
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for dep in graph[todo.pop()]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_the_graph_sees_function_level_and_type_checking_imports() -> None:
    graph = import_graph()
    # host/service imports the computer players inside a function only.
    assert "dokobot.ai" in graph["dokobot.host.service"]
    assert "dokobot.host.table" in graph["dokobot.host.board"]


def test_series_and_table_import_no_cycle() -> None:
    graph = import_graph()
    for module in ("dokobot.host.series", "dokobot.host.table"):
        assert module not in reachable(graph, module), module
    assert "dokobot.host.table" not in reachable(graph, "dokobot.host.series")


def test_computer_players_import_only_the_base() -> None:
    graph = import_graph()
    players = ("dokobot.ai.simple", "dokobot.ai.heuristic", "dokobot.ai.search")
    for module in ("dokobot.ai.base", "dokobot.ai.levels", *players):
        assert module not in reachable(graph, module), module
    assert not reachable(graph, "dokobot.ai.base") & {"dokobot.ai.levels", *players}
    for player in players:
        assert "dokobot.ai.levels" not in reachable(graph, player), player


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
