"""A DM press handed to its table's process (:mod:`dokobot.adapters.discord.handed`) when
PostgreSQL, which holds each press's one outcome, is stopped at shard 0's decision (2.5 s
after the press): the person hears "not known yet", never "nothing happened", and the truth
once PostgreSQL is back. The store is stopped for real (``pg_ctl stop``)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
from collections.abc import Iterator
from typing import Any

import discord
import psycopg
import pytest
from pg_server import PASSWORD, PgServer
from psycopg.conninfo import make_conninfo

from dokobot.adapters.discord import handed, handoff
from dokobot.adapters.discord.handed import HandedPresses
from dokobot.adapters.discord.handoff import EXPIRED, TAKEN, Handoff, Press
from dokobot.adapters.discord.languages import Languages
from dokobot.host.contract import BareHost
from dokobot.host.events import Event
from dokobot.host.i18n import text
from dokobot.store import open_store

_IDS = itertools.count(9000)


class _Webhook:
    def __init__(self, said: list[str]) -> None:
        self.said = said

    async def send(self, content: str, **_: Any) -> None:
        self.said.append(content)


class _ShardZero(HandedPresses):
    """Shard 0's side of a handed-over press, its notices kept instead of sent."""

    def __init__(self, handoff: Handoff) -> None:
        host = BareHost()

        async def push(events: list[Event]) -> None:
            return None

        super().__init__(
            discord.Client(intents=discord.Intents.none()),
            host,
            handoff,
            Languages(discord.Client(intents=discord.Intents.none()), host),
            claim_within=0.0,
            note=lambda inp, events: None,
            push=push,
            marker_of=lambda table, event: None,
            enter=lambda: None,
            leave=lambda: None,
        )
        self.said: list[str] = []

    def _press_webhook(self, press: Press) -> Any:
        return _Webhook(self.said)


def _press() -> Press:
    return Press(1, "token", 2, "/play CQ", "♣Q", None, 3, "Anna", "en-US", "Your turn.",
                 next(_IDS))  # fmt: skip


@pytest.mark.parametrize("holder_took_it", [True, False])
async def test_an_unreachable_store_at_the_decision_is_not_known_yet_then_the_truth(
    pg_server: PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch, holder_took_it: bool
) -> None:
    monkeypatch.setattr(handed, "DECIDE_RETRY_S", 0.2)
    open_store(pg_url).close()  # the schema, with its table of decided presses
    conninfo = make_conninfo(pg_url, password=PASSWORD)
    holder, zero = Handoff(conninfo), Handoff(conninfo)
    press = _press()
    if holder_took_it:  # the holder took the press (and applied it) in time
        assert await holder.decide(press, TAKEN)
    await zero.decide(_press(), TAKEN)  # shard 0's connection is open before the outage
    shard = _ShardZero(zero)
    await asyncio.to_thread(pg_server.stop)
    try:
        deciding = asyncio.create_task(shard._decide_expired(press, "en"))
        for _ in range(200):
            if shard.said:
                break
            await asyncio.sleep(0.05)
        assert shard.said == [text("en", "discord.handoff_unknown")]
        await asyncio.sleep(1.0)
        assert not deciding.done()  # it keeps trying while the store is down
    finally:
        await asyncio.to_thread(pg_server.start)
    await asyncio.wait_for(deciding, 30)
    truth = "discord.handoff_counted" if holder_took_it else "discord.handoff_down"
    assert shard.said == [text("en", "discord.handoff_unknown"), text("en", truth)]
    # what it said holds: a press expired is never taken afterwards
    assert await holder.decide(press, TAKEN) is False
    await holder.close()
    await zero.close()


async def test_the_next_identify_turn_waits_for_ready_then_the_spacing(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process whose IDENTIFY is slow to reach Discord (a starved process) keeps the turn
    until READY came and ``spacing`` seconds after: Discord counts its 5 seconds from when
    it received the IDENTIFY, not from when the process took its turn."""
    conninfo = make_conninfo(pg_url, password=PASSWORD)
    first, second = (Handoff(conninfo, identify_spacing=0.3) for _ in range(2))
    loop = asyncio.get_running_loop()
    await first.identify_turn(7)
    waiting = asyncio.create_task(second.identify_turn(7))
    await asyncio.sleep(1.0)  # no READY yet: the turn is still taken, however long
    assert not waiting.done()
    ready_at = loop.time()
    first.identified()
    await asyncio.wait_for(waiting, 5)
    assert loop.time() - ready_at >= 0.3
    second.identified()
    await first.close()
    await second.close()


# ------------------------------------------------------------------ a paused server process
@contextlib.contextmanager
def _paused(pid: int) -> Iterator[None]:
    """The server process ``pid`` is paused (SIGSTOP) for the block: it answers nothing,
    and nothing on the server's side can end the wait."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


async def test_a_decision_on_a_paused_server_process_is_not_known_yet_then_the_truth(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shard 0's connection's server process is paused (SIGSTOP) when it decides a press:
    the person hears "not known yet" within the request's deadline (before: after 5 s at
    the earliest, psycopg's cancel waiting for the paused process up to 10 s more), and the
    truth from a new connection while the old process is still paused. The holder's own
    take, cut the same way, is never lost: taken once read back, never expired after."""
    monkeypatch.setattr(handed, "DECIDE_RETRY_S", 0.2)
    open_store(pg_url).close()
    conninfo = make_conninfo(pg_url, password=PASSWORD)
    holder, zero = Handoff(conninfo), Handoff(conninfo)
    await zero.decide(_press(), TAKEN)  # (its connection is open)
    await holder.decide(_press(), TAKEN)
    shard = _ShardZero(zero)
    loop = asyncio.get_running_loop()
    press = _press()
    assert zero._send is not None and holder._send is not None
    with _paused(zero._send.info.backend_pid):
        began = loop.time()
        deciding = asyncio.create_task(shard._decide_expired(press, "en"))
        while not shard.said:
            assert loop.time() - began < handoff.REQUEST_S + 2.0, "no word in time"
            await asyncio.sleep(0.05)
        assert shard.said == [text("en", "discord.handoff_unknown")]
        await asyncio.wait_for(deciding, 10)
        assert shard.said[1:] == [text("en", "discord.handoff_down")]
    taken = _press()
    with _paused(holder._send.info.backend_pid), pytest.raises(TimeoutError):
        await asyncio.wait_for(holder.decide(taken, TAKEN), handoff.REQUEST_S + 2.0)
    # whether or not the paused process wrote it: the holder's next try reads it as taken
    assert await holder.decide(taken, TAKEN) is True
    assert await zero.decide(taken, EXPIRED) is False
    await holder.close()
    await zero.close()


async def test_a_paused_listening_connection_is_replaced(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server process of the connection that listens for presses is paused: it
    delivers nothing, yet its kernel keeps the connection alive. The listener notices
    within its check and listens on a new connection: a press handed over then arrives
    (before: none arrived while the pause lasted)."""
    monkeypatch.setattr(handoff, "LISTEN_CHECK_S", 0.5)
    monkeypatch.setattr(handoff, "RECONNECT_AFTER", 0.1)
    open_store(pg_url).close()
    conninfo = make_conninfo(pg_url, password=PASSWORD)
    listener, sender = Handoff(conninfo), Handoff(conninfo)
    got: list[Press] = []

    async def receive(press: Press) -> None:
        got.append(press)

    await listener.start(receive)
    admin = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    cur = await admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE query = %s", (f"LISTEN {handoff.CHANNEL}",)
    )
    [(pid,)] = await cur.fetchall()
    loop = asyncio.get_running_loop()
    try:
        with _paused(pid):
            began = loop.time()
            while not got:
                assert loop.time() - began < 20, "no press arrived while the old one is paused"
                await sender.send(_press())
                await asyncio.sleep(0.3)
    finally:
        await admin.close()
        await listener.close()
        await sender.close()


async def test_a_take_read_back_is_ours_only_if_we_wrote_it(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder's take is cut (its server process paused) and, meanwhile, the table's new
    holder takes the same press: the old holder's next try reads the press back as taken,
    but not by it, so it does not apply the press as well (before: "taken", its own)."""
    open_store(pg_url).close()
    conninfo = make_conninfo(pg_url, password=PASSWORD)
    old, new = Handoff(conninfo), Handoff(conninfo)
    await old.decide(_press(), TAKEN)  # (its connection is open)
    press = _press()
    assert old._send is not None
    with _paused(old._send.info.backend_pid):
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(old.decide(press, TAKEN), handoff.REQUEST_S + 2.0)
        assert await new.decide(press, TAKEN) is True
    assert await old.decide(press, TAKEN) is False
    assert await new.decide(press, TAKEN) is False  # (not retried: taken before)
    await old.close()
    await new.close()
