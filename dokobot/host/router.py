"""The command router: text in, events out, for every channel at once.

It parses commands (English names, German aliases), checks who may do what, drives the
table of the channel and renders the table's notes in each reader's language. It never
raises: a refusal or an internal error becomes a private message to the sender.

>>> from dokobot.host.events import Input
>>> r = Router(seed=1)
>>> for name in ("anna", "ben", "carl", "dora"):
...     _ = r.handle(Input("c", name, name, "/join"))
>>> [e.text for e in r.handle(Input("c", "anna", "anna", "/frobnicate"))]
['Unknown command /frobnicate. Try /help.']
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import logging
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..engine.errors import IllegalAction, NotationError
from ..engine.notation import parse_card, parse_kind
from ..engine.types import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_NO30,
    CALL_NO60,
    CALL_NO90,
    CALL_RE,
    DECLARE_POVERTY,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DECLINE,
    HEALTHY,
    RESERVATION,
    TAKE,
    THROW_IN,
    Action,
    Phase,
    Solo,
)
from . import statcmds
from .board import public_party_keys
from .events import Choice, Event, Input, Private, Public
from .i18n import LANGS, Cards, Term, card_text, render
from .journal import Record
from .names import normalize_name
from .notes import ALL, Note, Refusal
from .options import BOT_LEVELS, OptionError, TableOptions, whole_number
from .stakes import Ledger, server_of
from .table import BotFactory, Table, illegal_params, sorted_hand

if TYPE_CHECKING:
    from ..stats import FinishedGame, Stats

log = logging.getLogger(__name__)

MAX_LINE: Final = 400

#: Command -> accepted names: the English name, the German name (shown in German help;
#: the English one again where German players use it too), then more aliases.
COMMANDS: Final[dict[str, tuple[str, ...]]] = {
    "join": ("join", "mitspielen", "beitreten"),
    "leave": ("leave", "verlassen", "gehen"),
    "replace": ("replace", "ersetzen"),
    "start": ("start", "los"),
    "healthy": ("healthy", "gesund"),
    "reservation": ("reservation", "vorbehalt"),
    "solo": ("solo", "solo"),
    "wedding": ("wedding", "hochzeit"),
    "poverty": ("poverty", "armut"),
    "throw": ("throw", "schmeissen", "schmeißen"),
    "take": ("take", "nehmen"),
    "decline": ("decline", "ablehnen"),
    "give": ("give", "geben"),
    "play": ("play", "spiel", "spielen", "lege", "p"),
    "re": ("re", "re"),
    "kontra": ("kontra", "kontra", "contra"),
    "no90": ("no90", "keine90"),
    "no60": ("no60", "keine60"),
    "no30": ("no30", "keine30"),
    "black": ("black", "schwarz"),
    "hand": ("hand", "blatt", "karten"),
    "table": ("table", "tisch"),
    "last": ("last", "letzter", "letzte"),
    "score": ("score", "liste", "punkte", "stand"),
    "ledger": ("ledger", "konto", "chips"),
    "option": ("option", "option"),
    "options": ("options", "optionen"),
    "lang": ("lang", "sprache", "language"),
    "abort": ("abort", "abbrechen"),
    "export": ("export", "export", "exportieren"),
    "stats": ("stats", "statistik"),
    "top": ("top", "rangliste"),
    "web": ("web", "webseite"),
    "help": ("help", "hilfe", "h"),
    "quit": ("quit", "beenden", "exit"),
}
ALIASES: Final[dict[str, str]] = {alias: cmd for cmd, names in COMMANDS.items() for alias in names}


def command_name(cmd: str, lang: str) -> str:
    """The name of command ``cmd`` that help in ``lang`` shows.

    >>> command_name("healthy", "de"), command_name("healthy", "en"), command_name("re", "de")
    ('gesund', 'healthy', 're')
    """
    names = COMMANDS[cmd]
    return names[1] if lang == "de" and len(names) > 1 else names[0]

SOLO_NAMES: Final[dict[str, Solo]] = {
    "clubs": Solo.CLUBS, "kreuz": Solo.CLUBS, "club": Solo.CLUBS,
    "spades": Solo.SPADES, "pik": Solo.SPADES, "spade": Solo.SPADES,
    "hearts": Solo.HEARTS, "herz": Solo.HEARTS, "heart": Solo.HEARTS,
    "diamonds": Solo.DIAMONDS, "karo": Solo.DIAMONDS, "diamond": Solo.DIAMONDS,
    "queens": Solo.QUEENS, "damen": Solo.QUEENS, "damensolo": Solo.QUEENS,
    "jacks": Solo.JACKS, "buben": Solo.JACKS, "bubensolo": Solo.JACKS,
    "fleshless": Solo.FLESHLESS, "fleischlos": Solo.FLESHLESS, "aces": Solo.FLESHLESS,
    "asse": Solo.FLESHLESS,
}  # fmt: skip

_CALLS: Final[dict[str, Action]] = {
    "re": CALL_RE, "kontra": CALL_KONTRA, "no90": CALL_NO90, "no60": CALL_NO60,
    "no30": CALL_NO30, "black": CALL_BLACK,
}  # fmt: skip

_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")


@dataclass(slots=True)
class Context:
    """Who sent a command, where."""

    inp: Input
    table: Table | None
    seat: int | None


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
        self.history: Callable[[Table], list[Record]] | None = None
        """The whole journal of a table, where the table keeps only its unsaved lines."""
        self.stats: Stats | None = None
        """Statistics over the stored finished games (set by the service)."""
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
            t.options = self.default_options.for_channel(channel)
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
    def handle(self, inp: Input) -> list[Event]:
        """Answer one input; never raises."""
        try:
            return self._handle(inp)
        except Refusal as r:
            table = self.tables.get(inp.channel) or self._table_of_user(inp.user)
            return [self._private_text(inp, table, r.key, r.params, kind="error")]
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
        )

    def _handle(self, inp: Input) -> list[Event]:
        text = _CONTROL.sub("", inp.text).strip()
        if not text:
            return []
        if len(text) > MAX_LINE or inp.truncated:
            raise Refusal("too_long", limit=MAX_LINE)
        table: Table | None
        if inp.dm or not inp.channel:
            table = self._table_of_user(inp.user)
        else:
            table = self.table(inp.channel, inp.server)
        seat = table.seat_of(inp.user) if table else None
        if inp.marker is not None and table is not None:
            from .board import decision_marker

            if decision_marker(table) != inp.marker:  # a button of a past prompt
                raise Refusal("stale_prompt")
        ctx = Context(inp, table, seat)
        if table is not None and seat is not None and seat in table.away:
            back = self.render_notes(table, table.back(seat), inp)
            return back + self._dispatch(ctx, text)
        return self._dispatch(ctx, text)

    def _dispatch(self, ctx: Context, text: str) -> list[Event]:
        if text[0] not in "/!":
            return self._bare(ctx, text)
        parts = text[1:].split()
        if not parts:
            return []
        word = parts[0].lower()
        args = parts[1:]
        cmd = ALIASES.get(word)
        if cmd is None:
            guess = difflib.get_close_matches(word, list(ALIASES), n=1, cutoff=0.6)
            if guess:
                raise Refusal("unknown_command_guess", word=word, guess=ALIASES[guess[0]])
            raise Refusal("unknown_command", word=word)
        handler: Callable[[Context, list[str]], list[Event]] = getattr(self, "_cmd_" + cmd)
        return handler(ctx, args)

    def _bare(self, ctx: Context, text: str) -> list[Event]:
        """A line without a command: a card if it is the sender's turn, else chat.

        On one's turn a line of one or two words (``CQ``, ``3``, ``Kreuz Dame``) is read as
        a card, and a refusal answers it; longer lines are chat and get no answer.
        """
        table, seat = ctx.table, ctx.seat
        if table is None or seat is None or table.game is None:
            return []
        if not ctx.inp.dm and not table.options.bare_cards:
            return []
        game = table.game
        if game.phase is not Phase.PLAYING or game.turn != seat:
            return []
        if len(text) > 24 or len(text.split()) > 2:
            return []
        return self._cmd_play(ctx, text.split())

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
        for note in notes:
            if note.to == ALL:
                out.append(Public(table.channel, render(public_lang, note.key, note.params)))
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
            if game is not None and note.kind in ("hand", "turn", "reservation"):
                hand = tuple(sorted_hand(game, game.hands[note.to]))
            out.append(
                Private(
                    table.channel,
                    info.user,
                    render(lang, note.key, note.params),
                    choices=choices,
                    reply=inp is not None and inp.user == info.user,
                    kind=note.kind,
                    hand=hand,
                )
            )
        return out

    def _reply(self, ctx: Context, key: str, params: dict[str, Any] | None = None,
               kind: str = "info") -> list[Event]:  # fmt: skip
        return [self._private_text(ctx.inp, ctx.table, key, params or {}, kind)]

    # ---------------------------------------------------------------- checks
    @staticmethod
    def _need_table(ctx: Context) -> Table:
        if ctx.table is None:
            raise Refusal("no_table_dm" if ctx.inp.dm else "no_table")
        return ctx.table

    @staticmethod
    def _need_seat(ctx: Context) -> tuple[Table, int]:
        table = Router._need_table(ctx)
        if ctx.seat is None:
            raise Refusal("not_seated")
        return table, ctx.seat

    def _may_configure(self, ctx: Context, table: Table) -> None:
        if ctx.inp.admin or (table.owner is not None and table.owner == ctx.inp.user):
            return
        if table.owner is None:
            raise Refusal("no_owner")
        owner = next((s.name for s in table.seats if s.user == table.owner), "?")
        raise Refusal("not_owner", owner=owner)

    # ---------------------------------------------------------------- commands
    def _cmd_join(self, ctx: Context, args: list[str]) -> list[Event]:
        if ctx.inp.dm:
            raise Refusal("in_channel_only")
        table = self._need_table(ctx)
        if args and args[0].lower() in ("bot", "computer", "ki"):
            level = args[1].lower() if len(args) > 1 else None
            if level is not None and level not in BOT_LEVELS:
                raise Refusal("bot_level_unknown", levels=" | ".join(BOT_LEVELS))
            if ctx.seat is None and table.owner not in (None, ctx.inp.user) and not ctx.inp.admin:
                raise Refusal("not_seated")
            admin = ctx.seat is None and _as_admin(ctx, table)
            notes = table.join_bot(ctx.inp.name, level, ctx.inp.user)
            if admin:
                table.journal[-1] = dataclasses.replace(table.journal[-1], admin=True)
            return self.render_notes(table, notes, ctx.inp)
        other = self.user_table.get(ctx.inp.user)
        if other is not None and other != table.channel:
            t = self.tables.get(other)
            if t is not None and t.seat_of(ctx.inp.user) is not None:
                raise Refusal("seated_elsewhere")
        name = _clean_name(ctx.inp.name)
        notes = table.join(ctx.inp.user, name)
        self.user_table[ctx.inp.user] = table.channel
        return self.render_notes(table, notes, ctx.inp)

    def _cmd_leave(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        notes = table.leave(ctx.inp.user)
        if table.seat_of(ctx.inp.user) is None:
            self.user_table.pop(ctx.inp.user, None)
        return self.render_notes(table, notes, ctx.inp)

    def _cmd_replace(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        other = self.user_table.get(ctx.inp.user)
        if other is not None and other != table.channel:
            raise Refusal("seated_elsewhere")
        notes = table.replace(ctx.inp.user, _clean_name(ctx.inp.name), args[0] if args else None)
        self.user_table[ctx.inp.user] = table.channel
        return self.render_notes(table, notes, ctx.inp)

    def _cmd_start(self, ctx: Context, args: list[str]) -> list[Event]:
        table, _ = self._need_seat(ctx)
        if ctx.inp.dm:
            raise Refusal("in_channel_only")
        return self.render_notes(table, table.start(ctx.inp.name, ctx.inp.user), ctx.inp)

    @staticmethod
    def _need_game(table: Table) -> None:
        """Refuse unless a game is running, saying how to start one."""
        if not table.running:
            if len(table.seats) < 4:
                raise Refusal("no_game_seats", n=len(table.seats))
            raise Refusal("no_game")

    def _act(self, ctx: Context, action: Action, text: str) -> list[Event]:
        table, seat = self._need_seat(ctx)
        self._need_game(table)
        return self.render_notes(table, table.act(seat, action, text), ctx.inp)

    def _cmd_healthy(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, HEALTHY, "/healthy")

    def _cmd_reservation(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, RESERVATION, "/reservation")

    def _cmd_wedding(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, DECLARE_WEDDING, "/wedding")

    def _cmd_poverty(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, DECLARE_POVERTY, "/poverty")

    def _cmd_throw(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, THROW_IN, "/throw")

    def _cmd_take(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, TAKE, "/take")

    def _cmd_decline(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._act(ctx, DECLINE, "/decline")

    def _cmd_give(self, ctx: Context, args: list[str]) -> list[Event]:
        """``/give CARD …``: cards passed in a poverty's exchange. All of them are checked
        first (on a copy of the game): a refused card leaves the exchange as it was."""
        table, seat = self._need_seat(ctx)
        self._need_game(table)
        game = table.game
        assert game is not None
        if game.phase is not Phase.EXCHANGE:
            raise Refusal("illegal.give_not_now")
        if not args or len(args) > 3:
            raise Refusal("give_which")
        trial = game.copy()
        cards: list[int] = []
        for token in args:
            try:
                kind = parse_kind(token)
            except NotationError as exc:
                raise Refusal("notation." + exc.reason, **exc.params) from exc
            card = kind * 2 if trial.hands[seat] >> (kind * 2) & 1 else kind * 2 + 1
            try:
                trial.play(seat, card)
            except IllegalAction as exc:
                raise Refusal("illegal." + exc.reason, **illegal_params(trial, exc)) from exc
            cards.append(card)
        from ..engine.cards import card_ascii

        events: list[Event] = []
        for card in cards:
            notes = table.act(seat, card, f"/give {card_ascii(card)}")
            events += self.render_notes(table, notes, ctx.inp)
        return events

    def _cmd_solo(self, ctx: Context, args: list[str]) -> list[Event]:
        if not args:
            raise Refusal("solo_which", types=Term("solo_types"))
        solo = SOLO_NAMES.get(args[0].lower())
        if solo is None:
            raise Refusal("solo_unknown", word=args[0], types=Term("solo_types"))
        return self._act(ctx, DECLARE_SOLO + solo, f"/solo {solo.key}")

    def _card(self, table: Table, seat: int, token: str) -> int:
        game = table.game
        if game is None:
            raise Refusal("no_game")
        hand = game.hands[seat]
        n = whole_number(token)
        if n is not None:
            order = sorted_hand(game, hand)
            if not 1 <= n <= len(order):
                raise Refusal("card_number_range", n=n, count=len(order))
            return order[n - 1]
        try:
            kind = parse_kind(token)
        except NotationError as exc:
            params = dict(exc.params)
            if isinstance(params.get("candidates"), list):
                # Cards, so that each reader sees them in his notation (German ♣D, not ♣Q).
                kinds = [parse_kind(name) for name in params["candidates"]]
                params["candidates"] = Cards(tuple([k * 2 for k in kinds]), separator=", ")
            raise Refusal("notation." + exc.reason, **params) from exc
        del kind
        return parse_card(token, hand)

    def _cmd_play(self, ctx: Context, args: list[str]) -> list[Event]:
        table, seat = self._need_seat(ctx)
        self._need_game(table)
        if not args:
            raise Refusal("play_which")
        card = self._card(table, seat, " ".join(args))
        from ..engine.cards import card_ascii

        return self._act(ctx, card, f"/play {card_ascii(card)}")

    def _call(self, ctx: Context, name: str) -> list[Event]:
        return self._act(ctx, _CALLS[name], f"/{name}")

    def _cmd_re(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "re")

    def _cmd_kontra(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "kontra")

    def _cmd_no90(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "no90")

    def _cmd_no60(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "no60")

    def _cmd_no30(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "no30")

    def _cmd_black(self, ctx: Context, args: list[str]) -> list[Event]:
        return self._call(ctx, "black")

    def _cmd_hand(self, ctx: Context, args: list[str]) -> list[Event]:
        table, seat = self._need_seat(ctx)
        self._need_game(table)
        assert table.game is not None
        notes = [table.hand_note(seat)]
        if table.running and table.game.turn == seat:
            notes += [n for n in table.prompt() if n.to == seat]
        return self.render_notes(table, notes, ctx.inp)

    def _cmd_table(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        lang = self.lang_of(ctx.inp.user, table)
        return self._reply(ctx, "table_view", {"view": self.describe(table, lang)})

    def describe(self, table: Table, lang: str) -> str:
        """The /table view: seats, trick on the table, whose turn, calls, known parties."""
        names = table.names()
        seats = [
            render(lang, "view.standin", {"player": s.name}) if s.standin_for else s.name
            for s in table.seats
        ]
        lines = [render(lang, "view.seats", {"seats": seats or ["-"]})]
        game = table.game
        if game is None or not table.running:
            lines.append(render(lang, "view.no_game"))
            return "\n".join(lines)
        if game.phase is Phase.PLAYING:
            trick = [
                f"{names[(game.leader + i) % 4]} {card_text(c, lang)}"
                for i, c in enumerate(game.trick)
            ]
            lines.append(
                render(lang, "view.trick", {"n": len(game.tricks) + 1, "cards": trick or ["-"]})
            )
        lines.append(render(lang, "view.turn", {"player": names[game.turn]}))
        calls = [f"{names[s]}: {render(lang, 'call.' + _call_name(a))}" for s, a in game.calls]
        lines.append(render(lang, "view.calls", {"calls": calls or ["-"]}))
        known = public_party_keys(table)
        if known:
            lines.append(
                render(
                    lang,
                    "view.parties",
                    {"parties": [f"{names[s]} {render(lang, 'party.' + p)}" for s, p in known]},
                )
            )
        return "\n".join(lines)

    def _cmd_last(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        if table.last_trick is None:
            raise Refusal("no_last_trick")
        leader, cards, winner = table.last_trick
        names = table.last_trick_names
        lang = self.lang_of(ctx.inp.user, table)
        played = [f"{names[(leader + i) % 4]} {card_text(c, lang)}" for i, c in enumerate(cards)]
        return self._reply(ctx, "last_trick", {"cards": played, "player": names[winner]})

    def _cmd_score(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        lang = self.lang_of(ctx.inp.user, table)
        if args and args[0].lower() == "csv":
            from .series import series_csv

            return [
                Private(table.channel, ctx.inp.user, series_csv(table), reply=True, kind="export")
            ]
        if args and args[0].lower() in statcmds.CHART_WORDS:
            return statcmds.score_chart(self, ctx, table, args[1:])
        number = whole_number(args[0]) if args else None
        if number is not None:
            note = table.game_note(number, lang)
        elif args:
            raise Refusal("score_which", word=args[0])
        else:
            note = table.score_note(lang)
        return self._reply(ctx, note.key, note.params)

    def _cmd_ledger(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        note = table.ledger_note(self.lang_of(ctx.inp.user, table))
        return self._reply(ctx, note.key, note.params)

    def _cmd_options(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        opts = table.options
        rows = [f"{n} = {opts.show(n)}" for n in opts.names()]
        return self._reply(ctx, "options_list", {"options": "\n".join(rows)})

    def _cmd_option(self, ctx: Context, args: list[str]) -> list[Event]:
        table = self._need_table(ctx)
        if not args:
            return self._cmd_options(ctx, args)
        name = TableOptions.canonical(args[0])
        if name not in table.options.names():
            guess = TableOptions.guess(name)
            if guess is not None:
                raise Refusal("option_unknown_guess", name=name, guess=guess)
            raise Refusal("option_unknown", name=name, names=", ".join(table.options.names()))
        if len(args) == 1:
            return self._reply(
                ctx, "option_value", {"name": name, "value": table.options.show(name)}
            )
        self._may_configure(ctx, table)
        admin = _as_admin(ctx, table)
        try:
            notes = table.set_option(name, " ".join(args[1:]), ctx.inp.name, ctx.inp.user)
        except OptionError as exc:
            raise Refusal(exc.reason, names=", ".join(table.options.names()), **exc.params) from exc
        if admin:
            table.journal[-1] = dataclasses.replace(table.journal[-1], admin=True)
        return self.render_notes(table, notes, ctx.inp)

    def _cmd_lang(self, ctx: Context, args: list[str]) -> list[Event]:
        if not args or args[0].lower() not in LANGS:
            raise Refusal("lang_which", langs=" | ".join(LANGS))
        self.langs[ctx.inp.user] = args[0].lower()
        return self._reply(ctx, "lang_set", {"lang": args[0].lower()})

    def _cmd_abort(self, ctx: Context, args: list[str]) -> list[Event]:
        table, seat = self._need_seat(ctx)
        self._need_game(table)
        return self.render_notes(table, table.abort(seat), ctx.inp)

    def _cmd_export(self, ctx: Context, args: list[str]) -> list[Event]:
        """``/export``: the replay file; ``/export csv``: the score list as CSV."""
        table = self._need_table(ctx)
        if args and args[0].lower() == "csv":
            from .series import series_csv

            text = series_csv(table)
        else:
            from .replay import export_table

            lines = self.history(table) if self.history is not None else table.journal
            text = export_table(table, lines, running=table.running)
        return [Private(table.channel, ctx.inp.user, text, reply=True, kind="export")]

    def _cmd_stats(self, ctx: Context, args: list[str]) -> list[Event]:
        return statcmds.cmd_stats(self, ctx, args)

    def _cmd_top(self, ctx: Context, args: list[str]) -> list[Event]:
        return statcmds.cmd_top(self, ctx, args)

    def _cmd_web(self, ctx: Context, args: list[str]) -> list[Event]:
        return statcmds.cmd_web(self, ctx, args)

    def game_links(self, table: Table, games: list[FinishedGame]) -> list[Event]:
        """Messages linking newly stored games to their web pages."""
        return statcmds.game_links(self, table, games)

    def _cmd_help(self, ctx: Context, args: list[str]) -> list[Event]:
        lang = self.lang_of(ctx.inp.user, ctx.table)
        if args:
            word = args[0].lstrip("/!").lower()
            cmd = ALIASES.get(word)
            if cmd is None:
                guess = difflib.get_close_matches(word, list(ALIASES), n=1, cutoff=0.6)
                if guess:
                    raise Refusal("unknown_command_guess", word=word, guess=ALIASES[guess[0]])
                raise Refusal("unknown_command", word=word)
            first = command_name(cmd, lang)
            names = [first, *(a for a in COMMANDS[cmd] if a != first)]
            aliases = ", ".join("/" + a for a in dict.fromkeys(names))
            return self._reply(ctx, "help." + cmd, {"aliases": aliases})
        rows = [
            f"/{command_name(cmd, lang):<12} {render(lang, 'brief.' + cmd)}" for cmd in COMMANDS
        ]
        return self._reply(ctx, "help_list", {"commands": "\n".join(rows)})

    def _cmd_quit(self, ctx: Context, args: list[str]) -> list[Event]:
        """``/quit`` ends the console (the console handles it); in a chat it explains."""
        return self._reply(ctx, "quit_chat")


@functools.lru_cache(maxsize=4096)
@functools.lru_cache(maxsize=4096)
def _choice(label: str, command: str, lang: str) -> Choice:
    """A choice of a prompt (cached: the same few hundred are shown after every move)."""
    return Choice(_label(label, lang), command)


def _label(label: str, lang: str) -> str:
    if label.startswith("@"):
        return render(lang, label[1:])
    if label.startswith("#"):
        return card_text(int(label[1:]), lang)
    return label


def clean_name(name: str) -> str:
    """A display name safe for journals and messages."""
    return normalize_name(name)


def _as_admin(ctx: Context, table: Table) -> bool:
    """Whether ``ctx`` configures ``table`` by a server admin's rights only."""
    return ctx.inp.admin and table.owner not in (None, ctx.inp.user)


def _clean_name(name: str) -> str:
    return normalize_name(name)


def _call_name(action: Action) -> str:
    from ..engine.types import call_key

    return call_key(action)
