"""The languages dokobot speaks: one registry line each; everything else is the language's files.

A language is a :class:`Language` in :data:`REGISTRY` (its code, its own name, the rank letters
its cards show) and three files in its folder (the package's
``dokobot/host/locales`` unless the line names another):

- ``CODE.yaml``: every message people read (the same keys as ``en.yaml``; a missing key
  falls back to English);
- ``words/CODE.yaml``: every word people type (command, argument and option names, yes and
  no, solo names, card and suit names, see :class:`Words`);
- ``slash/CODE.yaml``: the Discord adapter's command picker (descriptions and choice labels,
  keyed by their English text, read with :func:`data`); English needs none.

Code that needs a language's words asks here (:func:`words`, :func:`codes`, :func:`get`); a
table derived from them (the command names, the card notations) is cached with
:func:`derived` and rebuilt when the registry changes (:func:`added`, for tests that prove a
language is data).

>>> codes()[:2], get("de").name, get("de").ranks
(('en', 'de'), 'Deutsch', ('9', 'B', 'D', 'K', '10', 'A'))
>>> words("de").commands["healthy"]
('gesund',)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, Final, TypeVar

import yaml

from .engine.cards import ACE, CLUBS, DIAMONDS, HEARTS, JACK, KING, NINE, QUEEN, SPADES, TEN
from .engine.notation import CANONICAL, Notation

DEFAULT: Final = "en"
"""The language every other falls back to (messages, words, a chat's default)."""


@dataclass(frozen=True, slots=True)
class Language:
    """One line of the registry."""

    code: str
    """The code people type (``/lang it``) and the files' name."""
    name: str
    """Its name in itself (``Italiano``)."""
    rank_letters: str
    """The letters its cards show for nine, jack, queen, king, ten, ace (space-separated)."""
    folder: Path | None = field(default=None, compare=False)
    """Where its files are; None: the package's ``dokobot/host/locales``."""

    @property
    def ranks(self) -> tuple[str, ...]:
        return tuple(self.rank_letters.split())

    def file(self, kind: str) -> Traversable | Path:
        """Its file of ``kind`` (``""`` messages, ``words``, a folder an adapter reads)."""
        base: Traversable | Path = self.folder or resources.files("dokobot.host") / "locales"
        return (base / kind / f"{self.code}.yaml") if kind else base / f"{self.code}.yaml"


REGISTRY: Final[list[Language]] = [
    Language("en", "English", "9 J Q K 10 A"),
    Language("de", "Deutsch", "9 B D K 10 A"),
    Language("it", "Italiano", "9 F D R 10 A"),
    Language("cs", "Čeština", "9 B D K 10 A"),
]
"""Every language, one line each (the first is the default)."""

SUIT_KEYS: Final = {"clubs": CLUBS, "spades": SPADES, "hearts": HEARTS, "diamonds": DIAMONDS}
RANK_KEYS: Final = {"nine": NINE, "jack": JACK, "queen": QUEEN, "king": KING, "ten": TEN,
                    "ace": ACE}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Words:
    """What people type in one language (its ``words/CODE.yaml``), all in lower case.

    Each entry maps a thing (a command's, option's, solo's English key) to its words in the
    language, the first one the word it shows (help, Discord). Missing entries: the English
    words only.
    """

    commands: dict[str, tuple[str, ...]]
    args: dict[str, str]
    """``COMMAND.ARG`` -> the argument's name (Discord)."""
    options: dict[str, tuple[str, ...]]
    yes: tuple[str, ...]
    no: tuple[str, ...]
    solos: dict[str, tuple[str, ...]]
    suits: dict[int, tuple[str, ...]]
    ranks: dict[int, tuple[str, ...]]
    fillers: tuple[str, ...]
    """Words between rank and suit that mean nothing (``of``, ``di``)."""
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Words for the values of command arguments (``chart``, the boards of ``/top``)."""
    card_example: str = ""
    """A few cards in its notation (for messages)."""


def _tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(str(v).strip().lower() for v in items)


def _table(node: Any) -> dict[str, tuple[str, ...]]:
    return {str(k): _tuple(v) for k, v in (node or {}).items()}


YAML_LOADER: Final[type[yaml.SafeLoader] | type[yaml.CSafeLoader]] = getattr(
    yaml, "CSafeLoader", yaml.SafeLoader
)
"""libyaml's parser where PyYAML has it (its wheels do): the same data, a tenth of the CPU
(every ``dokobot`` process reads the language files at its start)."""


def _load(path: Traversable | Path) -> Any:
    try:
        return yaml.load(path.read_text("utf-8"), Loader=YAML_LOADER) or {}
    except FileNotFoundError:
        return {}


# ---------------------------------------------------------------- derived tables
_CACHES: list[Callable[[], None]] = []
F = TypeVar("F", bound=Callable[..., Any])


def derived(func: F) -> F:
    """Cache ``func`` until the registry changes (it derives a table from the languages)."""
    cached = functools.cache(func)
    _CACHES.append(cached.cache_clear)
    return cached  # type: ignore[return-value]


@contextmanager
def added(language: Language) -> Iterator[Language]:
    """The registry with ``language`` added (the last), until the block ends."""
    if any(lang.code == language.code for lang in REGISTRY):
        raise ValueError(f"language {language.code} is registered already")
    REGISTRY.append(language)
    forget()
    try:
        yield language
    finally:
        REGISTRY.remove(language)
        forget()


def forget() -> None:
    """Drop every derived table (the registry or the declarations changed)."""
    for clear in _CACHES:
        clear()


@derived
def codes() -> tuple[str, ...]:
    """Every language's code, in the registry's order (English first)."""
    return tuple(lang.code for lang in REGISTRY)


@derived
def _by_code() -> dict[str, Language]:
    return {lang.code: lang for lang in REGISTRY}


def get(code: str) -> Language:
    """The language ``code`` (English for an unknown code)."""
    table = _by_code()
    return table.get(code) or table[DEFAULT]


def known(code: str) -> str:
    """``code`` if it is a language, else the default."""
    return code if code in _by_code() else DEFAULT


def data(code: str, kind: str) -> dict[str, Any]:
    """The YAML file of ``kind`` of language ``code`` (a folder of the language files an
    adapter reads, as the Discord adapter its command picker's texts); empty when the
    language or its file is not there."""
    if code not in _by_code():
        return {}
    loaded = _load(get(code).file(kind))
    return loaded if isinstance(loaded, dict) else {}


@derived
def messages(code: str) -> dict[str, str]:
    """The flat message table of ``code`` (``a.b`` keys); empty for an unknown code."""
    if code not in _by_code():
        return {}
    out: dict[str, str] = {}

    def flatten(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                flatten(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            out[prefix] = str(node)

    flatten("", _load(get(code).file("")))
    return out


@derived
def words(code: str) -> Words:
    """What people type in ``code`` (an unknown code: English)."""
    data = _load(get(code).file("words"))
    cards = data.get("cards") or {}
    return Words(
        commands=_table(data.get("commands")),
        args={str(k): _tuple(v)[0] for k, v in (data.get("args") or {}).items()},
        options=_table(data.get("options")),
        yes=_tuple(data.get("yes_words")),
        no=_tuple(data.get("no_words")),
        solos=_table(data.get("solos")),
        suits={SUIT_KEYS[k]: _tuple(v) for k, v in (cards.get("suits") or {}).items()},
        ranks={RANK_KEYS[k]: _tuple(v) for k, v in (cards.get("ranks") or {}).items()},
        fillers=_tuple(cards.get("fillers")),
        card_example=str(cards.get("example", "")),
        values=_table(data.get("values")),
    )


@derived
def reading_order(code: str) -> tuple[str, ...]:
    """The languages whose words a line from a reader of ``code`` is read in, in order: the
    reader's own, English, then the others (a word in another language is understood when
    the reader's own words do not know it)."""
    first = known(code)
    return tuple(dict.fromkeys((first, DEFAULT, *codes())))


@derived
def notation(code: str) -> Notation:
    """The card words of ``code`` as a notation the engine reads."""
    w = words(code)
    return Notation.of(w.suits, w.ranks, w.fillers)


@derived
def notations(code: str) -> tuple[Notation, ...]:
    """The notations a card typed by a reader of ``code`` is read in, in order: the reader's
    own, the engine's code (journals and buttons write ``CQ``), then the other languages'
    (:func:`reading_order`)."""
    own, *rest = reading_order(code)
    return (notation(own), CANONICAL, *(notation(c) for c in rest))
