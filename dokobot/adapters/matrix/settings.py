"""Settings of the Matrix adapter (the ``matrix:`` section of the config file)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

TOKEN_ENV = "DOKOBOT_MATRIX_TOKEN"
"""The bot account's access token is read from this environment variable, never from the
config file, and never logged."""

_USER_ID = re.compile(r"@[^:\s]+:\S+")
_ROOM = re.compile(r"![^\s/]+|#[^:\s]+:\S+")
"""A room id (room version 12 ids have no server part) or an alias."""


@dataclass(frozen=True, slots=True)
class MatrixSettings:
    """Where and how the bot connects.

    ``homeserver`` is the client API's base URL (``https://matrix.example.org``) and
    ``user_id`` the bot's account (``@dokobot:example.org``). ``rooms`` (ids ``!…`` or
    aliases ``#…:server``) are joined at the start; rooms the bot is invited to are joined
    too. ``admins`` are Matrix IDs with admin rights; a room's moderators (power level 50
    and above) are admins in their room too. ``send_burst`` messages go out at once, then
    ``send_rate`` per second; beyond that the homeserver's own limit answers
    ``M_LIMIT_EXCEEDED`` and the adapter waits as long as it says.
    """

    homeserver: str
    user_id: str
    rooms: tuple[str, ...] = ()
    admins: tuple[str, ...] = ()
    send_burst: int = 10
    send_rate: float = 2.0
    max_message_bytes: int = 2000

    def __post_init__(self) -> None:
        if not self.homeserver.startswith(("http://", "https://")):
            raise ValueError(f"matrix: homeserver must be an http(s) URL, not {self.homeserver!r}")
        for value in (self.user_id, *self.admins):
            if not _USER_ID.fullmatch(value):
                raise ValueError(f"matrix: bad Matrix ID {value!r} (@name:server)")
        for room in self.rooms:
            if not _ROOM.fullmatch(room):
                raise ValueError(f"matrix: bad room {room!r} (!id or #alias:server)")
        if self.send_burst < 1 or self.send_rate <= 0:
            raise ValueError("matrix: send_burst must be >= 1 and send_rate > 0")
        if not 200 <= self.max_message_bytes <= 30000:
            raise ValueError("matrix: max_message_bytes must be between 200 and 30000")

    @staticmethod
    def token() -> str | None:
        """The access token from the environment, if any."""
        return os.environ.get(TOKEN_ENV, "").strip() or None
