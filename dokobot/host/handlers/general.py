"""/help and /quit."""

from __future__ import annotations

from ..commands import COMMANDS, Arg, ArgKind, command, find, guess
from ..context import Context, Host
from ..events import Event
from ..notes import Refusal
from ..views import help_rows


def unknown(word: str) -> Refusal:
    """The refusal of an unknown command ``word`` (with a guess if one is close)."""
    close = guess(word)
    if close is not None:
        return Refusal("unknown_command_guess", word=word, guess=close)
    return Refusal("unknown_command", word=word)


@command(
    "help", de="hilfe", aliases=("h",), discord="Explain the commands",
    args=(Arg("command", "befehl", ArgKind.TEXT, "A command to explain", suggest="command"),),
)  # fmt: skip
def help(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    lang = router.lang_of(ctx.inp.user, ctx.table)
    if args:
        word = args[0].lstrip("/!").lower()
        spec = find(word)
        if spec is None:
            raise unknown(word)
        first = spec.name_in(lang)
        names = [first, *(a for a in spec.names if a != first)]
        aliases = ", ".join("/" + a for a in dict.fromkeys(names))
        return router._reply(ctx, spec.help_key, {"aliases": aliases})
    return router._reply(ctx, "help_list", {"commands": help_rows(lang)})


@command("quit", de="beenden", aliases=("exit",),
         not_on_discord="the console's own command (a chat table has /leave)")  # fmt: skip
def quit(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/quit`` ends the console (the console handles it); in a chat it explains."""
    return router._reply(ctx, "quit_chat")


__all__ = ["COMMANDS", "help", "quit", "unknown"]
