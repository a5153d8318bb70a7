"""Text views of a table for the chat: the /table view, the last trick, choice labels,
the option list and the help list."""

from __future__ import annotations

import functools
from typing import Any

from .. import languages
from ..ai.levels import OFFERED_LEVELS
from ..engine.types import Phase, call_key
from ..stats.book import BOARDS
from .board import public_party_keys
from .commands import COMMANDS
from .i18n import card_text, option_value_text, render, solo_words
from .options import OPTIONS, option_aliases, option_name
from .table import Table


def describe(table: Table, lang: str) -> str:
    """The /table view: seats, trick on the table, whose turn, calls, known parties."""
    names = table.names()
    seats = [
        render(lang, "view.standin", {"player": s.name}) if s.standin_for else s.name
        for s in table.ring()  # in the order people sat down, whoever sits out
    ]
    lines = [render(lang, "view.seats", {"seats": seats or ["-"]})]
    game = table.game
    if game is None or not table.running:
        lines.append(render(lang, "view.no_game"))
        return "\n".join(lines)
    if table.sitting_out():  # five or six at a table (RULES §12.9)
        lines.append(render(lang, "sitting_out", {"players": table.sitting_out()}))
    if game.phase is Phase.PLAYING:
        trick = [
            f"{names[(game.leader + i) % 4]} {card_text(c, lang)}" for i, c in enumerate(game.trick)
        ]
        lines.append(
            render(lang, "view.trick", {"n": len(game.tricks) + 1, "cards": trick or ["-"]})
        )
    lines.append(render(lang, "view.turn", {"player": names[game.turn]}))
    calls = [f"{names[s]}: {render(lang, 'call.' + call_key(a))}" for s, a in game.calls]
    lines.append(render(lang, "view.calls", {"calls": calls or ["-"]}))
    known = public_party_keys(table)
    if known:
        lines.append(
            render(
                lang,
                "view.parties",
                {"parties": [f"{names[s]} {render(lang, 'party.' + p)}" for s, p in known]},
            )
        )
    return "\n".join(lines)


def last_trick(table: Table, lang: str) -> list[str] | None:
    """The last trick as ``name card`` items (None before the first trick is taken)."""
    if table.last_trick is None:
        return None
    leader, cards, _ = table.last_trick
    names = table.last_trick_names
    return [f"{names[(leader + i) % 4]} {card_text(c, lang)}" for i, c in enumerate(cards)]


@functools.lru_cache(maxsize=4096)
def label(text: str, lang: str) -> str:
    """A choice's label: ``@key`` a catalogue text, ``#card`` a card, else as it is."""
    if text.startswith("@"):
        return render(lang, text[1:])
    if text.startswith("#"):
        return card_text(int(text[1:]), lang)
    return text


def help_lists(lang: str) -> dict[str, Any]:
    """The lists the help texts name, filled in from their declarations when a text is
    shown to a reader of ``lang`` (a catalogue never restates them): ``{levels}``,
    ``{langs}`` (the registry's), ``{boards}``, ``{solos}`` (the reader's words), ``{options}`` (the options that are no house
    rules), ``{house_rules}`` (both by the reader's names) and ``{option_aliases}`` (other
    names ``/option`` takes: the reader's other words for the options; for English readers
    the other languages' names of the house rules)."""
    own = [w for n in OPTIONS for w in languages.words(lang).options.get(n, ())[1:]]
    if lang == languages.DEFAULT:
        own = [w for w, n in option_aliases().items() if OPTIONS[n].house and w != n]
    return {
        "levels": "|".join(option_value_text(level, lang) for level in OFFERED_LEVELS),
        "langs": "|".join(languages.codes()),
        "boards": "|".join(BOARDS),
        "solos": solo_words(lang),
        "options": [option_name(name, lang) for name, decl in OPTIONS.items() if not decl.house],
        "house_rules": [option_name(name, lang) for name, decl in OPTIONS.items() if decl.house],
        "option_aliases": own,
    }


def help_rows(lang: str) -> str:
    """The /help list: every declared command with its brief text, in ``lang``."""
    lists = help_lists(lang)
    return "\n".join(
        f"/{spec.name_in(lang):<12} {render(lang, spec.brief_key, lists)}"
        for spec in COMMANDS.values()
    )
