"""Statistics: /stats, /top, /web (their work is in :mod:`..statcmds`)."""

from __future__ import annotations

from ...stats import BOARDS
from .. import statcmds
from ..commands import Arg, ArgKind, Who, command
from ..context import Context, Host
from ..events import Event


@command(
    "stats", slow=True,
    summary="Show statistics on this server (only you see them)",
    args=(
        Arg("player", ArgKind.TEXT, "Whose statistics (default: yours)"),
        Arg("chart", ArgKind.FLAG, "The rating over time as a picture", word="chart"),
    ),
)  # fmt: skip
def stats(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    return statcmds.cmd_stats(router, ctx, args)


@command(
    "top", slow=True, summary="Show the leaderboard of this server",
    args=(Arg("board", ArgKind.CHOICE, "Ranked by what",
              choices=tuple((b, b.capitalize()) for b in BOARDS)),),
)  # fmt: skip
def top(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    return statcmds.cmd_top(router, ctx, args)


@command(
    "web", changes=Who.ADMIN, summary="Link to this server's web page",
    args=(Arg("switch", ArgKind.CHOICE, "Turn the page on or off (admins)",
              choices=(("on", "On"), ("off", "Off"))),),
)  # fmt: skip
def web(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    return statcmds.cmd_web(router, ctx, args)
