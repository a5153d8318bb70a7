"""The board message of each game: posted when a game starts, then edited in place, at
most once per ``board_interval`` (a part the :class:`DiscordAdapter` holds)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final

import aiohttp
import discord

from dokobot.adapters.discord.board import TABLE_PICTURE, board_embed, picture_text
from dokobot.adapters.discord.budget import RequestBudget
from dokobot.adapters.discord.buttons import DokoButton
from dokobot.adapters.discord.checks import AdminChecks
from dokobot.adapters.discord.i18n import text
from dokobot.adapters.discord.interaction import _Batch, _BoardMessage
from dokobot.adapters.discord.messages import snowflake_of
from dokobot.adapters.discord.notify import ARCHIVED
from dokobot.adapters.discord.threads import Threads
from dokobot.bounded import Bounded
from dokobot.host.board import BoardView
from dokobot.render import TrickPicture, drawn, trick_png

log = logging.getLogger(__name__)

NEWS: Final = 2
"""Latest public texts shown on a board (those it does not say otherwise)."""
BOARD_INTERVAL: Final = 1.5
"""Seconds between two edits of one board (sooner when a trick is taken or the game ends)."""
HOLD: Final = 2
"""Board intervals for which a single move of a computer player that changes little waits
for the next one (the first card of a trick after a taken trick, a reservation): at a fast
pace two moves are shown in one edit; at a slow pace the move is shown after the wait. A
person's move is never held (:func:`_moved`): the board would name him as the one to play
after he moved, and a person who sees his name and no prompt has lost his turn (3 s of hold
and an edit repeated after a 429 passed the 5 s after which ``bench/discord.py`` counts such
a turn as a lost prompt)."""
HELD_PHASES: Final = frozenset({"reservations", "declarations", "exchange"})
"""Phases before the play whose single moves may wait (see :data:`HOLD`)."""
MAX_ALT: Final = 1024
"""Discord's limit of a picture's alt text (an attachment's description)."""
BOARD_TRIES: Final = 8
"""Failed edits in a row after which a board is given up (the next game posts a new one)."""


class BoardMessages:
    """Showing the boards by ``client``: it holds the board message of each channel's game
    (:attr:`messages`) and the channels whose lost permissions were reported.
    ``board_interval``: at most one edit of a board per this many seconds; ``budget``: the
    request budget (a busy one holds more moves); ``checks`` reports lost permissions;
    ``threads`` seats a new game's players in its thread; ``enter``/``leave``: the adapter
    counts as busy between them (an editor task); ``hand_view``: the "My cards" button."""

    def __init__(
        self,
        client: discord.Client,
        *,
        channels: int,
        board_interval: float,
        budget: RequestBudget,
        checks: AdminChecks,
        threads: Threads,
        enter: Callable[[], None],
        leave: Callable[[], None],
        hand_view: Callable[[int], discord.ui.View],
    ) -> None:
        self._client = client
        self.messages: Bounded[int, _BoardMessage] = Bounded(channels)
        """The board message of each channel's current (or last) game."""
        self._permission_reported: Bounded[int, bool] = Bounded(channels, ttl=3600.0)
        self._board_interval = board_interval
        self.budget = budget
        self.checks = checks
        self.threads = threads
        self._enter = enter
        self._leave = leave
        self._hand_view = hand_view

    def on_board(self, channel: str, batch: _Batch) -> bool:
        """Whether the channel's texts of ``batch`` go onto its board (not a new message)."""
        view = batch.boards.get(channel)
        channel_id = snowflake_of(channel)
        if view is None or channel_id is None:
            return False
        current = self.messages.get(channel_id)
        if current is not None and current.game_number == view.game_number:
            return not current.result_posted and not view.finished
        return not view.finished

    def result_in(self, channel: str, batch: _Batch) -> bool:
        """Whether ``batch`` ends the game whose board the channel shows: its texts are the
        result, a message of its own with the buttons Next game and Score."""
        view = batch.boards.get(channel)
        channel_id = snowflake_of(channel)
        if view is None or channel_id is None or not view.finished:
            return False
        board = self.messages.get(channel_id)
        return (
            board is not None and board.game_number == view.game_number and not board.result_posted
        )

    def absorbed(self, channel: str, batch: _Batch) -> bool:
        """Whether the channel's texts of ``batch`` go onto its board or its lobby (not a new
        message): everything but a game's result, when the service sends boards."""
        if self.on_board(channel, batch):
            return True
        return channel in batch.lobbies and not self.result_in(channel, batch)

    def shown(self) -> set[int]:
        """Channels whose current game has a board message (their texts need no button)."""
        return {c for c, b in self.messages.items() if not b.result_posted}

    async def show(
        self, channel_id: int, view: BoardView, texts: list[str], people: Sequence[int] = ()
    ) -> None:
        """Show ``view`` on the channel's board; a new game posts a new board, which names
        (and so notifies) the ``people`` of the batch (everybody seated), and adds them to
        the table's thread."""
        board = self.messages.get(channel_id)
        if board is None or board.game_number != view.game_number:
            board = _BoardMessage(channel_id, view, news=[t for t in texts if t.strip()][-NEWS:])
            board.greeted = list(dict.fromkeys(people))
            self.threads.seat(channel_id, board.greeted)
            self.messages[channel_id] = board
            board.posting = True
            try:  # in the channel's turn: a new game is news
                await self._post_board(board)
            except discord.HTTPException as exc:
                log.warning("could not post a board: %s %s", exc.status, exc.text)
                self.changed(board, view, [])  # the editor retries with backoff
            finally:
                # the channel's later changes waited for the post (not a second post)
                board.posting = False
                board.wake.set()
            return
        self.changed(board, view, texts)

    def _board_content(
        self, board: _BoardMessage, post: bool = False
    ) -> tuple[str, discord.AllowedMentions]:
        """The board's text above the embed: in its first ``post`` everybody seated (it
        notifies them), and a notice; with the mentions it may ping (only that post pings:
        an edit notifies nobody anyway)."""
        lang = board.view.language
        lines = [board.notice] if board.notice else []
        greeted = board.greeted if post else []
        if greeted:
            mentions = " ".join(f"<@{u}>" for u in greeted)
            lines.append(text("board_start", lang, mentions=mentions))
        users = [discord.Object(id=u) for u in greeted]
        return "\n".join(lines), discord.AllowedMentions(everyone=False, roles=False, users=users)

    async def _post_board(self, board: _BoardMessage) -> None:
        """Send the board message (with "My cards")."""
        view = board.view  # the state it shows (the board may move on while it is sent)
        board.sent_view = view
        embed, cards = self._board_embed(board)
        content, mentions = self._board_content(board, post=True)
        kwargs: dict[str, Any] = {
            "embed": embed,
            "view": self._board_buttons(board),
            "allowed_mentions": mentions,
            "silent": not mentions.users,
        }
        if content:
            kwargs["content"] = content
        if cards is not None:
            kwargs["file"] = await self._picture_file(board)
        message = await self._client.get_partial_messageable(board.channel_id).send(**kwargs)
        board.message_id = message.id
        board.standin = _idle_name(view)
        board.handover = _absent_name(view)
        # the names of the post go with the next change that edits the board anyway
        board.shown = (_embed_key(embed), self._board_content(board)[0], cards)
        _landed(board, view)
        board.picture = cards
        board.last_edit = asyncio.get_running_loop().time()

    def changed(self, board: _BoardMessage, view: BoardView, texts: list[str]) -> None:
        """Note a new state of ``board``; an editor task shows the latest one, at most one
        edit per ``board_interval``, at once when a trick is taken, the game ends or the
        person the board names has moved (:func:`_moved`); a single move of a computer player
        that changes little waits a while for the next one (:func:`_holds`)."""
        taken = not view.trick and view.last_trick and view.last_trick != board.view.last_trick
        moved = _moved(board.sent_view, view)
        board.urgent = board.urgent or view.finished or bool(taken) or moved
        loop = asyncio.get_running_loop()
        if _holds(board.shown_view, view, self.budget.busy(loop.time())):
            board.held = board.held or loop.time()
        else:
            board.held = None
        board.view = view
        board.news = [*board.news, *(t for t in texts if t.strip())][-NEWS:]
        self._board_dirty(board)

    def _board_dirty(self, board: _BoardMessage) -> None:
        board.dirty = True
        board.wake.set()  # the editor looks again at when the next edit is due
        if board.task is None or board.task.done():
            self._enter()
            board.task = asyncio.create_task(self._edit_board(board))

    async def _edit_board(self, board: _BoardMessage) -> None:
        loop = asyncio.get_running_loop()
        failures = 0
        try:
            while board.dirty:
                wait = self._board_wait(board, failures, loop.time())
                if wait > 0:
                    board.wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(board.wake.wait(), wait)
                    continue  # woken by a change (or the time is up): due when?
                board.dirty = False
                board.urgent = False
                board.held = None
                try:
                    await self._show_latest(board)
                    failures = 0
                except discord.NotFound:
                    failures = await self._board_lost(board, failures)
                except discord.Forbidden as exc:
                    await self._board_forbidden(board, exc)
                    failures += 1
                except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                    log.warning("could not show the board: %s", exc)
                    board.dirty = True  # the latest state, once more, after a pause
                    failures += 1
                    if isinstance(exc, discord.HTTPException) and exc.code == ARCHIVED:
                        _unposted(board)  # a fresh post unarchives the thread
                board.last_edit = loop.time()
                if failures > BOARD_TRIES:
                    log.error("giving up on the board of channel %s", board.channel_id)
                    return
        except Exception:
            log.exception("editing the board failed")
        finally:
            self._leave()

    def _board_wait(self, board: _BoardMessage, failures: int, now: float) -> float:
        """Seconds until the board's next edit is due: ``board_interval`` after the last one
        (after a failure, longer and longer), at once for a taken trick or the game's end, and
        up to :data:`HOLD` intervals later for a single move that waits for the next one; not
        while its first post is under way. An urgent edit still waits for the request budget
        and for its channel's edit bucket (discord.py keeps to the bucket Discord announces)."""
        interval = self._board_interval
        if board.posting:  # its first post is under way (the editor is woken after it)
            return interval
        if failures:
            return board.last_edit + max(interval, min(30.0, interval * 2.0**failures)) - now
        if board.urgent:
            return 0.0
        due = board.last_edit + interval
        if board.held is not None:
            due = max(due, board.held + HOLD * interval)
        return due - now

    async def _show_latest(self, board: _BoardMessage) -> None:
        """Post or edit the board with its latest state; never an identical edit, and the
        picture uploaded only when its cards changed."""
        if board.message_id is None:
            await self._post_board(board)
            return
        view = board.view  # the state this edit shows (the board may move on meanwhile)
        embed, cards = self._board_embed(board)
        content, mentions = self._board_content(board)
        key = (_embed_key(embed), content, cards)
        idle = _idle_name(view)
        absent = _absent_name(view)
        buttons_changed = idle != board.standin or absent != board.handover
        if key == board.shown and not buttons_changed:
            board.sent_view = view  # the message shows the same already
            return
        kwargs: dict[str, Any] = {"embed": embed, "content": content, "allowed_mentions": mentions}
        if buttons_changed:
            kwargs["view"] = self._board_buttons(board)
        if cards != board.picture:
            kwargs["attachments"] = [] if cards is None else [await self._picture_file(board)]
        channel = self._client.get_partial_messageable(board.channel_id)
        board.sent_view = view
        await channel.get_partial_message(board.message_id).edit(**kwargs)
        board.shown = key
        _landed(board, view)
        board.standin = idle
        board.handover = absent
        board.picture = cards
        board.edits += 1

    def _board_buttons(self, board: _BoardMessage) -> discord.ui.View:
        """ "My cards", and once the person whose turn it is was reminded, a button that
        lets a computer player stand in for them (``/standin``, the owner's); while a
        computer player stands in for a person, a button to vote on giving that seat to the
        computer player for the rest of the series (``/handover NAME``, the people seated)."""
        buttons = self._hand_view(board.channel_id)
        name = _idle_name(board.view)
        if name is not None:
            label = text("board_standin", board.view.language, player=name)
            buttons.add_item(DokoButton(board.channel_id, "/standin", label))
        absent = _absent_name(board.view)
        command = f"/handover {absent}"
        if absent is not None and DokoButton.custom_id_for(board.channel_id, command):
            label = text("board_handover", board.view.language, player=absent)
            buttons.add_item(DokoButton(board.channel_id, command, label))
        return buttons

    async def _board_lost(self, board: _BoardMessage, failures: int) -> int:
        """The board message is gone (deleted, or its channel): post it again, once, with a
        notice; a second loss ends the board."""
        if board.reposted:
            log.warning("the board of channel %s is gone again; not posted again", board.channel_id)
            return BOARD_TRIES + 1
        board.reposted = True
        _unposted(board)
        board.notice = text("board_again", board.view.language)
        board.dirty = True
        log.info("the board of channel %s was gone; posting it again", board.channel_id)
        return failures

    async def _board_forbidden(self, board: _BoardMessage, exc: discord.Forbidden) -> None:
        """The bot lost a permission in the channel: said once, in the log and in the
        channel, or to the server's owner if it may not write there either."""
        board.dirty = True
        if board.channel_id in self._permission_reported:
            return
        self._permission_reported[board.channel_id] = True
        log.error("Discord refuses the board in channel %s: %s", board.channel_id, exc.text)
        await self.checks.report_lost_permissions(board.channel_id, board.view.language)

    def _board_embed(self, board: _BoardMessage) -> tuple[discord.Embed, TrickPicture | None]:
        """The embed of the board and the cards its picture shows (None: no picture)."""
        view = board.view
        lang = view.language
        picture = view.images and bool(view.trick or view.last_trick)
        embed = board_embed(view, board.news, lang, picture=picture)
        if not picture:
            return embed, None
        return embed, trick_picture(view)

    async def _picture_file(self, board: _BoardMessage) -> discord.File:
        png = await drawn(trick_png, trick_picture(board.view))
        alt = picture_text(board.view, board.view.language)
        return discord.File(io.BytesIO(png), filename=TABLE_PICTURE, description=alt[:MAX_ALT])


def _landed(board: _BoardMessage, view: BoardView) -> None:
    """The board's message shows ``view`` now. A post or edit that took long (a 429 or a
    502 repeated, a queue for the request budget) may land after the game moved on: the
    message then names a player who has moved already, so the latest state is shown after
    the interval, never held back for a next move (:func:`_holds`: the held move is measured
    against what the message shows, and that was not the state before it)."""
    board.shown_view = view
    if board.view is not view:
        board.held = None


def _unposted(board: _BoardMessage) -> None:
    """The board is to be posted anew (its message is gone, or its thread archived)."""
    board.message_id = None
    board.shown = None
    board.shown_view = None
    board.sent_view = None
    board.picture = None


def _holds(shown: BoardView | None, view: BoardView, busy: bool = False) -> bool:
    """Whether ``view`` may wait for the next move before it replaces ``shown`` on the board:
    it is one move later in the same phase and that move is the first card of a trick (with
    ``busy``, the request budget near its share: the first or the third) or a move before the
    play (a reservation). The seated players see each move at once in their own "My cards"
    panels; onlookers see it with the next move or after the wait."""
    if shown is None or view.game_number != shown.game_number or view.phase != shown.phase:
        return False
    if view.decision != shown.decision + 1 or view.finished:
        return False
    if view.phase in HELD_PHASES:
        return True
    return view.phase == "playing" and len(view.trick) in ((1, 3) if busy else (1,))


def _moved(sent: BoardView | None, view: BoardView) -> bool:
    """Whether the board's last post or edit that left (``sent``) names a person as the one
    to play who has moved in ``view``: its next edit is then urgent (neither held nor after
    the interval), so that a person never sees his name on the board for long after his move
    while his panel shows no prompt. A computer player's move may wait (:func:`_holds`).

    >>> from dokobot.host.board import BoardView
    >>> def at(decision, turn, **more): return BoardView("c", 1, decision, "reservations",
    ...     ("a", "b", "c", "d"), 0, turn, 0, **more)
    >>> _moved(at(4, 1), at(5, 2)), _moved(at(4, 1, computers=(1,)), at(5, 2))
    (True, False)
    >>> _moved(at(4, 1), at(4, 1)), _moved(None, at(5, 2))
    (False, False)
    """
    if sent is None or sent.turn is None or sent.game_number != view.game_number:
        return False
    return sent.turn not in sent.computers and view.decision > sent.decision


def _idle_name(view: BoardView) -> str | None:
    """The name of the person whose turn it is once reminded (a stand-in is offered)."""
    if not view.idle or view.turn is None or view.finished or view.turn >= len(view.seats):
        return None
    return view.seats[view.turn]


def _absent_name(view: BoardView) -> str | None:
    """The name of the first person a stand-in moves for (the board offers the vote on
    giving that seat away), None: nobody."""
    if view.finished:
        return None
    return next((view.seats[s] for s in view.away if s < len(view.seats)), None)


def _embed_key(embed: discord.Embed) -> str:
    return json.dumps(embed.to_dict(), sort_keys=True)


def trick_picture(view: BoardView) -> TrickPicture:
    """The picture on a board: the trick on the table, or (between two tricks) the trick
    taken last with its winner; in the table's language."""
    if view.trick:
        return TrickPicture(view.seats, view.trick, None, view.language)
    return TrickPicture(view.seats, view.last_trick, view.last_winner, view.language)
