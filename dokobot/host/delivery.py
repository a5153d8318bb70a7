"""Delivery of what the tables say by themselves to the adapters' listener.

The host never waits on a delivery beyond a deadline: a table's background work waits at
most :data:`EMIT_WAIT_S` seconds for the adapters, then the delivery goes on without it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from .contract import Listener
from .events import Event

log = logging.getLogger(__name__)

EMIT_WAIT_S: Final = 5.0
"""Seconds a table's background work (its computer players) waits for the adapters to
deliver what it said; the delivery goes on after that without holding the table up."""


class Delivery:
    """Hands events to the listener the adapters set, in the order of the calls."""

    def __init__(self) -> None:
        self.listener: Listener | None = None
        self._delivering: set[asyncio.Task[None]] = set()
        """Deliveries of events to the listener still under way."""

    async def emit(self, events: list[Event], wait: float | None = None) -> None:
        """Hand ``events`` to the listener; wait for their delivery at most ``wait``
        seconds (default :data:`EMIT_WAIT_S`; the delivery goes on after that, and the
        caller with it). Deliveries start in the order of the calls."""
        if not events or self.listener is None:
            return
        wait = EMIT_WAIT_S if wait is None else wait
        task = asyncio.get_running_loop().create_task(self._deliver(self.listener, events))
        self._delivering.add(task)
        task.add_done_callback(self._delivering.discard)
        if wait > 0:
            await asyncio.wait({task}, timeout=wait)

    @staticmethod
    async def _deliver(listener: Listener, events: list[Event]) -> None:
        try:
            await listener(events)
        except Exception:
            log.exception("listener failed")
