"""The command registry: one declaration per chat command.

Each command is declared once, by the :func:`command` decorator on its handler (in the
style of lykos' ``@command``): its names in every language, its arguments, who may use it,
whether it needs a running game, whether it is slow, and its one-line summary. The
router's dispatch, ``/help`` and the service's slow commands are generated from
:data:`COMMANDS` (and the adapters' command pickers, each in its adapter); ``tests/test_declarations.py`` checks that they agree.

Adding a command is one declaration and one handler, plus ``brief.NAME`` and ``help.NAME`` in
the English message catalogue (other languages may follow) and its names in the languages'
``words/CODE.yaml`` (English needs none: the declared name is English)::

    @command("hand", who=SEATED, phase=GAME, summary="Show your hand (only you see it)")
    def hand(router: Router, ctx: Context, args: list[str]) -> list[Event]: ...

A command's name in a language, and every word that names it, come from the language's files
(:mod:`dokobot.languages`): a word is looked up in the reader's language, then in English
(the English names work everywhere), then in the others.

>>> spec = Command("hand", handler=lambda *a: [])
>>> spec.name_in("de"), spec.names_in("de"), spec.brief_key, spec.help_key
('blatt', ('blatt', 'karten'), 'brief.hand', 'help.hand')
>>> find("blatt", "en").name, find("hand", "de").name, find("karten", "it").name
('hand', 'hand', 'hand')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, TypeVar

from .. import languages

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
    """Its English name; a language names it in its ``words`` file (``args: COMMAND.ARG``)."""
    kind: ArgKind
    describe: str
    """What Discord shows under the argument (English; translated by the languages'
    ``slash`` files)."""
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
    cards), ``option`` (the option names), ``command`` (the command names); where a
    :attr:`ArgKind.CHOICE` takes its choices: ``language`` (the registry's languages)."""

    def name_in(self, lang: str, command: str) -> str:
        """Its name in ``lang`` as an argument of ``command``."""
        return languages.words(lang).args.get(f"{command}.{self.name}", self.name)


Handler = Callable[["Host", "Context", list[str]], "list[Event]"]
"""``handler(router, ctx, args) -> list[Event]``."""


@dataclass(frozen=True, slots=True)
class Command:
    """The declaration of one chat command."""

    name: str
    """The English name (the key of the catalogues' ``brief.NAME`` and ``help.NAME``)."""
    handler: Handler
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
    summary: str | None = None
    """Its one-line description in English, as a command picker shows it (translated by
    the languages' ``slash`` files); None: it is in no picker (see :attr:`unlisted`)."""
    unlisted: str = ""
    """Why a command is in no command picker."""
    first_argument_only: bool = False
    """Of the arguments a picker hands over, only the first given one counts (``/score``
    takes a game, ``csv`` or ``chart``, not several)."""
    answers_prompt: bool = False
    """It answers a prompt (a reservation, a card, a poverty's question): its button is used
    up once the host accepts it, and a prompt kept for the sender is done."""
    confirm: bool = False
    """It cannot be taken back (a call such as Re): an adapter's button for it asks for a
    second press to confirm."""

    def names_in(self, lang: str) -> tuple[str, ...]:
        """Its names in ``lang`` (from the language's words; English: the declared name
        first), the first the one help and the pickers show."""
        own = languages.words(lang).commands.get(self.name, ())
        if lang == languages.DEFAULT:
            own = (self.name, *own)
        return tuple(dict.fromkeys(own)) or (self.name,)

    def name_in(self, lang: str) -> str:
        """The name that help in ``lang`` shows."""
        return self.names_in(lang)[0]

    def names_for(self, lang: str) -> tuple[str, ...]:
        """The names a reader of ``lang`` is shown: theirs, then the English ones."""
        return tuple(dict.fromkeys((*self.names_in(lang), *self.names_in(languages.DEFAULT))))

    @property
    def brief_key(self) -> str:
        return "brief." + self.name

    @property
    def help_key(self) -> str:
        return "help." + self.name

    def text_of(self, values: dict[str, Any]) -> str:
        """The command text of the ``values`` a command picker hands over (by argument
        name).

        >>> export = Command("export", handler=print,
        ...                  args=(Arg("csv", ArgKind.FLAG, "", word="csv"),))
        >>> export.text_of({"csv": True}), export.text_of({"csv": False})
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
                if self.first_argument_only:
                    break
        return " ".join(words)


COMMANDS: Final[dict[str, Command]] = {}
"""Every declared command by English name, in the order of the help list."""

F = TypeVar("F", bound=Handler)


def command(
    name: str,
    *,
    args: tuple[Arg, ...] = (),
    who: Who = Who.ANYONE,
    changes: Who | None = None,
    phase: Phase = Phase.ANY,
    channel_only: bool = False,
    secret: bool = False,
    slow: bool = False,
    summary: str | None = None,
    unlisted: str = "",
    first_argument_only: bool = False,
    answers_prompt: bool = False,
    confirm: bool = False,
) -> Callable[[F], F]:
    """Declare the decorated handler as the command ``name`` (registered on import)."""

    def register(handler: F) -> F:
        spec = Command(
            name, handler, args=args, who=who, changes=changes,
            phase=phase, channel_only=channel_only, secret=secret, slow=slow, summary=summary,
            unlisted=unlisted, first_argument_only=first_argument_only,
            answers_prompt=answers_prompt, confirm=confirm,
        )  # fmt: skip
        if name in COMMANDS:
            raise ValueError(f"command {name} declared twice")
        if (summary is None) == (not unlisted):
            raise ValueError(f"command {name}: give a summary or the reason it is unlisted")
        COMMANDS[name] = spec
        languages.forget()
        return handler

    return register


@languages.derived
def language_names(lang: str) -> dict[str, str]:
    """Every name of a command in ``lang`` (lower case) -> the command's English name."""
    return {n: c.name for c in COMMANDS.values() for n in c.names_in(lang)}


@languages.derived
def aliases(lang: str = languages.DEFAULT) -> dict[str, str]:
    """Every word a reader of ``lang`` may name a command by -> its English name: the
    reader's own words first, then English, then the other languages'."""
    out: dict[str, str] = {}
    for code in reversed(languages.reading_order(lang)):
        out.update(language_names(code))
    return out


def find(word: str, lang: str = languages.DEFAULT) -> Command | None:
    """The command that ``word`` (any accepted name, any case) names for a reader of
    ``lang``."""
    name = aliases(lang).get(word.lower())
    return None if name is None else COMMANDS[name]


def guess(word: str, lang: str = languages.DEFAULT) -> str | None:
    """The command a mistyped ``word`` probably means, if one is close enough (its name in
    ``lang``)."""
    table = aliases(lang)
    close = difflib.get_close_matches(word.lower(), list(table), n=1, cutoff=0.6)
    return COMMANDS[table[close[0]]].name_in(lang) if close else None


def prompt_answers() -> frozenset[str]:
    """The commands that answer a prompt."""
    return frozenset(c.name for c in COMMANDS.values() if c.answers_prompt)


def confirmed_commands() -> frozenset[str]:
    """The commands whose buttons ask for a second press (:attr:`Command.confirm`)."""
    return frozenset(c.name for c in COMMANDS.values() if c.confirm)


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
    languages.forget()
