"""The command router: text in, events out, for every channel at once.

It finds the declared command of a line (:mod:`.commands`; its names in the sender's
language, in English, or in another language), makes the checks its declaration asks for (:mod:`.permissions`: who, where, in
which phase), runs its handler (:mod:`.handlers`) against the table of the channel, and
renders the table's notes in each reader's language. It never raises: a refusal or an
internal error becomes a private message to the sender.

>>> from dokobot.host.events import Input
>>> r = Router(seed=1)
>>> for name in ("anna", "ben", "carl", "dora"):
...     _ = r.handle(Input("c", name, name, "/join"))
>>> [e.text for e in r.handle(Input("c", "anna", "anna", "/frobnicate"))]
['Unknown command /frobnicate. Try /help.']
"""

from __future__ import annotations

import functools
import logging
import random
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from .. import languages
from ..ai.search import REVIEW_BUDGET_S
from ..engine.errors import NotationError
from ..engine.notation import parse_kind
from ..engine.types import Action, Phase
from ..names import normalize_name
from ..store.base import StoreError, StoreUnavailable
from . import handlers, statcmds, watching
from .commands import COMMANDS, Command, aliases, find
from .context import Context
from .events import Choice, Event, Input, Private, Public
from .handlers.actions import play
from .handlers.general import unknown
from .i18n import render
from .journal import Record
from .notes import ALL, Note, Refusal
from .options import ChatDefaults, TableOptions
from .permissions import check
from .prompts import hand_note, shown_cards
from .stakes import Ledger, LedgerEntry, server_of
from .table import BotFactory, Table, sorted_hand
from .views import label

if TYPE_CHECKING:
    from ..stats import FinishedGame, Stats
    from .reviewqueue import ReviewQueue
    from .series import GameRecord

__all__ = [
    "COMMANDS",
    "Command",
    "Context",
    "Router",
    "clean_name",
    "handlers",
    "names_a_card",
]

log = logging.getLogger(__name__)

MAX_LINE: Final = 400

_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")


class Router:
    """All tables of one process, by channel.

    ``seed``: tables get reproducible seeds from it (tests, ``--seed``); without it (the
    bot in production) every deal comes from the operating system's CSPRNG and no seed is
    journaled. ``table_seed``: the seed of each channel's table.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        bot_factory: BotFactory | None = None,
        default_language: str = "en",
        table_seed: Callable[[str], int] | None = None,
        default_options: TableOptions | None = None,
    ) -> None:
        self.tables: dict[str, Table] = {}
        self.user_table: dict[str, str] = {}
        self.langs: dict[str, str] = {}
        self.bot_factory = bot_factory
        self.default_language = default_language
        self.default_options = (default_options or TableOptions()).set("language", default_language)
        self.ledgers: dict[str, Ledger] = {}
        self.chats: list[ChatDefaults] = []
        """The chats' own defaults for the new tables of their channels, as their adapters
        declared them (:meth:`~dokobot.host.contract.Host.table_defaults`)."""
        self.history: Callable[[Table], list[Record]] | None = None
        """The whole journal of a table, where the table keeps only its unsaved lines."""
        self.archive: Callable[[str], tuple[list[GameRecord], list[LedgerEntry]]] | None = None
        """The stored finished games of a channel and their settlements, given to every
        table it makes (:attr:`Table.archive`; set by the service)."""
        self.stats: Stats | None = None
        """Statistics over the stored finished games (set by the service)."""
        self.review_budget = REVIEW_BUDGET_S
        """CPU seconds per decision of ``/review`` (``bots.review_budget``); ``/hint``
        thinks half of it."""
        self.reviews: ReviewQueue | None = None
        """The queue that reviews every finished game with people once and stores the
        review (set by the service that has one); without it ``/review`` reviews the last
        game on request."""
        self._rng = None if seed is None else random.Random(seed)
        self._table_seed = table_seed

    # ---------------------------------------------------------------- tables
    def table(self, channel: str, server: str = "") -> Table:
        """The table of ``channel`` (created on first use, with the chip ledger of
        ``server``)."""
        t = self.tables.get(channel)
        if t is None:
            seed: int | None = None
            if self._table_seed is not None:
                seed = self._table_seed(channel)
            elif self._rng is not None:
                seed = self._rng.getrandbits(48)
            srv = server or server_of(channel)
            ledger = self.ledgers.setdefault(srv, Ledger(server=srv))
            t = Table(channel=channel, seed=seed, bot_factory=self.bot_factory, ledger=ledger)
            t.archive = self.archive
            t.options = self.default_options.for_channel(channel, self.chats)
            if seed is not None:
                t.journal.append(Record("seed", text=str(seed)))
            if server:
                t.journal.append(Record("server", text=server))
            self.tables[channel] = t
        return t

    def bind_server(self, table: Table, server: str) -> None:
        """Keep ``table``'s chips in the ledger of ``server`` (restoring a journal)."""
        table.ledger = self.ledgers.setdefault(server, Ledger(server=server))
        record = Record("server", text=server)
        if record not in table.journal:
            table.journal.append(record)

    def lang_of(self, user: str, table: Table | None = None) -> str:
        if user in self.langs:
            return self.langs[user]
        return table.options.language if table else self.default_language

    # ---------------------------------------------------------------- entry point
    def handle(self, inp: Input, table: Table | None = None) -> list[Event]:
        """Answer one input; never raises. ``table``: answer it at this table (a reader's
        snapshot, see :meth:`Table.snapshot`) instead of looking the table up."""
        try:
            return self._handle(inp, table)
        except Refusal as r:
            table = table or self.tables.get(inp.channel) or self._table_of_user(inp.user)
            return [self._private_text(inp, table, r.key, r.params, kind="error")]
        except StoreUnavailable as exc:  # it does not answer in time: nothing was changed
            log.warning("%s (answering %r)", exc, inp.text[:80])
            return [self._private_text(inp, None, "store_unreadable", {}, kind="error")]
        except StoreError as exc:  # a damaged store: its cause in one line, not a traceback
            log.error("%s (answering %r)", exc, inp.text[:80])
            return [self._private_text(inp, None, "internal_error", {}, kind="error")]
        except Exception:
            log.exception("internal error on %r", inp.text[:80])
            return [self._private_text(inp, None, "internal_error", {}, kind="error")]

    def _table_of_user(self, user: str) -> Table | None:
        ch = self.user_table.get(user)
        return self.tables.get(ch) if ch else None

    def _private_text(
        self, inp: Input, table: Table | None, key: str, params: dict[str, Any], kind: str
    ) -> Private:
        lang = self.lang_of(inp.user, table)
        if key.startswith("illegal.") and table is not None and "turn_seat" in params:
            seat = params["turn_seat"]
            if 0 <= seat < len(table.seats):
                params = {**params, "player": table.seats[seat].name}
        return Private(
            inp.channel or (table.channel if table else ""),
            inp.user,
            render(lang, key, params),
            reply=True,
            kind=kind,
            lang=lang,
            marker=_marker(table) if table is not None else None,
        )

    def _handle(self, inp: Input, given: Table | None = None) -> list[Event]:
        text = _CONTROL.sub("", inp.text).strip()
        if not text:
            return []
        if len(text) > MAX_LINE or inp.truncated:
            raise Refusal("too_long", limit=MAX_LINE)
        table: Table | None
        if given is not None:
            table = given
        elif inp.dm or not inp.channel:
            table = self._table_of_user(inp.user)
        else:
            table = self.table(inp.channel, inp.server)
        seat = table.seat_of(inp.user) if table else None
        if inp.marker is not None and table is not None:
            from .board import decision_marker

            if decision_marker(table) != inp.marker:  # a button of a past prompt
                raise Refusal("stale_prompt")
        ctx = Context(inp, table, seat)
        back = [] if table is None else self.returns(table, inp)
        if not back:
            return self._dispatch(ctx, text)
        try:
            return back + self._dispatch(ctx, text)
        except Refusal as r:  # they are back all the same: the table is told so
            return [*back, self._private_text(inp, table, r.key, r.params, kind="error")]

    def returns(self, table: Table, inp: Input) -> list[Event]:
        """The sender of ``inp`` is back at ``table`` if a computer player stood in for
        them there (any input of theirs counts, as RULES' vote on an absent seat means):
        what the table says of it (journaled: :meth:`Table.back`); nothing otherwise."""
        seat = table.seat_of(inp.user)
        if seat is None or seat not in table.away:
            return []
        return self.render_notes(table, table.back(seat), inp)

    def _dispatch(self, ctx: Context, text: str) -> list[Event]:
        if text[0] not in "/!":
            return self._bare(ctx, text)
        parts = text[1:].split()
        if not parts:
            return []
        word = parts[0].lower()
        args = parts[1:]
        lang = self.lang_of(ctx.inp.user, ctx.table)
        spec = find(word, lang)
        if spec is None:
            raise unknown(word, lang)
        check(spec, ctx)
        return spec.handler(self, ctx, args)

    def _bare(self, ctx: Context, text: str) -> list[Event]:
        """A line without a command: a card if it is the sender's turn, else chat.

        On one's turn a line of one or two words (``CQ``, ``3``, ``Kreuz Dame``), or a longer
        one that names a card in the reader's words (``donna di fiori``), is read as a card,
        and a refusal answers it; other lines are chat and get no answer.
        """
        table, seat = ctx.table, ctx.seat
        if table is None or seat is None or table.game is None:
            return []
        if not ctx.inp.dm and not table.options.bare_cards:
            return []
        game = table.game
        if game.phase is not Phase.PLAYING or game.turn != seat:
            return []
        if len(text) > 24:
            return []
        if len(text.split()) > 2:
            try:
                parse_kind(text, languages.notations(self.lang_of(ctx.inp.user, table)))
            except NotationError:
                return []
        return play(self, ctx, text.split())

    # ---------------------------------------------------------------- computer players
    def bot_step(self, channel: str) -> list[Event] | None:
        """Let the computer player to move in ``channel`` act once; None if none must."""
        decision = self.bot_decide(channel)
        if decision is None:
            return None
        return self.bot_apply(channel, *decision)

    def bot_decide(self, channel: str) -> tuple[int, Action | None, Action] | None:
        """The move of the computer player to move (may be slow; no state change)."""
        table = self.tables.get(channel)
        if table is None:
            return None
        seat = table.bot_to_move()
        if seat is None:
            return None
        call, action = table.bot_decision(seat)
        return seat, call, action

    def bot_apply(
        self, channel: str, seat: int, call: Action | None, action: Action
    ) -> list[Event]:
        """Apply a computer player's move decided by :meth:`bot_decide`."""
        table = self.tables[channel]
        if table.bot_to_move() != seat:
            return []
        try:
            notes = table.apply_bot(seat, call, action)
        except Refusal:
            log.exception("computer player made an illegal move")
            return []
        return self.render_notes(table, notes, None)

    # ---------------------------------------------------------------- rendering
    def render_notes(self, table: Table, notes: list[Note], inp: Input | None) -> list[Event]:
        out: list[Event] = []
        public_lang = table.options.language
        marker = _marker(table)
        for note in notes:
            if note.to == ALL:
                text = render(public_lang, note.key, note.params)
                waits = note.waits_for
                user = table.seats[waits].user if waits is not None else None
                out.append(
                    Public(table.channel, text, waits_for=user, lang=public_lang, kind=note.kind)
                )
                continue
            if note.to >= len(table.seats):
                continue
            info = table.seats[note.to]
            if info.is_bot:
                continue
            lang = self.lang_of(info.user, table)
            choices = tuple([_choice(lbl, cmd, lang) for lbl, cmd in note.choices])
            game = table.game
            hand: tuple[int, ...] = ()
            groups: tuple[int, ...] = ()
            playable: tuple[int, ...] | None = None
            if game is not None and note.kind in ("hand", "turn", "reservation"):
                shown = shown_cards(game, sorted_hand(game, game.hands[note.to]))
                hand, groups = shown.cards, shown.groups
                if note.kind == "turn" and game.phase is Phase.PLAYING:
                    legal = game.legal_cards(note.to)
                    playable = tuple([c for c in hand if legal >> c & 1])
            out.append(
                Private(
                    table.channel,
                    info.user,
                    render(lang, note.key, note.params),
                    choices=choices,
                    reply=inp is not None and inp.user == info.user,
                    kind=note.kind,
                    hand=hand,
                    groups=groups,
                    playable=playable,
                    lang=lang,
                    marker=marker,
                )
            )
            if table.watches and game is not None and watching.shows_hand(note.kind, game.phase):
                # RULES §13: the watchers see the hand as the player does
                cards = hand_note(game, note.to).params["cards"]
                params = {"player": info.name, "cards": cards}
                for w in watching.watchers_of(table.watches, info.user):
                    text = render(self.lang_of(w.user, table), "watch_hand", params)
                    out.append(Private(table.channel, w.user, text))
        return out

    def _reply(self, ctx: Context, key: str, params: dict[str, Any] | None = None,
               kind: str = "info") -> list[Event]:  # fmt: skip
        return [self._private_text(ctx.inp, ctx.table, key, params or {}, kind)]

    def game_links(self, table: Table, games: list[FinishedGame]) -> list[Event]:
        """Messages linking newly stored games to their web pages."""
        return statcmds.game_links(self, table, games)


def names_a_card(token: str) -> bool:
    """Whether a lone ``token`` names a card (``♦K``, ``DK``) or a hand number (``3``) and no
    command: what an adapter may pass on as a bare card (adapters know no card names).

    >>> names_a_card("DK"), names_a_card("♦K"), names_a_card("3"), names_a_card("join")
    (True, True, True, False)
    """
    if token.isdigit():
        return len(token) <= 2
    if token.lower() in aliases():
        return False
    try:
        parse_kind(token, languages.notations(languages.DEFAULT))
    except NotationError:
        return False
    return True


def _marker(table: Table) -> tuple[int, int] | None:
    """The decision marker of ``table`` while a game runs (stamped on private messages)."""
    if not table.running:
        return None
    from .board import decision_marker

    return decision_marker(table)


def clean_name(name: str) -> str:
    """A display name safe for journals and messages."""
    return normalize_name(name)


@functools.lru_cache(maxsize=4096)
def _choice(text: str, command: str, lang: str) -> Choice:
    """A choice of a prompt (cached: the same few hundred are shown after every move)."""
    return Choice(label(text, lang), command)
