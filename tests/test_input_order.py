"""One person's inputs reach the table in the order they came, also while the first of them
waits for his language to be read from the store (:mod:`dokobot.host.userlangs`)."""

from __future__ import annotations

import asyncio
import threading
import time

from dokobot.host.dispatch import SendersInOrder
from dokobot.host.events import Input
from dokobot.host.journal import Record
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.userlangs import StoredLanguages
from dokobot.store import MemoryStore

ANNA = "u:anna"


class SlowLanguages(MemoryStore):
    """Reading the language of a person in ``stalled`` from this store goes on in its worker
    thread until the test lets it end (``answer``); ``reading``: such a read has begun."""

    def __init__(self, stalled: set[str]) -> None:
        super().__init__()
        self.stalled = stalled
        self.reading = threading.Event()
        self.answer = threading.Event()

    def language(self, user: str) -> str | None:
        if user in self.stalled:
            self.reading.set()
            self.answer.wait(10)
        return super().language(user)


def _inp(name: str, text: str) -> Input:
    return Input("c", f"u:{name}", name, text)


def _moves(store: MemoryStore, user: str) -> list[str]:
    """The journal lines of ``user`` at table "c", in the order they were applied."""
    lines = [Record.decode(x).line() for x in store.load_journal("c")]
    return [line for line in lines if line.startswith(f"{user.removeprefix('u:')}: ")]


async def _until(done: threading.Event) -> None:
    for _ in range(1000):
        if done.is_set():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the store's read never began")


def _busy_until_read(svc: Service, user: str, lang: str) -> None:
    """Hold the event loop's thread (as another table's work would) until the worker thread
    has put ``user``'s language in memory."""
    end = time.monotonic() + 10
    while svc.router.langs.get(user) != lang:
        assert time.monotonic() < end, "the language was never read"
        time.sleep(0.001)


async def test_a_second_input_does_not_overtake_the_first_that_waits_for_the_language() -> None:
    """Anna's ``/join`` waits for her language; the read ends while the loop is busy, and her
    ``/leave`` comes before the ``/join`` has gone on: the ``/leave`` finds the language in
    memory, but it is applied after the ``/join`` all the same (so Anna is not seated)."""
    store = SlowLanguages({ANNA})
    store.set_language(ANNA, "de")
    svc = Service(Router(seed=1), store)
    join = asyncio.create_task(svc.handle(_inp("anna", "/join")))
    await _until(store.reading)
    store.answer.set()
    _busy_until_read(svc, ANNA, "de")
    leave = asyncio.create_task(svc.handle(_inp("anna", "/leave")))
    await asyncio.gather(join, leave)
    assert _moves(store, ANNA) == ["anna: /join", "anna: /leave"]
    table = svc.router.tables.get("c")
    assert table is None or all(seat.user != ANNA for seat in table.seats)
    assert not svc.dispatch.in_order, "nobody's input waits: nobody is kept"
    await svc.close()


async def test_a_persons_inputs_wait_for_a_stalled_read_no_longer_than_their_deadline() -> None:
    """While the store does not answer, each of Anna's inputs goes on by its own deadline
    (then the table's language answers), in the order they came, and she is not kept."""
    store = SlowLanguages({ANNA})
    order = SendersInOrder(StoredLanguages(store))
    went: list[int] = []

    async def one(i: int) -> None:
        await order.turn(ANNA, within_s=0.2)
        went.append(i)

    tasks = [asyncio.create_task(one(0))]
    await _until(store.reading)
    tasks += [asyncio.create_task(one(i)) for i in (1, 2)]
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert went == [0, 1, 2]
    assert not store.answer.is_set() and order.langs.get(ANNA) is None, "still being read"
    assert not order
    store.answer.set()
    order.langs.close()


async def test_other_peoples_inputs_do_not_wait_for_a_persons_language() -> None:
    """Bob's ``/join`` is answered while Anna's earlier one waits for her language: he gets
    the seat before her (as if his message had been quicker on the network)."""
    store = SlowLanguages({ANNA})
    svc = Service(Router(seed=1), store)
    anna = asyncio.create_task(svc.handle(_inp("anna", "/join")))
    await _until(store.reading)
    events = await svc.handle(_inp("bob", "/join"))
    assert "bob joined" in events[0].text and not anna.done()
    store.answer.set()
    await anna
    assert [seat.user for seat in svc.router.tables["c"].seats] == ["u:bob", ANNA]
    await svc.close()
