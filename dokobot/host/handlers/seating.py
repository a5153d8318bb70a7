"""Seating: /join, /leave, /replace, /start."""

from __future__ import annotations

import dataclasses

from ...names import normalize_name
from ..commands import Arg, ArgKind, Phase, Who, command
from ..context import Context, Host
from ..events import Event
from ..i18n import option_value_text
from ..notes import Refusal
from ..options import BOT_LEVELS, level_of
from ..permissions import as_admin, need_seat, need_table

BOT_WORDS: tuple[str, ...] = ("bot", "computer", "ki")
"""``/join bot``: the words that seat a computer player."""


@command(
    "join", channel_only=True,
    discord="Take a seat at the table in this channel",
    args=(
        Arg("bot", ArgKind.FLAG, "Seat a computer player instead of yourself",
            word="bot"),
        Arg("level", ArgKind.CHOICE, "How strong the computer player is",
            choices=tuple((v, v.capitalize()) for v in BOT_LEVELS)),
    ),
)  # fmt: skip
def join(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    if args and args[0].lower() in BOT_WORDS:
        level = level_of(args[1]) if len(args) > 1 else None
        if len(args) > 1 and level is None:
            lang = router.lang_of(ctx.inp.user, ctx.table)
            shown = (option_value_text(level, lang) for level in BOT_LEVELS)
            raise Refusal("bot_level_unknown", levels=" | ".join(shown))
        if ctx.seat is None and table.owner not in (None, ctx.inp.user) and not ctx.inp.admin:
            raise Refusal("not_seated")
        admin = ctx.seat is None and as_admin(ctx, table)
        notes = table.join_bot(ctx.inp.name, level, ctx.inp.user)
        if admin:
            table.journal[-1] = dataclasses.replace(table.journal[-1], admin=True)
        return router.render_notes(table, notes, ctx.inp)
    other = router.user_table.get(ctx.inp.user)
    if other is not None and other != table.channel:
        t = router.tables.get(other)
        if t is not None and t.seat_of(ctx.inp.user) is not None:
            raise Refusal("seated_elsewhere")
    name = normalize_name(ctx.inp.name)
    notes = table.join(ctx.inp.user, name)
    router.user_table[ctx.inp.user] = table.channel
    return router.render_notes(table, notes, ctx.inp)


@command("leave", discord="Leave the table")
def leave(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    notes = table.leave(ctx.inp.user)
    if table.seat_of(ctx.inp.user) is None:
        router.user_table.pop(ctx.inp.user, None)
    return router.render_notes(table, notes, ctx.inp)


@command(
    "replace", discord="Take a computer player's seat (between games)",
    args=(Arg("player", ArgKind.TEXT, "The computer player whose seat you take"),),
)  # fmt: skip
def replace(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    other = router.user_table.get(ctx.inp.user)
    if other is not None and other != table.channel:
        raise Refusal("seated_elsewhere")
    notes = table.replace(ctx.inp.user, normalize_name(ctx.inp.name), args[0] if args else None)
    router.user_table[ctx.inp.user] = table.channel
    return router.render_notes(table, notes, ctx.inp)


@command("start", who=Who.SEATED, channel_only=True, discord="Start the next game")
def start(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, _ = need_seat(ctx)
    return router.render_notes(table, table.start(ctx.inp.name, ctx.inp.user), ctx.inp)


@command(
    "standin", who=Who.OWNER, phase=Phase.GAME, channel_only=True,
    discord="A computer player stands in for the person whose turn it is",
)  # fmt: skip
def standin(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """The owner lets a computer player move for an idle person (until the person acts)."""
    table = need_table(ctx)
    game = table.game
    if game is None or not table.running:
        raise Refusal("no_game")
    seat = game.turn
    info = table.seats[seat]
    if info.is_bot or seat in table.away or info.user == ctx.inp.user:
        raise Refusal("standin_nobody")
    return router.render_notes(table, [table.mark_away(seat)], ctx.inp)
