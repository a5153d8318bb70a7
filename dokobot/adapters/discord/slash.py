"""The slash commands, generated from the host's command declarations.

Every chat command declared in :mod:`dokobot.host.commands` with a Discord description
becomes a slash command of the same name and arguments; its callback turns the given
arguments into the command's text (:meth:`~dokobot.host.commands.Command.text_of`) and
hands it to the bot's ``run_command``, which answers the interaction. Only ``/prompts``
(where a member's prompts come) is Discord's own.

Names are :class:`~discord.app_commands.locale_str` carrying their form in every language
(the languages' words, :mod:`dokobot.languages`), so German clients see ``/gesund``, Italian
ones ``/buono``; the descriptions and choice labels are translated by :mod:`.i18n`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Final, Optional, Protocol

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str

from dokobot import languages
from dokobot.host import handlers
from dokobot.host.commands import COMMANDS, Arg, ArgKind, Command, Who
from dokobot.host.i18n import DEFAULT_LANG, text
from dokobot.host.options import BOT_LEVELS, TableOptions
from dokobot.render import DECKS

Interaction = discord.Interaction[Any]
SlashCommand = app_commands.Command[Any, ..., None]

__all__ = ["BOT_LEVELS", "SlashHost", "slash_commands"]

DECLARING: Final = handlers.MODULES
"""The modules whose declarations the slash tree is made of (imported: registered)."""
OPTION_NAMES: Final[tuple[str, ...]] = tuple(TableOptions.names())

PROMPTS: Final = "prompts"
"""Discord's own command (not a chat command); the languages name it in their words
(``commands: prompts``), its argument ``where`` as ``args: prompts.where``."""
DECK: Final = "deck"
"""Discord\'s own command: the colours of a member\'s card pictures (named like ``prompts``)."""


class SlashHost(Protocol):
    """What the slash commands need of the bot (the :class:`DiscordAdapter`)."""

    async def run_command(self, interaction: Interaction, text: str) -> None: ...

    def card_suggestions(self, interaction: Interaction, current: str) -> list[Choice[str]]: ...

    async def set_prompts(self, interaction: Interaction, where: str) -> None: ...

    async def set_deck(self, interaction: Interaction, deck: str) -> None: ...


def help_topics() -> tuple[str, ...]:
    """What ``/help``'s autocomplete offers: the commands that have a slash command."""
    return tuple(spec.name for spec in COMMANDS.values() if spec.summary is not None)


def _suggest(current: str, names: tuple[str, ...]) -> list[Choice[str]]:
    """Autocomplete suggestions: the names that contain what was typed so far.

    >>> [c.value for c in _suggest("s", ("stake", "mode", "limit", "series_length"))]
    ['stake', 'series_length']
    """
    typed = current.strip().lower()
    return [Choice(name=n, value=n) for n in names if typed in n][:25]


def _name(english: str, names: Callable[[str], str]) -> locale_str:
    """A name Discord shows: ``english``, and ``names(code)`` in every other language."""
    return locale_str(english, **{c: names(c) for c in languages.codes() if c != languages.DEFAULT})


def _own(command: str, arg: str = "") -> locale_str:
    """The name of one of Discord's own commands (or of its argument ``arg``), in every
    language as its words name it (``commands: deck``, ``args: deck.colours``)."""
    if arg:
        return _name(arg, lambda c: languages.words(c).args.get(f"{command}.{arg}", arg))
    return _name(command, lambda c: (languages.words(c).commands.get(command) or (command,))[0])


def _arg_name(arg: Arg, command: str) -> locale_str:
    return _name(arg.name, lambda code: arg.name_in(code, command))


def _choices(arg: Arg) -> list[Choice[str]]:
    """The choices of a :attr:`ArgKind.CHOICE` argument (``/lang``: the registry's languages,
    each named in itself)."""
    if arg.suggest == "language":
        return [Choice(name=lang.name, value=lang.code) for lang in languages.REGISTRY]
    return [Choice(name=locale_str(label), value=value) for value, label in arg.choices]


def _annotation(arg: Arg) -> Any:
    kind: Any
    if arg.kind is ArgKind.FLAG:
        return bool
    if arg.kind is ArgKind.NUMBER:
        kind = app_commands.Range[int, arg.low, arg.high]
    elif arg.kind is ArgKind.CHOICE:
        kind = Choice[str]
    else:
        kind = str
    return kind if arg.required else Optional[kind]  # noqa: UP045 (a runtime annotation)


def _parameters(args: tuple[Arg, ...]) -> inspect.Signature:
    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=discord.Interaction)]  # fmt: skip
    for arg in args:
        default: Any = inspect.Parameter.empty
        if not arg.required:
            default = False if arg.kind is ArgKind.FLAG else None
        params.append(
            inspect.Parameter(
                arg.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(arg),
                default=default,
            )
        )  # fmt: skip
    return inspect.Signature(params)


def _suggester(
    host: SlashHost, source: str
) -> Callable[[Interaction, str], Coroutine[Any, Any, list[Choice[str]]]]:
    async def suggest(interaction: Interaction, current: str) -> list[Choice[str]]:
        if source == "card":
            return host.card_suggestions(interaction, current)
        if source == "option":
            return _suggest(current, OPTION_NAMES)
        return _suggest(current.lstrip("/"), help_topics())

    return suggest


def slash_command(spec: Command, host: SlashHost) -> SlashCommand:
    """The slash command of the chat command ``spec``."""
    assert spec.summary is not None

    async def callback(interaction: Interaction, **values: Any) -> None:
        plain = {k: v.value if isinstance(v, Choice) else v for k, v in values.items()}
        await host.run_command(interaction, spec.text_of(plain))

    callback.__name__ = callback.__qualname__ = spec.name
    callback.__signature__ = _parameters(spec.args)  # type: ignore[attr-defined]
    func: Any = callback
    if spec.args:
        func = app_commands.rename(**{a.name: _arg_name(a, spec.name) for a in spec.args})(func)
        func = app_commands.describe(**{a.name: locale_str(a.describe) for a in spec.args})(func)
        choices = {a.name: _choices(a) for a in spec.args if a.kind is ArgKind.CHOICE}
        if choices:
            func = app_commands.choices(**choices)(func)
    command: SlashCommand = app_commands.command(
        name=_name(spec.name, spec.name_in), description=locale_str(spec.summary)
    )(func)
    for arg in spec.args:
        if arg.suggest and arg.kind is not ArgKind.CHOICE:
            command.autocomplete(arg.name)(_suggester(host, arg.suggest))
    command.guild_only = guild_only(spec)
    return command


def guild_only(spec: Command) -> bool:
    """Whether Discord offers the command only in servers: it acts on a channel's table, or
    it needs a server's admin or a table's owner (DMs have neither).

    >>> from dokobot.host.commands import COMMANDS
    >>> guild_only(COMMANDS["join"]), guild_only(COMMANDS["play"]), guild_only(COMMANDS["help"])
    (True, False, False)
    """
    return spec.channel_only or spec.who in (Who.OWNER, Who.ADMIN)


def prompts_command(host: SlashHost) -> SlashCommand:
    """``/prompts``: where a member's prompts come (Discord's own command)."""

    async def prompts(interaction: Interaction, where: Choice[str]) -> None:
        await host.set_prompts(interaction, where.value)

    func: Any = app_commands.rename(where=_own(PROMPTS, "where"))(prompts)
    func = app_commands.describe(where=locale_str("Where"))(func)
    func = app_commands.choices(
        where=[
            Choice(name=locale_str("By direct message"), value="dm"),
            Choice(name=locale_str("Here, in “My cards”"), value="here"),
        ]
    )(func)
    command: SlashCommand = app_commands.command(
        name=_own(PROMPTS),
        description=locale_str("Where your prompts come: by DM or here"),
    )(func)
    return command


def deck_command(host: SlashHost) -> SlashCommand:
    """``/deck``: the colours of a member's card pictures, one choice per deck of
    :data:`dokobot.render.DECKS` (Discord's own command)."""

    async def deck(interaction: Interaction, colours: Choice[str]) -> None:
        await host.set_deck(interaction, colours.value)

    func: Any = app_commands.rename(colours=_own(DECK, "colours"))(deck)
    func = app_commands.describe(colours=locale_str("Colours"))(func)
    func = app_commands.choices(
        colours=[
            Choice(name=locale_str(text(DEFAULT_LANG, f"discord.deck_label_{name}")), value=name)
            for name in DECKS
        ]
    )(func)
    command: SlashCommand = app_commands.command(
        name=_own(DECK), description=locale_str("The colours of your card pictures")
    )(func)
    return command


def slash_commands(host: SlashHost) -> list[SlashCommand]:
    """Every slash command: one per declared chat command on Discord, ``/prompts`` and
    ``/deck``."""
    out = [slash_command(spec, host) for spec in COMMANDS.values() if spec.summary is not None]
    return [*out, prompts_command(host), deck_command(host)]
