"""A DM press handed to its table's process (:mod:`dokobot.adapters.discord.handed`) when
PostgreSQL, which holds each press's one outcome, is stopped at shard 0's decision (2.5 s
after the press): the person hears "not known yet", never "nothing happened", and the truth
once PostgreSQL is back. The store is stopped for real (``pg_ctl stop``)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import discord
import pytest
from pg_server import PASSWORD, PgServer
from psycopg.conninfo import make_conninfo

from dokobot.adapters.discord import handed
from dokobot.adapters.discord.handed import HandedPresses
from dokobot.adapters.discord.handoff import TAKEN, Handoff, Press
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
