"""/help and /quit."""

from __future__ import annotations

from ..commands import COMMANDS, Arg, ArgKind, command, find, guess
from ..context import Context, Host
from ..events import Event
from ..i18n import OptionName, OptionValue, option_value_text
from ..notes import Refusal
from ..options import OPTIONS, ChatDefaults, TableOptions
from ..views import help_lists, help_rows


def unknown(word: str, lang: str) -> Refusal:
    """The refusal of an unknown command ``word`` (with a guess if one is close)."""
    close = guess(word, lang)
    if close is not None:
        return Refusal("unknown_command_guess", word=word, guess=close)
    return Refusal("unknown_command", word=word)


def option_help(router: Host, ctx: Context, word: str) -> list[Event]:
    """``/help option NAME``: what an option means and its value at the sender's table."""
    name = TableOptions.canonical(word)
    decl = OPTIONS.get(name)
    if decl is None:
        close = TableOptions.guess(name)
        if close is not None:
            raise Refusal("option_unknown_guess", name=name, guess=OptionName(close))
        raise Refusal("option_unknown", name=name, names=tuple(map(OptionName, OPTIONS)))
    options = ctx.table.options if ctx.table is not None else TableOptions()
    lang = router.lang_of(ctx.inp.user, ctx.table)
    values = ", ".join(option_value_text(v, lang) for v in decl.values)
    return router._reply(
        ctx,
        decl.help_key,
        {"value": OptionValue(options.show(name)), "values": values,
         "defaults": defaults_text(name, router.chats)},
    )  # fmt: skip


def defaults_text(name: str, chats: list[ChatDefaults]) -> str:
    """Option ``name``'s default for new tables, then each chat's own where it has one
    (``0, Discord 30, IRC 60``)."""
    own = (f"{chat.name} {value}" for chat in chats if (value := chat.shown(name)) is not None)
    return ", ".join((TableOptions().show(name), *own))


@command(
    "help", summary="Explain the commands",
    args=(Arg("command", ArgKind.TEXT, "A command to explain", suggest="command"),),
)  # fmt: skip
def help(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    lang = router.lang_of(ctx.inp.user, ctx.table)
    if args:
        word = args[0].lstrip("/!").lower()
        spec = find(word, lang)
        if spec is None:
            raise unknown(word, lang)
        if spec.name == "option" and len(args) > 1:
            return option_help(router, ctx, args[1])
        aliases = ", ".join("/" + a for a in spec.names_for(lang))
        return router._reply(ctx, spec.help_key, {"aliases": aliases, **help_lists(lang)})
    return router._reply(ctx, "help_list", {"commands": help_rows(lang)})


@command("quit", unlisted="the console's own command (a chat table has /leave)")  # fmt: skip
def quit(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/quit`` ends the console (the console handles it); in a chat it explains."""
    return router._reply(ctx, "quit_chat")


__all__ = ["COMMANDS", "help", "option_help", "quit", "unknown"]
