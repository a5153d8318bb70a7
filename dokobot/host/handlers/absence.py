"""The absent-player policy: /handover (the work is in :mod:`..absence`)."""

from __future__ import annotations

from .. import absence
from ..commands import Arg, ArgKind, Who, command
from ..context import Context, Host
from ..events import Event, Private
from ..i18n import render
from ..permissions import need_seat


@command(
    "handover", who=Who.SEATED, channel_only=True,
    summary="Vote to give an absent person's seat to a computer player or a waiting person",
    args=(
        Arg("player", ArgKind.TEXT, "The absent person a computer player stands in for",
            required=True),
        Arg("to", ArgKind.TEXT, "A waiting person who gets the seat (default: the computer)"),
    ),
)  # fmt: skip
def handover(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/handover NAME [WAITER]``: a vote of the others seated; its majority gives the seat
    of NAME (a computer player stands in for NAME) away for the rest of the series."""
    table, seat = need_seat(ctx)
    done = absence.handover(table, seat, args)
    for user in done.unseated:
        if router.user_table.get(user) == table.channel:
            del router.user_table[user]
    for user in done.seated:
        router.user_table[user] = table.channel
    out = router.render_notes(table, done.notes, ctx.inp)
    for user, key, params in done.told:
        lang = router.lang_of(user, table)
        out.append(Private(table.channel, user, render(lang, key, params), lang=lang))
    return out
