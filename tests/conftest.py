"""Shared test settings (`--slow` runs the long property tests) and the fixtures of the
end-to-end tests: a fake Discord (`fake`), a real ngIRCd (`ngircd`) and a real Matrix
homeserver (`synapse`, one per test process)."""

from __future__ import annotations

import ast
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

if TYPE_CHECKING:
    from discord_fake import FakeDiscord
    from irc_server import NgircdServer
    from pg_server import PgServer
    from synapse_server import SynapseServer

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(autouse=True)
def _computer_players_move_legally(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail any test in which a computer player chose an illegal action (the table logs it
    and plays the first legal action instead)."""
    yield
    bad = [
        r.getMessage()
        for r in caplog.get_records("call")
        if r.getMessage().startswith(("computer player illegal", "computer player made"))
    ]
    assert not bad, bad


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="run long property tests")


LONG = "long"
"""The mark of a test that takes ten seconds or more on a quiet machine: it starts before
the short ones (:func:`long_first`), so that no worker is left with it at the end."""


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("slow" if config.getoption("--slow") else "default")
    config.addinivalue_line("markers", f"{LONG}: ten seconds or more; starts first")


ONE_WORKER = frozenset({"synapse"})
"""Session fixtures too dear to start on both workers (a homeserver is seconds of CPU)."""


def shared_setups(folder: Path) -> dict[str, str]:
    """The test modules (as node ids begin) whose tests share what a worker sets up once,
    each with the name of what they share: a fixture of module scope (the bench scripts run
    at once, a built wheel; the module's own name), or one of :data:`ONE_WORKER` (its
    name: every module that uses it)."""
    found: dict[str, str] = {}
    for path in sorted(folder.glob("test_*.py")):
        module = f"{folder.name}/{path.name}"
        source = path.read_text(encoding="utf-8")
        if "scope" not in source and not any(name in source for name in ONE_WORKER):
            continue  # (parsing every test module is most of a second of CPU per process)
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            uses = sorted({a.arg for a in node.args.args} & ONE_WORKER)
            if node.name.startswith("test_") and uses:
                found[module] = uses[0]
                break
            if any(
                isinstance(d, ast.Call)
                and any(k.arg == "scope" and getattr(k.value, "value", None) == "module"
                        for k in d.keywords)
                for d in node.decorator_list
            ):  # fmt: skip
                found.setdefault(module, module)
    return found


def unit_of(nodeid: str, shared: dict[str, str]) -> str:
    """What the scheduler hands out at once: the name of the module's shared setup
    (:func:`shared_setups`), else the test alone."""
    return shared.get(nodeid.split("::", 1)[0], nodeid)


def long_first(tests: list[tuple[str, bool]], shared: dict[str, str]) -> list[str]:
    """The node ids of ``tests`` (each with whether it is marked :data:`LONG`), the units
    with the most long tests first, else in the collection's order (a unit's tests stay
    together and in order)."""
    weight: dict[str, int] = {}
    place: dict[str, int] = {}
    for nodeid, long in tests:
        unit = unit_of(nodeid, shared)
        weight[unit] = weight.get(unit, 0) + long
        place.setdefault(unit, len(place))
    units = sorted(place, key=lambda unit: (-weight[unit], place[unit]))
    members: dict[str, list[str]] = {unit: [] for unit in units}
    for nodeid, _ in tests:
        members[unit_of(nodeid, shared)].append(nodeid)
    return [nodeid for unit in units for nodeid in members[unit]]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests first (:func:`long_first`): xdist's workers hand the collection's
    order to the scheduler (:func:`pytest_xdist_make_scheduler`), which keeps it."""
    shared = shared_setups(Path(__file__).resolve().parent)
    by_id = {item.nodeid: item for item in items}
    tests = [(item.nodeid, item.get_closest_marker(LONG) is not None) for item in items]
    items[:] = [by_id[n] for n in long_first(tests, shared)]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``-n N`` (xdist's ``load``): every test is a unit of its own, as with ``load``, but
    the tests of each of :func:`shared_setups` go to one worker together (else each worker
    would run the bench scripts, build the wheel, start a homeserver). The units go out in
    the order of the collection, not the larger first: started together, the bench scripts
    (sixteen processes) and the wheel's build (a 120 s limit) slowed each other past their
    limits on a loaded machine. (xdist's ``loadgroup`` marks no test under pytest 9.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False
    shared = shared_setups(Path(__file__).resolve().parent)

    class SharedSetup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid, shared)

    return SharedSetup(config, log)  # type: ignore[arg-type]


@pytest.fixture
def ngircd() -> Iterator[NgircdServer]:
    """A fresh ngIRCd; fails (never skips) when it is missing: CI installs it."""
    from irc_server import NGIRCD_MISSING, NgircdServer, ngircd_path

    if ngircd_path() is None:
        pytest.fail(NGIRCD_MISSING, pytrace=False)
    with NgircdServer() as server:
        yield server


@pytest.fixture(scope="session")
def synapse() -> Iterator[SynapseServer]:
    """A Synapse homeserver for the whole test process (starting one is seconds of CPU);
    each test registers users of its own and sets its own limits
    (:meth:`~synapse_server.SynapseServer.limit`). Fails (never skips) when it is missing."""
    from synapse_server import SYNAPSE_MISSING, SynapseServer, synapse_installed

    if not synapse_installed():
        pytest.fail(SYNAPSE_MISSING, pytrace=False)
    with SynapseServer() as server:
        yield server


SPEED = 20.0
"""The fake's rate-limit windows run this much faster than Discord's (the tests' adapters
edit boards every 0.05 s instead of 1.5 s: the same pace, scaled)."""


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord (REST + gateway) that discord.py is patched to talk to, as strict as
    Discord (its limits on a clock :data:`SPEED` times faster)."""
    from discord_fake import FakeDiscord

    server = FakeDiscord(heartbeat_ms=300, speed=SPEED)
    await server.start()
    try:
        with server.patched():
            yield server
    finally:
        await server.stop()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throw-away PostgreSQL for the whole session; fails (never skips) when PostgreSQL
    is missing: CI installs it."""
    from pg_server import PG_MISSING, PgServer, pg_bin

    if pg_bin() is None:
        pytest.fail(PG_MISSING, pytrace=False)
    server = PgServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def pg_url(pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """The url of a fresh database on :func:`pg_server`; its password is in
    ``DOKOBOT_STORE_PASSWORD``."""
    from pg_server import PASSWORD

    if not pg_server.running:
        pg_server.start()
    monkeypatch.setenv("DOKOBOT_STORE_PASSWORD", PASSWORD)
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives, once per backend: an SQLite file, a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "dokobot.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url
