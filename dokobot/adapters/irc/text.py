"""Pure text helpers of the IRC adapter: what to pass to the host, how to render and split.

Which channel lines reach the host (see :func:`command_text`):

* a line starting with ``!`` or ``/`` is a command; ``!x`` becomes ``/x`` (IRC clients eat a
  leading slash, so ``!join`` is the way to type ``/join``);
* any other line that is a single token of at most :data:`MAX_TOKEN_CHARS` characters (``CQ``,
  ``♣Q``, ``3``) is passed as it is; the host decides whether it means something and ignores
  it quietly otherwise;
* everything else (chat with spaces) never reaches the host.

In a private message every line is a command: ``play ♦K``, ``hand`` and ``help`` work without
``!`` or ``/``; a single token that is no command name (``♦K``, ``3``) is passed as a bare card
(private messages always take bare cards), anything else as a command, so the host answers
"unknown command" instead of staying silent. The adapter adds no numbering of its own: the host numbers the cards of a hand
(``3:♣Q``) and takes ``/play 3`` or a bare ``3`` on the player's turn, and a second numbering
would contradict it (see :func:`render_choices`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from dokobot.host.events import Choice
from dokobot.host.i18n import DEFAULT_LANG, command_in
from dokobot.host.router import names_a_card

MAX_TOKEN_CHARS = 12
"""Longest single-token channel line that is passed to the host without ``!`` or ``/``."""

MAX_INPUT_CHARS = 1000
"""Input lines longer than this are cut before they reach the host (which refuses every line
over its own limit of 400 characters, so a cut line is refused all the same)."""

_FORMATTING = re.compile(
    r"\x03(?:\d{1,2}(?:,\d{1,2})?)?"  # colour
    r"|\x04(?:[0-9a-fA-F]{6})?"  # hex colour
    r"|[\x02\x0f\x11\x16\x1d\x1e\x1f]"  # bold, reset, monospace, reverse, italics, ...
)


def strip_formatting(text: str) -> str:
    """Remove mIRC colour and formatting codes.

    >>> strip_formatting("\\x02bold\\x02 \\x0304,01red\\x03 plain")
    'bold red plain'
    """
    return _FORMATTING.sub("", text)


def command_text(line: str, *, dm: bool) -> str | None:
    """The text to hand to the host for one received line, or ``None`` to ignore it.

    >>> command_text("!join", dm=False)
    '/join'
    >>> command_text("/play CQ", dm=False)
    '/play CQ'
    >>> command_text("CQ", dm=False)
    'CQ'
    >>> command_text("hello there", dm=False) is None
    True
    >>> command_text("hello there", dm=True)
    '/hello there'
    >>> command_text("play ♦K", dm=True), command_text("♦K", dm=True), command_text("3", dm=True)
    ('/play ♦K', '♦K', '3')
    >>> command_text("Hilfe", dm=True), command_text("hello", dm=True)
    ('/Hilfe', '/hello')
    >>> command_text("!", dm=False) is None
    True
    """
    if line.startswith("\x01"):  # CTCP (ACTION and friends) is never a command
        return None
    text = strip_formatting(line).strip()[:MAX_INPUT_CHARS]
    if not text:
        return None
    if text[0] in "!/":
        rest = text[1:].lstrip()
        if not rest or rest[0] in "!/":
            return None
        return "/" + rest
    if dm:
        return text if names_a_card(text) else "/" + text
    if len(text) <= MAX_TOKEN_CHARS and not any(ch.isspace() for ch in text):
        return text
    return None


def irc_command(command: str) -> str:
    """A host command as a player types it on IRC (``!`` instead of ``/``).

    >>> irc_command("/play CQ")
    '!play CQ'
    """
    return "!" + command[1:] if command.startswith("/") else command


def _shows(text: str, label: str) -> bool:
    """Whether ``label`` appears in ``text`` as a word of its own (case-insensitive)."""
    if not label.strip():
        return False
    pattern = r"(?<!\w)" + re.escape(label.strip()) + r"(?!\w)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def render_choices(text: str, choices: Sequence[Choice], lang: str = "") -> str:
    """The choices ``text`` does not show already, as the commands to type.

    IRC has no buttons. A choice whose label the text already shows (the host lists the
    legal cards with their hand numbers, or says "/healthy or /reservation") is not
    repeated; the others are listed as commands.

    >>> cards = [Choice("♣Q", "/play CQ"), Choice("♠10", "/play S10"), Choice("re", "/re")]
    >>> render_choices("Your turn: 2:♣Q  5:♠10", cards)
    '!re'
    >>> render_choices("Your turn.", cards)
    '!play CQ | !play S10 | !re'
    >>> render_choices("Healthy or reservation?", [Choice("re", "/re")])
    '!re'
    """
    return " | ".join(
        irc_command(command_in(c.command, lang or DEFAULT_LANG))
        for c in choices
        if not _shows(text, c.label)
    )


def with_choices(text: str, choices: Sequence[Choice], lang: str = "") -> str:
    """``text`` with the choices it does not show appended in brackets, as a reader of
    ``lang`` types them (``[!nero]`` for an Italian reader).

    >>> with_choices("Your turn: 2:♣Q", [Choice("♣Q", "/play CQ"), Choice("re", "/re")])
    'Your turn: 2:♣Q  [!re]'
    >>> with_choices("Your turn: 2:♣Q", [Choice("♣Q", "/play CQ")])
    'Your turn: 2:♣Q'
    >>> with_choices("", [Choice("♣Q", "/play CQ")])
    '[!play CQ]'
    """
    listing = render_choices(text, choices, lang)
    if not listing:
        return text
    text = text.rstrip()
    return f"{text}  [{listing}]" if text else f"[{listing}]"


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
    """Split ``text`` into IRC message lines of at most ``max_bytes`` UTF-8 bytes.

    Newlines start a new message; empty lines are dropped (servers refuse empty messages);
    long lines are broken at spaces where possible, never inside a character.
    Control characters that would break the protocol (CR, LF, NUL) never survive.

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
"""Joins the lines of one message packed into few IRC lines (never ``|``, which the score
list uses between its columns)."""


def pack_lines(text: str, max_bytes: int = 400) -> list[str]:
    """The lines of ``text`` joined with :data:`PACK_SEPARATOR` into as few IRC lines of at
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
    """The score list as IRC shows it: one line per row (a game, the header, the totals),
    its padding cut to single spaces (IRC clients do not keep columns aligned); the lines
    around the table (series, legend, chips) packed together.

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


def compact_help(text: str) -> str:
    """The host's command list (a header, one ``/command  explanation`` row per command, a
    closing line pointing to ``/help COMMAND``) as two lines: the header with the commands
    as IRC players type them, and the pointer.

    >>> compact_help("Commands:\\n/join         sit down\\n/play        play a card\\n"
    ...              "/help COMMAND explains one.")
    'Commands: !join !play\\n!help COMMAND explains one.'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = [line for line in lines[1:-1] if line.startswith("/")]
    if len(lines) < 3 or not rows:
        return text
    commands = " ".join(irc_command(row.split()[0]) for row in rows)
    return f"{lines[0]} {commands}\n{irc_command(lines[-1])}"
