"""After a KICK: the bot joins the channel again with backoff, keeps the lines the channel
missed meanwhile, and when it is back says so there, with a summary of what was missed and,
if a game runs, who is to act (a move typed while it was out never reached it); a person on
turn gets his prompt again."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable

from dokobot.host.contract import Host
from dokobot.host.i18n import render

from ..textchat.backoff import backoff_delay
from ..textchat.delivery import Delivery
from ..textchat.lines import pack_lines
from .connection import Connection, logged
from .settings import IrcSettings

log = logging.getLogger("dokobot.adapters.irc")

MISSED_KEPT = 40
"""Channel lines kept for the summary after a KICK (the newest)."""

JOIN_WAIT = 5.0
"""Seconds to wait for the server to confirm a re-JOIN after a KICK."""


class Kicks:
    """The channels (lowercased) the bot was kicked from, and what they missed.

    ``current()`` is the adapter's connection now, ``joined`` the channels it is in (both
    change under it), ``stop`` set when the adapter stops."""

    def __init__(
        self,
        *,
        prefix: str,
        settings: IrcSettings,
        host: Host,
        delivery: Delivery,
        current: Callable[[], Connection | None],
        joined: set[str],
        stop: asyncio.Event,
        rng: random.Random,
    ) -> None:
        self.prefix = prefix
        self.settings = settings
        self.host = host
        self.delivery = delivery
        self.current = current
        self.joined = joined
        self.stop = stop
        self.rng = rng
        self.by: dict[str, str] = {}
        """Channels the bot was kicked from -> who kicked it."""
        self.missed: dict[str, list[str]] = {}
        """Channel lines that could not be said while kicked, for the summary on rejoin."""
        self._tasks: set[asyncio.Task[None]] = set()

    def keeps(self, key: str, text: str) -> bool:
        """Keep a line for a channel the bot was kicked from (True), for the summary."""
        if key not in self.by:
            return False
        self.missed.setdefault(key, []).append(text)
        return True

    def kicked(self, conn: Connection, channel: str, by: str) -> None:
        """``by`` kicked the bot from ``channel``: join it again (with backoff)."""
        key = channel.lower()
        self.joined.discard(key)
        self.by[key] = by
        task = asyncio.get_running_loop().create_task(self._rejoin(conn, channel))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Stop joining again."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _rejoin(self, conn: Connection, channel: str) -> None:
        """Join ``channel`` again after a KICK, with backoff, while ``conn`` is current."""
        key = channel.lower()
        attempt = 0
        while conn is self.current() and not self.stop.is_set():
            delay = backoff_delay(
                attempt,
                initial=self.settings.reconnect_initial,
                cap=self.settings.reconnect_max,
                rng=self.rng,
            )
            attempt += 1
            log.warning("IRC: rejoining %s in %.1f s", channel, delay)
            await asyncio.sleep(delay)
            if conn is not self.current() or key in self.joined:
                return  # a reconnect joins every channel anyway
            with logged("rejoin"):
                await conn.join(channel)
            deadline = time.monotonic() + JOIN_WAIT
            while key not in self.joined and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if key in self.joined:
                return

    def back(self, key: str) -> None:
        """The bot is in ``key`` again: if it was kicked from there, say so, with what the
        channel missed, once; if a game runs there, name who is to act and send a person on
        turn the prompt again."""
        by = self.by.pop(key, None)
        if by is None:
            return
        missed = self.missed.pop(key, [])
        channel = self.prefix + key
        lang = self.host.channel_language(channel)
        turn = self.host.on_turn(channel)
        if turn is None:
            text = render(lang, "irc_rejoined", {"by": by})
        else:
            text = render(lang, "irc_rejoined_turn", {"by": by, "player": turn[0]})
        limit = self.settings.max_line_bytes
        for start in range(max(0, len(missed) - MISSED_KEPT), len(missed)):
            # the newest lines that fit into two more lines
            summary = render(lang, "irc_missed", {"lines": " · ".join(missed[start:])})
            if len(pack_lines(summary, limit)) <= 2:
                text += "\n" + summary
                break
        self.delivery.say(channel, text)
        if turn is not None and turn[1] is not None:
            self.delivery.resend(turn[1], again=True)  # sent before the KICK
