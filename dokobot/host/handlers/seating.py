"""Seating: /join, /leave, /replace, /start, /watch."""

from __future__ import annotations

import dataclasses

from ...names import normalize_name
from .. import watching
from ..archive import is_rated
from ..commands import Arg, ArgKind, Phase, Who, command
from ..context import Context, Host
from ..events import Event
from ..i18n import option_value_text
from ..notes import Note, Refusal
from ..options import BOT_LEVELS, level_of
from ..permissions import as_admin, need_seat, need_table
from ..prompts import hand_note

BOT_WORDS: tuple[str, ...] = ("bot", "computer", "ki")
"""``/join bot``: the words that seat a computer player."""


@command(
    "join", channel_only=True,
    summary="Take a seat at the table in this channel",
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


@command("leave", summary="Leave the table")
def leave(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    notes = table.leave(ctx.inp.user)
    if table.seat_of(ctx.inp.user) is None:
        router.user_table.pop(ctx.inp.user, None)
    return router.render_notes(table, notes, ctx.inp)


@command(
    "replace", summary="Take a computer player's seat (between games)",
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


@command("start", who=Who.SEATED, channel_only=True, summary="Start the next game")
def start(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, _ = need_seat(ctx)
    notes = table.start(ctx.inp.name, ctx.inp.user)
    for s in table.seats:  # (people a vote gave a seat take it at the deal)
        if not s.is_bot:
            router.user_table[s.user] = table.channel
    return router.render_notes(table, notes, ctx.inp)


@command(
    "standin", who=Who.OWNER, phase=Phase.GAME, channel_only=True,
    summary="A computer player stands in for the person whose turn it is",
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


@command(
    "watch", channel_only=True,
    summary="Watch a seated person's hand (if the table allows it)",
    args=(Arg("player", ArgKind.TEXT, "The seated person you watch; leave out to stop"),),
)  # fmt: skip
def watch(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/watch NAME`` (RULES §13): follow NAME's hand; ``/watch`` alone stops."""
    table = need_table(ctx)
    user = ctx.inp.user
    if not args:
        if not any(w.user == user for w in table.watches):
            raise Refusal("watch_who")
        table.watches = watching.without(table.watches, user)
        return router._reply(ctx, "watch_stopped")
    target = watching.seat_named(table.seats, " ".join(args))
    problem = watching.refusal(
        kibitz=table.options.kibitz,
        tournament=table.options.tournament,
        rated=is_rated(table),  # as the game is (or would be) stored
        watcher_seated=table.seat_of(user) is not None,
        target_seat=target,
        target_is_bot=target is not None and table.seats[target].is_bot,
    )
    if problem is not None:
        raise problem
    assert target is not None
    watched = table.seats[target]
    name = normalize_name(ctx.inp.name)
    new = watching.Watch(user, name, watched.user)
    table.watches = [*watching.without(table.watches, user), new]
    out = router.render_notes(table, [Note(target, "watched_by", {"player": name})], ctx.inp)
    out += router._reply(ctx, "watch_started", {"player": watched.name})
    if table.running:  # the hand as it is now; later hands come with the player's own
        cards = hand_note(table.game, target).params["cards"]
        out += router._reply(ctx, "watch_hand", {"player": watched.name, "cards": cards})
    return out
