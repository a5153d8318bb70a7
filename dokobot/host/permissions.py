"""Who may do what: the checks the router makes before a command's handler runs (from the
command's declaration, :mod:`.commands`) and the ones handlers make themselves."""

from __future__ import annotations

from .commands import Command, Phase, Who
from .context import Context
from .notes import Refusal
from .table import Table


def need_table(ctx: Context) -> Table:
    """The table of the command (refused where there is none)."""
    if ctx.table is None:
        raise Refusal("no_table_dm" if ctx.inp.dm else "no_table")
    return ctx.table


def need_seat(ctx: Context) -> tuple[Table, int]:
    """The table and the sender's seat (refused unless seated)."""
    table = need_table(ctx)
    if ctx.seat is None:
        raise Refusal("not_seated")
    return table, ctx.seat


def need_game(table: Table) -> None:
    """Refuse unless a game is running, saying how to start one."""
    if not table.running:
        of = table.options.seats
        if len(table.seats) < of:
            if of > 4:
                raise Refusal("no_game_seats_of", n=len(table.seats), of=of)
            raise Refusal("no_game_seats", n=len(table.seats))
        raise Refusal("no_game")


def may_configure(ctx: Context, table: Table) -> None:
    """Refuse unless the sender owns ``table`` or is a server admin."""
    if ctx.inp.admin or (table.owner is not None and table.owner == ctx.inp.user):
        return
    if table.owner is None:
        raise Refusal("no_owner")
    owner = next((s.name for s in table.seats if s.user == table.owner), "?")
    raise Refusal("not_owner", owner=owner)


def as_admin(ctx: Context, table: Table) -> bool:
    """Whether ``ctx`` configures ``table`` by a server admin's rights only."""
    return ctx.inp.admin and table.owner not in (None, ctx.inp.user)


def require(ctx: Context, who: Who) -> None:
    """Refuse unless the sender is ``who``."""
    if who is Who.SEATED:
        need_seat(ctx)
    elif who is Who.OWNER:
        may_configure(ctx, need_table(ctx))
    elif who is Who.ADMIN and not ctx.inp.admin:
        raise Refusal("stats.web_admin_only")


def check(spec: Command, ctx: Context) -> None:
    """What the declaration of ``spec`` asks before its handler runs: who, the channel
    (or a private message), and the phase."""
    require(ctx, spec.who)
    if spec.channel_only and ctx.inp.dm:
        raise Refusal("in_channel_only")
    if spec.secret and ctx.inp.overheard:
        raise Refusal("in_private_only", command=spec.name)
    if spec.phase is Phase.GAME:
        table = need_table(ctx)
        need_game(table)
        if spec.who is Who.SEATED and ctx.seat is not None and not table.plays(ctx.seat):
            raise Refusal("sitting_out_now")  # RULES §12.9: he is asked nothing
