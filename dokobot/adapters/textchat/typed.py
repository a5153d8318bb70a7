"""What players type in a text chat, and the commands the bot shows them to type.

A chat has its own command sign (``!`` on IRC, whose clients eat a leading ``/``); the host
speaks in ``/commands``. Which room lines reach the host (see :func:`command_text`):

* a line starting with the chat's sign or ``/`` is a command (``!x`` becomes ``/x``);
* any other line that is a single token of at most :data:`MAX_TOKEN_CHARS` characters (``CQ``,
  ``♣Q``, ``3``) is passed as it is; the host decides whether it means something and ignores
  it quietly otherwise;
* everything else (chat with spaces) never reaches the host.

In a private message every line is a command: ``play ♦K``, ``hand`` and ``help`` work without
a sign; a single token that is no command name (``♦K``, ``3``) is passed as a bare card
(private messages always take bare cards), anything else as a command, so the host answers
"unknown command" instead of staying silent. The layer adds no numbering of its own: the host
numbers the cards of a hand (``3:♣Q``) and takes ``/play 3`` or a bare ``3`` on the player's
turn, and a second numbering would contradict it (see :func:`render_choices`); a number is
read in the hand the player last saw (:func:`resolve_number`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dokobot.host.commands import aliases
from dokobot.host.events import Choice
from dokobot.host.i18n import DEFAULT_LANG, card_text, command_in
from dokobot.host.router import names_a_card

MAX_TOKEN_CHARS = 12
"""Longest single-token room line that is passed to the host without a command sign."""

MAX_INPUT_CHARS = 1000
"""Input lines longer than this are cut before they reach the host (which refuses every line
over its own limit of 400 characters, so a cut line is refused all the same)."""


def command_text(line: str, *, dm: bool, sign: str = "!") -> str | None:
    """The text to hand to the host for one received line (its platform's formatting
    already removed), or ``None`` to ignore it.

    >>> command_text("!join", dm=False), command_text("/play CQ", dm=False)
    ('/join', '/play CQ')
    >>> command_text("CQ", dm=False), command_text("hello there", dm=False) is None
    ('CQ', True)
    >>> command_text("hello there", dm=True)
    '/hello there'
    >>> command_text("play ♦K", dm=True), command_text("♦K", dm=True), command_text("3", dm=True)
    ('/play ♦K', '♦K', '3')
    >>> command_text("Hilfe", dm=True), command_text("!", dm=False) is None
    ('/Hilfe', True)
    >>> command_text(".join", dm=False, sign=".")
    '/join'
    """
    text = line.strip()[:MAX_INPUT_CHARS]
    if not text:
        return None
    signs = {"/", sign}
    if text[0] in signs:
        rest = text[1:].lstrip()
        if not rest or rest[0] in signs:
            return None
        return "/" + rest
    if dm:
        return text if names_a_card(text) else "/" + text
    if len(text) <= MAX_TOKEN_CHARS and not any(ch.isspace() for ch in text):
        return text
    return None


def alone_text(line: str, lang: str = DEFAULT_LANG, sign: str = "/") -> str | None:
    """The text to hand to the host for a line typed where only the bot reads and nobody
    chats (a terminal), or ``None`` for an empty one: a command with its sign (``sign`` or
    ``/``) or without it (the first word names a command for a reader of ``lang``), else the
    line as it is (a card played on one's turn; the host ignores anything else, and the chat
    may say how commands are typed).

    >>> alone_text("Healthy"), alone_text("!exit", sign="!"), alone_text("play CQ")
    ('/Healthy', '/exit', '/play CQ')
    >>> alone_text("CQ"), alone_text("hello there"), alone_text("beenden", "de")
    ('CQ', 'hello there', '/beenden')
    >>> alone_text("  "), alone_text("//x")
    (None, None)
    """
    text = line.strip()[:MAX_INPUT_CHARS]
    if not text:
        return None
    if text[0] in {"/", sign}:
        return command_text(text, dm=True, sign=sign)
    return "/" + text if aliases(lang).get(text.split()[0].lower()) else text


def typed_command(text: str) -> tuple[str, list[str]] | None:
    """The English name and the arguments of the command ``text`` (as handed to the host),
    by any of its names; None when ``text`` is no command.

    >>> typed_command("/Beenden"), typed_command("/lang de"), typed_command("CQ")
    (('quit', []), ('lang', ['de']), None)
    """
    words = text[1:].split() if text[:1] == "/" else []
    name = aliases().get(words[0].lower()) if words else None
    return None if name is None else (name, words[1:])


def as_typed(command: str, sign: str = "!") -> str:
    """A host command as a player types it in a chat whose command sign is ``sign``.

    >>> as_typed("/play CQ"), as_typed("plain")
    ('!play CQ', 'plain')
    """
    return sign + command[1:] if command.startswith("/") else command


def _shows(text: str, label: str) -> bool:
    """Whether ``label`` appears in ``text`` as a word of its own (case-insensitive)."""
    if not label.strip():
        return False
    pattern = r"(?<!\w)" + re.escape(label.strip()) + r"(?!\w)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def render_choices(text: str, choices: Sequence[Choice], lang: str = "", sign: str = "!") -> str:
    """The choices ``text`` does not show already, as the commands to type.

    A text chat has no buttons. A choice whose label the text already shows (the host lists
    the legal cards with their hand numbers, or says "/healthy or /reservation"), or whose
    argument it names as the reader types it ("/solo TYPE (clubs spades …)"), is not
    repeated; the others are listed as commands.

    >>> cards = [Choice("♣Q", "/play CQ"), Choice("♠10", "/play S10"), Choice("re", "/re")]
    >>> render_choices("Your turn: 2:♣Q  5:♠10", cards)
    '!re'
    >>> render_choices("Your turn.", cards)
    '!play CQ | !play S10 | !re'
    >>> solos = [Choice("Diamonds solo", "/solo diamonds"), Choice("Hint", "/hint")]
    >>> render_choices("Name it: /solo TYP (kreuz pik herz karo)", solos, "de")
    '!tipp'
    """
    typed = (command_in(c.command, lang or DEFAULT_LANG) for c in choices)
    return " | ".join(
        as_typed(command, sign)
        for c, command in zip(choices, typed, strict=True)
        if not _shows(text, c.label) and not _shows(text, command.partition(" ")[2])
    )


def with_choices(text: str, choices: Sequence[Choice], lang: str = "", sign: str = "!") -> str:
    """``text`` with the choices it does not show appended in brackets, as a reader of
    ``lang`` types them (``[!nero]`` for an Italian reader).

    >>> with_choices("Your turn: 2:♣Q", [Choice("♣Q", "/play CQ"), Choice("re", "/re")])
    'Your turn: 2:♣Q  [!re]'
    >>> with_choices("", [Choice("♣Q", "/play CQ")])
    '[!play CQ]'
    """
    listing = render_choices(text, choices, lang, sign)
    if not listing:
        return text
    text = text.rstrip()
    return f"{text}  [{listing}]" if text else f"[{listing}]"


def compact_help(text: str, sign: str = "!") -> str:
    """The host's command list (a header, one ``/command  explanation`` row per command, a
    closing line pointing to ``/help COMMAND``) as two lines: the header with the commands
    as players type them, and the pointer.

    >>> compact_help("Commands:\\n/join         sit down\\n/play        play a card\\n"
    ...              "/help COMMAND explains one.")
    'Commands: !join !play\\n!help COMMAND explains one.'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = [line for line in lines[1:-1] if line.startswith("/")]
    if len(lines) < 3 or not rows:
        return text
    commands = " ".join(as_typed(row.split()[0], sign) for row in rows)
    return f"{lines[0]} {commands}\n{as_typed(lines[-1], sign)}"


def asks_for_help_list(text: str) -> bool:
    """Whether ``text`` (as handed to the host) is ``/help`` without a topic (any alias)."""
    return typed_command(text) == ("help", [])


def resolve_number(text: str, hand: Sequence[int]) -> str:
    """A card typed by its number (``/play 3``, or ``3`` alone) as the card itself, the
    number counted in ``hand``, the hand the player last saw: after he played a card the
    host counts the rest anew, and a leader (whose turn the room line names, without a
    new prompt) would otherwise play another card than the one he saw under that number.

    >>> resolve_number("/play 2", (5, 0, 32)), resolve_number("2", (5, 0, 32))
    ('/play ♣9', '♣9')
    >>> resolve_number("/play 9", (5,)), resolve_number("/join 2", (5,))
    ('/play 9', '/join 2')
    """
    command = text[:1] == "/"
    words = (text[1:] if command else text).split()
    if len(words) != 1 + command or not words[-1].isdigit():
        return text
    if command and aliases().get(words[0].lower()) != "play":
        return text
    number = int(words[-1])
    if not 1 <= number <= len(hand):
        return text
    card = card_text(hand[number - 1], "en")
    return f"/{words[0]} {card}" if command else card
