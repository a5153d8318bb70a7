"""How Matrix splits its rooms among processes: it does not. Rooms are global (one account
reaches every homeserver), so one process serves all Matrix rooms and holds their lease
``matrix:rooms``, whatever its account; each Matrix table has one writer.

>>> part = rooms_part("@doko:example.org")
>>> part.keys, part.key_of("matrix:!a:example.org"), part.key_of("matrix"), part.description
(('matrix:rooms',), 'matrix:rooms', 'matrix:rooms', 'Matrix rooms of @doko:example.org')
"""

from __future__ import annotations

from ...store.scope import Part

KEY = "matrix:rooms"


def rooms_part(user_id: str) -> Part:
    """The Matrix rooms of a process whose bot account is ``user_id``: all of them."""
    return Part("matrix", (KEY,), lambda server: KEY, f"Matrix rooms of {user_id}")
