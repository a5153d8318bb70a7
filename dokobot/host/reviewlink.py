"""Between the tables and the review queue: every game played to its end with people is
handed to the queue once (in the background), the reviews not done at a stop are queued
again at the start, and a finished review is told to who asked for it and to the channel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ..store import Store
from . import reviews as review_texts
from .delivery import Delivery
from .events import Event, Private, Public
from .i18n import render
from .reviewqueue import ReviewQueue
from .reviews import GameReview, job_of, own_answer
from .router import Router
from .table import Table

log = logging.getLogger(__name__)


class ReviewLink:
    """Hands finished games to ``queue`` (None: no queue, ``/review`` reviews on request)
    and delivers its reviews; ``holds(channel)``: whether this process holds the table."""

    def __init__(
        self,
        router: Router,
        store: Store,
        queue: ReviewQueue | None,
        delivery: Delivery,
        holds: Callable[[str], bool],
    ) -> None:
        self.router = router
        self.store = store
        self.queue = queue
        self.delivery = delivery
        self.holds = holds
        self.submitting: set[asyncio.Task[int | None]] = set()
        """Finished games on their way into the queue (from a worker thread)."""
        if queue is not None:
            queue.on_ready = self._review_ready

    def submit(self, channel: str, table: Table, done: int) -> None:
        """Queue the review of the table's last game played to its end, if it finished
        after game ``done`` with a person in it (in the background: the answer to the
        move that ended the game does not wait for it)."""
        last = table.reviewable
        if self.queue is None or last is None or last.number <= done:
            return
        if all(user is None for user in last.users):
            return
        job = job_of(last.number, last.game, last.users, table.player_names())
        self.queue.attach(asyncio.get_running_loop())  # (a service used without start())
        task = asyncio.get_running_loop().create_task(
            asyncio.to_thread(self.queue.submit, (channel, last.number), job)
        )
        self.submitting.add(task)
        task.add_done_callback(self._submitted)

    def _submitted(self, task: asyncio.Task[int | None]) -> None:
        self.submitting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a game's review was not queued: %s", task.exception())

    async def requeue(self) -> None:
        """Queue again the stored reviews not done yet of the tables this process holds."""
        assert self.queue is not None
        self.queue.attach(asyncio.get_running_loop())
        try:
            queued = await asyncio.to_thread(self.store.queued_reviews)
        except Exception:
            log.warning("the queued reviews could not be read", exc_info=True)
            return
        for channel, number, job in queued:
            if self.holds(channel):
                self.queue.requeue((channel, number), job)

    async def _review_ready(
        self, key: tuple[str, int], record: str | None, waiting: dict[str, str]
    ) -> None:
        """A review is done (``record``; None: it failed): each person who asked for it
        gets his own, the channel the short summary with the link to the web page."""
        channel, number = key
        found = None if record is None else GameReview.from_json(record)
        events: list[Event] = []
        for user, lang in waiting.items():
            text = None if found is None else own_answer(lang, found, user)
            if text is None:
                text = render(lang, "review.failed", {"game": number})
            events.append(Private(channel, user, text, kind="info", lang=lang))
        if found is not None and found.decisions:
            table = self.router.tables.get(channel)
            lang = table.options.language if table is not None else self.router.default_language
            url = await asyncio.to_thread(self._review_url, channel, number)
            events.append(Public(channel, review_texts.summary(lang, found, url), lang=lang))
        await self.delivery.emit(events)

    def _review_url(self, channel: str, number: int) -> str | None:
        """The web page of the review of game ``number`` of ``channel`` (None: no pages)."""
        stats = self.router.stats
        if stats is None or stats.web_url is None:
            return None
        try:
            game = next(g for g in self.store.table_results(channel) if g.game == number)
            url = stats.game_url(game)
        except Exception:  # no record (yet), or the store cannot say: no link
            return None
        return None if url is None else f"{url}/review"

    async def idle(self) -> None:
        """Wait until every finished game handed to the queue is in it and the queue is
        empty (tests: a game's job reaches the queue from a worker thread)."""
        while self.submitting:
            await asyncio.gather(*self.submitting, return_exceptions=True)
        if self.queue is not None:
            await self.queue.idle()

    async def close(self) -> None:
        """Wait for the games on their way into the queue; stop the queue."""
        if self.queue is not None:
            await asyncio.gather(*self.submitting, return_exceptions=True)
            await self.queue.close()
