"""Closing the Discord adapter while discord.py's READY timer still runs: the timer's late
``ready`` must not reach a closed client (it used to leave a coroutine of discord.py that
was never awaited, and an error in the timer's task)."""

from __future__ import annotations

import asyncio
import gc
import sys
import warnings
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.service import Service


def _discord_tasks() -> list[asyncio.Task[object]]:
    """The unfinished tasks running discord.py's code."""
    import discord

    folder = str(Path(discord.__file__).parent)
    found = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        if code is not None and code.co_filename.startswith(folder) and not task.done():
            found.append(task)
    return found


async def test_a_client_closed_before_ready_handles_no_late_event(fake: FakeDiscord) -> None:
    service = Service.in_memory()
    client = DiscordAdapter(service, sync_commands=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with client:
            task = asyncio.create_task(client.start("fake-token"))
            await fake.wait_connected(10)
            for _ in range(100):  # until discord.py read READY and set its timer
                pending = _discord_tasks()
                if any(t.get_coro().__name__ == "_delay_ready" for t in pending):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError(f"no READY timer among {pending}")
            await client.close()
            await asyncio.wait_for(task, 10)
        # the timer fires guild_ready_timeout (2 s) after the guild came
        done, _ = await asyncio.wait(pending, timeout=10)
        assert done == set(pending)
        errors = [t.exception() for t in done if not t.cancelled()]
        assert errors == [None] * len(errors)
        gc.collect()
    never = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert never == []
    await service.close()
