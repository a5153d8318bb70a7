"""Stable user ids for IRC nicks, following nick changes in both directions and restarts.

IRC has no user id, only the nick. A person's id is built from the first nick the adapter
saw them with (case-folded with the server's ``CASEMAPPING``): ``irc:{network}:{nick}``.
Every nick an identity has used is remembered (its *nick history*; the adapter keeps it in
the store, so it survives restarts). A nick belongs to the identity that used it last:

* when an identity changes its nick (``NICK``) the id moves with it, so a player keeps the
  seat and private messages follow them; the display name is always the current nick;
* a nick from an identity's history that shows up again while that identity's current nick
  is not online (``ben`` became ``benny``, the server restarted, the client comes back as
  ``ben``) is that identity again: it returns under its old nick;
* a nick from an identity's history that shows up while the identity is online under its
  other nick is somebody else and gets a fresh id (``ben~2``; ``~`` cannot start a nick
  suffix the server would give), so nobody takes a seat by taking an old nick.

If an identity loses its current nick to another identity (``bob`` renames to ``anna`` while
the old ``anna`` is gone), the old identity has no nick any more and private messages for it
are dropped until it is seen again, so a hand is never sent to whoever holds the nick now.
Without services accounts, IRC identity is the nick: someone who takes the nick of a player
who is not online is that player. When the server tells accounts (IRCv3 ``account-tag`` on
messages, ``extended-join`` on joins), the account decides: a line from account ``ben`` is
the identity bound to that account whatever the nick, and an identity bound to an account is
never given to a line that comes from another account or from nobody logged in. Account
bindings are kept in the same history (as ``@account``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

CASEMAPPINGS = ("ascii", "rfc1459", "strict-rfc1459")
"""The ``CASEMAPPING`` values of ISUPPORT that the adapter follows."""

_RFC1459 = str.maketrans("[]\\~", "{}|^")
_STRICT_RFC1459 = str.maketrans("[]\\", "{}|")


def irc_fold(name: str, casemapping: str = "rfc1459") -> str:
    """Case-fold a nick or channel name with an ISUPPORT ``CASEMAPPING``.

    ``rfc1459`` (the RFC's default) also folds ``[]\\~`` to ``{}|^``, ``strict-rfc1459``
    folds ``[]\\`` only, ``ascii`` only the letters A to Z. An unknown mapping counts as
    ``rfc1459``.

    >>> irc_fold("Anna[Away]")
    'anna{away}'
    >>> irc_fold("Anna[Away]", "ascii"), irc_fold("a~[", "strict-rfc1459")
    ('anna[away]', 'a~{')
    """
    lowered = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in name)
    if casemapping == "ascii":
        return lowered
    if casemapping == "strict-rfc1459":
        return lowered.translate(_STRICT_RFC1459)
    return lowered.translate(_RFC1459)


def _always_online(nick: str) -> bool:
    return True


class Identities:
    """Maps nicks to stable user ids and back (see the module docs).

    ``online(nick)`` tells whether a nick is online now (seen in one of the bot's channels);
    without it every current nick counts as online, so no identity is ever given back to
    an old nick. ``on_change(user_id, nick)`` is called whenever an identity gets a nick
    (first sight, rename, return under an old nick), so the history can be stored.
    """

    def __init__(
        self,
        prefix: str,
        *,
        casemapping: str = "rfc1459",
        online: Callable[[str], bool] | None = None,
        on_change: Callable[[str, str], None] | None = None,
    ) -> None:
        self.prefix = prefix
        self.casemapping = casemapping
        self.online = online or _always_online
        self.on_change = on_change
        self._spelled: dict[str, str] = {}
        """nick as typed -> the user id that used it last, least recent first (one entry per
        spelling, not per change: what a new casemapping re-folds)."""
        self._owner: dict[str, str] = {}  # folded nick -> the user id that used it last
        self._nick_by_id: dict[str, str] = {}  # user id -> current nick (as typed)
        self._known_ids: set[str] = set()
        self._account_owner: dict[str, str] = {}  # folded account -> user id
        self._account_of: dict[str, str] = {}  # user id -> folded account

    def fold(self, name: str) -> str:
        """``name`` case-folded with the server's casemapping."""
        return irc_fold(name, self.casemapping)

    def set_casemapping(self, casemapping: str) -> None:
        """Follow the server's ISUPPORT ``CASEMAPPING`` (re-folds the remembered nicks)."""
        if casemapping not in CASEMAPPINGS or casemapping == self.casemapping:
            return
        self.casemapping = casemapping
        self._owner = {}
        for nick, user_id in self._spelled.items():
            self._owner[self.fold(nick)] = user_id

    def load(self, history: Iterable[tuple[str, str]]) -> None:
        """Restore the nick history ``(user id, nick)``, oldest first (after a restart)."""
        for user_id, nick in history:
            if not user_id.startswith(self.prefix) or not nick:
                continue
            if nick.startswith("@"):
                self._bind(user_id, nick[1:], notify=False)
            else:
                self._remember(user_id, nick, notify=False)

    def _bind(self, user_id: str, account: str, *, notify: bool = True) -> None:
        folded = self.fold(account)
        if self._account_owner.get(folded) == user_id:
            return
        self._account_owner[folded] = user_id
        self._account_of[user_id] = folded
        self._known_ids.add(user_id)
        if notify and self.on_change is not None:
            self.on_change(user_id, "@" + account)

    def _remember(self, user_id: str, nick: str, *, notify: bool = True) -> None:
        folded = self.fold(nick)
        previous = self._owner.get(folded)
        if previous is not None and previous != user_id:
            current = self._nick_by_id.get(previous)
            if current is not None and self.fold(current) == folded:
                # The nick belonged to another identity that is gone: it has no nick now.
                del self._nick_by_id[previous]
        changed = self._nick_by_id.get(user_id) != nick or previous != user_id
        self._owner[folded] = user_id
        self._nick_by_id[user_id] = nick
        self._known_ids.add(user_id)
        if changed:
            self._spelled.pop(nick, None)
            self._spelled[nick] = user_id
            if notify and self.on_change is not None:
                self.on_change(user_id, nick)

    def user_id(self, nick: str, account: str | None = None) -> str:
        """The user id of ``nick``; a nick seen for the first time gets a new id.

        ``account``: the services account the server reported with this line (``""``: the
        server reports accounts and this user is not logged in; ``None``: not known).

        >>> ids = Identities("irc:net:")
        >>> ids.user_id("Anna")
        'irc:net:anna'
        >>> ids.nick_for("irc:net:anna")
        'Anna'
        >>> ids.user_id("Anja", account="anna1"), ids.user_id("Anna", account="anna1")
        ('irc:net:anja', 'irc:net:anja')
        """
        if account:
            owner = self._account_owner.get(self.fold(account))
            if owner is not None:
                self._remember(owner, nick)
                return owner
        folded = self.fold(nick)
        owner = self._owner.get(folded)
        if owner is not None:
            bound = self._account_of.get(owner)
            other_account = (
                account is not None
                and bound is not None
                and bound != (self.fold(account) if account else "")
            )
            current = self._nick_by_id.get(owner)
            if not other_account and (
                current is None or self.fold(current) == folded or not self.online(current)
            ):
                self._remember(owner, nick)  # the same person, maybe back under an old nick
                if account:
                    self._bind(owner, account)
                return owner
        base = self.prefix + folded
        user_id = base
        counter = 2
        while user_id in self._known_ids:
            user_id = f"{base}~{counter}"
            counter += 1
        self._remember(user_id, nick)
        if account:
            self._bind(user_id, account)
        return user_id

    def knows(self, nick: str, account: str | None = None) -> bool:
        """Whether ``nick`` (or ``account``) belongs to an identity already (no side effect).

        >>> ids = Identities("irc:net:")
        >>> ids.knows("anna"), ids.user_id("Anna") and ids.knows("ANNA")
        (False, True)
        """
        if account and self.fold(account) in self._account_owner:
            return True
        return self.fold(nick) in self._owner

    def rename(self, old: str, new: str) -> str:
        """Follow a ``NICK`` change; returns the (unchanged) user id.

        >>> ids = Identities("irc:net:")
        >>> ids.user_id("anna")
        'irc:net:anna'
        >>> ids.rename("anna", "Anja")
        'irc:net:anna'
        >>> ids.nick_for("irc:net:anna"), ids.user_id("Anja")
        ('Anja', 'irc:net:anna')
        >>> ids.user_id("anna")   # somebody else takes the old nick while Anja is online
        'irc:net:anna~2'
        """
        if self.fold(old) not in self._owner:
            return self.user_id(new)
        user_id = self.user_id(old)
        self._remember(user_id, new)
        return user_id

    def nick_for(self, user_id: str) -> str | None:
        """The current nick of ``user_id``, or ``None`` if it has none."""
        return self._nick_by_id.get(user_id)
