"""The board message of each game: posted when a game starts, then edited in place, at
most once per ``board_interval`` (a part of :class:`DiscordAdapter`)."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any, Final

import discord
from discord.ext import commands

from dokobot.adapters.discord.board import TABLE_PICTURE, board_embed
from dokobot.adapters.discord.interaction import _BoardMessage
from dokobot.bounded import Bounded
from dokobot.host.board import BoardView
from dokobot.render import TrickPicture, drawn, trick_png

log = logging.getLogger(__name__)

NEWS: Final = 5
"""Latest public texts shown on a board."""


if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class BoardMessages(_Base):
    """Showing the boards (a part of :class:`DiscordAdapter`)."""

    _boards: Bounded[int, _BoardMessage]
    _board_interval: float

    if TYPE_CHECKING:

        def _enter(self) -> None: ...

        def _leave(self) -> None: ...

        def _hand_view(self, channel_id: int) -> discord.ui.View: ...

    async def _show_board(self, channel_id: int, view: BoardView, texts: list[str]) -> None:
        board = self._boards.get(channel_id)
        if board is None or board.game_number != view.game_number:
            board = _BoardMessage(channel_id, view, news=[t for t in texts if t.strip()][-NEWS:])
            self._boards[channel_id] = board
            await self._post_board(board)  # in the channel's turn: a new game is news
            return
        self._board_changed(board, view, texts)

    async def _post_board(self, board: _BoardMessage) -> None:
        """Send the board message (with "My cards"); on failure the next change retries."""
        embed, file = await self._board_payload(board)
        kwargs: dict[str, Any] = {"embed": embed, "view": self._hand_view(board.channel_id)}
        if file is not None:
            kwargs["file"] = file
        message = await self.get_partial_messageable(board.channel_id).send(**kwargs)
        board.message_id = message.id
        board.last_edit = asyncio.get_running_loop().time()

    def _board_changed(self, board: _BoardMessage, view: BoardView, texts: list[str]) -> None:
        """Note a new state of ``board``; an editor task shows the latest one, at most one
        edit per ``board_interval``."""
        board.view = view
        board.news = [*board.news, *(t for t in texts if t.strip())][-NEWS:]
        board.dirty = True
        if board.task is None or board.task.done():
            self._enter()
            board.task = asyncio.create_task(self._edit_board(board))

    async def _edit_board(self, board: _BoardMessage) -> None:
        loop = asyncio.get_running_loop()
        try:
            while board.dirty:
                wait = board.last_edit + self._board_interval - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                board.dirty = False
                try:
                    if board.message_id is None:
                        await self._post_board(board)
                        continue
                    embed, file = await self._board_payload(board)
                    message = self.get_partial_messageable(board.channel_id).get_partial_message(
                        board.message_id
                    )
                    await message.edit(embed=embed, attachments=[] if file is None else [file])
                    board.edits += 1
                except discord.HTTPException as exc:
                    log.warning("could not show the board: %s %s", exc.status, exc.text)
                board.last_edit = loop.time()
        except Exception:
            log.exception("editing the board failed")
        finally:
            self._leave()

    async def _board_payload(
        self, board: _BoardMessage
    ) -> tuple[discord.Embed, discord.File | None]:
        view = board.view
        lang = view.language
        picture = view.images and bool(view.trick or view.last_trick)
        embed = board_embed(view, board.news, lang, picture=picture)
        if not picture:
            return embed, None
        png = await drawn(trick_png, trick_picture(view))
        return embed, discord.File(io.BytesIO(png), filename=TABLE_PICTURE)


def trick_picture(view: BoardView) -> TrickPicture:
    """The picture on a board: the trick on the table, or (between two tricks) the trick
    taken last with its winner; in the table's language."""
    if view.trick:
        return TrickPicture(view.seats, view.trick, None, view.language)
    return TrickPicture(view.seats, view.last_trick, view.last_winner, view.language)
