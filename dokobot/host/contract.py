"""The contract between the host and the chat adapters, both ways.

An adapter (Discord, IRC, the console, any new chat) reaches the host only through
:class:`Host`, which :class:`dokobot.host.service.Service` implements; the host reaches an
adapter only through the :class:`Listener` the adapter sets as :attr:`Host.listener`.
Nothing else crosses: no adapter calls the host by a method's name
(``tests/test_contract.py`` checks every adapter file), and no adapter reads the host's
router, tables or store.

Ids are the host's: a channel id and a user id are strings that start with the adapter's
own prefix (``discord:…``, ``irc:NETWORK:…``, ``console``); the host treats them as opaque.

:class:`BareHost` is a host without tables: every question gets the answer of a host that
knows nothing (``dokobot sync`` uploads Discord's commands with it; tests build scripted
hosts on it).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .. import languages
from .events import Event, Input
from .options import ChatDefaults


class Listener(Protocol):
    """What the host calls on an adapter: the events its tables say by themselves (computer
    players, turn timeouts, restored tables), in the order they happened.

    The adapter renders and sends the events of its own channels and ignores the others
    (several adapters share one host: each passes every batch on to the listener that was
    set before it). It must not raise; the host does not wait for the sending beyond a few
    seconds (a table never waits on a delivery)."""

    async def __call__(self, events: list[Event], /) -> None: ...


@runtime_checkable
class Host(Protocol):
    """What every adapter may ask of the host (implemented by the service)."""

    listener: Listener | None
    """Where the host sends what its tables say without an input (see :class:`Listener`);
    an adapter sets it when it starts and keeps the one before it to pass events on."""
    boards: bool
    """Whether the host adds a :class:`~dokobot.host.events.Board` and a
    :class:`~dokobot.host.events.Lobby` after every batch of a table with a game (an adapter
    that shows a live board turns it on)."""

    # -- life ---------------------------------------------------------------------------

    async def start(self) -> list[Event]:
        """Load the stored tables; the events that tell their channels where each game
        stands (once, by whoever runs the host's life)."""
        ...

    async def close(self) -> None:
        """Stop the host's background work and wait for the writes under way."""
        ...

    async def idle(self) -> None:
        """Wait until no computer player is thinking (a console waits before its prompt)."""
        ...

    # -- input --------------------------------------------------------------------------

    async def handle(self, inp: Input) -> list[Event]:
        """Answer one input (a command, a card, a chat line); never raises. What is
        answered is stored before it is applied."""
        ...

    async def rename(self, user: str, name: str) -> None:
        """``user`` goes by ``name`` now (a new nick): their seat takes the name."""
        ...

    # -- prompts and the turn clock -----------------------------------------------------

    def table_defaults(self, defaults: ChatDefaults) -> None:
        """The new tables of the channels whose ids start with ``defaults.prefix`` take the
        chat's own defaults (a turn clock, no bare cards), where the configuration set none.
        An adapter declares them when it is made, before the host restores its tables."""
        ...

    def pace(self, prefix: str) -> None:
        """An adapter that sends through a queue serves the channels whose ids start with
        ``prefix`` and reports every prompt it really sent (:meth:`prompt_sent`): there the
        turn timer starts only then."""
        ...

    def prompt_sent(self, channel: str, user: str) -> None:
        """The prompt for ``user`` at ``channel`` really left now (or cannot be delivered):
        the turn timer starts from here."""
        ...

    def decision(self, channel: str) -> tuple[int, int] | None:
        """The decision marker of the game running at ``channel`` (None: no game runs),
        for adapters that drop what they could not deliver in time
        (see :attr:`~dokobot.host.events.Private.marker`)."""
        ...

    def pending_prompts(self, user: str) -> list[Event]:
        """The hand and the prompt waiting for ``user`` now (empty when nothing waits),
        for an adapter to send again when the player is back."""
        ...

    def on_turn(self, channel: str) -> tuple[str, str | None] | None:
        """Who is to act in the game running at ``channel``: (the seat's name, the person's
        user id, or None when a computer player acts for the seat); None: no game runs."""
        ...

    # -- tables and languages -----------------------------------------------------------

    def holds(self, channel: str) -> bool:
        """Whether this process holds the table of ``channel``; with several processes,
        another one holds the others."""
        ...

    def opens_thread(self, channel: str) -> bool:
        """Whether a ``/join`` in ``channel`` opens the table in a thread of its own (the
        table's ``thread`` option, for chats that have threads)."""
        ...

    def channel_language(self, channel: str) -> str:
        """The language of the table in ``channel`` (the default one where there is none):
        what an adapter writes its own words to that channel in."""
        ...

    def language_of(self, user: str) -> str | None:
        """The language ``user`` chose with /lang, if any; never waits for the store (None
        while it is being read from there: ask again later, do not keep the None)."""
        ...

    def reader_language(self, user: str, channel: str) -> str:
        """The language ``user`` reads at ``channel``: their own choice, else the table's."""
        ...

    # -- what the store keeps for an adapter --------------------------------------------

    async def preference_of(self, user: str, name: str) -> str | None:
        """``user``'s choice of an adapter's setting ``name`` (kept in the store), if any;
        raises if the store cannot be read within a few seconds (then the adapter uses its
        default, and asks again the next time)."""
        ...

    async def remember_preference(self, user: str, name: str, value: str) -> None:
        """Keep ``user``'s choice of an adapter's setting ``name``; raises if the store
        cannot keep it."""
        ...

    async def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        """The stored (user id, nick) pairs of the ids that start with ``prefix``, oldest
        first: who went by which name, across restarts."""
        ...

    async def remember_nick(self, user: str, nick: str) -> None:
        """Keep that ``user`` goes by ``nick`` (a full id, with the adapter's prefix)."""
        ...


class BareHost(Host):
    """A host without tables: it answers nothing, holds every channel, knows no choice and
    keeps nothing."""

    listener: Listener | None = None
    boards: bool = False

    async def start(self) -> list[Event]:
        return []

    async def close(self) -> None:
        return None

    async def idle(self) -> None:
        return None

    async def handle(self, inp: Input) -> list[Event]:
        return []

    async def rename(self, user: str, name: str) -> None:
        return None

    def table_defaults(self, defaults: ChatDefaults) -> None:
        return None

    def pace(self, prefix: str) -> None:
        return None

    def prompt_sent(self, channel: str, user: str) -> None:
        return None

    def decision(self, channel: str) -> tuple[int, int] | None:
        return None

    def pending_prompts(self, user: str) -> list[Event]:
        return []

    def on_turn(self, channel: str) -> tuple[str, str | None] | None:
        return None

    def holds(self, channel: str) -> bool:
        return True

    def opens_thread(self, channel: str) -> bool:
        return False

    def channel_language(self, channel: str) -> str:
        return languages.DEFAULT

    def language_of(self, user: str) -> str | None:
        return None

    def reader_language(self, user: str, channel: str) -> str:
        return languages.DEFAULT

    async def preference_of(self, user: str, name: str) -> str | None:
        return None

    async def remember_preference(self, user: str, name: str, value: str) -> None:
        return None

    async def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        return []

    async def remember_nick(self, user: str, nick: str) -> None:
        return None
