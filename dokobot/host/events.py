"""Neutral messages between the adapters and the host.

An adapter turns what a person typed or clicked into an :class:`Input` and hands it to the
host; the host answers with a list of events. :class:`Public` goes to the channel,
:class:`Private` to one person only (a DM, an IRC NOTICE, a Discord ephemeral reply).
Both carry the text already rendered in the reader's language, and that language
(``lang``: the table's for :class:`Public`, the reader's for :class:`Private`), so an adapter
writes its own words (buttons, notices) in it too; an adapter only adds platform formatting. ``choices`` lists the commands the reader may send next (cards to play,
reservations, calls), so an adapter can show them as buttons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .notes import READY as READY  # the kind of a Public line, declared with Note

if TYPE_CHECKING:
    from .board import BoardView, LobbyView


@dataclass(frozen=True, slots=True)
class Input:
    """One line typed (or one button clicked) by a person.

    ``channel`` and ``user`` are stable, platform-qualified ids such as ``"discord:123"`` or
    ``"irc:#doko"``; ``name`` is the display name used in public messages.
    ``dm`` marks a private message to the bot; then ``channel`` is the table's channel if the
    adapter knows it, else ``""`` (the host finds the user's table).
    """

    channel: str
    user: str
    name: str
    text: str
    dm: bool = False
    admin: bool = False
    server: str = ""
    """The server (Discord guild, IRC network) as ``"discord:GUILD"``; chip ledgers are kept
    per server. Empty: derived from ``channel``."""
    truncated: bool = False
    """The platform cut the line (it was too long); the host refuses it as too long."""
    overheard: bool = False
    """Others in the channel read this line as it was typed (an IRC channel line): commands
    declared secret (``/give``) are refused from it. Discord's slash commands, the console,
    replays and private messages leave it False."""
    marker: tuple[int, int] | None = None
    """(game number, decision number) of the prompt a clicked button belongs to: the host
    refuses the input when that decision is past (see :mod:`dokobot.host.board`)."""
    mentions: tuple[tuple[str, str], ...] = ()
    """Words of ``text`` that name a person by the chat's own means (a mention), each with
    the user id it means: ``/stats`` of a mentioned person finds them by their id."""


@dataclass(frozen=True, slots=True)
class Choice:
    """A command the reader may send next, e.g. ``Choice("♣Q", "/play CQ")``."""

    label: str
    command: str


@dataclass(frozen=True, slots=True)
class Public:
    """A message for everybody in ``channel``.

    ``kind`` tells adapters what it is, so one that must spare lines can leave some out:
    ``"card"`` (a card played; the trick it completes is told by a ``"trick"`` line with all
    its cards), ``"trick"`` and ``"lead"`` (they name the player who must act next),
    ``"ask"`` (who is asked for a reservation; the prompt asks him too), ``"healthy"`` (no
    reservation; the contract line says it for all), ``"call"`` (a call such as Re: a board
    lists the calls), ``"contract"`` (a normal game: a board's contract line says all of it),
    ``"detail"`` (a value item of a game's result), ``"score"`` (the score list after a game,
    also on request), ``"ready"`` (the table is complete: how to deal; an adapter whose
    lobby has a Start button leaves it out), ``"info"`` for everything else.
    """

    channel: str
    text: str
    waits_for: str | None = None
    """The user this line says the table waits for; that user has the question in a
    private message too (a console that shows both on one screen shows only that)."""
    lang: str = ""
    """The language :attr:`text` is in (the table's): an adapter writes its own words to the
    channel in it, without asking for or mirroring the table's options."""
    kind: str = "info"


@dataclass(frozen=True, slots=True)
class Private:
    """A message for ``user`` only.

    ``reply`` is true when it answers that user's own input (Discord shows it as an
    ephemeral reply); other private messages are pushed (a DM or an IRC NOTICE).
    ``kind`` tells adapters what it is: ``"hand"``, ``"turn"`` (it carries the legal cards
    as choices), ``"reservation"``, ``"error"``, ``"info"`` or ``"export"``.
    """

    channel: str
    user: str
    text: str = field(repr=False)
    """Never in a repr: it may hold the reader's hand."""
    choices: tuple[Choice, ...] = field(default=(), repr=False)
    reply: bool = False
    kind: str = "info"
    hand: tuple[int, ...] = field(default=(), repr=False)
    """The reader's hand at this moment, in display order, on a hand or a prompt (for
    adapters that draw it); empty otherwise."""
    groups: tuple[int, ...] = field(default=(), repr=False)
    """One value per card of :attr:`hand`: where it changes, trumps end or a plain suit
    does (a picture leaves a gap there)."""
    playable: tuple[int, ...] | None = field(default=None, repr=False)
    """On the reader's turn to play a card: the cards of :attr:`hand` he may play (a
    picture dims the others); None otherwise."""
    lang: str = ""
    """The language :attr:`text` is in (the reader's); pictures are drawn in it too."""
    marker: tuple[int, int] | None = None
    """(game number, decision number) when this was said, while a game ran (see
    :func:`dokobot.host.board.decision_marker`): an adapter that delivers late can tell a
    prompt, reminder or view whose moment is past (the service's ``decision``)."""

    image: bytes | None = field(default=None, repr=False)
    """A picture (PNG) that belongs to the text (a chart); adapters that cannot show
    pictures show only the text, which says the same in words."""
    draw: Callable[[], bytes] | None = field(default=None, repr=False, compare=False)
    """The picture still to be drawn: drawing takes a while, so the service calls it in a
    worker thread and puts the result in :attr:`image` (see :func:`draw_pictures`)."""


@dataclass(frozen=True, slots=True)
class Board:
    """The public state of the game in ``channel`` after a batch of events, for adapters
    that show one live table view (see :mod:`dokobot.host.board`). Only services whose
    ``boards`` flag is set send it; adapters that do not show a board ignore it."""

    channel: str
    view: BoardView

    @property
    def text(self) -> str:
        """A board has no text of its own (for code that reads every event's text)."""
        return ""


@dataclass(frozen=True, slots=True)
class Lobby:
    """Who sits at the table in ``channel`` and whether a game runs, after a batch of
    events, for adapters that show one lobby message per table (sent with boards)."""

    channel: str
    view: LobbyView

    @property
    def text(self) -> str:
        """A lobby has no text of its own (for code that reads every event's text)."""
        return ""


Event = Public | Private | Board | Lobby


def draw_pictures(events: Sequence[Event]) -> list[Event]:
    """``events`` with every picture still to be drawn drawn (slow; call it off the event
    loop)."""
    return [
        replace(e, image=e.draw(), draw=None) if isinstance(e, Private) and e.draw else e
        for e in events
    ]


def has_pictures_to_draw(events: Sequence[Event]) -> bool:
    return any(isinstance(e, Private) and e.draw is not None for e in events)
