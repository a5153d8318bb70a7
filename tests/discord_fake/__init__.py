"""A fake Discord server for end-to-end tests of the Discord adapter (no network)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

import discord

from .server import (
    EPHEMERAL,
    Call,
    FakeDiscord,
    FakeUser,
    Interaction,
    Message,
    message_problems,
)

__all__ = [
    "EPHEMERAL",
    "Call",
    "FakeDiscord",
    "FakeUser",
    "Interaction",
    "Message",
    "message_problems",
    "plain",
    "running",
    "unescape",
]


@contextlib.asynccontextmanager
async def running(
    client: discord.Client, token: str = "fake-token", timeout: float = 10.0
) -> AsyncIterator[discord.Client]:
    """Run ``client`` (already pointed at a fake) until it is ready; close it afterwards."""
    async with client:
        task = asyncio.create_task(client.start(token))
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when="FIRST_COMPLETED")
        try:
            if ready not in done:
                ready.cancel()
                if task in done:
                    task.result()  # raises what went wrong
                raise TimeoutError("the client did not become ready")
            yield client
        finally:
            await client.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, timeout)


def unescape(text: str) -> str:
    """Undo Discord Markdown escaping."""
    return re.sub(r"\\(.)", r"\1", text)


def plain(content: str) -> str:
    """The host's text back from a Discord message: escapes undone, code fences dropped."""
    out: list[str] = []
    at = 0
    for block in re.finditer(r"```\n(.*?)\n```", content, re.DOTALL):
        out.append(unescape(content[at : block.start()]))
        out.append(block.group(1).replace("`\u200b``", "```"))
        at = block.end()
    out.append(unescape(content[at:]))
    return "".join(out)
