"""What the IRC adapter reads of a received line: CTCP is never a command, mIRC colour and
formatting codes are removed; the rest is the text chat's (see
:mod:`dokobot.adapters.textchat.typed`: ``!x`` is ``/x``, short single tokens, every line of a
private message a command)."""

from __future__ import annotations

import re

from ..textchat.typed import command_text as typed_command

SIGN = "!"
"""How players start a command on IRC (clients take a leading ``/`` as their own)."""

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
    """The text to hand to the host for one received IRC line, or ``None`` to ignore it.

    >>> command_text("!join", dm=False), command_text("\\x02!join\\x02", dm=False)
    ('/join', '/join')
    >>> command_text("\\x01ACTION waves\\x01", dm=True) is None
    True
    """
    if line.startswith("\x01"):  # CTCP (ACTION and friends) is never a command
        return None
    return typed_command(strip_formatting(line), dm=dm, sign=SIGN)
