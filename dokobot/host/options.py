"""Table options (RULES §11): names, types, defaults, parsing.

>>> o = TableOptions()
>>> o.set("tournament", "on").tournament, o.set("series_length", "8").series_length
(True, 8)
>>> o.set("series_length", "7")
Traceback (most recent call last):
...
dokobot.host.options.OptionError: series_length must be a multiple of 4 from 4 to 96
>>> o.set("mode", "duel").set("tournament", "on")
Traceback (most recent call last):
...
dokobot.host.options.OptionError: tournament mode needs mode free, not duel
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any, Final

from .. import languages
from ..ai.levels import OFFERED_LEVELS
from ..engine.rules import DULLEN, WEDDING_TRICKS, Rules
from .i18n import OptionName, OptionValue, Setting, name_text

MODES: Final = ("free", "single", "fixed4", "duel")
BOT_LEVELS: Final = OFFERED_LEVELS
RATED: Final = ("auto", "on", "off")
"""Values of the option ``rated``: whether finished games count for the rating (``auto``:
only games of four people)."""


@languages.derived
def yes_no() -> dict[str, bool]:
    """Every language's words for on and off (``an``, ``sì``, ``ne``) -> the value."""
    out: dict[str, bool] = {}
    for code in reversed(languages.codes()):
        w = languages.words(code)
        out.update({word: False for word in w.no})
        out.update({word: True for word in w.yes})
    return out


@languages.derived
def value_words() -> dict[str, str]:
    """Every language's words for the values of options and the computer levels
    (``duello``, ``stark``; the ``values:`` of its words file) -> the value."""
    out: dict[str, str] = {}
    for code in reversed(languages.codes()):
        for value, words in languages.words(code).values.items():
            out.update({word: value for word in words})
    return out


def level_of(word: str) -> str | None:
    """The computer level ``word`` names in any language (``forte``), or ``None``."""
    word = word.lower()
    level = value_words().get(word, word)
    return level if level in BOT_LEVELS else None


@dataclass(frozen=True, slots=True)
class Option:
    """The declaration of one table option (the metadata of its :class:`TableOptions`
    field, made by :func:`option`): the values it takes, whether it is a house rule. Its type
    and default are the field's; its help text is the catalogues' ``option_help.NAME``; its
    names in other languages are the languages' words (``options:``)."""

    values: tuple[str, ...] = ()
    """The words of an option that takes one of a few (``mode``)."""
    low: float = 0
    high: float = 0
    step: int = 1
    off: bool = False
    """0 is taken too (it turns the option off), below :attr:`low`."""
    what: str = ""
    """The values it takes, as the error message says (English)."""
    house: bool = False
    """A house rule (RULES §12)."""
    tournament: bool = True
    """May differ from its default while ``tournament`` is on (a house rule may not)."""
    rule: bool = False
    """The engine plays it: the field of :class:`~dokobot.engine.rules.Rules` of the same
    name (see :attr:`TableOptions.rules`). Checked at import: a rule option without that
    field, or a field of ``Rules`` without its rule option, is refused."""
    synonyms: tuple[tuple[str, str], ...] = ()
    """More words and the value each means (``rated on``); every language's yes and no
    words mean ``on`` and ``off`` of an option that takes them (``rated``)."""
    needs: str = ""
    """An on-off option that must be on while this one differs from its default
    (``superpiglets`` need ``piglets``): ``/option`` refuses the one without the other, with
    the catalogues' ``option_needs.NAME``."""
    languages: bool = False
    """It takes a language's code (the registry's, :mod:`dokobot.languages`)."""
    name: str = ""
    """The option's name (its field's)."""

    @property
    def help_key(self) -> str:
        """Its help text in the catalogues (``/help option NAME``)."""
        return "option_help." + self.name


def option(default: Any, **declaration: Any) -> Any:
    """A :class:`TableOptions` field with its :class:`Option` declaration (a house rule is
    not played in tournament mode unless declared so)."""
    declaration.setdefault("tournament", not declaration.get("house", False))
    return dataclasses.field(default=default, metadata={"option": Option(**declaration)})


_ON_OFF: Final = "on or off"


@dataclass(frozen=True, slots=True)
class ChatDefaults:
    """A chat's own defaults for the new tables of its channels, where they differ from the
    options' (declared by the chat's adapter, handed to the host with
    :meth:`~dokobot.host.contract.Host.table_defaults`)."""

    prefix: str
    """The start of the chat's channel ids (``irc:``)."""
    name: str
    """The chat's name, as ``/help option NAME`` names it."""
    options: tuple[tuple[str, str], ...]
    """(an option, its value as typed): each is checked as ``/option`` checks it."""

    def __post_init__(self) -> None:
        for name, value in self.options:
            TableOptions().set(name, value)  # OptionError: not a value the option takes

    def shown(self, name: str) -> str | None:
        """Its default of option ``name`` as ``/help option NAME`` shows it, or None."""
        return next((value for option_, value in self.options if option_ == name), None)


class OptionError(ValueError):
    """An unknown option or a value it does not take; ``reason`` and ``params`` for i18n."""

    def __init__(self, reason: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Options of one table; immutable, :meth:`set` returns a changed copy."""

    tournament: bool = option(False, what=_ON_OFF, rule=True)
    series_length: int = option(24, low=4, high=96, step=4, what="a multiple of 4 from 4 to 96")
    mode: str = option("free", values=MODES)
    stake: int = option(1, low=0, high=1_000_000, what="a whole number from 0 to 1000000")
    limit: int = option(0, low=0, high=1_000_000, what="a whole number from 0 to 1000000")
    commission: float = option(0.0, low=0.0, high=50.0, what="a percentage from 0 to 50")
    lust_solo_leads: bool = option(False, what=_ON_OFF, rule=True)
    second_heart10_wins: bool = option(False, what=_ON_OFF, rule=True)
    language: str = option("en", languages=True)
    turn_timeout: int = option(
        0, low=10, high=3600, off=True, what="0 (off) or seconds from 10 to 3600"
    )
    """A chat may have a turn clock on its tables by default (:class:`ChatDefaults`)."""
    standin: bool = option(True, what=_ON_OFF)
    bot_level: str = option("normal", values=BOT_LEVELS)
    bare_cards: bool = option(True, what=_ON_OFF)
    """A card typed alone in the channel (``CQ``, ``3``) plays it on your turn. Private
    messages always take bare cards; a chat may turn it off for its channels by default
    (:class:`ChatDefaults`), so chat such as ``11`` or ``ha`` never plays a card."""
    images: bool = option(True, what=_ON_OFF)
    """Show cards as pictures where the platform can (Discord)."""
    thread: bool = option(True, what=_ON_OFF)
    """Discord: a ``/join`` in a text channel where nobody sits opens the table in a thread
    of its own (where the bot may create threads), so several tables share a channel."""
    rated: str = option("auto", values=RATED, synonyms=(("yes", "on"), ("no", "off")))
    hints: bool = option(False, what=_ON_OFF, tournament=False)
    """``/hint`` shows a player on his turn the strong level's card (never in tournament
    mode, never in a rated game)."""
    kibitz: bool = option(False, what=_ON_OFF, tournament=False)
    """``/watch NAME``: a person who is not seated follows a seated person's hand (RULES
    §13; never in tournament mode, never at a rated table)."""
    poverty: bool = option(False, what=_ON_OFF, house=True, rule=True)
    throw_in: bool = option(False, what=_ON_OFF, house=True, rule=True)
    piglets: bool = option(False, what=_ON_OFF, house=True, rule=True)
    bock: bool = option(False, what=_ON_OFF, house=True)
    """Bock rounds: after a 120 : 120, re and kontra both called or a lost solo, the next 4
    games count double (a matter of the series, not of the engine)."""
    nines: bool = option(True, what=_ON_OFF, house=True, rule=True)
    wedding_trick: str = option("first", values=WEDDING_TRICKS, house=True, rule=True)
    dullen: str = option("first", values=DULLEN, house=True, rule=True)
    superpiglets: bool = option(False, what=_ON_OFF, house=True, rule=True, needs="piglets")
    """RULES §12.8."""
    seats: int = option(4, low=4, high=6, what="4, 5 or 6", house=True)
    """Five or six at a table (RULES §12.9): each game four of them play, the dealer (and
    with six the player opposite him) sits out. Tournament and duel mode need four."""

    @property
    def rules(self) -> Rules:
        """The rules of a game at this table: every rule option, by its name."""
        return Rules(**{name: getattr(self, name) for name in RULE_OPTIONS})

    def house_rules_on(self) -> list[str]:
        """The house rules that differ from the plain game."""
        plain = _PLAIN
        return [n for n in HOUSE_RULES if getattr(self, n) != getattr(plain, n)]

    def not_in_tournament(self) -> list[str]:
        """The options that differ from their defaults and may not in tournament mode."""
        return [n for n, d in OPTIONS.items() if not d.tournament and self.get(n) != _PLAIN.get(n)]

    @staticmethod
    def canonical(name: str) -> str:
        """An option's name as typed (any case, ``-`` for ``_``, in any language) as the
        option.

        >>> TableOptions.canonical("Armut"), TableOptions.canonical("throw-in")
        ('poverty', 'throw_in')
        """
        clean = name.strip().lower().replace("-", "_")
        return option_aliases().get(clean, clean)

    def is_rated(self, people: int) -> bool:
        """Whether a game of ``people`` people (the rest computer players) is rated."""
        return self.rated == "on" or (self.rated == "auto" and people == 4)

    @property
    def commission_rate(self) -> Decimal:
        """The commission in percent, exactly as typed (no float rounding)."""
        return Decimal(repr(self.commission))

    @staticmethod
    def names() -> list[str]:
        return [f.name for f in fields(TableOptions)]

    def get(self, name: str) -> Any:
        return getattr(self, name)

    def show(self, name: str) -> str:
        value = getattr(self, name)
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    def set(self, name: str, raw: str) -> TableOptions:
        """A copy with option ``name`` set from the text ``raw``; :class:`OptionError`."""
        name = self.canonical(name)
        if name not in self.names():
            raise OptionError("option_unknown", f"unknown option {name}", name=name)
        new = dataclasses.replace(self, **{name: _parse(name, raw.strip().lower())})
        if new.seats != SEATS and (new.tournament or new.mode in FOUR_ONLY):
            raise _four_seats(name, new)
        if new.tournament and new.not_in_tournament():
            # each with the value tournament mode needs (nines on, poverty off)
            rules = tuple(Setting(n, _PLAIN.show(n)) for n in new.not_in_tournament())
            shown = ", ".join(f"{s.option} {s.value}" for s in rules)
            if name == "tournament":  # the house rules are on: they go first
                raise OptionError(
                    "option_house_tournament",
                    f"tournament mode plays no house rules: first set these back: {shown}",
                    name=OptionName(name),
                    rules=rules,
                )
            raise OptionError(  # tournament is on: it goes first
                "option_house_in_tournament",
                f"house rule {name} is not played in tournament mode",
                name=OptionName(name),
                rules=rules,
            )
        for needing, needed in NEEDS.items():  # superpiglets need piglets (RULES §12.8)
            if new.get(needing) != _PLAIN.get(needing) and not new.get(needed):
                raise OptionError(
                    "option_needs." + needing,
                    f"{needing} need {needed} on",
                    name=OptionName(name),
                )
        if new.tournament and new.mode != "free":
            if name == "mode":  # the mode is asked for while tournament is on
                raise OptionError(
                    "option_conflict_mode",
                    f"mode {new.mode} needs tournament off",
                    name=OptionName(name),
                    mode=OptionValue(new.mode),
                )
            raise OptionError(
                "option_conflict",
                f"tournament mode needs mode free, not {new.mode}",
                name=OptionName(name),
                mode=OptionValue(new.mode),
            )
        return new

    @staticmethod
    def guess(name: str) -> str | None:
        """The option a mistyped ``name`` probably means, if one is close enough.

        >>> TableOptions.guess("turnament"), TableOptions.guess("xyz")
        ('tournament', None)
        """
        close = difflib.get_close_matches(name, TableOptions.names(), n=1, cutoff=0.6)
        return close[0] if close else None

    def for_channel(self, channel: str, chats: Sequence[ChatDefaults] = ()) -> TableOptions:
        """These options as the defaults of a new table in ``channel``: each option still at
        its default takes the one of the chat whose prefix ``channel`` starts with (the
        configuration's own choice wins, and so does a choice the chat's would conflict
        with).

        >>> irc = ChatDefaults("irc:", "IRC", (("turn_timeout", "60"), ("bare_cards", "off")))
        >>> TableOptions().for_channel("irc:libera:#doko", [irc]).turn_timeout
        60
        >>> TableOptions(turn_timeout=120).for_channel("irc:libera:#doko", [irc]).turn_timeout
        120
        >>> TableOptions().for_channel("console", [irc]).bare_cards
        True
        """
        options = self
        for chat in chats:
            if channel.startswith(chat.prefix):
                for name, value in chat.options:
                    if getattr(self, name) == getattr(_PLAIN, name):
                        try:
                            options = options.set(name, value)
                        except OptionError:  # it conflicts with the configuration's choice
                            continue
        return options

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        """The options of :meth:`as_dict`'s ``data`` (unknown names are skipped), each value
        checked as ``/option`` checks it, so a stored or typed state is refused
        (:class:`OptionError`) where ``/option`` refuses: tournament with house rules too."""
        options = cls()
        for name in cls.names():
            if name in data:
                value = data[name]
                word = ("on" if value else "off") if isinstance(value, bool) else f"{value}"
                options = options.set(name, word)
        return options


_PLAIN: Final = TableOptions()

OPTIONS: Final[dict[str, Option]] = {
    f.name: dataclasses.replace(f.metadata["option"], name=f.name) for f in fields(TableOptions)
}
"""Every table option's declaration, by name, in the order of ``/options``."""
_TYPES: Final[dict[str, str]] = {f.name: str(f.type) for f in fields(TableOptions)}


def rule_options(options: dict[str, Option]) -> tuple[str, ...]:
    """The rule options of ``options``, checked against :class:`Rules`: each must name one
    of its fields, and each of its fields must have its rule option (else the option would
    do nothing, or the rule could not be chosen); :class:`TypeError` otherwise.

    >>> rule_options({**OPTIONS, "jokers": Option(rule=True, house=True)})
    Traceback (most recent call last):
    ...
    TypeError: rule options without a field of Rules: ['jokers']
    """
    names = tuple(name for name, decl in options.items() if decl.rule)
    fields_ = [f.name for f in fields(Rules) if f.init]
    stray = [n for n in names if n not in fields_]
    if stray:
        raise TypeError(f"rule options without a field of Rules: {stray}")
    missing = [n for n in fields_ if n not in names]
    if missing:
        raise TypeError(f"Rules fields without a rule option: {missing}")
    return names


RULE_OPTIONS: Final = rule_options(OPTIONS)
"""The options the engine plays (the fields of :class:`Rules`), checked at import."""
NEEDS: Final[dict[str, str]] = {name: decl.needs for name, decl in OPTIONS.items() if decl.needs}
"""Each option that needs another on (:attr:`Option.needs`) -> that option."""
HOUSE_RULES: Final[tuple[str, ...]] = tuple(name for name, decl in OPTIONS.items() if decl.house)
"""The house-rule options (RULES §12). Their defaults are the plain game; none may differ
from it while ``tournament`` is on."""


def option_name(name: str, lang: str) -> str:
    """The name of option ``name`` in ``lang`` (its first word there, else the English;
    :func:`~dokobot.host.i18n.name_text`)."""
    return name_text("option", name, lang)


@languages.derived
def option_aliases() -> dict[str, str]:
    """Every language's names of the options -> the option (``/option`` takes any)."""
    out: dict[str, str] = {}
    for code in reversed(languages.codes()):
        for name, words in languages.words(code).options.items():
            out.update({w.replace("-", "_"): name for w in words})
    return out


def option_values(name: str) -> tuple[str, ...]:
    """The words option ``name`` takes, where it takes one of a few."""
    decl = OPTIONS[name]
    return languages.codes() if decl.languages else decl.values


def whole_number(text: str) -> int | None:
    """``text`` as a whole number written with the digits 0-9, else None.

    ``str.isdigit`` also accepts ``²`` or ``⁸``, which ``int`` refuses.

    >>> whole_number("12"), whole_number("²"), whole_number("-3"), whole_number("")
    (12, None, None, None)
    """
    if text.isascii() and text.isdigit():
        return int(text)
    return None


SEATS: Final = 4
"""The seats of a table by default, and the players of every game (RULES §2, §12.9)."""
FOUR_ONLY: Final = ("fixed4", "duel")
"""The table modes played by exactly four at a table: a duel seats two people against two
computer players, and a fixed stake goes to the winner of a series of the same four."""


def _four_seats(name: str, new: TableOptions) -> OptionError:
    """Why ``new`` (option ``name`` just set) cannot be: five or six seats in tournament or
    duel mode, which are played by exactly four (RULES §12.9)."""
    if not new.tournament:
        return OptionError(
            "option_seats_mode",
            f"mode {new.mode} is played by four at a table",
            mode=OptionValue(new.mode),
        )
    if name == "seats":  # tournament is on: it goes first
        return OptionError(
            "option_seats_in_tournament",
            "tournament mode is played by four at a table: first /option tournament off",
            seats=new.seats,
        )
    return OptionError(  # five or six seats: they go first
        "option_seats_tournament",
        "tournament mode needs four seats: first /option seats 4",
        seats=new.seats,
    )


def _bad(name: str, what: str) -> OptionError:
    return OptionError(
        "option_bad_value", f"{name} must be {what}", name=OptionName(name), what=what
    )


def _parse(name: str, raw: str) -> Any:
    decl = OPTIONS[name]
    kind = _TYPES[name]
    if kind == "bool":
        switch = yes_no().get(raw)
        if switch is not None:
            return switch
    elif kind == "int":
        n = whole_number(raw)
        if n is not None and (
            (decl.low <= n <= decl.high and n % decl.step == 0) or (decl.off and n == 0)
        ):
            return n
    elif kind == "float":
        try:
            value = float(raw.rstrip("%"))
        except ValueError:
            value = -1.0
        if decl.low <= value <= decl.high:
            return value
    else:
        values = option_values(name)
        if raw in values:
            return raw
        if value_words().get(raw) in values:  # the value in another language
            return value_words()[raw]
        synonyms = dict(decl.synonyms)
        switch = yes_no().get(raw)
        if switch is not None:
            raw = "yes" if switch else "no"
        synonym = synonyms.get(raw)
        if synonym is not None:
            return synonym
    raise _bad(name, decl.what or " | ".join(values))
