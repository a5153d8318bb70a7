"""`/export`: finished games only, no seed, admin lines, never blocks the event loop."""

from __future__ import annotations

import threading

from dokobot.engine.cards import card_ascii
from dokobot.host.events import Event, Input
from dokobot.host.journal import Record
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import Table, command_for, sorted_hand
from dokobot.store import MemoryStore

NAMES = ("anna", "ben", "carl", "dora")


def _inp(user: str, name: str, text: str, admin: bool = False) -> Input:
    return Input("c", user, name, text, admin=admin)


async def _game(svc: Service, until: int | None = None) -> None:
    """Start a game and play it (``until``: stop after that many actions)."""
    table = svc.router.tables["c"]
    await svc.handle(_inp("u0", "anna", "/start"))
    game = table.game
    assert game is not None
    while table.running and (until is None or len(game.log) < until):
        seat = game.turn
        await svc.handle(_inp(table.seats[seat].user, table.seats[seat].name,
                              command_for(game.legal_actions()[0])))  # fmt: skip


async def test_mid_game_export_holds_no_seed_and_no_hand_of_the_running_game() -> None:
    svc = Service(Router(seed=8), MemoryStore())
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join"))
    await _game(svc)
    await _game(svc, until=4 + 5)
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None and table.running
    for user, name in (("u1", "ben"), ("u9", "zoe")):  # a seated player and a spectator
        text = (await svc.handle(_inp(user, name, "/export")))[0].text
        assert "!seed" not in text
        assert text.count("!deal") == 1, "only the finished game's deal"
        for seat in range(4):
            unplayed = " ".join(card_ascii(c) for c in sorted_hand(None, game.hands[seat]))
            assert unplayed not in text
        assert "running game is left out" in text
        rep = Replayer()
        rep.run_text(text)
        assert rep.results() == [r.as_json() for r in table.finished]
    # once the game is over it is exported too
    await _game_rest(svc)
    text = (await svc.handle(_inp("u1", "ben", "/export")))[0].text
    assert text.count("!deal") == 2 and "left out" not in text


async def _game_rest(svc: Service) -> None:
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    while table.running:
        seat = game.turn
        await svc.handle(_inp(table.seats[seat].user, table.seats[seat].name,
                              command_for(game.legal_actions()[0])))  # fmt: skip


async def test_an_admins_option_change_is_exported_with_its_admin_line() -> None:
    svc = Service(Router(seed=2), MemoryStore())
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join"))
    # ben is not the owner: only a server admin's rights let him change an option
    refused = await svc.handle(_inp("u1", "ben", "/option second_heart10_wins on"))
    assert "owner" in refused[0].text
    await svc.handle(_inp("u1", "ben", "/option second_heart10_wins on", admin=True))
    await svc.handle(_inp("u9", "Mod Zoe", "/option stake 2", admin=True))
    await _game(svc)
    text = (await svc.handle(_inp("u0", "anna", "/export")))[0].text
    lines = text.splitlines()
    assert lines.index("!admin ben") < lines.index("ben: /option second_heart10_wins on")
    assert lines.index('!admin "Mod Zoe"') < lines.index('"Mod Zoe": /option stake 2')
    assert "!admin anna" not in lines  # the owner needs no admin rights
    rep = Replayer()
    rep.run_text(text)
    table = svc.router.tables["c"]
    assert rep.table.options == table.options
    assert rep.results() == [r.as_json() for r in table.finished]


async def test_export_of_1000_games_does_not_block_the_event_loop() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=3), store)
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join"))
    await _game(svc)
    journal = [Record.decode(x) for x in store.load_journal("c")]
    first = next(i for i, r in enumerate(journal) if r.kind == "deal")
    # 999 copies of the game's records, stored the way the service stores a table's records
    svc.router.tables["c"].journal.extend(journal[first:] * 999)
    assert await svc.persist("c")
    loop_thread = threading.get_ident()
    threads: list[int] = []
    handle = svc.router.handle

    def spy(inp: Input, table: Table | None = None) -> list[Event]:
        if inp.text == "/export":
            threads.append(threading.get_ident())
        return handle(inp, table)

    svc.router.handle = spy  # type: ignore[method-assign]
    events = await svc.handle(_inp("u0", "anna", "/export"))
    assert events[0].text.count("!deal") == 1000
    # the export (~0.7 s of work here) is built in a worker thread, never on the event loop
    assert threads and loop_thread not in threads


class _GatedStore(MemoryStore):
    """A store whose journal reads wait at a gate once it is closed: an export reading a
    long history, held for as long as the test wants."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.closed = False

    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        if self.closed:
            self.gate.wait(30)
        return super().load_journal(channel, start)


async def test_queued_exports_of_a_spectator_never_hold_up_a_move() -> None:
    """30 /export of a spectator at once: two are taken (one answered at a time, from a
    snapshot, without holding the table), 28 answered "busy" at once; a seated player's
    move is answered while the exports still read; they then export what was there."""
    import asyncio

    from dokobot.host.slowlane import PER_TABLE, PER_USER, SLOW_THREAD

    store = _GatedStore()
    svc = Service(Router(seed=5), store)
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join"))
    await _game(svc)
    await svc.handle(_inp("u0", "anna", "/start"))
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None and table.running
    store.closed = True
    try:
        # their languages in memory: a person's first input reads it in a worker thread
        # first, so the exports would reach the queues in the order of those reads
        await svc.langs.fetch(["u9", *(f"s{i}" for i in range(PER_TABLE))])
        spam = [asyncio.create_task(svc.handle(_inp("u9", "zoe", "/export"))) for _ in range(30)]
        others = [asyncio.create_task(svc.handle(_inp(f"s{i}", f"s{i}", "/export")))
                  for i in range(PER_TABLE)]  # fmt: skip
        await asyncio.sleep(0.1)
        busy = [t for t in spam if t.done()]
        assert len(busy) == 30 - PER_USER
        assert all(t.result()[0].text.startswith("Busy with other requests") for t in busy)
        full = [t for t in others if t.done()]  # the table's queue holds PER_TABLE at most
        assert len(full) == PER_USER and all("Busy" in t.result()[0].text for t in full)
        seat = game.turn
        before = len(game.log)
        move = svc.handle(_inp(table.seats[seat].user, table.seats[seat].name,
                               command_for(game.legal_actions()[0])))  # fmt: skip
        events = await asyncio.wait_for(move, timeout=10)
        assert len(game.log) == before + 1
        assert not any(getattr(e, "kind", "") == "error" for e in events)
        assert not any(t.done() for t in spam if t not in busy), "the exports still read"
    finally:
        store.gate.set()
    answers = [(await t)[0].text for t in [*spam, *others]]
    exports = [text for text in answers if not text.startswith("Busy")]
    assert len(exports) == PER_TABLE
    # answered by the slow commands' own worker threads, never those that store moves
    assert {t.name.split("_")[0] for t in threading.enumerate()} >= {SLOW_THREAD}
    for text in exports:
        assert "running game is left out" in text
        rep = Replayer()
        rep.run_text(text)
        assert rep.results() == [r.as_json() for r in table.finished]
