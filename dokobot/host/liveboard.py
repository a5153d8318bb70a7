"""The live board that follows every batch of a table with a game, and its countdown.

An adapter that shows a live board turns it on (:attr:`~dokobot.host.contract.Host.boards`):
then a :class:`~dokobot.host.events.Board` and a :class:`~dokobot.host.events.Lobby` come
after every batch. The board's countdown and the turn clock
(:class:`~dokobot.host.turns.Turns`) both count from when the turn began, kept here.
"""

from __future__ import annotations

import dataclasses
import time

from .board import board_view, lobby_view
from .events import Board, Event, Lobby
from .router import Router
from .table import Table


class LiveBoard:
    """Whether boards are wanted; when each channel's turn began and whether its person was
    reminded (what the board's countdown says)."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.wanted = False
        """Add a :class:`~dokobot.host.events.Board` after every batch of a table with a
        game (set by adapters that show a live board)."""
        self.turns: dict[str, tuple[tuple[int, int], float]] = {}
        """Per channel: the turn (game number, moves) waiting for a person and when it began
        (wall clock), for the deadline a board shows."""
        self.reminded: dict[str, tuple[int, int]] = {}
        """Per channel: the turn whose person was reminded (a board offers a stand-in)."""

    def with_board(self, channel: str, events: list[Event]) -> list[Event]:
        """``events`` and, if boards are wanted, the table's board and lobby after them."""
        table = self.router.tables.get(channel)
        if not self.wanted or table is None or not events:
            return events
        view = board_view(table)
        if view is not None:
            deadline, idle = self._clock(channel, table)
            view = dataclasses.replace(view, deadline=deadline, idle=idle)
        board = [] if view is None else [Board(channel, view)]
        return [*events, *board, Lobby(channel, lobby_view(table))]

    def _clock(self, channel: str, table: Table) -> tuple[int | None, bool]:
        """(When a computer player stands in for the person whose turn it is, as Unix
        seconds, or None; whether that person was reminded already) with ``turn_timeout``
        on: the turn's reminder comes after the timeout, the stand-in after twice it."""
        game = table.game
        timeout = table.options.turn_timeout
        if not timeout or game is None or not table.running or table.bot_to_move() is not None:
            return None, False
        marker = (table.game_number, len(game.log))
        start = self.turn_start(channel, marker)
        deadline = int(start + 2 * timeout) if table.options.standin else None
        return deadline, self.reminded.get(channel) == marker

    def turn_start(self, channel: str, marker: tuple[int, int], *, restart: bool = False) -> float:
        """When the turn ``marker`` at ``channel`` began (Unix seconds): the board's
        countdown and the turn timer both count from it (``restart``: from now)."""
        turn = self.turns.get(channel)
        if restart or turn is None or turn[0] != marker:
            turn = self.turns[channel] = (marker, time.time())
        return turn[1]
