"""Stable user ids for IRC nicks, following nick changes.

IRC has no user id, only the nick. A person's id is built from the first nick the adapter
saw them with (case-folded): ``irc:{network}:{nick}``. When they change their nick
(``NICK``) the id moves with them, so a player keeps their seat and their private messages
follow them; the display name is always the current nick.

If a different person later takes a nick whose id already belongs to someone who renamed
away, the newcomer gets a fresh id (``anna~2``; ``~`` cannot occur in a nick). If an identity
loses its nick to another identity (``bob`` renames to ``anna`` while the old ``anna`` is
gone), the old identity has no nick any more and private messages for it are dropped, so a
hand is never sent to whoever holds the nick now. A person who quits and comes back with the
same nick is the same identity: without services accounts, IRC identity is the nick.
"""

from __future__ import annotations

_RFC1459_UPPER = "[]\\~"
_RFC1459_LOWER = "{}|^"
_FOLD = str.maketrans(_RFC1459_UPPER, _RFC1459_LOWER)


def irc_fold(name: str) -> str:
    """Case-fold a nick or channel name (rfc1459 casemapping, a superset of ascii).

    >>> irc_fold("Anna[Away]")
    'anna{away}'
    """
    return name.lower().translate(_FOLD)


class Identities:
    """Maps current nicks to stable user ids and back."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._id_by_nick: dict[str, str] = {}  # folded nick -> user id
        self._nick_by_id: dict[str, str] = {}  # user id -> current nick (as typed)
        self._known_ids: set[str] = set()

    def user_id(self, nick: str) -> str:
        """The user id of ``nick``; a nick seen for the first time gets a new id.

        >>> ids = Identities("irc:net:")
        >>> ids.user_id("Anna")
        'irc:net:anna'
        >>> ids.nick_for("irc:net:anna")
        'Anna'
        """
        folded = irc_fold(nick)
        existing = self._id_by_nick.get(folded)
        if existing is not None:
            self._nick_by_id[existing] = nick  # keep the current spelling for display
            return existing
        base = self.prefix + folded
        user_id = base
        counter = 2
        while user_id in self._known_ids:
            user_id = f"{base}~{counter}"
            counter += 1
        self._known_ids.add(user_id)
        self._id_by_nick[folded] = user_id
        self._nick_by_id[user_id] = nick
        return user_id

    def rename(self, old: str, new: str) -> str:
        """Follow a ``NICK`` change; returns the (unchanged) user id.

        >>> ids = Identities("irc:net:")
        >>> ids.user_id("anna")
        'irc:net:anna'
        >>> ids.rename("anna", "Anja")
        'irc:net:anna'
        >>> ids.nick_for("irc:net:anna"), ids.user_id("Anja")
        ('Anja', 'irc:net:anna')
        >>> ids.user_id("anna")   # somebody else takes the old nick
        'irc:net:anna~2'
        """
        folded_old, folded_new = irc_fold(old), irc_fold(new)
        user_id = self._id_by_nick.pop(folded_old, None)
        if user_id is None:
            user_id = self.user_id(new)
            return user_id
        displaced = self._id_by_nick.get(folded_new)
        if displaced is not None and displaced != user_id:
            # The new nick belonged to another identity that is gone: it has no nick now.
            self._nick_by_id.pop(displaced, None)
        self._id_by_nick[folded_new] = user_id
        self._nick_by_id[user_id] = new
        return user_id

    def nick_for(self, user_id: str) -> str | None:
        """The current nick of ``user_id``, or ``None`` if it has none."""
        return self._nick_by_id.get(user_id)
