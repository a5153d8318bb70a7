"""What a text chat platform provides to the text-chat layer (:class:`TextPlatform`)."""

from __future__ import annotations

from typing import Protocol

from .outbox import OutLine


class TextPlatform(Protocol):
    """A text chat as the layer sees it: rooms and people, addressed by the host's ids, and
    a way to send one line. Everything else (rendering, the line budget, prompts, pacing,
    commands as typed) is the layer's. An adapter subclasses it (so ``mypy`` checks every
    signature) and hands itself to :class:`~dokobot.adapters.textchat.chat.TextChat`."""

    prefix: str
    """What every id of this chat starts with (``irc:NETWORK:``): its channel ids are
    ``prefix + room``, its user ids ``prefix + person``."""
    sign: str
    """How players start a command here (``!``; the host's ``/start`` is shown as ``!start``)."""
    max_line_bytes: int
    """The longest line the chat takes, in UTF-8 bytes: the layer packs and cuts to it."""

    def room(self, channel: str) -> str | None:
        """The chat's room (its name or id) of the host's channel id ``channel``; None when
        the id is no room of this chat (another platform's, or a private channel)."""
        ...

    def address(self, user: str) -> str | None:
        """Where a private line for the user id ``user`` goes now (a nick, a direct room, or
        the person's own id on the platform when :meth:`send` opens the direct room on the
        way); None: the person cannot be reached now (the line is dropped, a prompt is sent
        again once the chat tells :meth:`~dokobot.adapters.textchat.chat.TextChat.seen`)."""
        ...

    def present(self, user: str) -> bool:
        """Whether ``user`` can read a prompt now (is in one of the bot's rooms); a prompt for
        somebody who is not waits until he is seen."""
        ...

    async def online(self) -> None:
        """Return once the chat is connected (lines wait while it is not)."""
        ...

    def keeps(self, room: str, text: str) -> bool:
        """Whether the chat keeps this room line instead of sending it now (IRC keeps the lines
        of a room the bot was kicked from, for a summary when it is back); a kept line counts
        as sent. A chat without such a state answers False."""
        ...

    async def send(self, line: OutLine, to: str) -> bool:
        """Send ``line.text`` to ``to`` (:meth:`room` of a room line, :meth:`address` of a
        private one's user; ``line.private`` tells which): True once it left; False when the
        connection went away meanwhile (the layer sends it again once :meth:`online`);
        raising gives the line up. The layer calls it one line at a time, paced by its token
        bucket; a server that says "wait" (a rate limit with a retry time) is waited for here
        with a deadline (then True once sent, or False to try again): nothing else waits on
        the send loop, and a table never waits on it."""
        ...
