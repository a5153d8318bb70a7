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
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any, Final

from ..ai.levels import OFFERED_LEVELS
from ..engine.rules import WEDDING_TRICKS, Rules
from .i18n import LANGS

MODES: Final = ("free", "single", "fixed4", "duel")
LANGUAGES: Final = tuple(sorted(LANGS))
BOT_LEVELS: Final = OFFERED_LEVELS
RATED: Final = ("auto", "on", "off")
"""Values of the option ``rated``: whether finished games count for the rating (``auto``:
only games of four people)."""

HOUSE_RULES: Final[dict[str, str]] = {
    "poverty": "armut",
    "throw_in": "schmeissen",
    "piglets": "schweinchen",
    "bock": "bock",
    "nines": "neunen",
    "wedding_trick": "hochzeitsstich",
}
"""The house-rule options (RULES §12) and their German names. Their defaults are the
plain game; none may differ from it while ``tournament`` is on."""
OPTION_ALIASES: Final[dict[str, str]] = {de: en for en, de in HOUSE_RULES.items()}
"""German option names accepted by ``/option``."""

_TRUE: Final = {"on", "true", "yes", "1", "an", "ja", "ein"}
_FALSE: Final = {"off", "false", "no", "0", "aus", "nein"}


class OptionError(ValueError):
    """An unknown option or a value it does not take; ``reason`` and ``params`` for i18n."""

    def __init__(self, reason: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Options of one table; immutable, :meth:`set` returns a changed copy."""

    tournament: bool = False
    series_length: int = 24
    mode: str = "free"
    stake: int = 1
    limit: int = 0
    commission: float = 0.0
    lust_solo_leads: bool = False
    second_heart10_wins: bool = False
    language: str = "en"
    turn_timeout: int = 0
    standin: bool = True
    bot_level: str = "normal"
    bare_cards: bool = True
    """A card typed alone in the channel (``CQ``, ``3``) plays it on your turn. Private
    messages always take bare cards; on IRC channels the default is off (see
    :meth:`for_channel`), so chat such as ``11`` or ``ha`` never plays a card."""
    images: bool = True
    """Show cards as pictures where the platform can (Discord)."""
    rated: str = "auto"
    poverty: bool = False
    throw_in: bool = False
    piglets: bool = False
    bock: bool = False
    """Bock rounds: after a 120 : 120, re and kontra both called or a lost solo, the next 4
    games count double (a matter of the series, not of the engine)."""
    nines: bool = True
    wedding_trick: str = "first"

    @property
    def rules(self) -> Rules:
        return Rules(
            tournament=self.tournament,
            lust_solo_leads=self.lust_solo_leads,
            second_heart10_wins=self.second_heart10_wins,
            nines=self.nines,
            wedding_trick=self.wedding_trick,
            piglets=self.piglets,
            poverty=self.poverty,
            throw_in=self.throw_in,
        )

    def house_rules_on(self) -> list[str]:
        """The house rules that differ from the plain game."""
        plain = _PLAIN
        return [n for n in HOUSE_RULES if getattr(self, n) != getattr(plain, n)]

    @staticmethod
    def canonical(name: str) -> str:
        """An option's name as typed (any case, ``-`` for ``_``, German) as the option.

        >>> TableOptions.canonical("Armut"), TableOptions.canonical("throw-in")
        ('poverty', 'throw_in')
        """
        clean = name.strip().lower().replace("-", "_")
        return OPTION_ALIASES.get(clean, clean)

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
        if new.tournament and new.house_rules_on():
            rules = ", ".join(new.house_rules_on())
            raise OptionError(
                "option_house_tournament",
                f"house rules ({rules}) are not played in tournament mode",
                name=name,
                rules=rules,
            )
        if new.tournament and new.mode != "free":
            if name == "mode":  # the mode is asked for while tournament is on
                raise OptionError(
                    "option_conflict_mode",
                    f"mode {new.mode} needs tournament off",
                    name=name,
                    mode=new.mode,
                )
            raise OptionError(
                "option_conflict",
                f"tournament mode needs mode free, not {new.mode}",
                name=name,
                mode=new.mode,
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

    def for_channel(self, channel: str) -> TableOptions:
        """These options as the defaults of a new table in ``channel`` (platform id
        ``irc:…``, ``discord:…``): IRC channels do not take bare cards."""
        if channel.startswith("irc:") and self.bare_cards:
            return dataclasses.replace(self, bare_cards=False)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        known = {k: v for k, v in data.items() if k in cls.names()}
        return cls(**known)


_PLAIN: Final = TableOptions()


def whole_number(text: str) -> int | None:
    """``text`` as a whole number written with the digits 0-9, else None.

    ``str.isdigit`` also accepts ``²`` or ``⁸``, which ``int`` refuses.

    >>> whole_number("12"), whole_number("²"), whole_number("-3"), whole_number("")
    (12, None, None, None)
    """
    if text.isascii() and text.isdigit():
        return int(text)
    return None


def _bad(name: str, what: str) -> OptionError:
    return OptionError("option_bad_value", f"{name} must be {what}", name=name, what=what)


def _parse(name: str, raw: str) -> Any:
    if name in ("tournament", "lust_solo_leads", "second_heart10_wins", "standin", "bare_cards",
                "images", "poverty", "throw_in", "piglets", "bock", "nines"):
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise _bad(name, "on or off")
    if name == "series_length":
        n = whole_number(raw)
        if n is not None and n % 4 == 0 and 4 <= n <= 96:
            return n
        raise _bad(name, "a multiple of 4 from 4 to 96")
    if name in ("stake", "limit"):
        n = whole_number(raw)
        if n is not None and n <= 1_000_000:
            return n
        raise _bad(name, "a whole number from 0 to 1000000")
    if name == "turn_timeout":
        n = whole_number(raw)
        if n is not None and (n == 0 or 10 <= n <= 3600):
            return n
        raise _bad(name, "0 (off) or seconds from 10 to 3600")
    if name == "commission":
        try:
            value = float(raw.rstrip("%"))
        except ValueError:
            value = -1.0
        if 0.0 <= value <= 50.0:
            return value
        raise _bad(name, "a percentage from 0 to 50")
    if name == "mode":
        if raw in MODES:
            return raw
        raise _bad(name, " | ".join(MODES))
    if name == "language":
        if raw in LANGUAGES:
            return raw
        raise _bad(name, " | ".join(LANGUAGES))
    if name == "rated":
        if raw in RATED:
            return raw
        if raw in _TRUE | _FALSE:
            return "on" if raw in _TRUE else "off"
        raise _bad(name, " | ".join(RATED))
    if name == "wedding_trick":
        if raw in WEDDING_TRICKS:
            return raw
        raise _bad(name, " | ".join(WEDDING_TRICKS))
    if name == "bot_level":
        if raw in BOT_LEVELS:
            return raw
        raise _bad(name, " | ".join(BOT_LEVELS))
    raise _bad(name, "?")  # pragma: no cover
