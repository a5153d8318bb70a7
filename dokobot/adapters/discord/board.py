"""The board message: a :class:`~dokobot.host.board.BoardView` as a Discord embed, compact
enough that the board with its "My cards" button fits a phone's screen.

The state is one line per item in the embed's description (no field headings): whose turn
and the clock, the contract and the calls, the parties, the tricks taken, the last trick;
then "Latest" with the news nothing else on the board says (:data:`SHOWN_ELSEWHERE`). With
pictures on, the cards on the table are a PNG (``attachment://table.png``) and are not
repeated as text: the picture's alt text says them (:func:`table_text`, for screen readers),
and the last trick is written only while the picture shows the next one. Every text is cut to
Discord's embed limits (title 256, description 4,096, field 1,024, 25 fields, 6,000 in all).
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
SHOWN_ELSEWHERE: Final = frozenset({"card", "trick", "lead", "ask", "healthy", "call", "contract"})
"""Kinds of public texts the board says otherwise (the cards on the table, the last trick,
whose turn, the contract, the calls): they are left out of its "Latest"."""


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


def table_text(view: BoardView, lang: str) -> str:
    """The cards on the table as a line of text ("On the table: Ben ♣J Carl ♦J"): the
    board's text without pictures, the picture's alt text with them."""
    names = discord.utils.escape_markdown
    if view.trick:
        cards = "  ".join(
            f"{names(_seated(view, s))} **{card_text(c, lang)}**" for s, c in view.trick
        )
    else:
        cards = text("board_empty", lang)
    return f"{text('board_table', lang)}: {cards}"


def picture_text(view: BoardView, lang: str) -> str:
    """The alt text of the board's picture: the cards it shows, as words."""
    if view.trick or not view.last_trick:
        return table_text(view, lang).replace("**", "")
    return f"{text('board_last', lang)}: {_last_trick(view, lang)}"


def _last_trick(view: BoardView, lang: str) -> str:
    last = " ".join(card_text(c, lang) for _, c in view.last_trick)
    winner = discord.utils.escape_markdown(_seated(view, view.last_winner or 0))
    return f"{last} → {winner}"


def board_embed(
    view: BoardView, news: Sequence[str], lang: str, picture: bool = False
) -> discord.Embed:
    """The embed of the board ``view`` with the ``news`` lines (newest last) in ``lang``;
    with ``picture``, the cards on the table are in the picture (not in the text)."""
    names = discord.utils.escape_markdown
    title = text("board_title", lang, n=str(view.game_number))
    if view.finished:
        title += " · " + text("board_over", lang)
    elif view.phase == "playing":
        title += " · " + text("board_trick", lang, n=str(view.trick_number))
    embed = discord.Embed(title=_cut(title, 256), colour=COLOUR)
    lines: list[str] = []
    if not picture:
        lines.append(table_text(view, lang))
    if view.turn is not None:
        turn = [text("board_waiting", lang, player=f"**{names(_seated(view, view.turn))}**")]
        if view.deadline is not None:  # Discord shows it as "in 42 seconds", counting down
            turn.append(text("board_deadline", lang, when=f"<t:{view.deadline}:R>"))
        lines.append(" · ".join(turn))
    said = [_contract(view, lang)]
    if view.calls:
        calls = ", ".join(
            f"{names(_seated(view, s))} {host_render(lang, 'call.' + k)}" for s, k in view.calls
        )
        said.append(f"{text('board_calls', lang)}: {calls}")
    lines.append(" · ".join(part for part in said if part))
    if view.parties:
        sides: dict[str, list[str]] = {}
        for seat, party in view.parties:
            sides.setdefault(party, []).append(names(_seated(view, seat)))
        lines.append(
            " · ".join(
                f"{host_render(lang, 'party.' + p)}: {', '.join(who)}" for p, who in sides.items()
            )
        )
    if view.phase in ("playing", "finished"):
        won = ", ".join(f"{names(n)} {view.tricks_won[s]}" for s, n in enumerate(view.seats))
        lines.append(f"{text('board_tricks', lang)}: {won}")
    if view.last_trick and view.last_winner is not None and not (picture and not view.trick):
        lines.append(f"{text('board_last', lang)}: {_last_trick(view, lang)}")
    if view.marks:  # house-rule marks, e.g. bock (catalogue keys "mark.<name>")
        marks = ", ".join(host_render(lang, "mark." + m) for m in view.marks)
        lines.append(f"{text('board_marks', lang)}: {marks}")
    if view.away:
        away = ", ".join(names(_seated(view, s)) for s in view.away)
        lines.append(f"{text('board_away', lang)}: {away}")
    if view.sitting_out:  # five or six at a table (RULES §12.9)
        out = ", ".join(names(n) for n in view.sitting_out)
        lines.append(f"{text('board_sitting_out', lang)}: {out}")
    embed.description = _cut("\n".join(line for line in lines if line), MAX_DESCRIPTION)
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
