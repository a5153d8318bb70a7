"""The line budget of a text chat: a text cut into lines of at most so many UTF-8 bytes, and
the lines of one message packed into as few as fit (every line a chat sends is paced)."""

from __future__ import annotations

import re
from collections.abc import Iterable


def _cut(line: str, max_bytes: int) -> Iterable[str]:
    """Cut one line into pieces of at most ``max_bytes`` UTF-8 bytes, at spaces if possible."""
    while len(line.encode("utf-8")) > max_bytes:
        # The longest prefix that fits (never splitting a character).
        size = 0
        end = 0
        for index, char in enumerate(line):
            size += len(char.encode("utf-8"))
            if size > max_bytes:
                end = index
                break
        space = line.rfind(" ", 0, end + 1)
        cut = space if space > 0 else max(end, 1)
        piece = line[:cut].rstrip()
        if piece:
            yield piece
        line = line[cut:].lstrip(" ")
    if line:
        yield line


def split_text(text: str, max_bytes: int = 400) -> list[str]:
    """Split ``text`` into message lines of at most ``max_bytes`` UTF-8 bytes.

    Newlines start a new message; empty lines are dropped (servers refuse empty messages);
    long lines are broken at spaces where possible, never inside a character.
    Control characters that would break a line protocol (CR, LF, NUL) never survive.

    >>> split_text("a\\n\\nb")
    ['a', 'b']
    >>> split_text("aaa bbb ccc", max_bytes=7)
    ['aaa bbb', 'ccc']
    >>> split_text("♣♣♣", max_bytes=4)
    ['♣', '♣', '♣']
    """
    if max_bytes < 4:
        raise ValueError("max_bytes must be at least 4 (one UTF-8 character)")
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "").split("\n"):
        lines.extend(_cut(raw.rstrip(), max_bytes))
    return lines


PACK_SEPARATOR = " · "
"""Joins the lines of one message packed into few chat lines (never ``|``, which the score
list uses between its columns)."""


def pack_lines(text: str, max_bytes: int = 400) -> list[str]:
    """The lines of ``text`` joined with :data:`PACK_SEPARATOR` into as few chat lines of at
    most ``max_bytes`` bytes as they fit (a long answer such as an export takes a few lines
    instead of dozens; a trick and the game's result one line, not six; every line is paced).

    >>> pack_lines("a\\nbb\\n\\nccc", max_bytes=8)
    ['a · bb', 'ccc']
    """
    out: list[str] = []
    current = ""
    for line in split_text(text, max_bytes):
        candidate = f"{current}{PACK_SEPARATOR}{line}" if current else line
        if len(candidate.encode("utf-8")) <= max_bytes:
            current = candidate
            continue
        if current:
            out.append(current)
        current = line
    if current:
        out.append(current)
    return out


_SPACES = re.compile(r"\s{2,}")


def score_lines(text: str, max_bytes: int = 400) -> list[str]:
    """The score list as a text chat shows it: one line per row (a game, the header, the
    totals), its padding cut to single spaces (chat clients do not keep columns aligned); the
    lines around the table (series, legend, chips) packed together.

    >>> score_lines("Series 1\\nGame  Dealer  anna  | anna\\n1     ben     +2    | +2\\nChips: none")
    ['Series 1', 'Game Dealer anna | anna', '1 ben +2 | +2', 'Chips: none']
    """
    out: list[str] = []
    loose: list[str] = []
    for line in split_text(text, max_bytes):
        if "|" in line:
            if loose:
                out += pack_lines("\n".join(loose), max_bytes)
                loose = []
            out.append(_SPACES.sub(" ", line.strip()))
        else:
            loose.append(line.strip())
    if loose:
        out += pack_lines("\n".join(loose), max_bytes)
    return out
