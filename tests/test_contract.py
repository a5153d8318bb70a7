"""The contract between the host and the adapters (:mod:`dokobot.host.contract`).

An adapter reaches the host only through the typed methods of :class:`Host`: no
``getattr``/``hasattr``/``setattr`` by name into the service, no ``ask_service``, no reach
past the contract into the host's router or store. The service implements every member of
the contract (mypy checks it too: :class:`~dokobot.host.service.Service` subclasses
:class:`Host`, so a missing or mistyped method is an error of ``mypy --strict``).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from dokobot.host.contract import BareHost, Host
from dokobot.host.service import Service

ROOT = Path(__file__).resolve().parent.parent / "dokobot"
ADAPTER_FILES = sorted([*(ROOT / "adapters").rglob("*.py"), ROOT / "console.py"])
BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})
PAST_THE_CONTRACT = frozenset({"router", "store"})
"""The host's parts behind the contract: an adapter never reads them of the service."""
WIRING = frozenset({"run_console"})
"""Functions that build a host and hand it to an adapter (they hold the concrete service)."""


def contract_members() -> set[str]:
    """Every method and attribute :class:`Host` declares."""
    methods = {n for n, v in vars(Host).items() if not n.startswith("_") and callable(v)}
    return methods | set(Host.__annotations__)


def _mentions_service(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Name) and "service" in n.id)
        or (isinstance(n, ast.Attribute) and "service" in n.attr)
        or (isinstance(n, ast.Constant) and n.value == "service")
        for n in ast.walk(node)
    )


def calls_by_name(source: str) -> list[str]:
    """What in ``source`` (an adapter's file) reaches the host by name or past the contract,
    as ``line: what``."""
    members = contract_members()
    found: list[str] = []
    tree = ast.parse(source)
    wiring: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in WIRING:
            wiring |= {n.lineno for n in ast.walk(node) if hasattr(n, "lineno")}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and node.id == "ask_service") or (
            isinstance(node, ast.Attribute) and node.attr == "ask_service"
        ):
            found.append(f"{node.lineno}: ask_service")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in BY_NAME
            and len(node.args) >= 2
        ):
            target, name = node.args[0], node.args[1]
            named = name.value if isinstance(name, ast.Constant) else None
            if _mentions_service(target) or named == "service" or named in members:
                found.append(f"{node.lineno}: {node.func.id}(…, {named!r})")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in PAST_THE_CONTRACT
            and _mentions_service(node.value)
            and node.lineno not in wiring
        ):
            found.append(f"{node.lineno}: service….{node.attr}")
    return found


def test_no_adapter_calls_the_host_by_name() -> None:
    assert len(ADAPTER_FILES) > 10  # the adapters were found
    offences = {
        str(path.relative_to(ROOT)): hits
        for path in ADAPTER_FILES
        if (hits := calls_by_name(path.read_text(encoding="utf-8")))
    }
    assert offences == {}


def test_the_check_finds_each_kind_of_call_by_name() -> None:
    cases = {
        'hook = getattr(self.service, "prompt_sent", None)': ["getattr(…, 'prompt_sent')"],
        'getattr(getattr(self, "service", None), "x", None)': [
            "getattr(…, 'x')",
            "getattr(…, 'service')",
        ],
        'hasattr(service, "boards")': ["hasattr(…, 'boards')"],
        'getattr(host, "pending_prompts")': ["getattr(…, 'pending_prompts')"],
        'ask_service(self.service, "holds", 1)': ["ask_service"],
        "self.service.router.tables.get(c)": ["service….router"],
        "lang = self.service.store.language(u)": ["service….store"],
    }
    for source, what in cases.items():
        assert [h.split(": ", 1)[1] for h in calls_by_name(source)] == what, source
    # what stays allowed: typed calls on the contract, getattr of other things, wiring
    fine = (
        "self.service.prompt_sent(c, u)\n"
        'getattr(item, "label", None)\n'
        "def run_console():\n    service.router.langs[u] = 'en'\n"
    )
    assert calls_by_name(fine) == []


def test_the_service_keeps_the_contract() -> None:
    members = contract_members()
    assert {"handle", "listener", "prompt_sent", "holds", "pending_prompts"} <= members
    service = Service.in_memory(bots=False)
    assert isinstance(service, Host)
    for name in sorted(members):
        assert hasattr(service, name), name
        assert hasattr(BareHost(), name), name
        declared = getattr(Host, name, None)
        if callable(declared):
            # same parameters, and async where the contract is async
            want = inspect.signature(declared)
            for impl in (Service, BareHost):
                got = inspect.signature(getattr(impl, name))
                assert list(got.parameters) == list(want.parameters), (impl, name)
                is_async = inspect.iscoroutinefunction(declared)
                assert inspect.iscoroutinefunction(getattr(impl, name)) == is_async, name


def test_a_service_without_a_method_of_the_contract_is_no_host() -> None:
    class Partial:
        listener = None
        boards = False

        async def handle(self, inp: object) -> list[object]:
            return []

    assert not isinstance(Partial(), Host)
    assert isinstance(BareHost(), Host)


async def test_the_bare_host_answers_as_a_host_that_knows_nothing() -> None:
    host = BareHost()
    assert host.decision("x:1") is None and host.pending_prompts("x:u") == []
    assert host.holds("x:1") and not host.opens_thread("x:1")
    assert host.channel_language("x:1") == "en" == host.reader_language("x:u", "x:1")
    assert await host.preference_of("x:u", "deck") is None and host.language_of("x:u") is None
    assert await host.nick_history("x:") == [] and await host.start() == []


async def test_the_service_answers_the_console_questions() -> None:
    from dokobot.host.events import Input

    service = Service.in_memory(seed=1, bots=True)
    try:
        assert service.on_turn("console") is None
        for text in ("/join", "/join bot", "/join bot", "/join bot", "/start"):
            await service.handle(Input("console", "console:anna", "anna", text, admin=True))
            await service.idle()
        table = service.router.tables["console"]
        assert table.game is not None
        seat = table.seats[table.game.turn]
        assert service.on_turn("console") == (seat.name, None if seat.bot else seat.user)
        assert service.reader_language("console:anna", "console") == "en"
        await service.remember_nick("irc:n:anna", "irc:n:Anna")
        assert await service.nick_history("irc:n:") == [("irc:n:anna", "irc:n:Anna")]
    finally:
        await service.close()


def test_the_discord_adapter_holds_its_parts_and_mixes_in_none() -> None:
    """Each feature of the Discord adapter is an object it holds (docs/development.md,
    "Inside the Discord adapter"): no class of dokobot's is a base of the adapter's, but the
    adapter itself (the sharded one adds only discord.py's sharded client)."""
    from dokobot.adapters.discord import DiscordAdapter, ShardedDiscordAdapter

    for adapter in (DiscordAdapter, ShardedDiscordAdapter):
        ours = [
            c.__qualname__
            for c in adapter.__mro__
            if c.__module__.startswith("dokobot.") and c not in (adapter, DiscordAdapter)
        ]
        assert ours == [], adapter
