"""One table per channel: the facade that holds a table's state (seats, options, the
series, the running game, computer players) and runs the game flow.

A table speaks in :class:`~dokobot.host.notes.Note` objects and refuses with
:class:`~dokobot.host.notes.Refusal`; it never formats chat text. Every state change it
accepts is also written to :attr:`Table.journal` as a structured record (see
:mod:`dokobot.host.journal`), so that the journal alone rebuilds the table.

The jobs around it live in their own modules, as functions of what they read:
:mod:`~dokobot.host.seats` (seats, names), :mod:`~dokobot.host.joining` (joining,
leaving, replacing), :mod:`~dokobot.host.option_changes` (``/option``),
:mod:`~dokobot.host.prompts` (hands in display order, prompts, commands),
:mod:`~dokobot.host.narration` (what the table is told),
:mod:`~dokobot.host.chips` (stakes glue), :mod:`~dokobot.host.scoreviews` (score list),
:mod:`~dokobot.host.bots` (computer players). Their public names stay importable from here.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from ..engine.cards import card_ascii, cards_of
from ..engine.cover import cover
from ..engine.errors import IllegalAction
from ..engine.game import Game, hands_from_kinds
from ..engine.scoring import bock_trigger, score
from ..engine.types import Action, GameType, Phase, is_call, is_card
from . import absence, joining, narration, option_changes, scoreviews
from . import bots as _bots
from . import chips as _chips
from .absence import SeatVote, TurnCount
from .bots import Bot, BotFactory
from .journal import Record, cmd
from .modes import (
    DuelWedding,
    duel_deal,
    duel_order,
    duel_wedding_after_trick,
    series_length,
    settlement_kind,
)
from .narration import illegal_params
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .prompts import command_for, hand_note, prompt, shown_cards, sorted_hand
from .seats import PLAYERS, SeatInfo, arrangement
from .series import GameRecord, Series, signed
from .stakes import Ledger, LedgerEntry
from .watching import Watch

__all__ = [
    "Bot",
    "BotFactory",
    "SeatInfo",
    "Table",
    "command_for",
    "illegal_params",
    "seed_for",
    "shown_cards",
    "sorted_hand",
]


def seed_for(base: int | None, n: int) -> int:
    """The seed of the ``n``-th deal of a table with seed ``base`` (platform independent).

    An unseeded table (``base`` None) draws every seed from the operating system's CSPRNG,
    so no deal can be predicted from an earlier one, nor a deal from a computer player's
    behaviour.
    """
    if base is None:
        return secrets.randbits(62)
    return (base * 1_000_003 + n * 7_919 + 12_345) % (1 << 62)


@dataclass(frozen=True, slots=True)
class Reviewable:
    """A game played to its end, as ``/review`` needs it."""

    number: int
    game: Game = field(repr=False)
    users: tuple[str | None, ...]
    """The person in each seat (``None``: a computer player)."""


@dataclass(slots=True)
class Table:
    """The state of one channel's table.

    Its repr leaves out everything hidden (seed, the next deal, the journal with its deals,
    the computer players); the game's repr shows no cards.
    """

    channel: str
    seed: int | None = field(default=None, repr=False)
    """Deals and computer players' random streams come from this seed when it is set (a
    replay's ``!seed``, ``--seed``, tests); None: from the operating system's CSPRNG."""
    options: TableOptions = field(default_factory=TableOptions)
    seats: list[SeatInfo] = field(default_factory=list)
    owner: str | None = None
    series: Series = field(default_factory=Series)
    game: Game | None = None
    game_number: int = 0
    deal_count: int = 0
    dealer: int | None = None
    """The dealer of the running game, between games of the next one: a seat of the ring
    (the seats in join order, :meth:`ring`)."""
    order: tuple[int, ...] = ()
    """At five or six seats (RULES §12.9), how :attr:`seats` are held for the running (or
    last) game: the ring seat of each; the four who play come first, in ring order, so
    that their seats are the engine's 0-3. Empty: :attr:`seats` is the ring."""
    next_deal: list[int] | None = field(default=None, repr=False)
    next_dealer: int | None = None
    abort_votes: set[int] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict, repr=False)
    bot_factory: BotFactory | None = None
    scripted_bots: bool = False
    """Computer players wait for their moves from a journal instead of deciding."""
    journal: list[Record] = field(default_factory=list, repr=False)
    """Records of every accepted change; a durable service keeps only the records not yet
    stored (the store has the rest)."""
    finished: list[GameRecord] = field(default_factory=list)
    """Finished games, oldest first; a durable service keeps only the latest ones (the
    store has every one: :meth:`all_games`)."""
    archive: Callable[[str], tuple[list[GameRecord], list[LedgerEntry]]] | None = field(
        default=None, repr=False
    )
    """The stored finished games of a channel and their settlements (set by a durable
    service, which keeps only the latest games and one carry of the settlements here)."""
    last_trick: tuple[int, tuple[int, ...], int] | None = None
    """(leader, cards, winner) of the last trick taken."""
    last_trick_names: tuple[str, ...] = ()
    """The names of the seats when the last trick was taken (seats may change after it)."""
    away: set[int] = field(default_factory=set)
    """Seats whose person timed out: a computer player moves for them until they act."""
    watches: list[Watch] = field(default_factory=list)
    """Who watches whom (RULES §13, :mod:`~dokobot.host.watching`); not journaled."""
    waiting: list[tuple[str, str]] = field(default_factory=list)
    """People waiting for a seat (user id, name), one place per person. Not journaled
    while a game runs (nothing a person who is not seated types leaves a record): a
    restart forgets who waited then; a ``state`` record keeps it between games."""
    bot_counter: int = 0
    ledger: Ledger = field(default_factory=Ledger)
    """Chip balances; the router may share one ledger among the tables of a server."""
    settlements: list[LedgerEntry] = field(default_factory=list)
    """This table's settlements, in order."""
    duel_people: tuple[int, ...] = ()
    """In a duel game: the seats of the two people (fixed at the deal)."""
    multiplier: int = 1
    """The running game's score multiplier: 2 in a bock game (RULES §12.4)."""
    standins: tuple[int, ...] = ()
    """Seats a stand-in played from the deal of the running (or last) game on: the person
    who left is neither billed nor rated for that game (it is the computer player's)."""
    seat_vote: SeatVote | None = None
    """The open vote to give an absent person's seat away (:mod:`~dokobot.host.absence`)."""
    turn_count: TurnCount = field(default_factory=TurnCount)
    """Each seat's turns in the running (or last) game, and those a computer player made."""
    language_changes: int = 0
    """Changes of the table's language during the running game (at most
    :data:`~dokobot.host.option_changes.LANGUAGE_CHANGES_PER_GAME`)."""
    reviewable: Reviewable | None = field(default=None, repr=False)
    """The last game played to its end, for ``/review`` (every card of it is public by
    then); a game that ended unplayed is never reviewed."""

    # ---------------------------------------------------------------- seats
    def seat_of(self, user: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s.user == user:
                return i
        return None

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def player_names(self) -> list[str]:
        """The names of the four who play the running (or last) game, in the engine's
        seats (the first four seats: see :attr:`order`)."""
        return [s.name for s in self.seats[:PLAYERS]]

    def sitting_out(self) -> list[str]:
        """Who sits out the running (or last) game (RULES §12.9), the dealer first."""
        return [s.name for s in self.seats[PLAYERS:]]

    def plays(self, seat: int) -> bool:
        """Whether ``seat`` plays the running game (at five or six seats some sit out)."""
        return seat < PLAYERS

    def ring(self) -> list[SeatInfo]:
        """The seats in join order (the order the deal moves in), whatever the running
        game's :attr:`order`."""
        if not self.order:
            return list(self.seats)
        ring = list(self.seats)
        for info, pos in zip(self.seats, self.order, strict=True):
            ring[pos] = info
        return ring

    def _hold(self, order: tuple[int, ...]) -> None:
        """Hold the ring's seats in ``order`` (identity: the ring); a seat's timeout and
        computer player move with it."""
        ring_of = self.order or tuple(range(len(self.seats)))
        if order == ring_of:
            return
        ring = self.ring()
        self.away = {order.index(ring_of[i]) for i in self.away}
        self.bots = {order.index(ring_of[i]): bot for i, bot in self.bots.items()}
        self.seats = [ring[pos] for pos in order]
        self.order = () if order == tuple(range(len(order))) else order

    def _unhold(self) -> None:
        """Between games: the seats back in ring order (before a seat or option changes)."""
        if self.order and not self.running:
            self._hold(tuple(range(len(self.seats))))

    def next_players(self) -> list[str]:
        """The names of the four who play the next game, in the engine's seats."""
        ring = self.ring()
        n = len(ring)
        if n <= PLAYERS:
            return [s.name for s in ring]
        order, _ = arrangement(n, self._next_dealer(n))
        return [ring[pos].name for pos in order[:PLAYERS]]

    def _next_dealer(self, n: int) -> int:
        """The ring seat that deals the next game at a table of ``n``."""
        if self.next_dealer is not None:
            return self.next_dealer % n
        return n - 1 if self.dealer is None else self.dealer % n

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if not s.is_bot]

    @property
    def running(self) -> bool:
        return self.game is not None and self.game.phase is not Phase.FINISHED

    def snapshot(self) -> Table:
        """A copy for a reader in a worker thread (an export, the score list, statistics):
        what it reads does not change while the table plays on. No computer players, no
        next deal; the ledger is the shared one (readers only look up balances)."""
        return dataclasses.replace(
            self,
            seats=[dataclasses.replace(s) for s in self.seats],
            series=copy.deepcopy(self.series),
            game=None if self.game is None else self.game.copy(),
            next_deal=None,
            abort_votes=set(self.abort_votes),
            bots={},
            bot_factory=None,
            journal=list(self.journal),
            finished=list(self.finished),
            away=set(self.away),
            waiting=list(self.waiting),
            watches=list(self.watches),
            settlements=list(self.settlements),
        )

    def _log(self, record: Record | str) -> None:
        """Journal ``record``; a string is a line of the replay format (a directive such as
        ``!seed N``), restored by the replayer."""
        self.journal.append(Record("line", text=record) if isinstance(record, str) else record)

    # ---------------------------------------------------------------- seats taken, left
    # (:mod:`~dokobot.host.joining`)
    def join(self, user: str, name: str) -> list[Note]:
        return joining.join(self, user, name)

    def rename(self, seat: int, name: str) -> None:
        """The person in ``seat`` goes by ``name`` now (journaled as ``!rename OLD=NEW``)."""
        joining.rename(self, seat, name)

    def join_bot(self, by: str, level: str | None, by_user: str = "") -> list[Note]:
        return joining.join_bot(self, by, level, by_user)

    def leave(self, user: str) -> list[Note]:
        return joining.leave(self, user)

    def replace(self, user: str, name: str, target: str | None) -> list[Note]:
        """A waiting person takes a computer player's seat, between games."""
        return joining.replace(self, user, name, target)

    # ---------------------------------------------------------------- options
    # (:mod:`~dokobot.host.option_changes`)
    def set_option(self, name: str, raw: str, by: str, by_user: str = "") -> list[Note]:
        return option_changes.set_option(self, name, raw, by, by_user)

    def account_of(self, seat: int, *, game: bool = False) -> str | None:
        """The ledger account of a seat (a stand-in charges the person it replaces).

        In a duel only the two people hold chips. ``game``: for the settlement of one game,
        in which a stand-in that played the whole game charges no person: it is booked to
        the computer player's own account, like any computer player's game.
        """
        info = self.seats[seat]
        if self.options.mode == "duel" and seat not in self.duel_people:
            return None
        if game and seat in self.standins:
            return info.user
        return info.standin_for or info.user

    # ---------------------------------------------------------------- game flow
    def _seat_duel(self) -> list[Note]:
        """Check the duel seating; put the two people opposite each other if needed."""
        order = duel_order([s.is_bot for s in self.seats])
        if order is None:
            return []
        self.seats = [self.seats[i] for i in order]
        if self.next_deal is not None:
            # Hands follow their players; copies renumbered as a journaled deal would be.
            moved = [self.next_deal[i] for i in order]
            self.next_deal = hands_from_kinds([[c >> 1 for c in cards_of(h)] for h in moved])
        if self.next_dealer is not None:
            self.next_dealer = order.index(self.next_dealer)
        if self.dealer is not None:
            self.dealer = order.index(self.dealer)
        self.bots.clear()
        self.abort_votes = set()
        names = self.names()
        self._log(Record("note", text="duel seating: " + ", ".join(names)))
        notes = [Note(ALL, "duel_seated", {"seats": names})]
        if self.series.games:
            notes += option_changes.new_series(self)
        return notes

    def start(self, by: str, by_user: str = "") -> list[Note]:
        if self.running:
            raise Refusal("game_running")
        self._unhold()
        opts = self.options
        if len(self.seats) < opts.seats:
            if opts.seats > PLAYERS:
                raise Refusal("need_seats", n=len(self.seats), of=opts.seats)
            raise Refusal("need_four", n=len(self.seats))
        duel = opts.mode == "duel"
        notes: list[Note] = []
        notes += self.seat_heirs()
        if duel:
            duel_order([s.is_bot for s in self.seats])  # refuses before anything changes
        if self.series.is_over(series_length(opts)):
            self.series = Series(number=self.series.number + 1)
            notes.append(Note(ALL, "series_new", {"n": self.series.number}))
        if duel:
            notes += self._seat_duel()
            self.duel_people = tuple(i for i, s in enumerate(self.seats) if not s.is_bot)
        else:
            self.duel_people = ()
        # the dealer is a seat of the ring; at five or six the four who play take the
        # engine's seats 0-3 and the engine deals from the player before first hand
        ring_dealer = self._next_dealer(len(self.seats))
        self.next_dealer = None
        self.dealer = ring_dealer
        order, dealer = arrangement(len(self.seats), ring_dealer)
        self._hold(order)
        forced = self.series.forced_soloist(dealer, opts.tournament, opts.series_length)
        owed = self.series.owed if opts.tournament else [False] * 4
        if self.next_deal is None:
            seed = seed_for(self.seed, self.deal_count)
            if duel:
                dealt = duel_deal(opts.rules, dealer, seed, self.duel_people)
            else:
                dealt = Game.deal(opts.rules, dealer, seed)
            self._set_deal(list(dealt.start_hands), self.player_names())
        assert self.next_deal is not None
        hands = self.next_deal
        self.next_deal = None
        self.game = Game.from_hands(
            opts.rules, dealer, hands, mandatory_owed=owed, forced_soloist=forced
        )
        self.deal_count += 1
        self.game_number += 1
        self.abort_votes = set()
        self.language_changes = 0
        self.last_trick = None
        self.multiplier = 2 if opts.bock and self.series.bock_left > 0 else 1
        self.standins = tuple(i for i, s in enumerate(self.seats) if s.standin_for is not None)
        self.turn_count = TurnCount.fresh(PLAYERS)  # the four who play
        game = self.game
        self._log(cmd(by_user, by, self.seat_of(by_user), "/start"))
        names = self.names()
        out = self.sitting_out()
        notes.append(
            Note(
                ALL,
                "game_started",
                {
                    "n": self.game_number,
                    "dealer": out[0] if out else names[dealer],
                    "first": names[game.first_hand],
                },
            )
        )
        if out:
            notes.append(Note(ALL, "sitting_out", {"players": out}))
        for seat in range(PLAYERS):
            notes.append(self.hand_note(seat))
        if self.multiplier > 1:
            notes.append(Note(ALL, "bock_game", {"left": self.series.bock_left - 1}))
        if forced is not None:
            notes.append(Note(ALL, "forced_solo", {"player": names[forced]}))
        notes += self.prompt()
        return notes

    def set_next_deal(self, hands: list[int]) -> None:
        """Fix the hands of the next deal (in the order of :meth:`next_players`: seat
        order at four seats); journaled as a ``!deal`` line that names the four who play.

        The two copies of a card are numbered in seat order, so that the journal line
        gives back exactly these hands.
        """
        self._set_deal(hands, self.next_players())

    def _set_deal(self, hands: list[int], names: list[str]) -> None:
        hands = hands_from_kinds([[c >> 1 for c in cards_of(h)] for h in hands])
        self.next_deal = hands
        shown = tuple(" ".join(card_ascii(c) for c in sorted_hand(None, h)) for h in hands)
        self._log(Record("deal", names=tuple(names), hands=shown))

    def set_next_dealer(self, seat: int) -> None:
        """Fix the dealer of the next game (``seat`` as the seats are held now);
        journaled as a ``!dealer`` line."""
        self.next_dealer = self.order[seat] if self.order else seat
        self._log(Record("dealer", seat=seat, name=self.seats[seat].name))

    def hand_note(self, seat: int) -> Note:
        return hand_note(self.game, seat)

    def prompt(self) -> list[Note]:
        """Tell the player to move what they may do (choices; ``/hint`` where it is answered:
        the option ``hints`` on, no tournament, not a rated game)."""
        hint = self.options.hints and not self.options.tournament and not self.rated()
        return prompt(self.game, self.names(), [s.is_bot for s in self.seats], hint=hint)

    def rated(self) -> bool:
        """Whether the game is stored as rated: the option ``rated`` with the people who
        played it (a person a stand-in replaced counts); fixed at the deal."""
        people = [(s.standin_for is not None and i not in self.standins) or not s.is_bot
                  for i, s in enumerate(self.seats[:PLAYERS])]  # fmt: skip
        return self.options.is_rated(sum(people))

    def act(self, seat: int, action: Action, text: str, *, computer: bool = False) -> list[Note]:
        """A seated player does ``action`` (typed as ``text``); ``computer``: a computer
        player (or a stand-in) does it for the seat."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED:
            raise Refusal("no_game")
        before_phase = game.phase
        before_tricks = len(game.tricks)
        before_open = game.wedding_open
        before_exchange = game.exchange
        try:
            game.play(seat, action)
        except IllegalAction as exc:
            reason, params = narration.reservation_reason(game, seat, action, exc.reason)
            raise Refusal("illegal." + reason, **params, **illegal_params(game, exc)) from exc
        info = self.seats[seat]
        if not is_call(action):
            self.turn_count = self.turn_count.add(seat, computer=computer)
        if computer:
            self._log(Record("move", info.user, seat, info.name, text, action=action))
        else:
            self._log(cmd(info.user, info.name, seat, text))
        after = Phase(game.phase)  # (not narrowed by the check above: the action moved on)
        if before_phase is Phase.EXCHANGE or after is Phase.EXCHANGE:
            notes = narration.exchange_notes(
                game, self.names(), seat, action, before_phase, before_exchange
            )
            if after is Phase.EXCHANGE:
                return notes + self.prompt()
            if after is Phase.FINISHED:
                return notes + self._finish()
            return notes + self._announce_contract() + self.prompt()
        return self._after(seat, action, before_phase, before_tricks, before_open)

    def _after(
        self, seat: int, action: Action, phase: Phase, tricks: int, wedding_open: bool
    ) -> list[Note]:
        game = self.game
        assert game is not None
        names = self.names()
        notes = narration.action_notes(game, names, seat, action, phase)
        if is_call(action):
            return notes
        if is_card(action) and len(game.tricks) > tricks:
            self.last_trick = game.tricks[-1]
            self.last_trick_names = tuple(self.player_names())
            notes.append(narration.trick_won_note(game, names))
            notes += narration.heart10_notes(game, names)
            winner = game.tricks[-1][2]
            if wedding_open and self.duel_people and game.game_type is GameType.WEDDING:
                outcome = duel_wedding_after_trick(game, self.duel_people)
                if outcome is DuelWedding.CANCEL:
                    return notes + self._cancel_duel_wedding()
                if outcome is DuelWedding.OPEN and winner != game.declarer:
                    notes.append(Note(ALL, "duel_no_clarification", {"player": names[winner]}))
            if wedding_open and not game.wedding_open:
                notes.append(narration.wedding_clarified_note(game, names))
        if phase in (Phase.RESERVATIONS, Phase.DECLARATIONS) and game.phase is Phase.PLAYING:
            notes += self._announce_contract()
        if game.phase is Phase.FINISHED:
            notes += self._finish()
            return notes
        notes += self.prompt()
        return notes

    def _announce_contract(self) -> list[Note]:
        game = self.game
        assert game is not None
        return narration.contract_notes(game, self.names())

    def _cancel_duel_wedding(self) -> list[Note]:
        """End a duel game whose wedding was not clarified as the duel demands (no score)."""
        game = self.game
        assert game is not None
        self._cancel(game, self._cover_record(game))
        person = game.declarer in self.duel_people
        key = "duel_cancelled_person" if person else "duel_cancelled_computer"
        return [
            Note(ALL, key, {"player": self.seats[game.declarer].name}),
            Note(ALL, "next_game_hint"),
        ]

    def _unplayed(self, game: Game) -> list[Note]:
        """A game a house rule ended before the card play (a throw-in, a poverty nobody
        took): no score, no bock game used up, the same dealer deals again. The hands stay
        hidden: the journal gets a cover deal, as for an aborted game."""
        cover = self._cover_record(game)  # first: it is the step that may fail
        rec = self.series.record_cancelled(
            game, self.game_number, self.player_names(), self.sitting_out()
        )
        self.finished.append(rec)
        self._log(cover)  # the same dealer deals again: self.dealer stays
        names = self.names()
        key = "thrown" if game.cancelled == "thrown" else "poverty_nobody"
        return [
            Note(ALL, key, {"player": names[game.declarer], "dealer": names[game.dealer]}),
            Note(ALL, "next_game_hint"),
        ]

    def _finish(self) -> list[Note]:
        game = self.game
        assert game is not None
        if game.cancelled:
            return self._unplayed(game)
        result = score(game)
        rec = self.series.record(
            game,
            result,
            self.game_number,
            self.player_names(),
            multiplier=self.multiplier,
            out=self.sitting_out(),
        )
        players = self.seats[:PLAYERS]
        self.reviewable = Reviewable(
            self.game_number, game, tuple(None if s.is_bot else s.user for s in players)
        )
        self.finished.append(rec)
        bock_notes: list[Note] = []
        if self.options.bock:
            if self.multiplier > 1:
                self.series.bock_left = max(0, self.series.bock_left - 1)
            if bock_trigger(game, result):
                self.series.bock_left += 4
                bock_notes.append(Note(ALL, "bock_triggered", {"left": self.series.bock_left}))
        if not (game.mandatory and game.forced < 0 and game.rules.tournament):
            self.dealer = (game.dealer if self.dealer is None else self.dealer + 1) % len(
                self.seats
            )
        names = self.names()
        notes = narration.result_notes(rec, names)
        notes += bock_notes
        totals = self.series.totals_by_player()
        notes.append(
            Note(ALL, "game_totals", {"totals": [f"{n} {signed(t)}" for n, t in totals.items()]})
        )
        opts = self.options
        kind = settlement_kind(opts)
        over = self.series.is_over(series_length(opts))
        # Settle first, so that the score list below shows the chips already.
        game_entry = self._settle_game(rec) if kind == "game" else None
        series_entry = self._settle_series() if over and kind == "series" else None
        if game_entry is not None:
            notes.append(self._settlement_note(game_entry))
        sheet = self.score_note(opts.language, last=8)
        notes.append(Note(sheet.to, sheet.key, sheet.params, kind="score"))
        if over:
            ranking = [
                f"{place}. {name} {total:+d}"
                for place, name, total in self.series.player_standings()
            ]
            notes.append(Note(ALL, "series_over", {"ranking": ranking}))
            if series_entry is not None:
                notes.append(self._settlement_note(series_entry))
        notes.append(Note(ALL, "next_game_hint"))
        return notes

    # ---------------------------------------------------------------- chips
    def _accounts(self, *, game: bool = False) -> list[str | None]:
        return [self.account_of(s, game=game) for s in range(4)]

    def _settle_game(self, rec: GameRecord) -> LedgerEntry:
        accounts = self._accounts(game=True)
        entry = _chips.settle_game(
            self.ledger, self.channel, accounts, self.player_names(), rec, self.options
        )
        self.settlements.append(entry)
        return entry

    def _settle_series(self) -> LedgerEntry:
        entry = _chips.settle_series(
            self.ledger, self.channel, self._accounts(), self.names(), self.series, self.options
        )
        self.settlements.append(entry)
        return entry

    def _settlement_note(self, entry: LedgerEntry) -> Note:
        return _chips.settlement_note(entry)

    def chips_lines(self, lang: str) -> list[str]:
        """The chip lines of the score list: this table's result and the balances."""
        if not self.settlements:
            return []
        seats = range(len(self.seats))
        ring = sorted(seats, key=lambda s: self.order[s]) if self.order else list(seats)
        accounts = [self.account_of(s) for s in ring]
        names = [self.seats[s].name for s in ring]
        return _chips.chips_lines(self.ledger, self.channel, names, accounts, lang)

    # ---------------------------------------------------------------- score views
    def score_note(self, lang: str | None = None, last: int = 12) -> Note:
        """The score list (``/score``): the last ``last`` games, totals, chips."""
        lang = lang or self.options.language
        return scoreviews.score_note(
            self.finished,
            [s.name for s in self.ring()],
            self.series,
            self.options,
            lang,
            last,
            self.chips_lines(lang),
        )

    def ledger_note(self, lang: str | None = None, top: int = 20) -> Note:
        """The chip balances of the ledger (a ``/ledger`` command)."""
        return _chips.ledger_note(self.ledger, top)

    def game_note(self, number: int, lang: str | None = None) -> Note:
        """One game of the score list in detail (``/score N``)."""
        known = self.finished if any(r.number == number for r in self.finished) else None
        games = known if known is not None else self.all_games()
        return scoreviews.game_note(games, number, lang or self.options.language)

    def all_games(self) -> list[GameRecord]:
        """Every finished game, oldest first (reads the store: for the slow commands)."""
        return self.history()[0]

    def history(self) -> tuple[list[GameRecord], list[LedgerEntry]]:
        """Every finished game, oldest first, and every settlement: the stored ones, then
        those not stored yet (reads the store: for the slow commands)."""
        if self.archive is None:
            return list(self.finished), list(self.settlements)
        games, entries = self.archive(self.channel)
        last = games[-1].number if games else 0
        games += [r for r in self.finished if r.number > last]
        seen = {e.key for e in entries}
        # the carry stands for settlements the store has one by one
        entries += [e for e in self.settlements if e.key not in seen and not e.is_carry]
        return games, entries

    # ---------------------------------------------------------------- abort vote
    def abort(self, seat: int) -> list[Note]:
        game = self.game
        if game is None or not self.running:
            raise Refusal("no_game")
        humans = [s for s in self.humans() if self.plays(s)]  # those who play the game
        need = len(humans) // 2 + 1
        if seat in self.abort_votes:
            votes = len([s for s in self.abort_votes if s in humans])
            raise Refusal("abort_voted_already", votes=votes, need=need)
        votes = len([s for s in self.abort_votes | {seat} if s in humans])
        # What may fail comes before any change: the cover deal of the game this vote ends.
        cover = self._cover_record(game) if votes >= need else None
        self.abort_votes.add(seat)
        self._log(cmd(self.seats[seat].user, self.seats[seat].name, seat, "/abort"))
        if cover is None:
            return [
                Note(
                    ALL,
                    "abort_vote",
                    {"player": self.seats[seat].name, "votes": votes, "need": need},
                )
            ]
        self._cancel(game, cover)
        return [Note(ALL, "aborted"), Note(ALL, "next_game_hint")]

    def _cancel(self, game: Game, cover: Record) -> None:
        """End ``game`` unplayed, without score. Its unplayed cards stay hidden for good:
        the journal gets ``cover``, its cover deal (public facts only, built by
        :meth:`_cover_record` before anything changed), that exports show instead."""
        rec = self.series.record_cancelled(
            game, self.game_number, self.player_names(), self.sitting_out()
        )
        self.finished.append(rec)
        self._log(cover)
        game.phase = Phase.FINISHED

    def _cover_record(self, game: Game) -> Record:
        """The journal record of the cover of ``game``, which ends unplayed: the hands an
        export shows instead of the real ones, and the actions it shows instead of the real
        ones, in the log's order: a poverty's gives as ``SEAT:CARD``, the declarations the
        table never learned as ``SEAT@ACTION``. Changes nothing (it may raise)."""
        hands, shown = cover(game, random.Random(secrets.randbits(64)))
        words = [f"{seat}:{card_ascii(a)}" if is_card(a) else f"{seat}@{a}" for seat, a in shown]
        return Record(
            "cover", text=" ".join(words),
            names=tuple(self.player_names()),
            hands=tuple(" ".join(card_ascii(c) for c in sorted_hand(None, h)) for h in hands),
        )  # fmt: skip

    # ---------------------------------------------------------------- computer players
    def bot_to_move(self) -> int | None:
        """The seat of a computer player that must act now, if any."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED or self.scripted_bots:
            return None
        seat = game.turn
        if seat < len(self.seats) and (self.seats[seat].is_bot or seat in self.away):
            return seat
        return None

    def mark_away(self, seat: int) -> Note:
        """The person in ``seat`` timed out: a computer player moves for them from now on."""
        self.away.add(seat)
        self._log(Record("away", seat=seat, name=self.seats[seat].name))
        return Note(ALL, "timeout_standin", {"player": self.seats[seat].name})

    def seat_heirs(self) -> list[Note]:
        """Between games: the waiting people a vote gave a seat to take it (journaled as
        ``heirs``, before the deal that names them)."""
        heirs = [(i, s.name) for i, s in enumerate(self.seats) if s.heir is not None]
        if not heirs:
            return []
        absence.seat_heirs(self)
        self._log(Record("heirs"))
        return [Note(ALL, "replaced_standin", {"player": self.seats[i].name, "old": old})
                for i, old in heirs]  # fmt: skip

    def wait(self, user: str, name: str) -> None:
        """``user`` waits for a seat as ``name`` (a journal's ``waiting`` record)."""
        if self.seat_of(user) is None and all(w[0] != user for w in self.waiting):
            self.waiting.append((user, name))
        self._log(Record("waiting", user=user, name=name))

    def back(self, seat: int) -> list[Note]:
        """The person in ``seat`` acts again after a timeout (any input of theirs at the
        table): the computer player no longer moves for them, and an open vote on their
        seat ends. Journaled as ``back``, as the timeout was as ``away``: the input that
        brought them back may leave no record of its own (``/table``, a refused card), and
        a restore must not let the computer player move for a person who is there."""
        if seat not in self.away:
            return []
        self._log(Record("back", seat=seat, name=self.seats[seat].name))
        ended = absence.back(self, seat)
        self.away.discard(seat)
        return [Note(ALL, "welcome_back", {"player": self.seats[seat].name}), *ended]

    def bot(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            if self.bot_factory is None:
                raise Refusal("no_bots")
            level = self.seats[seat].bot or "normal"
            bot = self.bot_factory(
                level, seed_for(self.seed, 10_000 + seat), self.options.mode == "duel"
            )
            self.bots[seat] = bot
        return bot

    def bot_decision(self, seat: int) -> tuple[Action | None, Action]:
        """What the computer player in ``seat`` does now: (call or None, turn action)."""
        game = self.game
        assert game is not None
        return _bots.decision(self.bot(seat), game, seat)

    def apply_bot(self, seat: int, call: Action | None, action: Action) -> list[Note]:
        notes: list[Note] = []
        game = self.game
        assert game is not None
        if call is not None and game.call_problem(seat, call) is None:
            notes += self.act(seat, call, command_for(call), computer=True)
        if game.turn == seat and game.phase is not Phase.FINISHED:
            action = _bots.checked_action(game, seat, action)
            notes += self.act(seat, action, command_for(action, phase=game.phase), computer=True)
        return notes
