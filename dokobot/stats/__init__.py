"""Statistics, ratings and leaderboards per server, from the stored finished games.

:class:`Stats` keeps one :class:`~.book.StatsBook` per server and brings it up to date
from the store (the records it has not read yet) before every answer, so the figures are
always those of the stored games, never of a second bookkeeping.
"""

from __future__ import annotations

import threading
from typing import Protocol

from .book import BOARDS, PlayerStats, StatsBook
from .record import FinishedGame, SeatRecord


class Results(Protocol):
    """What the statistics and their web pages read of the store (:class:`dokobot.store.Store`
    is one): the finished-game records, each server's web page key and the stored reviews."""

    def results(
        self, server: str, *, after: int = 0, limit: int | None = None, tricks: bool = True
    ) -> list[FinishedGame]: ...

    def result(self, id: int) -> FinishedGame | None: ...

    def result_servers(self) -> list[str]: ...

    def web_page(self, server: str) -> tuple[str, bool]: ...

    def set_web_enabled(self, server: str, enabled: bool) -> None: ...

    def web_server(self, key: str) -> tuple[str, bool] | None: ...

    def review(self, channel: str, game: int) -> str | None: ...


class Stats:
    """Up-to-date statistics books over a store (thread-safe).

    ``web_url``: the public base URL of the web pages (``dokobot web``), if they are served.
    """

    def __init__(self, store: Results, *, web_url: str | None = None) -> None:
        self.store = store
        self.web_url = web_url.rstrip("/") if web_url else None
        self._books: dict[str, StatsBook] = {}
        self._lock = threading.Lock()
        self._pages: dict[str, tuple[str, bool]] = {}

    def book(self, server: str) -> StatsBook:
        """The statistics of ``server``, with every stored game folded in."""
        with self._lock:
            book = self._books.get(server)
            if book is None:
                book = self._books[server] = StatsBook(server)
            while True:
                new = self.store.results(server, after=book.last_id, limit=5000, tricks=False)
                for game in new:
                    book.add(game)
                if len(new) < 5000:
                    return book

    def warm(self) -> None:
        """Read every server's stored games (at start, in a worker thread), so that the
        first question does not wait for a long history."""
        for server in self.store.result_servers():
            self.book(server)

    def page_url(self, server: str) -> str | None:
        """The public leaderboard page of ``server`` (None: no web pages or turned off)."""
        if self.web_url is None:
            return None
        page = self._pages.get(server)
        if page is None:
            page = self._pages[server] = self.store.web_page(server)
        key, enabled = page
        return f"{self.web_url}/s/{key}/" if enabled else None

    def set_web_enabled(self, server: str, enabled: bool) -> None:
        """Turn ``server``'s web pages on or off."""
        self.store.set_web_enabled(server, enabled)
        self._pages[server] = self.store.web_page(server)

    def game_url(self, game: FinishedGame) -> str | None:
        base = self.page_url(game.server)
        return None if base is None else f"{base}game/{game.id}"


__all__ = [
    "BOARDS",
    "FinishedGame",
    "PlayerStats",
    "Results",
    "SeatRecord",
    "Stats",
    "StatsBook",
]
