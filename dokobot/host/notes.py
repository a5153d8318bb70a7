"""What a table says, before it is put into words.

A :class:`Note` names a catalogue message and who reads it; the router renders it in the
reader's language into :class:`~dokobot.host.events.Public` or
:class:`~dokobot.host.events.Private` events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

ALL = -1
"""Audience: the whole channel."""


READY: Final = "ready"
"""The :attr:`Note.kind` (and so :attr:`~dokobot.host.events.Public.kind`) of the line "the
table is complete, type /start to deal": an adapter or console that starts the game
otherwise (a Start button, a console that deals by itself) leaves it out."""


@dataclass(frozen=True, slots=True)
class Note:
    """A message for the channel (``to == ALL``) or for the person in seat ``to``."""

    to: int
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    kind: str = "info"
    choices: tuple[tuple[str, str], ...] = ()
    """(label key or text, command) pairs; labels starting with ``@`` are catalogue keys."""
    waits_for: int | None = None
    """A channel line that says the table waits for the person in this seat (who is asked
    privately at the same time)."""


class Refusal(Exception):
    """A command that is refused; nothing changed. Carries a catalogue key."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
