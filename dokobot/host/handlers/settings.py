"""Settings and records: /option, /options, /lang, /abort, /export."""

from __future__ import annotations

import dataclasses

from ... import languages
from ..commands import Arg, ArgKind, Phase, Who, command
from ..context import Context, Host
from ..events import Event, Private
from ..export import export_table
from ..i18n import OptionName, OptionValue, name_text
from ..notes import Refusal
from ..options import OPTIONS, OptionError, TableOptions
from ..permissions import as_admin, need_seat, need_table, require
from ..series import series_csv


@command(
    "option", changes=Who.OWNER, summary="Show or change a table option",
    args=(
        Arg("name", ArgKind.TEXT, "Option name", required=True, suggest="option"),
        Arg("value", ArgKind.TEXT, "New value (leave empty to show the current one)"),
    ),
)  # fmt: skip
def option(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    if not args:
        return options(router, ctx, args)
    name = TableOptions.canonical(args[0])
    if name not in table.options.names():
        guess = TableOptions.guess(name)
        if guess is not None:
            raise Refusal("option_unknown_guess", name=name, guess=OptionName(guess))
        raise Refusal("option_unknown", name=name, names=tuple(map(OptionName, OPTIONS)))
    if len(args) == 1:
        value = OptionValue(table.options.show(name))
        return router._reply(ctx, "option_value", {"name": OptionName(name), "value": value})
    require(ctx, Who.OWNER)
    admin = as_admin(ctx, table)
    try:
        notes = table.set_option(name, " ".join(args[1:]), ctx.inp.name, ctx.inp.user)
    except OptionError as exc:
        raise Refusal(exc.reason, **exc.params) from exc
    if admin:
        table.journal[-1] = dataclasses.replace(table.journal[-1], admin=True)
    return router.render_notes(table, notes, ctx.inp)


@command("options", summary="List the table options")
def options(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table = need_table(ctx)
    opts = table.options
    lang = router.lang_of(ctx.inp.user, table)
    rows = [
        f"{name_text('option', n, lang)} = {name_text('value', opts.show(n), lang)}"
        for n in opts.names()
    ]
    return router._reply(ctx, "options_list", {"options": "\n".join(rows)})


@command(
    "lang", summary="Set the language of your own messages",
    args=(Arg("language", ArgKind.CHOICE, "Language", required=True, suggest="language"),),
)  # fmt: skip
def lang(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    if not args or args[0].lower() not in languages.codes():
        raise Refusal("lang_which", langs=" | ".join(languages.codes()))
    router.langs[ctx.inp.user] = args[0].lower()
    return router._reply(ctx, "lang_set", {"lang": args[0].lower()})


@command("abort", who=Who.SEATED, phase=Phase.GAME,
         summary="Abort the current game")  # fmt: skip
def abort(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, seat = need_seat(ctx)
    return router.render_notes(table, table.abort(seat), ctx.inp)


@command(
    "export", slow=True,
    summary="Export the game record",
    args=(Arg("csv", ArgKind.FLAG, "Export the score list as CSV instead", word="csv"),),
)  # fmt: skip
def export(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/export``: the replay file; ``/export csv``: the score list as CSV."""
    table = need_table(ctx)
    if args and args[0].lower() == "csv":
        out = series_csv(table)
    else:
        lines = router.history(table) if router.history is not None else table.journal
        out = export_table(table, lines, running=table.running)
    lang = router.lang_of(ctx.inp.user, table)
    return [Private(table.channel, ctx.inp.user, out, reply=True, kind="export", lang=lang)]
