"""Message catalogues (``locales/de.yaml``, ``locales/en.yaml``) and rendering.

A language is its catalogue ``locales/LANG.yaml`` (the same keys as ``en.yaml``), its entry in
:data:`LANGS` and :data:`_RANKS`, and, for Discord's command picker, ``locales/slash/LANG.yaml``
(:func:`slash_texts`; English needs none).

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

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

import yaml

from ..engine.cards import N_CARDS, SUIT_SYMBOLS

LANGS: Final = ("en", "de")
DEFAULT_LANG: Final = "en"
_RANKS: Final = {"en": ("9", "J", "Q", "K", "10", "A"), "de": ("9", "B", "D", "K", "10", "A")}


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


@dataclass(frozen=True, slots=True)
class Term:
    """A word from the catalogue, rendered in the reader's language."""

    key: str


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The flat message table of ``lang``."""
    text = resources.files("dokobot.host").joinpath(f"locales/{lang}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    out: dict[str, str] = {}

    def flatten(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                flatten(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            out[prefix] = str(node)

    flatten("", data)
    return out


@cache
def slash_texts(lang: str) -> dict[str, str]:
    """The command picker's texts in ``lang`` (slash command and argument descriptions, choice
    labels), keyed by their English text as declared; empty for English.

    >>> slash_texts("de")["Play a card"], slash_texts("en")
    ('Eine Karte spielen', {})
    """
    if lang == DEFAULT_LANG or lang not in LANGS:
        return {}
    path = resources.files("dokobot.host").joinpath(f"locales/slash/{lang}.yaml")
    data = yaml.safe_load(path.read_text("utf-8"))
    return {str(k): str(v) for k, v in data.items()}


_CARD_TEXT: Final = {
    lang: tuple(SUIT_SYMBOLS[(c >> 1) // 6] + ranks[(c >> 1) % 6] for c in range(N_CARDS))
    for lang, ranks in _RANKS.items()
}


def card_text(card: int, lang: str) -> str:
    """A card in the reader's notation (German: B for Bube, D for Dame)."""
    return _CARD_TEXT.get(lang, _CARD_TEXT["en"])[card]


def _value(value: Any, lang: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, Cards):
        names = _CARD_TEXT.get(lang, _CARD_TEXT["en"])
        if value.numbers:
            shown = [f"{n}:{names[c]}" for n, c in zip(value.numbers, value.cards, strict=True)]
            gap = "  "
        else:
            shown = [names[c] for c in value.cards]
            gap = value.separator or " "
        if not value.groups:
            return gap.join(shown)
        out = shown[:1]
        for i in range(1, len(shown)):
            out.append(gap + "|" + gap if value.groups[i] != value.groups[i - 1] else gap)
            out.append(shown[i])
        return "".join(out)
    if isinstance(value, Term):
        return text(lang, value.key)
    if isinstance(value, bool):
        return text(lang, "word.on" if value else "word.off")
    if isinstance(value, list | tuple):
        return ", ".join(_value(v, lang) for v in value)
    return str(value)


def text(lang: str, key: str) -> str:
    """The raw catalogue text of ``key`` (English if ``lang`` lacks it, else the key)."""
    cat = catalogue(lang if lang in LANGS else DEFAULT_LANG)
    if key in cat:
        return cat[key]
    return catalogue(DEFAULT_LANG).get(key, key)


class _Params(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(lang: str, key: str, params: dict[str, Any] | None = None) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in."""
    template = text(lang, key)
    if not params:
        return template
    values = _Params({k: _value(v, lang) for k, v in params.items()})
    try:
        return template.format_map(values)
    except (ValueError, IndexError, AttributeError, KeyError):
        return template
