"""The layers of dokobot/: a module imports only from its own layer or lower ones.

Every import counts (module level, inside a function, under ``if TYPE_CHECKING:``), as in
``tests/test_import_cycles.py``. The table :data:`LAYERS` is the one place that says where a
package or a top-level module sits; a module of dokobot/ that no row names fails the test.

* base: the package itself (its version), ``bounded`` (size-bounded containers) and
  ``names`` (how player names are cleaned and compared): no rules, no I/O, no dokobot import;
* ``engine``: the rules; ``languages``: the registry of languages and their files (the words
  people read and type; a card notation is data for the engine); ``ai``: the computer
  players, on the engine;
* ``stats``: statistics from finished-game records (it reads them through a protocol of its
  own, not the store's class); ``store``: the journal and the finished games, whose record
  type is the statistics' :class:`~dokobot.stats.FinishedGame`;
* ``host``: tables, commands, router, the durable service (which keeps a store and the
  statistics);
* ``render`` (pictures) and ``web`` (the read-only pages);
* the adapters: ``adapters`` (Discord, IRC) and ``console`` (the terminal);
* the programs: ``config`` (reads the file every program is configured by, including the
  adapters' settings), ``runner`` (runs the adapters and the web server together) and ``cli``.

Besides, the adapters know nothing of the rules: no adapter imports ``dokobot.engine`` (what
they need of cards and commands they get through the host).
"""

from __future__ import annotations

from test_import_cycles import _graph

LAYERS: tuple[tuple[str, ...], ...] = (
    ("dokobot", "dokobot.bounded", "dokobot.names"),
    ("dokobot.engine",),
    ("dokobot.languages",),
    ("dokobot.ai",),
    ("dokobot.stats",),
    ("dokobot.store",),
    ("dokobot.host",),
    ("dokobot.render", "dokobot.web"),
    ("dokobot.adapters", "dokobot.console"),
    ("dokobot.config", "dokobot.runner", "dokobot.cli"),
)
"""Lowest first: a module may import from its own row and the rows above it."""

ADAPTERS = ("dokobot.adapters", "dokobot.console")
RULES = "dokobot.engine"


def _owner(module: str) -> str:
    """The longest entry of :data:`LAYERS` that is ``module`` or a package holding it."""
    names = [n for row in LAYERS for n in row]
    owners = [n for n in names if module == n or module.startswith(n + ".")]
    assert owners, f"{module} is in no layer: add it to LAYERS in tests/test_layers.py"
    return max(owners, key=len)


def layer(module: str) -> int:
    owner = _owner(module)
    return next(i for i, row in enumerate(LAYERS) if owner in row)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a higher layer, and every adapter's import of the rules."""
    out = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if layer(target) > layer(module):
                out.append(f"{module} -> {target}")
            elif any(_inside(module, a) for a in ADAPTERS) and _inside(target, RULES):
                out.append(f"{module} -> {target} (adapters know nothing of rules)")
    return out


def test_the_layer_check_finds_upward_imports() -> None:
    graph = {
        "dokobot.engine.game": {"dokobot.host.table"},
        "dokobot.host.table": {"dokobot.engine.game", "dokobot.bounded"},
        "dokobot.adapters.irc.text": {"dokobot.engine.notation", "dokobot.host.router"},
        "dokobot.cli": {"dokobot.adapters.irc"},
    }
    assert upward(graph) == [
        "dokobot.adapters.irc.text -> dokobot.engine.notation (adapters know nothing of rules)",
        "dokobot.engine.game -> dokobot.host.table",
    ]


def test_every_module_has_a_layer() -> None:
    for module in _graph():
        layer(module)


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward(_graph()) == []
