"""Two real bot processes on one PostgreSQL, one Discord shard each (``dokobot run`` in
operating-system processes of their own, :mod:`discord_fake.processes`), against the
strict fake Discord and four simulated people in this process. The table lives on shard 1;
its players chose ``/prompts dm``, and Discord delivers every press in a DM to shard 0, whose
process acknowledges it and hands it to shard 1's process through PostgreSQL.

The second test takes shard 1's process away while a DM press is on its way: stopped
(SIGSTOP, it comes back later) and killed (kill -9, a new process replaces it): the person
is told that nothing happened, and the press is never applied, neither late nor twice.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from conftest import SPEED
from discord_fake import Message
from discord_fake.processes import (
    START_WITHIN,
    choices,
    pick,
    play_game,
    seat_four,
    two_processes,
)

from dokobot.host.i18n import text

IDENTIFY_S = 0.5
"""The turns to IDENTIFY where a test is not about Discord's 5 s between them."""


@pytest.mark.long
async def test_a_game_of_shard_1_played_by_dm_across_two_processes(
    pg_url: str, tmp_path: Path
) -> None:
    async with two_processes(pg_url, tmp_path, speed=SPEED) as table:
        fake = table.fake
        await seat_four(table)
        await play_game(table)
        plays = table.plays()
    # the game went to its end (12 tricks of 4 cards, each play stored once)
    assert len(plays) == 48
    # nearly every press was in a DM (the starter's first prompt answers his /start), and
    # each reached shard 0 only, was answered there within Discord's 3 seconds, and was
    # applied by shard 1's process, which used the prompt up through the interaction token
    presses = table.dm_presses
    assert len(presses) >= 48
    dm_events = [s for s, event in fake.dispatched if event == "INTERACTION_CREATE" and s == 0]
    assert len(dm_events) == len(presses)
    assert all(p.response_type == 6 and p.answered_after is not None for p in presses)
    assert max(p.answered_after or 0.0 for p in presses) < 3.0
    assert all(p.message is not None and p.message.content.count("→") == 1 for p in presses)
    assert fake.violations == []
    # Discord's 5 s between the processes' IDENTIFYs (the other tests of two processes or
    # shards allow the fake less)
    (_, first), (_, second) = fake.identify_times[:2]
    assert second - first >= 5.0


@pytest.mark.long
async def test_a_dm_press_whose_process_is_down_is_refused_clearly_and_never_applied(
    pg_url: str, tmp_path: Path
) -> None:
    notice = text("de", "discord.handoff_down")  # in the presser's language (his client's)
    async with two_processes(
        pg_url, tmp_path, locale="de", speed=SPEED, identify_spacing=IDENTIFY_S
    ) as table:
        fake = table.fake
        one = table.bots[1]
        await seat_four(table)
        for _ in range(8):  # the reservations and the first trick
            found = await table.next_prompt()
            assert found is not None
            await table.press(*found)
        before = table.plays()
        assert len(before) == 4

        async def press_unheard() -> Message:
            """The person to move presses his DM prompt while shard 1's process cannot
            take it: shard 0 answers at once, and a little later tells him."""
            found = await table.next_prompt()  # (sent before the process stopped)
            assert found is not None
            user, prompt = found
            assert prompt.dm_user == user.id
            press = await fake.click(user, prompt, pick(choices(prompt)))
            await fake.wait_answered(press, timeout=10)
            # the notice comes about 2.5 s after the press; a loaded machine may be slower
            await fake.wait_for(lambda: any(m.content == notice for m in press.followups), 20)
            assert choices(prompt), "the prompt keeps its buttons"
            return prompt

        # stopped: the press waits in its process's connection; resumed, it finds the press
        # expired and drops it. The prompt is out before the process stops (a loaded
        # machine may send it a while after the last press was answered)
        assert await table.next_prompt() is not None
        one.signal(signal.SIGSTOP)
        try:
            prompt = await press_unheard()
        finally:
            one.signal(signal.SIGCONT)
        dropped = "came after its time; dropped"
        for _ in range(300):  # until it has seen the press (or, wrongly, applied it)
            if dropped in one.output() or table.plays() != before:
                break
            await asyncio.sleep(0.1)
        assert table.plays() == before, "applied after its presser was told it was not"
        assert dropped in one.output()

        # killed: nobody hears the press; a new process for shard 1 restores the table, and
        # the same prompt's button works once
        one.kill()
        prompt = await press_unheard()
        assert table.plays() == before
        one.start()
        await fake.wait_connected(shard=1, timeout=START_WITHIN)
        user = next(u for u in fake.users if u.id == prompt.dm_user)
        again = await table.press(user, prompt)
        assert again.response_type == 6
        assert len(table.plays()) == len(before) + 1
        # and the game goes on from there
        found = await table.next_prompt()
        assert found is not None
        await table.press(*found)
        assert len(table.plays()) == len(before) + 2
        assert fake.violations == []
