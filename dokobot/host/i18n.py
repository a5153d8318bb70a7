"""Rendering messages from the languages' catalogues (``locales/CODE.yaml``).

The languages and their files are :mod:`dokobot.languages`; a catalogue may lack keys (the
English text is used then).

Parameters may be plain values, :class:`Cards` (rendered with the reader's rank letters) or
:class:`Term` (a catalogue word, e.g. a solo name).

>>> render("en", "card_played", {"player": "anna", "card": Cards((5,))})
'anna plays ♣Q'
>>> render("de", "card_played", {"player": "anna", "card": Cards((5,))})
'anna spielt ♣D'
>>> render("de", "contract_solo", {"player": "ben", "solo": Term("solo.clubs")})
'ben spielt ein Kreuz-Solo.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final, Literal

from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal

from .. import languages
from ..engine.cards import N_CARDS, SUIT_SYMBOLS
from ..engine.notation import parse_kind
from ..languages import DEFAULT as DEFAULT_LANG

__all__ = ["DEFAULT_LANG", "Cards", "Labelled", "Name", "Number", "Setting", "Standings", "Term", "card_text", "catalogue",
           "command_hints", "command_in", "name_text", "render", "text"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Cards:
    """Cards to show; with ``numbers``, each card is prefixed by its number.

    ``groups`` (one value per card, e.g. trump or the plain suit) puts a visible
    separator wherever the group changes:

    >>> render("en", "your_hand", {"cards": Cards((32, 5, 0), (1, 2, 3), (0, 0, 1))})
    'Your hand: 1:♥10  2:♣Q  |  3:♣9'
    """

    cards: tuple[int, ...]
    numbers: tuple[int, ...] = ()
    groups: tuple[int, ...] = ()
    separator: str = ""
    """Between two cards instead of the usual space (e.g. ``", "`` for a list)."""
    names: tuple[str, ...] = ()
    """Who played each card (a trick): each card is prefixed by its player's name.

    >>> render("en", "card_played", {"player": "x", "card": Cards((5, 0), names=("a", "b"))})
    'x plays a ♣Q b ♣9'
    """


@dataclass(frozen=True, slots=True)
class CallsMade:
    """The calls made so far with their callers, for a prompt: ``; calls: anna Re, ben
    no 90`` (nothing when nobody has called)."""

    calls: tuple[tuple[str, str], ...]
    """(name, call key) pairs in the order made."""


NameKind = Literal["card", "option", "value", "call", "command", "solo"]
"""What a :class:`Name` names: a card (its ASCII code, ``CQ``), an option (``nines``), an
option's value or a computer level (``duel``, ``on``, ``strong``), a call (``re``,
``no90``), a command (``healthy``), a solo (``diamonds``)."""


def name_text(kind: NameKind, key: str, lang: str) -> str:
    """The one way a name reaches a reader: ``key`` of ``kind`` in ``lang``'s words and
    letters (a card with its rank letters, an option, a command or a solo by the first word
    the language types it with, a value or level by its words, a call as the catalogue says
    it).

    >>> [name_text("card", "CQ", "de"), name_text("option", "nines", "it"),
    ...  name_text("value", "off", "it"), name_text("call", "kontra", "it"),
    ...  name_text("command", "healthy", "cs"), name_text("solo", "diamonds", "it")]
    ['♣D', 'nove', 'disattivata', 'Contra', '/zdravá', 'denari']
    """
    if kind == "card":
        return card_names(lang)[parse_kind(key) * 2]
    if kind == "call":
        return text(lang, "call." + key)
    if kind == "value" and key in ("on", "off"):
        return text(lang, "word." + key)
    words = languages.words(lang)
    table = {"option": words.options, "value": words.values, "command": words.commands,
             "solo": words.solos}[kind]  # fmt: skip
    own = table.get(key, ()) if lang != languages.DEFAULT or kind == "solo" else ()
    word = own[0] if own else key
    return "/" + word if kind == "command" else word


@dataclass(frozen=True, slots=True)
class Name:
    """A name in a message (:func:`name_text` renders it for each reader)."""

    kind: NameKind
    key: str


def OptionValue(word: str) -> Name:
    """An option's value (``duel``, ``on``) as the reader's language names it (``duello``,
    ``attivata``)."""
    return Name("value", word)


def OptionName(name: str) -> Name:
    """An option (``nines``) as the reader's language names it (``nove``)."""
    return Name("option", name)


def option_value_text(word: str, lang: str) -> str:
    """``word``, an option's value as the options show it, in ``lang`` (:func:`name_text`)."""
    return name_text("value", word, lang)


@dataclass(frozen=True, slots=True)
class Setting:
    """An option with a value (``nines on``), each named in the reader's language."""

    option: str
    value: str


@dataclass(frozen=True, slots=True)
class Number:
    """A number as the reader's language writes it (``1,5`` in German, Italian and Czech),
    with ``places`` decimals (None: as many as it has) and its sign if ``signed``."""

    value: float | Decimal
    places: int | None = None
    signed: bool = False


@languages.derived
def _locale(lang: str) -> Locale:
    """The CLDR locale of ``lang`` (English for a code CLDR does not know)."""
    try:
        return Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return Locale.parse(DEFAULT_LANG)


def plural_category(lang: str, count: float | Decimal) -> str:
    """The CLDR plural category of ``count`` in ``lang`` (``one``, ``few``, ``many``,
    ``other``; Babel's CLDR data).

    >>> [plural_category("cs", n) for n in (1, 2, 5, 1.5)], plural_category("it", 1)
    (['one', 'few', 'other', 'many'], 'one')
    """
    return str(_locale(lang).plural_form(count))


def plural_categories(lang: str) -> tuple[str, ...]:
    """Every plural category ``lang`` has (``other`` always)."""
    return (*sorted(_locale(lang).plural_form.tags), "other")


def number_text(
    value: float | Decimal, lang: str, places: int | None = None, signed: bool = False
) -> str:
    """``value`` as ``lang`` writes it (CLDR's decimal sign, no grouping).

    >>> number_text(1.5, "de"), number_text(1.5, "en"), number_text(2, "cs", 2, True)
    ('1,5', '1.5', '+2,00')
    """
    if isinstance(value, int) and places is None:
        digits = "0"
    else:
        digits = "0" if places == 0 else "0." + ("0" * places if places else "###")
    pattern = f"+{digits};-{digits}" if signed else digits
    if signed and not value:
        pattern = digits
    return format_decimal(value, format=pattern, locale=_locale(lang))


@dataclass(frozen=True, slots=True)
class Labelled:
    """A value after a label that needs no words (``anna +1,50``: a name and its chips)."""

    label: str
    value: Any


@dataclass(frozen=True, slots=True)
class Standings:
    """Numbered rows of a label and its value, one a line, in columns (``/ledger``); the
    values as the reader's language writes them."""

    rows: tuple[Labelled, ...]


@dataclass(frozen=True, slots=True)
class Term:
    """A word from the catalogue, rendered in the reader's language."""

    key: str


def CommandWord(name: str) -> Name:
    """A command as a reader types it in his language (``/armut`` for a German reader of
    ``CommandWord("poverty")``)."""
    return Name("command", name)


@dataclass(frozen=True, slots=True)
class SoloWords:
    """The solo types as a reader types them in his language (``kreuz pik …`` for German),
    in the order of the English words file."""


def solo_words(lang: str) -> list[str]:
    """The first word of each solo in ``lang`` (the English key where it has none)."""
    from ..engine.types import Solo

    order = list(dict.fromkeys([*languages.words(DEFAULT_LANG).solos, *(s.key for s in Solo)]))
    return [name_text("solo", k, lang) for k in order]


def catalogue(lang: str) -> dict[str, str]:
    """The flat message table of ``lang`` (only its own texts)."""
    return languages.messages(lang)


@languages.derived
def card_names(lang: str) -> tuple[str, ...]:
    """Every card (0-47) as ``lang`` shows it: the suit symbol and its rank letter."""
    ranks = languages.get(lang).ranks
    return tuple(SUIT_SYMBOLS[(c >> 1) // 6] + ranks[(c >> 1) % 6] for c in range(N_CARDS))


def card_text(card: int, lang: str) -> str:
    """A card in the reader's notation (German: B for Bube, D for Dame)."""
    return card_names(lang)[card]


def _value(value: Any, lang: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float | Decimal):
        return number_text(value, lang)
    if isinstance(value, Number):
        return number_text(value.value, lang, value.places, value.signed)
    if isinstance(value, Cards):
        names = card_names(lang)
        if value.numbers:
            shown = [f"{n}:{names[c]}" for n, c in zip(value.numbers, value.cards, strict=True)]
            gap = "  "
        else:
            shown = [names[c] for c in value.cards]
            gap = value.separator or " "
        if value.names:
            shown = [f"{who} {card}" for who, card in zip(value.names, shown, strict=False)]
        if not value.groups:
            return gap.join(shown)
        out = shown[:1]
        for i in range(1, len(shown)):
            out.append(gap + "|" + gap if value.groups[i] != value.groups[i - 1] else gap)
            out.append(shown[i])
        return "".join(out)
    if isinstance(value, Term):
        return text(lang, value.key)
    if isinstance(value, Name):
        return name_text(value.kind, value.key, lang)
    if isinstance(value, Labelled):
        return f"{value.label} {_value(value.value, lang)}"
    if isinstance(value, Standings):
        return "\n".join(
            f"{i:>3}. {row.label:<16} {_value(row.value, lang):>10}"
            for i, row in enumerate(value.rows, 1)
        )
    if isinstance(value, Setting):
        return f"{name_text('option', value.option, lang)} {name_text('value', value.value, lang)}"
    if isinstance(value, CallsMade):
        if not value.calls:
            return ""
        made = ", ".join(f"{who} {name_text('call', key, lang)}" for who, key in value.calls)
        return render(lang, "prompt_calls", {"calls": made})
    if isinstance(value, SoloWords):
        return " ".join(solo_words(lang))
    if isinstance(value, bool):
        return text(lang, "word.on" if value else "word.off")
    if isinstance(value, list | tuple):
        return ", ".join(_value(v, lang) for v in value)
    return str(value)


_HINT: Final = re.compile(r"(?<![\w/:.~\\])/(?=[^\W\d_])(?![\w-]*/)")
"""A slash that starts a command a text suggests (``/start``, ``(/join``, ``„/zdravá“``),
not one inside a word or a path (``on/off``, ``Re/Kontra``, ``https://…/game/7``)."""


def command_hints(text: str, prefix: str) -> str:
    """``text`` with every command it suggests written with ``prefix`` (IRC: ``!``, whose
    clients take a leading slash as their own command; Discord and the console: ``/``).

    >>> command_hints("Type /start (or /entra); on/off, https://x.org/game/7", "!")
    'Type !start (or !entra); on/off, https://x.org/game/7'
    """
    return text if prefix == "/" else _HINT.sub(prefix, text)


ARGUMENT_NAMES: Final[dict[str, NameKind]] = {"solo": "solo"}
"""The commands whose argument is a name the reader types in his own words (``/solo
diamonds`` is ``/solo denari`` for an Italian reader); a card code reads in every language."""


def command_in(command: str, lang: str) -> str:
    """A command as a reader of ``lang`` types it (its first word in his words, and an
    argument of :data:`ARGUMENT_NAMES`), for a text that lists what he may type.

    >>> command_in("/black", "it"), command_in("/play CQ", "cs"), command_in("/frobnicate", "it")
    ('/nero', '/hrát CQ', '/frobnicate')
    >>> command_in("/solo diamonds", "de"), command_in("/solo fleshless", "cs")
    ('/solo karo', '/sólo bezmasa')
    """
    if not command.startswith("/"):
        return command
    word, space, rest = command[1:].partition(" ")
    kind = ARGUMENT_NAMES.get(word)
    if kind is not None and rest:
        rest = name_text(kind, rest, lang)
    return name_text("command", word, lang) + space + rest  # a word it lacks: as it is


def text(lang: str, key: str) -> str:
    """The raw catalogue text of ``key`` (English if ``lang`` lacks it, else the key)."""
    cat = languages.messages(lang)
    if key in cat:
        return cat[key]
    return languages.messages(DEFAULT_LANG).get(key, key)


class _Shown(str):
    """A parameter's text; a number also keeps its value, so that a placeholder with a
    phrase (``{games:games}``) takes the phrase of the number's plural category from the
    catalogue's ``count:`` table (``count.games.few``: ``"{n} hry"``)."""

    __slots__ = ("lang", "number")
    number: float | Decimal | None
    lang: str

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        return count_phrase(self.lang, spec, self.number if self.number is not None else 0, self)


def _shown(value: Any, lang: str) -> _Shown:
    out = _Shown(_value(value, lang))
    out.lang = lang
    out.number = None
    if isinstance(value, Number):  # as shown: 1.0 is not 1 (CLDR's visible decimals)
        places = value.places
        out.number = (
            value.value
            if places is None
            else Decimal(value.value).quantize(Decimal(1).scaleb(-places))
        )
    elif isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        out.number = value
    return out


def count_phrase(lang: str, phrase: str, count: float | Decimal, shown: str = "") -> str:
    """The phrase ``phrase`` of the catalogue's ``count:`` table for ``count`` in ``lang``:
    the form of the number's CLDR plural category (Czech: one, few, many, other), with the
    number (``shown``, else ``count`` as ``lang`` writes it) for ``{n}``.

    >>> [count_phrase("cs", "games", n) for n in (1, 3, 5, Decimal("1.5"))]
    ['1 hra', '3 hry', '5 her', '1,5 hry']
    """
    category = plural_category(lang, count)
    forms = (
        f"count.{phrase}.{category}",
        f"count.{phrase}.other",
    )
    own = languages.messages(lang)
    template = next((own[k] for k in forms if k in own), None)
    if template is None:
        english = languages.messages(DEFAULT_LANG)
        template = english.get(f"count.{phrase}.{plural_category(DEFAULT_LANG, count)}") or (
            english.get(f"count.{phrase}.other", "{n}")
        )
    return template.replace("{n}", shown or number_text(count, lang))


class _Params(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(lang: str, key: str, params: dict[str, Any] | None = None) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in."""
    template = text(lang, key)
    if not params:
        return template
    values = _Params({k: _shown(v, lang) for k, v in params.items()})
    try:
        return template.format_map(values)
    except (ValueError, IndexError, AttributeError, KeyError):
        return template
