"""The command registry: one declaration per chat command.

Each command is declared once, by the :func:`command` decorator on its handler (in the
style of lykos' ``@command``): its names in every language, its arguments, who may use it,
whether it needs a running game, whether it is slow, and how Discord shows it. The router's
dispatch, ``/help``, the Discord slash tree and the service's slow commands are generated
from :data:`COMMANDS`; ``tests/test_declarations.py`` checks that they agree.

Adding a command is one declaration and one handler (plus ``brief.NAME`` and ``help.NAME``
in both message catalogues)::

    @command("hand", de="blatt", aliases=("karten",), who=SEATED, phase=GAME,
             discord="Show your hand (only you see it)")
    def hand(router: Router, ctx: Context, args: list[str]) -> list[Event]: ...

>>> spec = Command("healthy", "gesund", handler=lambda *a: [])
>>> spec.names, spec.name_in("de"), spec.brief_key, spec.help_key
(('healthy', 'gesund'), 'gesund', 'brief.healthy', 'help.healthy')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from .context import Context, Host
    from .events import Event


class Who(StrEnum):
    """Who may use a command (the router checks it before the handler runs)."""

    ANYONE = "anyone"
    """Anybody, seated or not (a command that needs a table says so itself)."""
    SEATED = "seated"
    """Only a player seated at the table (the table of the channel, or in a private
    message the sender's table)."""
    OWNER = "owner"
    """The table's owner or a server admin."""
    ADMIN = "admin"
    """A server admin."""


class Phase(StrEnum):
    """When a command may be used; the engine decides the finer points (whose turn, which
    round) and refuses with its own reasons."""

    ANY = "any"
    GAME = "game"
    """Only while a game is running."""


class ArgKind(StrEnum):
    TEXT = "text"
    NUMBER = "number"
    FLAG = "flag"
    """A yes/no switch: when set, :attr:`Arg.word` is added to the command text."""
    CHOICE = "choice"


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a command, as the slash tree offers it.

    The chat takes the same arguments as words after the command; the slash command turns
    the given ones into those words, in the declared order.
    """

    name: str
    de: str
    """The German name (Discord shows it to German clients)."""
    kind: ArgKind
    describe: str
    """What Discord shows under the argument (English; German in the adapter's table)."""
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    """``(value, English label)`` pairs of a :attr:`ArgKind.CHOICE`."""
    word: str = ""
    """The word a :attr:`ArgKind.FLAG` adds to the command text."""
    low: int = 1
    high: int = 100_000
    """The range of an :attr:`ArgKind.NUMBER`."""
    suggest: str = ""
    """Where Discord's autocomplete takes suggestions: ``card`` (the sender's playable
    cards), ``option`` (the option names), ``command`` (the command names)."""


Handler = Callable[["Host", "Context", list[str]], "list[Event]"]
"""``handler(router, ctx, args) -> list[Event]``."""


@dataclass(frozen=True, slots=True)
class Command:
    """The declaration of one chat command."""

    name: str
    """The English name (the key of the catalogues' ``brief.NAME`` and ``help.NAME``)."""
    de: str
    """The German name, shown by German help and Discord's German clients (may equal
    :attr:`name`, as for ``/re``)."""
    handler: Handler
    aliases: tuple[str, ...] = ()
    """More accepted names (any language)."""
    args: tuple[Arg, ...] = ()
    who: Who = Who.ANYONE
    changes: Who | None = None
    """Who may use the command to change something (``/option NAME VALUE``, ``/web on``),
    where that is stricter than :attr:`who`; the handler checks it with
    ``Router.require``."""
    phase: Phase = Phase.ANY
    channel_only: bool = False
    """Refused in private messages (it acts on the channel's table)."""
    secret: bool = False
    """Its arguments name hidden cards (the cards a poor player passes): refused when the
    line was typed where others read it (:attr:`~dokobot.host.events.Input.overheard`),
    so the cards are never applied from a public line."""
    slow: bool = False
    """May read a long history: the service answers it in a worker thread."""
    discord: str | None = None
    """The English description of its slash command; None: not on Discord (see
    :attr:`not_on_discord`)."""
    not_on_discord: str = ""
    """Why a command has no slash command."""
    slash_first_only: bool = False
    """Discord: only the first given argument counts (``/score`` takes a game, ``csv`` or
    ``chart``, not several)."""
    answers_prompt: bool = False
    """It answers a prompt (a reservation, a card, a poverty's question): its button is used
    up once the host accepts it, and a prompt kept for the sender is done."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every accepted name: English, German, then the aliases (without repeats)."""
        return tuple(dict.fromkeys((self.name, self.de, *self.aliases)))

    def name_in(self, lang: str) -> str:
        """The name that help in ``lang`` shows."""
        return self.de if lang == "de" else self.name

    @property
    def brief_key(self) -> str:
        return "brief." + self.name

    @property
    def help_key(self) -> str:
        return "help." + self.name

    def slash_text(self, values: dict[str, Any]) -> str:
        """The command text of a slash command's given ``values`` (by argument name).

        >>> export = Command("export", "export", handler=print,
        ...                  args=(Arg("csv", "csv", ArgKind.FLAG, "", word="csv"),))
        >>> export.slash_text({"csv": True}), export.slash_text({"csv": False})
        ('/export csv', '/export')
        """
        words = ["/" + self.name]
        for arg in self.args:
            value = values.get(arg.name)
            if arg.kind is ArgKind.FLAG:
                word = arg.word if value else ""
            else:
                word = "" if value is None else str(value).strip()
                if arg.suggest == "command":
                    word = word.lstrip("/")
            if word:
                words.append(word)
                if self.slash_first_only:
                    break
        return " ".join(words)


COMMANDS: Final[dict[str, Command]] = {}
"""Every declared command by English name, in the order of the help list."""
ALIASES: Final[dict[str, str]] = {}
"""Every accepted name (lower case) -> the command's English name."""

F = TypeVar("F", bound=Handler)


def command(
    name: str,
    *,
    de: str,
    aliases: tuple[str, ...] = (),
    args: tuple[Arg, ...] = (),
    who: Who = Who.ANYONE,
    changes: Who | None = None,
    phase: Phase = Phase.ANY,
    channel_only: bool = False,
    secret: bool = False,
    slow: bool = False,
    discord: str | None = None,
    not_on_discord: str = "",
    slash_first_only: bool = False,
    answers_prompt: bool = False,
) -> Callable[[F], F]:
    """Declare the decorated handler as the command ``name`` (registered on import)."""

    def register(handler: F) -> F:
        spec = Command(
            name, de, handler, aliases=aliases, args=args, who=who, changes=changes,
            phase=phase, channel_only=channel_only, secret=secret, slow=slow, discord=discord,
            not_on_discord=not_on_discord, slash_first_only=slash_first_only,
            answers_prompt=answers_prompt,
        )  # fmt: skip
        if name in COMMANDS:
            raise ValueError(f"command {name} declared twice")
        if (discord is None) == (not not_on_discord):
            raise ValueError(f"command {name}: give a Discord description or a reason")
        for alias in spec.names:
            if ALIASES.get(alias, name) != name:
                raise ValueError(f"command {name}: name {alias} is taken by {ALIASES[alias]}")
        COMMANDS[name] = spec
        ALIASES.update({alias: name for alias in spec.names})
        return handler

    return register


def find(word: str) -> Command | None:
    """The command that ``word`` (any accepted name, any case) names."""
    name = ALIASES.get(word.lower())
    return None if name is None else COMMANDS[name]


def guess(word: str) -> str | None:
    """The command a mistyped ``word`` probably means, if one is close enough."""
    close = difflib.get_close_matches(word.lower(), list(ALIASES), n=1, cutoff=0.6)
    return ALIASES[close[0]] if close else None


def prompt_answers() -> frozenset[str]:
    """The commands that answer a prompt."""
    return frozenset(c.name for c in COMMANDS.values() if c.answers_prompt)


def slow_commands() -> frozenset[str]:
    """The commands answered in a worker thread."""
    return frozenset(c.name for c in COMMANDS.values() if c.slow)


def arrange(modules: tuple[str, ...]) -> None:
    """Order :data:`COMMANDS` (the help list) by the declaring modules, in ``modules``'
    order, then by declaration within a module."""
    rank = {name: i for i, name in enumerate(modules)}
    ordered = sorted(COMMANDS.values(), key=lambda c: rank.get(c.handler.__module__, len(rank)))
    COMMANDS.clear()
    COMMANDS.update({c.name: c for c in ordered})
