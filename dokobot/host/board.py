"""The public view of a table's game, for adapters that show one live board.

:func:`board_view` builds a :class:`BoardView` from a :class:`~dokobot.host.table.Table`:
only what everybody at the table may know (names, the cards on the table, whose turn, the
calls, the parties that are public, the tricks taken). No hand, no unplayed card, no seed.
Adapters render it in the table's language (Discord: an embed edited in place).

:func:`decision_marker` numbers the decisions of a game: a prompt's buttons carry it, and a
press whose decision is past is refused (a stale "♣A" must not be played a trick later).

>>> from dokobot.host.table import Table
>>> t = Table(channel="c", seed=1)
>>> for n in "abcd":
...     _ = t.join(n, n)
>>> _ = t.start("a")
>>> v = board_view(t)
>>> v.game_number, v.phase, v.seats, v.turn == t.game.turn, v.trick
(1, 'reservations', ('a', 'b', 'c', 'd'), True, ())
>>> v.marker == decision_marker(t) == (1, 0)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.observation import public_parties
from ..engine.types import GameType, Phase, call_key, is_call
from .table import Table

#: Phase names as a board shows them.
PHASES = {
    Phase.RESERVATIONS: "reservations",
    Phase.DECLARATIONS: "declarations",
    Phase.PLAYING: "playing",
    Phase.FINISHED: "finished",
    Phase.EXCHANGE: "exchange",
}


@dataclass(frozen=True, slots=True)
class BoardView:
    """What everybody at a table sees of its game (see :func:`board_view`).

    Seats are indexes into ``seats``. ``trick`` holds (seat, card) of the cards on the table,
    ``last_trick`` those of the trick taken last and ``last_winner`` who took it.
    ``contract`` is ``""`` until the contract is public, then ``"normal"``, ``"wedding"`` or
    ``"solo.<type>"`` (a silent wedding shows as ``"normal"``). ``calls`` are (seat, call key)
    in order; ``parties`` (seat, ``"re"`` or ``"kontra"``) the parties that are public.
    ``marks`` are house-rule marks: ``bock`` in a bock game. ``seats`` are the four who
    play; ``sitting_out`` who sits the game out at five or six (RULES §12.9), the dealer
    first (then he is not in ``seats``, and ``dealer`` is the player before first hand).
    """

    channel: str
    game_number: int
    decision: int
    phase: str
    seats: tuple[str, ...]
    dealer: int
    turn: int | None
    trick_number: int
    trick: tuple[tuple[int, int], ...] = ()
    last_trick: tuple[tuple[int, int], ...] = ()
    last_winner: int | None = None
    tricks_won: tuple[int, ...] = (0, 0, 0, 0)
    contract: str = ""
    calls: tuple[tuple[int, str], ...] = ()
    parties: tuple[tuple[int, str], ...] = ()
    away: tuple[int, ...] = ()
    marks: tuple[str, ...] = ()
    sitting_out: tuple[str, ...] = ()
    language: str = "en"
    """The table's language (``language`` option)."""
    images: bool = True
    """The table's ``images`` option: show cards as pictures too."""
    deadline: int | None = None
    """With ``turn_timeout`` on: when (Unix seconds) a computer player stands in for the
    person whose turn it is."""
    idle: bool = False
    """The person whose turn it is was reminded already (the owner may let a computer
    player stand in at once: ``/standin``)."""
    computers: tuple[int, ...] = ()
    """Seats a computer player holds (a person's seat a computer player stands in for is
    in ``away``, not here)."""

    @property
    def marker(self) -> tuple[int, int]:
        """(game number, decision number): what a prompt's buttons carry."""
        return self.game_number, self.decision

    @property
    def finished(self) -> bool:
        return self.phase == "finished"


def decision_marker(table: Table) -> tuple[int, int]:
    """(game number, number of moves other than calls so far).

    Every move but a call ends a decision: a prompt stays current while its player calls.
    """
    game = table.game
    if game is None:
        return table.game_number, 0
    moves = sum(1 for _, action in game.log if not is_call(action))
    return table.game_number, moves


def public_party_keys(table: Table) -> list[tuple[int, str]]:
    """(seat, party key) of the parties everybody knows (the engine's one answer)."""
    game = table.game
    if game is None:
        return []
    return [(s, p.key) for s, p in enumerate(public_parties(game)) if p is not None]


def _contract(table: Table) -> str:
    game = table.game
    if game is None or game.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
        return ""
    if game.game_type is GameType.POVERTY:
        return "poverty"
    if game.game_type is GameType.SOLO and game.solo is not None:
        return "solo." + game.solo.key
    if game.game_type is GameType.WEDDING:
        return "wedding"
    return "normal"


def board_view(table: Table) -> BoardView | None:
    """The board of ``table``'s current (or just finished) game; None before the first."""
    game = table.game
    if game is None:
        return None
    game_number, decision = decision_marker(table)
    finished = game.phase is Phase.FINISHED
    trick = tuple(((game.leader + i) % 4, c) for i, c in enumerate(game.trick))
    last: tuple[tuple[int, int], ...] = ()
    last_winner: int | None = None
    if game.tricks:
        leader, cards, winner = game.tricks[-1]
        last = tuple(((leader + i) % 4, c) for i, c in enumerate(cards))
        last_winner = winner
    won = [0, 0, 0, 0]
    for _, _, winner in game.tricks:
        won[winner] += 1
    return BoardView(
        channel=table.channel,
        game_number=game_number,
        decision=decision,
        phase=PHASES[game.phase],
        seats=tuple(table.player_names()),
        sitting_out=tuple(table.sitting_out()),
        dealer=game.dealer,
        turn=None if finished else game.turn,
        trick_number=min(len(game.tricks) + (0 if finished else 1), game.rules.hand_size),
        trick=trick,
        last_trick=last,
        last_winner=last_winner,
        tricks_won=tuple(won),
        contract=_contract(table),
        calls=tuple((s, call_key(a)) for s, a in game.calls),
        parties=tuple(public_party_keys(table)),
        away=tuple(sorted(table.away)),
        computers=tuple(s for s, info in enumerate(table.seats) if table.plays(s) and info.is_bot),
        language=table.options.language,
        images=table.options.images,
        marks=("bock",) if table.multiplier > 1 else (),
    )


@dataclass(frozen=True, slots=True)
class LobbyView:
    """Who sits at a table (see :func:`lobby_view`): ``seats`` are (name, computer level)
    in seat order, the level ``""`` for a person; ``owner`` is the owner's name (``""``
    without one); ``running`` says whether a game is being played, ``game_number`` how many
    games were started."""

    channel: str
    seats: tuple[tuple[str, str], ...]
    owner: str
    running: bool
    game_number: int
    language: str = "en"
    size: int = 4
    """The seats of the table (the option ``seats``: 4, 5 or 6)."""

    @property
    def full(self) -> bool:
        return len(self.seats) >= self.size


def lobby_view(table: Table) -> LobbyView:
    """The lobby of ``table``: names and computer levels, the owner, whether a game runs.

    >>> from dokobot.host.table import Table
    >>> t = Table(channel="c")
    >>> _ = t.join("u1", "Anna"); _ = t.join_bot("Anna", "easy", "u1")
    >>> v = lobby_view(t)
    >>> v.seats, v.owner, v.running, v.full
    ((('Anna', ''), ('Bot1', 'easy')), 'Anna', False, False)
    """
    owner = next((s.name for s in table.seats if s.user == table.owner), "")
    return LobbyView(
        channel=table.channel,
        seats=tuple((s.name, s.bot or "") for s in table.ring()),  # as people sat down
        owner=owner,
        running=table.running,
        game_number=table.game_number,
        language=table.options.language,
        size=table.options.seats,
    )
