"""A text chat's life beside the host: its listener set (and the one before kept), the host
started and closed unless the caller runs the host's life for several chats at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from dokobot.host.contract import Host
from dokobot.host.events import Event


async def run_on_host(
    host: Host,
    deliver: Callable[[Sequence[Event]], Awaitable[None]],
    run: Callable[[], Awaitable[None]],
    *,
    restored: Sequence[Event] | None = None,
) -> None:
    """Run a chat on ``host`` until ``run()`` returns or is cancelled (for the command line).

    ``deliver`` becomes the host's listener; a listener that was set before keeps getting
    every batch, and is set again at the end. With ``restored`` (the events
    ``host.start()`` returned) the caller runs the host's life, as ``dokobot run`` does for
    several chats at once: this function neither starts nor closes it, and delivers those
    events. Without it, it starts the host first and closes it at the end.
    """
    previous = host.listener

    async def listener(events: list[Event]) -> None:
        try:
            await deliver(events)
        finally:
            if previous is not None:
                await previous(events)

    host.listener = listener
    owned = restored is None
    try:
        await deliver(await host.start() if restored is None else restored)
        await run()
    finally:
        if host.listener is listener:
            host.listener = previous
        if owned:
            await host.close()
