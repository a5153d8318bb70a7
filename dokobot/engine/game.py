"""The game state machine: deal, reservations, declarations, trick play, announcements.

The deal is an explicit chance step (:meth:`Game.deal` from a seed, or :meth:`Game.from_hands`).
The host uses the checked :meth:`Game.play`, which raises :class:`IllegalAction` with a reason;
search uses the unchecked :meth:`Game.push` / :meth:`Game.pop` and :meth:`Game.copy`.

>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=7)
>>> g.phase.name, g.turn
('RESERVATIONS', 0)
>>> for seat in range(4):
...     g.play(seat, HEALTHY)
>>> g.phase.name, g.game_type.name in ("NORMAL", "SILENT_WEDDING")
('PLAYING', True)
>>> import random
>>> rng = random.Random(1)
>>> while g.phase is not Phase.FINISHED:
...     g.play(g.turn, rng.choice(g.legal_actions()))
>>> sum(g.eyes), len(g.tricks)
(240, 12)
"""

from __future__ import annotations

import random
from _random import Random as _CRandom
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from .cards import (
    CLUB_QUEENS,
    DIAMOND_ACES,
    KING,
    N_CARDS,
    NINE,
    POINTS,
    SUITS,
    Card,
    Mask,
    both,
    card_str,
    distinct_cards,
)
from .deck import deck_from_bits, hands_from_kinds, shuffled_deck
from .errors import IllegalAction
from .order import (
    NORMAL_SCHEME,
    PIGLETS_SCHEME,
    SCHEMES,
    SUPERPIGLETS_NO_NINES_SCHEME,
    SUPERPIGLETS_SCHEME,
    TRUMP,
    Scheme,
)
from .playout import playout as _playout
from .rules import DEFAULT_RULES, Rules
from .types import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_RE,
    DECLARE_POVERTY,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DECLINE,
    HEALTHY,
    N_ACTIONS,
    N_SOLOS,
    RESERVATION,
    TAKE,
    THROW_IN,
    Action,
    GameType,
    Party,
    Phase,
    Seat,
    Solo,
    action_name,
    call_level,
    is_solo,
)

__all__ = [
    "DEFAULT_RULES",
    "Exchange",
    "Game",
    "Trick",
    "declaration_actions",
    "exchange_actions",
    "hands_from_kinds",
    "may_throw_in",
    "shuffled_deck",
]

Trick = tuple[Seat, tuple[Card, ...], Seat]
"""A finished trick: (leader, cards in play order, winner)."""

_NO_SEAT: Final = -1

# Enum members as module constants: reading ``Phase.PLAYING`` costs a descriptor call in
# Python 3.11, a module global does not.
_RESERVATIONS: Final = Phase.RESERVATIONS
_DECLARATIONS: Final = Phase.DECLARATIONS
_PLAYING: Final = Phase.PLAYING
_FINISHED: Final = Phase.FINISHED
_RE: Final = Party.RE
_KONTRA: Final = Party.KONTRA
_NORMAL: Final = GameType.NORMAL
_WEDDING: Final = GameType.WEDDING
_SILENT_WEDDING: Final = GameType.SILENT_WEDDING
_SOLO: Final = GameType.SOLO
_SOLOS: Final = tuple(Solo)
_BIT: Final = tuple(1 << c for c in range(N_CARDS))
_NOT_OWED: Final = (False, False, False, False)
_EXCHANGE: Final = Phase.EXCHANGE
_POVERTY: Final = GameType.POVERTY
_DECLARE_SOLOS: Final = tuple(DECLARE_SOLO + s for s in range(N_SOLOS))
_NORMAL_TRUMPS: Final = SCHEMES[NORMAL_SCHEME].class_mask[TRUMP]
_NINES: Final = sum(both(s, NINE) for s in SUITS)
_KINGS: Final = sum(both(s, KING) for s in SUITS)
# The tags of the undo records of Game.push (the first item of each record); Game.pop
# restores what the record of its tag holds.
_UNDO_CARD: Final = 0
"""A card: (tag, seat, card, None), or (tag, seat, card, (winner, eyes, leader, phase,
re_seats, wedding_open, wedding_trick, shift)) when it completed a trick."""
_UNDO_SNAPSHOT: Final = 1
"""A declaration or an exchange step: the full :meth:`Game._snapshot`."""
_UNDO_WORD: Final = 2
"""A reservation-round word that is not the last: (tag, seat, reserved, turn)."""
_UNDO_CALL: Final = 3
"""A call: (tag, party, level, closed) of the caller's party."""
_UNDO_LAST_WORD: Final = 4
"""The last word of the reservation round: (tag, seat, reserved, turn, phase, game_type,
declarer, re_seats, scheme, piglets, superpiglets)."""
#: Exchange of a poverty: the cards passed each way.
POVERTY_CARDS: Final = 3
#: A poverty may be announced with at most this many trumps (RULES §12.1).
POVERTY_MAX_TRUMPS: Final = 3
#: Nines or kings a player needs to throw in (RULES §12.2).
THROW_IN_MIN: Final = 5
# _CALLS_ABOVE[party][own]: the call actions of a party for the levels own + 1 .. 5.
_CALLS_ABOVE: Final = tuple(
    tuple(
        tuple((CALL_RE + party) if lv == 1 else CALL_KONTRA + lv - 1 for lv in range(own + 1, 6))
        for own in range(6)
    )
    for party in (0, 1)
)


@dataclass(frozen=True, slots=True)
class Exchange:
    """The exchange of a poverty (RULES §12.1); replaced, never changed in place.

    ``passed``: the cards the poor player gave (private to him and the taker);
    ``returned``: the cards the taker gave back (private to both, too);
    ``trumps_back``: how many of them are trumps (public once the exchange is over, -1
    before); ``declined``: seats that declined, as a bit set.
    """

    poor: Seat
    passed: Mask = field(default=0, repr=False)
    taker: Seat = _NO_SEAT
    returned: Mask = field(default=0, repr=False)
    trumps_back: int = -1
    declined: int = 0

    def hidden(self) -> Exchange:
        """What the other two players and spectators know: who, never which cards."""
        return replace(self, passed=0, returned=0)


def may_throw_in(rules: Rules, hand: Mask) -> bool:
    """Whether ``hand`` may throw in (RULES §12.2: 5 or more nines, or 5 or more kings)."""
    return rules.throw_in and (
        (hand & _NINES).bit_count() >= THROW_IN_MIN or (hand & _KINGS).bit_count() >= THROW_IN_MIN
    )


def declaration_actions(rules: Rules, hand: Mask, forced: bool) -> list[Action]:
    """What a player who made a reservation may declare: a wedding with both ♣Q, a
    poverty with at most 3 trumps, a throw-in (house rules on), any solo. A forced solo
    may only name its type. The one answer for the engine and computer players."""
    solos = list(_DECLARE_SOLOS)
    if forced:
        return solos
    out: list[Action] = []
    if may_throw_in(rules, hand):
        out.append(THROW_IN)
    if hand & CLUB_QUEENS == CLUB_QUEENS:
        out.append(DECLARE_WEDDING)
    if rules.poverty and (hand & _NORMAL_TRUMPS).bit_count() <= POVERTY_MAX_TRUMPS:
        out.append(DECLARE_POVERTY)
    return out + solos


def exchange_actions(exchange: Exchange, seat: Seat, hand: Mask) -> list[Action]:
    """The actions of ``seat`` (whose turn it is) in a poverty's exchange: the poor player
    gives his trumps first, then plain cards of his choice; the others take or decline;
    the taker gives back any 3 cards. Cards as card actions, one copy of each kind."""
    if exchange.taker < 0:
        if seat == exchange.poor:
            return distinct_cards(hand & _NORMAL_TRUMPS or hand)
        return [TAKE, DECLINE]
    return distinct_cards(hand)


class Game:
    """One game of Doppelkopf, from the deal to the last trick."""

    __slots__ = (
        "_undo",
        "best",
        "calls",
        "cancelled",
        "closed",
        "dealer",
        "declarations",
        "declarer",
        "exchange",
        "eyes",
        "forced",
        "game_type",
        "hands",
        "leader",
        "level",
        "log",
        "mandatory",
        "mandatory_owed",
        "phase",
        "piglets",
        "re_seats",
        "reserved",
        "rules",
        "scheme",
        "shift",
        "solo",
        "start_hands",
        "superpiglets",
        "trick",
        "tricks",
        "turn",
        "wedding_open",
        "wedding_trick",
        "won",
    )

    rules: Rules
    dealer: Seat
    hands: list[Mask]
    start_hands: tuple[Mask, ...]
    phase: Phase
    turn: Seat
    mandatory_owed: tuple[bool, ...]
    forced: Seat
    reserved: list[int]
    declarations: list[int]
    best: Seat
    game_type: GameType
    solo: Solo | None
    declarer: Seat
    mandatory: bool
    scheme: Scheme
    re_seats: int
    wedding_open: bool
    wedding_trick: int
    shift: int
    level: list[int]
    closed: list[bool]
    calls: list[tuple[Seat, Action]]
    leader: Seat
    trick: list[Card]
    tricks: list[Trick]
    eyes: list[int]
    won: list[int]
    log: list[tuple[Seat, Action]]
    exchange: Exchange | None
    """A poverty's exchange (None in every other game)."""
    piglets: Seat
    """The seat holding both ♦A as piglets (RULES §12.3), or -1."""
    superpiglets: Seat
    """The seat holding both trump nines as superpiglets (RULES §12.8), or -1."""
    cancelled: str
    """Why the game ended unplayed: ``thrown``, ``poverty`` (all declined), or ``""``."""
    _undo: list[Any]

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_hands(
        cls,
        rules: Rules,
        dealer: Seat,
        hands: Sequence[Mask],
        *,
        mandatory_owed: Sequence[bool] = (False, False, False, False),
        forced_soloist: Seat | None = None,
    ) -> Game:
        """A game with the given hands (masks of ``rules.hand_size`` cards, the cards of
        ``rules.deck`` once each).

        ``mandatory_owed[s]``: in tournament mode, a solo of seat ``s`` would be his
        mandatory solo. ``forced_soloist``: a forced solo (Vorführung); that seat names the
        solo type at once, there is no reservation round.
        """
        n = rules.hand_size
        if len(hands) != 4:
            raise ValueError(f"every player needs {n} cards")
        h0, h1, h2, h3 = hands
        if (
            h0.bit_count() != n
            or h1.bit_count() != n
            or h2.bit_count() != n
            or (h3.bit_count() != n)
        ):
            raise ValueError(f"every player needs {n} cards")
        if h0 | h1 | h2 | h3 != rules.deck:
            raise ValueError(f"the hands must hold the {4 * n} cards once each")
        return cls._new(rules, dealer, h0, h1, h2, h3, mandatory_owed, forced_soloist)

    @classmethod
    def _new(
        cls,
        rules: Rules,
        dealer: Seat,
        h0: Mask,
        h1: Mask,
        h2: Mask,
        h3: Mask,
        mandatory_owed: Sequence[bool],
        forced_soloist: Seat | None,
    ) -> Game:
        """:meth:`from_hands` without the checks of the hands."""
        g = cls.__new__(cls)
        g.rules = rules
        g.dealer = dealer % 4
        g.hands = [h0, h1, h2, h3]
        g.start_hands = (h0, h1, h2, h3)
        g.mandatory_owed = (
            _NOT_OWED if mandatory_owed == _NOT_OWED else tuple(map(bool, mandatory_owed))
        )
        g.forced = _NO_SEAT if forced_soloist is None else forced_soloist
        g.reserved = [-1, -1, -1, -1]
        g.declarations = [-1, -1, -1, -1]
        g.best = _NO_SEAT
        g.game_type = _NORMAL
        g.solo = None
        g.declarer = _NO_SEAT
        g.mandatory = False
        g.scheme = SCHEMES[NORMAL_SCHEME]
        g.re_seats = 0
        g.wedding_open = False
        g.wedding_trick = 0
        g.shift = 0
        g.level = [0, 0]
        g.closed = [False, False]
        g.calls = []
        g.leader = (g.dealer + 1) % 4
        g.trick = []
        g.tricks = []
        g.eyes = [0, 0, 0, 0]
        g.won = [0, 0, 0, 0]
        g.log = []
        g.exchange = None
        g.piglets = _NO_SEAT
        g.superpiglets = _NO_SEAT
        g.cancelled = ""
        g._undo = []
        if g.forced >= 0:
            g.phase = _DECLARATIONS
            g.turn = g.forced
        else:
            g.phase = _RESERVATIONS
            g.turn = g.leader
        return g

    @classmethod
    def deal(
        cls,
        rules: Rules,
        dealer: Seat,
        seed: int,
        *,
        mandatory_owed: Sequence[bool] = (False, False, False, False),
        forced_soloist: Seat | None = None,
    ) -> Game:
        """A game dealt from ``seed``: the same seed gives the same hands everywhere."""
        # The C base class of random.Random seeds an int the same way, without the
        # Python-level __init__ and seed() of random.Random.
        rng = _CRandom(seed) if type(seed) is int else random.Random(seed)
        deck = deck_from_bits(rng.getrandbits(256))
        bit = _BIT.__getitem__
        if not rules.nines:  # the same shuffle without the cards that are not in play
            in_play = rules.deck
            deck = [c for c in deck if in_play >> c & 1]
            n = rules.hand_size
            return cls._new(
                rules,
                dealer,
                sum(map(bit, deck[0:n])),
                sum(map(bit, deck[n : 2 * n])),
                sum(map(bit, deck[2 * n : 3 * n])),
                sum(map(bit, deck[3 * n : 4 * n])),
                mandatory_owed,
                forced_soloist,
            )
        return cls._new(
            rules,
            dealer,
            sum(map(bit, deck[0:12])),
            sum(map(bit, deck[12:24])),
            sum(map(bit, deck[24:36])),
            sum(map(bit, deck[36:48])),
            mandatory_owed,
            forced_soloist,
        )

    def redealt(self) -> Game:
        """A new game from this game's deal: the same rules, dealer, hands, mandatory solos
        owed and forced soloist, before the first reservation (to replay its log)."""
        return Game.from_hands(
            self.rules,
            self.dealer,
            list(self.start_hands),
            mandatory_owed=self.mandatory_owed,
            forced_soloist=self.forced if self.forced >= 0 else None,
        )

    def copy(self) -> Game:
        """An independent copy (without the undo history), cheap enough for search."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.dealer = self.dealer
        g.hands = self.hands[:]
        g.start_hands = self.start_hands
        g.phase = self.phase
        g.turn = self.turn
        g.mandatory_owed = self.mandatory_owed
        g.forced = self.forced
        g.reserved = self.reserved[:]
        g.declarations = self.declarations[:]
        g.best = self.best
        g.game_type = self.game_type
        g.solo = self.solo
        g.declarer = self.declarer
        g.mandatory = self.mandatory
        g.scheme = self.scheme
        g.re_seats = self.re_seats
        g.wedding_open = self.wedding_open
        g.wedding_trick = self.wedding_trick
        g.shift = self.shift
        g.level = self.level[:]
        g.closed = self.closed[:]
        g.calls = self.calls[:]
        g.leader = self.leader
        g.trick = self.trick[:]
        g.tricks = self.tricks[:]
        g.eyes = self.eyes[:]
        g.won = self.won[:]
        g.log = self.log[:]
        g.exchange = self.exchange
        g.piglets = self.piglets
        g.superpiglets = self.superpiglets
        g.cancelled = self.cancelled
        g._undo = []
        return g

    # ----------------------------------------------------------------- queries
    @property
    def first_hand(self) -> Seat:
        return (self.dealer + 1) % 4

    def party_of(self, seat: Seat) -> Party:
        """The party a seat belongs to (the truth, not what others know)."""
        return _RE if self.re_seats >> seat & 1 else _KONTRA

    def seats_of(self, party: Party) -> list[Seat]:
        return [s for s in range(4) if self.party_of(s) is party]

    @property
    def is_solo_scored(self) -> bool:
        """Scored as a solo: a solo, a silent wedding or a wedding without partner."""
        return self.re_seats.bit_count() == 1 and self.phase is not _RESERVATIONS

    @property
    def cards_left(self) -> int:
        return self.rules.deck_size - 4 * len(self.tricks) - len(self.trick)

    def is_mandatory_solo_of(self, seat: Seat) -> bool:
        return self.rules.tournament and self.mandatory_owed[seat]

    def legal_cards(self, seat: Seat | None = None) -> Mask:
        """Mask of the cards ``seat`` (default: the player to move) may play now."""
        if self.phase is not _PLAYING:
            return 0
        seat = self.turn if seat is None else seat
        if seat != self.turn:
            return 0
        hand = self.hands[seat]
        if not self.trick:
            return hand
        follow = hand & self.scheme.class_mask[self.scheme.cls[self.trick[0]]]
        return follow or hand

    def legal_actions(self) -> list[Action]:
        """The actions of the player to move: reservation, declaration or a card.

        Of two copies of a card in a hand only one is listed. Calls are not listed here
        (see :meth:`legal_calls`): they are not bound to the turn.
        """
        phase = self.phase
        if phase is _PLAYING:
            mask = self.hands[self.turn]
            trick = self.trick
            if trick:
                scheme = self.scheme
                mask = mask & scheme.class_mask[scheme.cls[trick[0]]] or mask
            return distinct_cards(mask)
        if phase is _RESERVATIONS:
            return [HEALTHY, RESERVATION]
        if phase is _DECLARATIONS:
            return declaration_actions(self.rules, self.hands[self.turn], self.forced >= 0)
        if phase is _EXCHANGE:
            assert self.exchange is not None
            return exchange_actions(self.exchange, self.turn, self.hands[self.turn])
        return []

    def legal_calls(self, seat: Seat) -> list[Action]:
        """The announcements ``seat`` may make now (skips included).

        The same answer as asking :meth:`call_problem` for every call, faster.
        """
        if self.phase is not _PLAYING or self.wedding_open:
            return []
        party = 0 if self.re_seats >> seat & 1 else 1
        if self.closed[party]:
            return []
        own = self.level[party]
        held = self.hands[seat].bit_count()
        last = self.rules.hand_size - 1 - self.shift  # call_deadline(level + 1)
        if held >= last - own:  # the next level in time: it and any skip
            return list(_CALLS_ABOVE[party][own])
        opp = self.level[1 - party]
        if own == 0 and opp >= 1 and held >= last - opp:
            return [CALL_RE if party == 0 else CALL_KONTRA]  # a reply
        return []

    def call_deadline(self, level: int) -> int:
        """Cards a player must still hold to make a call of ``level`` normally."""
        return self.rules.hand_size - level - self.shift

    def call_problem(self, seat: Seat, action: Action) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` may not make call ``action`` now, or ``None`` if it may."""
        if self.phase is not _PLAYING:
            return ("call_not_now", {})
        if self.wedding_open:
            return ("call_wedding_unclarified", {})
        party = self.party_of(seat)
        if action == CALL_RE and party is not _RE:
            return ("call_wrong_party", {"party": party.key})
        if action == CALL_KONTRA and party is not _KONTRA:
            return ("call_wrong_party", {"party": party.key})
        target = call_level(action)
        own = self.level[party]
        if self.closed[party]:
            return ("call_closed", {})
        if target <= own:
            return ("call_already_made", {})
        held = self.hands[seat].bit_count()
        need = self.call_deadline(own + 1)
        if held >= need:
            return None
        opp = self.level[1 - party]
        if target == 1 and opp >= 1 and held >= self.call_deadline(opp) - 1:
            return None  # a reply
        if target > 1 and own == 0:
            return ("call_needs_party_call", {"cards": need})
        return ("call_too_late", {"cards": need})

    # ----------------------------------------------------------------- checked play
    def play(self, seat: Seat, action: Action) -> None:
        """Apply ``action`` by ``seat`` after checking it; raise :class:`IllegalAction`.

        A card names its kind: of the two copies the seat plays the one it holds (an
        observation numbers copies its own way, see :mod:`dokobot.engine.observation`)."""
        action = self.held(seat, action)
        problem = self.problem(seat, action)
        if problem is not None:
            reason, params = problem
            raise IllegalAction(reason, _explain(reason, params, action), **params)
        self.push(seat, action)

    def held(self, seat: Seat, action: Action) -> Action:
        """``action``, a card as the copy of its kind that ``seat`` holds if it holds only
        the other one (both copies are the same card for the rules)."""
        if 0 <= action < HEALTHY and 0 <= seat < 4:
            hand = self.hands[seat]
            if not hand >> action & 1 and hand >> (action ^ 1) & 1:
                return action ^ 1
        return action

    def problem(self, seat: Seat, action: Action) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` may not do ``action`` now (a reason key and parameters), or None."""
        if not 0 <= seat < 4:
            return ("no_such_seat", {})
        phase = self.phase
        if phase is _FINISHED:
            return ("game_over", {})
        if CALL_RE <= action <= CALL_BLACK:
            return self.call_problem(seat, action)
        if seat != self.turn:
            return ("not_your_turn", {"turn": self.turn})
        if 0 <= action < HEALTHY and phase is _EXCHANGE:
            return self._exchange_problem(seat, action)
        if 0 <= action < HEALTHY:
            if phase is not _PLAYING:
                return ("not_playing_yet", {})
            if not self.hands[seat] >> action & 1:
                return ("card_not_in_hand", {"card": card_str(action)})
            if not self.legal_cards(seat) >> action & 1:
                led = self.scheme.cls[self.trick[0]]
                return ("must_follow", {"card": card_str(action), "led": led})
            return None
        if action in (HEALTHY, RESERVATION):
            if self.phase is not _RESERVATIONS:
                return ("not_reservation_round", {})
            return None
        if action in (DECLARE_WEDDING, DECLARE_POVERTY, THROW_IN) or is_solo(action):
            if self.phase is not _DECLARATIONS:
                return ("not_declaration_round", {})
            if is_solo(action):
                return None
            if self.forced >= 0:
                return ("forced_solo_only", {})
            if action in declaration_actions(self.rules, self.hands[seat], False):
                return None
            if action == DECLARE_WEDDING:
                return ("wedding_needs_club_queens", {})
            if action == DECLARE_POVERTY:
                if not self.rules.poverty:
                    return ("house_rule_off", {"rule": "poverty"})
                return ("poverty_too_many_trumps", {"trumps": POVERTY_MAX_TRUMPS})
            if not self.rules.throw_in:
                return ("house_rule_off", {"rule": "throw_in"})
            if not self.rules.nines:  # no nines in the deck: kings only
                return ("throw_in_needs_kings", {"cards": THROW_IN_MIN})
            return ("throw_in_needs_cards", {"cards": THROW_IN_MIN})
        if action in (TAKE, DECLINE):
            if (
                phase is not _EXCHANGE
                or self.exchange is None
                or self.exchange.taker >= 0
                or (seat == self.exchange.poor)
            ):
                return ("not_asked_poverty", {})
            return None
        return ("no_such_action", {})

    def _exchange_problem(self, seat: Seat, card: Card) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` (to move) may not give ``card`` now in a poverty's exchange."""
        ex = self.exchange
        assert ex is not None
        if ex.taker < 0 and seat != ex.poor:
            return ("poverty_take_or_decline", {})
        if not self.hands[seat] >> card & 1:
            return ("card_not_in_hand", {"card": card_str(card)})
        if not any(c >> 1 == card >> 1 for c in self.legal_actions()):
            return ("poverty_trumps_first", {"card": card_str(card)})
        return None

    # ----------------------------------------------------------------- unchecked play
    def push(self, seat: Seat, action: Action) -> None:
        """Apply a legal action without checks (search). Undo with :meth:`pop`."""
        if 0 <= action < HEALTHY and self.phase is _PLAYING:
            self._push_card(seat, action)
            return
        if action <= RESERVATION and action >= HEALTHY:
            if (seat + 1) & 3 != (self.dealer + 1) & 3:
                # Not the last word of the reservation round: only it and the turn change.
                self._undo.append((_UNDO_WORD, seat, self.reserved[seat], self.turn))
                self.log.append((seat, action))
                self.reserved[seat] = int(action == RESERVATION)
                self.turn = (seat + 1) & 3
                return
            # The last word starts the play or the declaration round; _reserve changes
            # no more than these fields then.
            self._undo.append(
                (
                    _UNDO_LAST_WORD,
                    seat,
                    self.reserved[seat],
                    self.turn,
                    self.phase,
                    self.game_type,
                    self.declarer,
                    self.re_seats,
                    self.scheme,
                    self.piglets,
                    self.superpiglets,
                )
            )
            self.log.append((seat, action))
            self._reserve(seat, action == RESERVATION)
            return
        if CALL_RE <= action <= CALL_BLACK:
            # a call changes only the calls, the level and "closed" of the caller's party
            party = 0 if self.re_seats >> seat & 1 else 1
            self._undo.append((_UNDO_CALL, party, self.level[party], self.closed[party]))
            self.log.append((seat, action))
            self._call(seat, action)
            return
        self._undo.append(self._snapshot())
        self.log.append((seat, action))
        if self.phase is _EXCHANGE:
            self._exchange(seat, action)
            return
        self._declare(seat, action)

    def pop(self) -> tuple[Seat, Action]:
        """Undo the last :meth:`push`; return what it was."""
        record = self._undo.pop()
        if record[0] == _UNDO_CARD:
            _, seat, card, extra = record
            self.log.pop()
            if extra is not None:
                (
                    winner,
                    pts,
                    self.leader,
                    self.phase,
                    self.re_seats,
                    self.wedding_open,
                    self.wedding_trick,
                    self.shift,
                ) = extra
                _leader, cards, _ = self.tricks.pop()
                self.trick = list(cards)
                self.eyes[winner] -= pts
                self.won[winner] -= 1
            self.trick.pop()
            self.hands[seat] |= 1 << card
            self.turn = seat
            return seat, card
        if record[0] == _UNDO_WORD:
            _, seat, self.reserved[seat], self.turn = record
            return self.log.pop()
        if record[0] == _UNDO_CALL:
            _, party, self.level[party], self.closed[party] = record
            self.calls.pop()
            return self.log.pop()
        if record[0] == _UNDO_LAST_WORD:
            (
                _,
                seat,
                self.reserved[seat],
                self.turn,
                self.phase,
                self.game_type,
                self.declarer,
                self.re_seats,
                self.scheme,
                self.piglets,
                self.superpiglets,
            ) = record
            return self.log.pop()
        self._restore(record)
        return self.log.pop()

    def _push_card(self, seat: Seat, card: Card) -> None:
        self.hands[seat] &= ~(1 << card)
        trick = self.trick
        trick.append(card)
        self.log.append((seat, card))
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            self._undo.append((_UNDO_CARD, seat, card, None))
            return
        before = (
            self.leader,
            self.phase,
            self.re_seats,
            self.wedding_open,
            self.wedding_trick,
            self.shift,
        )
        winner = self.close_trick()
        pts = POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]]
        self._undo.append((_UNDO_CARD, seat, card, (winner, pts, *before)))

    def close_trick(self) -> Seat:
        """Credit the complete trick in :attr:`trick` (four cards from :attr:`leader`) to its
        winner, settle the wedding's clarification and end the game after the twelfth
        trick; no undo record (fast playouts use it directly). Returns the winner."""
        scheme = self.scheme
        c0, c1, c2, c3 = self.trick
        # A later card takes the trick iff its rank is higher; with the option, a later
        # trump ♥10 takes it from the first one too (RULES §12.7; not in the last trick
        # with ``second_except_last``).
        rank = scheme.rank[scheme.cls[c0]]
        rules = self.rules
        h10, h10_last = rules.heart10_ranks(scheme.heart10)
        if len(self.tricks) == rules.hand_size - 1:
            h10 = h10_last
        best = 0
        top = rank[c0]
        r = rank[c1]
        if r > top or r == top == h10:
            best, top = 1, r
        r = rank[c2]
        if r > top or r == top == h10:
            best, top = 2, r
        r = rank[c3]
        if r > top or r == top == h10:
            best = 3
        winner = (self.leader + best) & 3
        self.eyes[winner] += POINTS[c0] + POINTS[c1] + POINTS[c2] + POINTS[c3]
        self.won[winner] += 1
        self.tricks.append((self.leader, (c0, c1, c2, c3), winner))
        self.trick = []
        self.leader = winner
        self.turn = winner
        n = len(self.tricks)
        if self.wedding_open:
            if winner != self.declarer and self._clarifies(c0):
                self.re_seats |= 1 << winner
                self.wedding_open = False
                self.wedding_trick = n
                self.shift = n - 1
            elif n == 3:
                self.wedding_open = False
                self.wedding_trick = 0
                self.shift = 2
        if n == self.rules.hand_size:
            self.phase = _FINISHED
        return winner

    def _clarifies(self, led: Card) -> bool:
        """Whether a trick led with ``led`` may clarify the wedding (RULES §12.6)."""
        kind = self.rules.wedding_trick
        if kind == "first":
            return True
        return (self.scheme.cls[led] == TRUMP) == (kind == "trump")

    def _reserve(self, seat: Seat, reservation: bool) -> None:
        self.reserved[seat] = int(reservation)
        nxt = (seat + 1) & 3
        if nxt != (self.dealer + 1) & 3:
            self.turn = nxt
            return
        if 1 not in self.reserved:
            self._start_without_reservation()
            return
        self.phase = _DECLARATIONS
        self.turn = self.first_hand
        self._advance_declarations()

    def _could_outrank(self, seat: Seat) -> bool:
        best = self.best
        if best < 0 or self.declarations[best] in (DECLARE_WEDDING, DECLARE_POVERTY):
            return True
        if may_throw_in(self.rules, self.hands[seat]):
            return True  # a throw-in beats every other reservation
        if not self.rules.tournament or self.is_mandatory_solo_of(best):
            return False
        return self.is_mandatory_solo_of(seat)

    def _advance_declarations(self) -> None:
        """Move the turn to the next player who must declare, or settle the game."""
        seat = self.turn
        for _ in range(4):
            if (
                self.reserved[seat] == 1
                and self.declarations[seat] < 0
                and self._could_outrank(seat)
            ):
                self.turn = seat
                return
            seat = (seat + 1) & 3
            if seat == self.first_hand:
                break
        self._settle(self.best)

    def _declare(self, seat: Seat, action: Action) -> None:
        self.declarations[seat] = action
        if self.forced >= 0:
            self._settle(seat)
            return
        if action == THROW_IN:  # beats every other reservation: the game ends unplayed
            self.declarer = seat
            self.cancelled = "thrown"
            self.phase = _FINISHED
            return
        best = self.best
        if action == DECLARE_WEDDING:
            if best < 0:
                self.best = seat
        elif action == DECLARE_POVERTY:  # beats a wedding; the first poverty stays
            if best < 0 or self.declarations[best] == DECLARE_WEDDING:
                self.best = seat
        elif (
            best < 0
            or self.declarations[best] in (DECLARE_WEDDING, DECLARE_POVERTY)
            or (
                self.rules.tournament
                and not self.is_mandatory_solo_of(best)
                and self.is_mandatory_solo_of(seat)
            )
        ):
            self.best = seat
        nxt = (seat + 1) & 3
        if nxt == self.first_hand:
            self._settle(self.best)
            return
        self.turn = nxt
        self._advance_declarations()

    def _settle(self, seat: Seat) -> None:
        action = self.declarations[seat]
        self.declarer = seat
        self.re_seats = 1 << seat
        self.phase = _PLAYING
        self.leader = self.first_hand
        if action == DECLARE_WEDDING:
            self.game_type = _WEDDING
            self.wedding_open = True
        elif action == DECLARE_POVERTY:
            self.game_type = _POVERTY
            self.phase = _EXCHANGE
            self.exchange = Exchange(seat)
            self.turn = seat
            trumps = self.hands[seat] & _NORMAL_TRUMPS
            if trumps.bit_count() == POVERTY_CARDS:  # exactly 3 trumps: they go at once
                self._give(seat, trumps)
            return
        else:
            self.game_type = _SOLO
            self.solo = _SOLOS[action - DECLARE_SOLO]
            self.scheme = SCHEMES[int(self.solo)]
            self.mandatory = self.forced >= 0 or self.is_mandatory_solo_of(seat)
            if self.mandatory or self.rules.lust_solo_leads:
                self.leader = seat
        self.turn = self.leader
        self._find_piglets()

    def _find_piglets(self) -> None:
        """At the start of the card play: a player holding both ♦A in a game with the
        normal trumps has piglets (RULES §12.3); then a player holding both trump nines
        has superpiglets above them (RULES §12.8)."""
        if not self.rules.piglets or self.scheme is not SCHEMES[NORMAL_SCHEME]:
            return
        for seat, hand in enumerate(self.hands):
            if hand & DIAMOND_ACES == DIAMOND_ACES:
                self.piglets = seat
                self.scheme = SCHEMES[PIGLETS_SCHEME]
        nines = self.rules.trump_nines
        if self.piglets < 0 or not nines:
            return
        for seat, hand in enumerate(self.hands):
            if hand & nines == nines:
                self.superpiglets = seat
                self.scheme = SCHEMES[
                    SUPERPIGLETS_SCHEME if self.rules.nines else SUPERPIGLETS_NO_NINES_SCHEME
                ]

    # ----------------------------------------------------------------- poverty
    def _give(self, seat: Seat, cards: Mask) -> None:
        """``seat`` gives ``cards`` in the exchange (the poor player first, then the taker)."""
        ex = self.exchange
        assert ex is not None
        self.hands[seat] &= ~cards
        if ex.taker < 0:
            ex = replace(ex, passed=ex.passed | cards)
            self.exchange = ex
            if ex.passed.bit_count() == POVERTY_CARDS:
                self.turn = (ex.poor + 1) & 3
            return
        ex = replace(ex, returned=ex.returned | cards)
        if ex.returned.bit_count() < POVERTY_CARDS:
            self.exchange = ex
            return
        self.hands[ex.poor] |= ex.returned
        self.exchange = replace(ex, trumps_back=(ex.returned & _NORMAL_TRUMPS).bit_count())
        self.re_seats = 1 << ex.poor | 1 << ex.taker
        self.phase = _PLAYING
        self.leader = self.turn = self.first_hand
        self._find_piglets()

    def _exchange(self, seat: Seat, action: Action) -> None:
        ex = self.exchange
        assert ex is not None
        if action == TAKE:
            self.exchange = replace(ex, taker=seat)
            self.hands[seat] |= ex.passed
            return
        if action == DECLINE:
            self.exchange = replace(ex, declined=ex.declined | 1 << seat)
            nxt = (seat + 1) & 3
            if nxt == ex.poor:  # nobody takes: the same dealer deals again
                self.cancelled = "poverty"
                self.phase = _FINISHED
            else:
                self.turn = nxt
            return
        self._give(seat, 1 << action)

    def _start_without_reservation(self) -> None:
        self.phase = _PLAYING
        re_seats = 0
        for seat, hand in enumerate(self.hands):
            queens = hand & CLUB_QUEENS
            if queens == CLUB_QUEENS:
                self.game_type = _SILENT_WEDDING
                self.declarer = seat
                re_seats = 1 << seat
                break
            if queens:
                re_seats |= 1 << seat
        self.re_seats = re_seats
        self.turn = self.leader
        if self.rules.piglets:
            self._find_piglets()

    def _call(self, seat: Seat, action: Action) -> None:
        party = 0 if self.re_seats >> seat & 1 else 1
        self.calls.append((seat, action))
        level = 1 if action <= CALL_KONTRA else action - CALL_KONTRA + 1  # call_level()
        if level == 1 and self.hands[seat].bit_count() < self.rules.hand_size - 1 - self.shift:
            self.closed[party] = True  # a late reply (re/kontra deadline missed) closes
        self.level[party] = level

    # ----------------------------------------------------------------- snapshots
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            _UNDO_SNAPSHOT,
            self.phase,
            self.turn,
            self.reserved[:],
            self.declarations[:],
            self.best,
            self.game_type,
            self.solo,
            self.declarer,
            self.mandatory,
            self.scheme,
            self.re_seats,
            self.wedding_open,
            self.shift,
            self.level[:],
            self.closed[:],
            self.calls[:],
            self.leader,
            self.hands[:],
            self.exchange,
            self.piglets,
            self.superpiglets,
            self.cancelled,
        )

    def _restore(self, s: tuple[Any, ...]) -> None:
        (
            _,
            self.phase,
            self.turn,
            self.reserved,
            self.declarations,
            self.best,
            self.game_type,
            self.solo,
            self.declarer,
            self.mandatory,
            self.scheme,
            self.re_seats,
            self.wedding_open,
            self.shift,
            self.level,
            self.closed,
            self.calls,
            self.leader,
            self.hands,
            self.exchange,
            self.piglets,
            self.superpiglets,
            self.cancelled,
        ) = s

    # ----------------------------------------------------------------- fast playout
    # The rest of the card play at random, unrolled (the rollouts' fast path); the function
    # itself is the method, so a call costs no extra frame.
    playout = _playout

    def __repr__(self) -> str:
        return (
            f"<Game {self.phase.name} {self.game_type.key} turn={self.turn} "
            f"tricks={len(self.tricks)} calls={[action_name(a) for _, a in self.calls]}>"
        )


def _explain(reason: str, params: dict[str, Any], action: Action) -> str:
    text = {
        "not_your_turn": "it is not your turn",
        "game_over": "the game is over",
        "not_playing_yet": "the card play has not started",
        "card_not_in_hand": "you do not hold that card",
        "must_follow": "you must follow suit",
        "not_reservation_round": "the reservation round is over",
        "not_declaration_round": "nobody is asked to declare now",
        "forced_solo_only": "a forced solo must be a solo",
        "wedding_needs_club_queens": "a wedding needs both ♣Q",
        "call_not_now": "calls are made during the card play",
        "call_wedding_unclarified": "no call before the wedding is clarified",
        "call_wrong_party": "that call belongs to the other party",
        "call_closed": "your party may not call any more",
        "call_already_made": "your party has made that call already",
        "call_needs_party_call": "that call needs re/kontra first, and it is too late for it",
        "call_too_late": "too late for that call",
        "no_such_action": "no such action",
        "no_such_seat": "no such seat",
        "house_rule_off": "that house rule is off",
        "poverty_too_many_trumps": "a poverty allows at most 3 trumps",
        "throw_in_needs_cards": "throwing in needs 5 nines or 5 kings",
        "throw_in_needs_kings": "throwing in without nines needs 5 kings",
        "not_asked_poverty": "nobody asks you to take a poverty now",
        "poverty_take_or_decline": "take or decline the poverty",
        "poverty_trumps_first": "all trumps must be passed",
    }.get(reason, reason)
    return f"{action_name(action) if 0 <= action < N_ACTIONS else action}: {text}"
