"""Views: /hand, /table, /last, /score, /ledger."""

from __future__ import annotations

from ..commands import Arg, ArgKind, Phase, Who, command
from ..context import Context, Host
from ..events import Event, Private
from ..notes import Refusal
from ..options import whole_number
from ..permissions import need_seat, need_table
from ..series import series_csv
from ..statcmds import is_chart_word, score_chart
from ..views import describe, last_trick


@command("hand", who=Who.SEATED, phase=Phase.GAME,
         summary="Show your hand (only you see it)")  # fmt: skip
def hand(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, seat = need_seat(ctx)
    assert table.game is not None
    notes = [table.hand_note(seat)]
    if table.running and table.game.turn == seat:
        notes += [n for n in table.prompt() if n.to == seat]
    return router.render_notes(table, notes, ctx.inp)


@command("table", summary="Show the table")
def table(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    lang = router.lang_of(ctx.inp.user, t)
    return router._reply(ctx, "table_view", {"view": describe(t, lang)})


@command("last", summary="Show the last trick")
def last(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    played = last_trick(t, router.lang_of(ctx.inp.user, t))
    if played is None or t.last_trick is None:
        raise Refusal("no_last_trick")
    winner = t.last_trick_names[t.last_trick[2]]
    return router._reply(ctx, "last_trick", {"cards": played, "player": winner})


@command(
    "score", slow=True, first_argument_only=True,
    summary="Show the score list",
    args=(
        Arg("csv", ArgKind.FLAG, "As CSV (a file)", word="csv"),
        Arg("chart", ArgKind.FLAG, "The running totals of the series as a picture",
            word="chart"),
        Arg("game", ArgKind.NUMBER, "A game number for its details"),
    ),
)  # fmt: skip
def score(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    lang = router.lang_of(ctx.inp.user, t)
    if args and args[0].lower() == "csv":
        return [Private(t.channel, ctx.inp.user, series_csv(t), reply=True, kind="export",
                        lang=lang)]  # fmt: skip
    if args and is_chart_word(args[0]):
        return score_chart(router, ctx, t, args[1:])
    number = whole_number(args[0]) if args else None
    if number is not None:
        note = t.game_note(number, lang)
    elif args:
        raise Refusal("score_which", word=args[0])
    else:
        note = t.score_note(lang)
        return router._reply(ctx, note.key, note.params, kind="score")
    return router._reply(ctx, note.key, note.params)


@command("ledger", summary="Show the chip balances of this server")  # fmt: skip
def ledger(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    note = t.ledger_note(router.lang_of(ctx.inp.user, t))
    return router._reply(ctx, note.key, note.params)
