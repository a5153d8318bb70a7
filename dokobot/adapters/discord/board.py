"""The board message: a :class:`~dokobot.host.board.BoardView` as a Discord embed.

The embed holds the whole state as text (for screen readers and search); with pictures on,
the cards on the table are also shown as a PNG (``attachment://table.png``). Every text is
cut to Discord's embed limits (title 256, description 4,096, field 1,024, 25 fields, 6,000
in all).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import discord

from dokobot.adapters.discord.i18n import text
from dokobot.host.board import BoardView
from dokobot.host.i18n import card_text
from dokobot.host.i18n import render as host_render

TABLE_PICTURE: Final = "table.png"
COLOUR: Final = 0x2E7D32  # a card table's green, readable on dark and light themes
MAX_FIELD: Final = 1024
MAX_DESCRIPTION: Final = 4096


def _cut(value: str, limit: int) -> str:
    """``value`` cut to ``limit`` characters (never empty: Discord refuses empty fields).

    >>> _cut("abcdef", 4), _cut("", 4)
    ('abc…', '-')
    """
    value = value.strip() or "-"
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _contract(view: BoardView, lang: str) -> str:
    if view.contract.startswith("solo."):
        return host_render(lang, view.contract)
    if view.contract in ("normal", "wedding", "poverty"):
        return text("contract_" + view.contract, lang)
    return (
        text("phase_" + view.phase, lang)
        if view.phase in ("reservations", "declarations", "exchange")
        else ""
    )


def _seated(view: BoardView, seat: int) -> str:
    return view.seats[seat] if 0 <= seat < len(view.seats) else "?"


def board_embed(
    view: BoardView, news: Sequence[str], lang: str, picture: bool = False
) -> discord.Embed:
    """The embed of the board ``view`` with the ``news`` lines (newest last) in ``lang``."""
    names = discord.utils.escape_markdown
    title = text("board_title", lang, n=str(view.game_number))
    if view.finished:
        title += " · " + text("board_over", lang)
    elif view.phase == "playing":
        title += " · " + text("board_trick", lang, n=str(view.trick_number))
    embed = discord.Embed(title=_cut(title, 256), colour=COLOUR)
    lines: list[str] = []
    if view.trick:
        cards = "  ".join(
            f"{names(_seated(view, s))} **{card_text(c, lang)}**" for s, c in view.trick
        )
    else:
        cards = text("board_empty", lang)
    lines.append(f"{text('board_table', lang)}: {cards}")
    if view.turn is not None:
        lines.append(text("board_waiting", lang, player=f"**{names(_seated(view, view.turn))}**"))
        if view.deadline is not None:  # Discord shows it as "in 42 seconds", counting down
            lines.append(text("board_deadline", lang, when=f"<t:{view.deadline}:R>"))
    embed.description = _cut("\n".join(lines), MAX_DESCRIPTION)
    contract = _contract(view, lang)
    if contract:
        embed.add_field(name=text("board_contract", lang), value=_cut(contract, MAX_FIELD))
    calls = [f"{names(_seated(view, s))}: {host_render(lang, 'call.' + k)}" for s, k in view.calls]
    embed.add_field(
        name=text("board_calls", lang),
        value=_cut(", ".join(calls) or text("none", lang), MAX_FIELD),
    )
    if view.parties:
        parties = [
            f"{names(_seated(view, s))} {host_render(lang, 'party.' + p)}" for s, p in view.parties
        ]
        embed.add_field(name=text("board_parties", lang), value=_cut(", ".join(parties), MAX_FIELD))
    if view.phase in ("playing", "finished"):
        won = [f"{names(n)} {view.tricks_won[s]}" for s, n in enumerate(view.seats)]
        embed.add_field(name=text("board_tricks", lang), value=_cut(", ".join(won), MAX_FIELD))
    if view.last_trick and view.last_winner is not None:
        last = " ".join(card_text(c, lang) for _, c in view.last_trick)
        winner = names(_seated(view, view.last_winner))
        embed.add_field(
            name=text("board_last", lang), value=_cut(f"{last} → {winner}", MAX_FIELD), inline=False
        )
    if view.marks:  # house-rule marks, e.g. bock (catalogue keys "mark.<name>")
        marks = ", ".join(host_render(lang, "mark." + m) for m in view.marks)
        embed.add_field(name=text("board_marks", lang), value=_cut(marks, MAX_FIELD))
    if view.away:
        away = ", ".join(names(_seated(view, s)) for s in view.away)
        embed.add_field(name=text("board_away", lang), value=_cut(away, MAX_FIELD), inline=False)
    if news:
        body = "\n".join(names(line) for line in news)
        embed.add_field(
            name=text("board_news", lang), value=_cut(body[-MAX_FIELD:], MAX_FIELD), inline=False
        )
    if picture:
        embed.set_image(url=f"attachment://{TABLE_PICTURE}")
    return embed


def embed_text(embed: discord.Embed) -> str:
    """All the text of an embed, for tests and logs."""
    parts = [embed.title or "", embed.description or ""]
    for f in embed.fields:
        parts += [f.name or "", f.value or ""]
    return "\n".join(p for p in parts if p)
