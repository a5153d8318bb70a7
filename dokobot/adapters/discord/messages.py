"""Discord ids and message text: platform ids, splitting and formatting texts within
Discord's limits, and an event as message pieces (with its picture)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Final

import discord

from dokobot.host.events import Event, Private

ID_PREFIX: Final = "discord:"
MAX_MESSAGE: Final = 2000
EPHEMERAL: Final = 64
HAND_PICTURE: Final = "hand.png"


def qualify(snowflake: int) -> str:
    """The host's id for a Discord channel or user.

    >>> qualify(42)
    'discord:42'
    """
    return f"{ID_PREFIX}{snowflake}"


MENTION: Final = re.compile(r"<@!?(\d+)>")
"""A mention of a member, as Discord writes it into a typed text."""


def mentions_in(text: str) -> tuple[tuple[str, str], ...]:
    """The mentions of members in ``text``, each with the host's id of the member.

    >>> mentions_in("/stats <@42>"), mentions_in("/stats <@!7> anna")
    ((('<@42>', 'discord:42'),), (('<@!7>', 'discord:7'),))
    >>> mentions_in("/stats anna")
    ()
    """
    return tuple((m[0], qualify(int(m[1]))) for m in MENTION.finditer(text))


def snowflake_of(key: str) -> int | None:
    """The Discord id inside a host id, or None if it is not a Discord id.

    >>> snowflake_of("discord:42"), snowflake_of("irc:#doko"), snowflake_of("discord:x")
    (42, None, None)
    """
    if not key.startswith(ID_PREFIX):
        return None
    rest = key[len(ID_PREFIX) :]
    return int(rest) if rest.isdigit() else None


def split_message(content: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Cut ``content`` into pieces Discord accepts, at line ends where possible.

    >>> split_message("ab\\ncd", 3)
    ['ab', 'cd']
    >>> split_message("abcdefg", 3)
    ['abc', 'def', 'g']
    >>> split_message("")
    []
    """
    pieces: list[str] = []
    rest = content
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit + 1)
        if cut <= 0:
            pieces.append(rest[:limit])
            rest = rest[limit:]
        else:
            pieces.append(rest[:cut])
            rest = rest[cut + 1 :]
    if rest.strip():
        pieces.append(rest)
    return pieces


_ALIGNED = re.compile(r"\S {2,}\S|^ {2,}\S", re.MULTILINE)


def format_text(content: str) -> str:
    """Discord text for the host's plain text.

    Markdown is escaped; a table (several lines aligned with runs of spaces, like the score
    list) goes into a code block so that its columns line up.

    >>> format_text("a_b *c*")
    'a\\\\_b \\\\*c\\\\*'
    >>> format_text("Score\\n  # Anna  Ben\\n  1   +3   -3")
    '```\\nScore\\n  # Anna  Ben\\n  1   +3   -3\\n```'
    """
    pieces = format_pieces(content)
    return pieces[0] if len(pieces) == 1 else discord.utils.escape_markdown(content)


def _aligned(content: str) -> bool:
    lines = content.split("\n")
    return len(lines) > 1 and any(_ALIGNED.search(line) for line in lines[1:])


def format_pieces(content: str, limit: int = MAX_MESSAGE) -> list[str]:
    """:func:`format_text` in messages of at most ``limit`` characters: a table too long for
    one code block goes into several, cut at line ends, so its columns still line up.

    >>> format_pieces("Help\\n/a  x\\n/b  y", 20)
    ['```\\nHelp\\n/a  x\\n```', '```\\n/b  y\\n```']
    >>> format_pieces("a_b")
    ['a\\\\_b']
    """
    if not _aligned(content):
        return split_message(discord.utils.escape_markdown(content), limit)
    fence = len("```\n\n```")
    body = content.replace("```", "`\u200b``")
    return [f"```\n{piece}\n```" for piece in split_message(body, limit - fence)]


def join_texts(texts: Sequence[str], limit: int = MAX_MESSAGE) -> list[str]:
    """Put several host texts into as few messages as possible, each one whole if it fits.

    >>> join_texts(["a", "b", "c"], 3)
    ['a\\nb', 'c']
    >>> join_texts(["abcd", "e"], 3)
    ['abc', 'd\\ne']
    """
    messages: list[str] = []
    current = ""
    for pieces in (format_pieces(t, limit) for t in texts if t.strip()):
        if current and len(pieces) == 1 and len(current) + 1 + len(pieces[0]) <= limit:
            current += "\n" + pieces[0]
            continue
        if current:
            messages.append(current)
        messages += pieces[:-1]
        current = pieces[-1] if pieces else ""
    if current:
        messages.append(current)
    return messages


def render(event: Event) -> tuple[list[str], discord.File | None]:
    """The messages for one host event (and a file for a long export).

    An export goes into a code block, or into a text file when it is too long for one.

    >>> render(Private("discord:1", "discord:2", "x", kind="export"))
    (['```\\nx\\n```'], None)

    A picture (a chart) is attached as a PNG file, with its text:

    >>> texts, file = render(Private("discord:1", "discord:2", "totals", image=b"PNG"))
    >>> texts, file.filename
    (['totals'], 'dokobot-chart.png')
    """
    if isinstance(event, Private) and event.image is not None:
        picture = discord.File(io.BytesIO(event.image), filename="dokobot-chart.png")
        return join_texts([event.text]), picture
    if isinstance(event, Private) and event.kind == "export":
        body = event.text.replace("```", "`\u200b``")
        if len(body) + 8 <= MAX_MESSAGE:
            return [f"```\n{body}\n```"], None
        data = io.BytesIO(event.text.encode("utf-8"))
        return [], discord.File(data, filename="dokobot-export.txt")
    return join_texts([event.text]), None
