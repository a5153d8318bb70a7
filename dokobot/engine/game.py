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
from collections.abc import Iterable, Sequence
from typing import Any, Final

from .cards import CLUB_QUEENS, HEART_TENS, POINTS, Card, Mask, card_str, mask_of
from .errors import IllegalAction
from .order import NORMAL_SCHEME, SCHEMES, TRUMP, Scheme
from .rules import DEFAULT_RULES, Rules
from .types import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    GameType,
    Party,
    Phase,
    Seat,
    Solo,
    action_name,
    call_level,
    is_call,
    is_card,
)

__all__ = ["DEFAULT_RULES", "Game", "Trick", "hands_from_kinds", "shuffled_deck"]

Trick = tuple[Seat, tuple[Card, ...], Seat]
"""A finished trick: (leader, cards in play order, winner)."""

_NO_SEAT: Final = -1


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A uniformly shuffled deck from ``rng``, the same on every platform.

    One 256-bit draw, decoded as a mixed-radix number (48! < 2**204, so the bias is
    below 2**-52).

    >>> shuffled_deck(random.Random(1))[:6]
    [12, 36, 16, 41, 39, 4]
    """
    deck = list(range(48))
    x = rng.getrandbits(256)
    for i in range(47, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class Game:
    """One game of Doppelkopf, from the deal to the last trick."""

    __slots__ = (
        "_undo",
        "best",
        "calls",
        "closed",
        "dealer",
        "declarations",
        "declarer",
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
        "re_seats",
        "reserved",
        "rules",
        "scheme",
        "shift",
        "solo",
        "start_hands",
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
        """A game with the given hands (masks of 12 cards, the 48 cards once each).

        ``mandatory_owed[s]``: in tournament mode, a solo of seat ``s`` would be his
        mandatory solo. ``forced_soloist``: a forced solo (Vorführung); that seat names the
        solo type at once, there is no reservation round.
        """
        if len(hands) != 4 or any(h.bit_count() != 12 for h in hands):
            raise ValueError("every player needs 12 cards")
        if hands[0] | hands[1] | hands[2] | hands[3] != (1 << 48) - 1:
            raise ValueError("the hands must hold the 48 cards once each")
        g = cls.__new__(cls)
        g.rules = rules
        g.dealer = dealer % 4
        g.hands = list(hands)
        g.start_hands = tuple(hands)
        g.mandatory_owed = tuple(bool(x) for x in mandatory_owed)
        g.forced = _NO_SEAT if forced_soloist is None else forced_soloist
        g.reserved = [-1, -1, -1, -1]
        g.declarations = [-1, -1, -1, -1]
        g.best = _NO_SEAT
        g.game_type = GameType.NORMAL
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
        g._undo = []
        if g.forced >= 0:
            g.phase = Phase.DECLARATIONS
            g.turn = g.forced
        else:
            g.phase = Phase.RESERVATIONS
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
        deck = shuffled_deck(random.Random(seed))
        hands = [mask_of(deck[12 * i : 12 * i + 12]) for i in range(4)]
        return cls.from_hands(
            rules, dealer, hands, mandatory_owed=mandatory_owed, forced_soloist=forced_soloist
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
        g._undo = []
        return g

    # ----------------------------------------------------------------- queries
    @property
    def first_hand(self) -> Seat:
        return (self.dealer + 1) % 4

    def party_of(self, seat: Seat) -> Party:
        """The party a seat belongs to (the truth, not what others know)."""
        return Party.RE if self.re_seats >> seat & 1 else Party.KONTRA

    def seats_of(self, party: Party) -> list[Seat]:
        return [s for s in range(4) if self.party_of(s) is party]

    @property
    def is_solo_scored(self) -> bool:
        """Scored as a solo: a solo, a silent wedding or a wedding without partner."""
        return self.re_seats.bit_count() == 1 and self.phase is not Phase.RESERVATIONS

    @property
    def cards_left(self) -> int:
        return 48 - 4 * len(self.tricks) - len(self.trick)

    def is_mandatory_solo_of(self, seat: Seat) -> bool:
        return self.rules.tournament and self.mandatory_owed[seat]

    def legal_cards(self, seat: Seat | None = None) -> Mask:
        """Mask of the cards ``seat`` (default: the player to move) may play now."""
        if self.phase is not Phase.PLAYING:
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
        if self.phase is Phase.PLAYING:
            mask = self.legal_cards()
            out: list[Action] = []
            while mask:
                low = mask & -mask
                card = low.bit_length() - 1
                out.append(card)
                mask ^= low
                if not card & 1:
                    mask &= ~(1 << (card + 1))
            return out
        if self.phase is Phase.RESERVATIONS:
            return [HEALTHY, RESERVATION]
        if self.phase is Phase.DECLARATIONS:
            solos = [DECLARE_SOLO + s for s in Solo]
            if self.forced < 0 and self.hands[self.turn] & CLUB_QUEENS == CLUB_QUEENS:
                return [DECLARE_WEDDING, *solos]
            return solos
        return []

    def legal_calls(self, seat: Seat) -> list[Action]:
        """The announcements ``seat`` may make now (skips included).

        The same answer as asking :meth:`call_problem` for every call, faster.
        """
        if self.phase is not Phase.PLAYING or self.wedding_open:
            return []
        party = 0 if self.re_seats >> seat & 1 else 1
        if self.closed[party]:
            return []
        own = self.level[party]
        held = self.hands[seat].bit_count()
        if held >= 11 - own - self.shift:
            levels = range(own + 1, 6)
        elif own == 0 and self.level[1 - party] >= 1 and held >= 11 - self.level[1 - party] - self.shift:
            levels = range(1, 2)
        else:
            return []
        party_call = CALL_RE if party == 0 else CALL_KONTRA
        return [party_call if lv == 1 else CALL_KONTRA + lv - 1 for lv in levels]

    def call_deadline(self, level: int) -> int:
        """Cards a player must still hold to make a call of ``level`` normally."""
        return 12 - level - self.shift

    def call_problem(self, seat: Seat, action: Action) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` may not make call ``action`` now, or ``None`` if it may."""
        if self.phase is not Phase.PLAYING:
            return ("call_not_now", {})
        if self.wedding_open:
            return ("call_wedding_unclarified", {})
        party = self.party_of(seat)
        if action == CALL_RE and party is not Party.RE:
            return ("call_wrong_party", {"party": party.key})
        if action == CALL_KONTRA and party is not Party.KONTRA:
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
        """Apply ``action`` by ``seat`` after checking it; raise :class:`IllegalAction`."""
        problem = self.problem(seat, action)
        if problem is not None:
            reason, params = problem
            raise IllegalAction(reason, _explain(reason, params, action), **params)
        self.push(seat, action)

    def problem(self, seat: Seat, action: Action) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` may not do ``action`` now (a reason key and parameters), or None."""
        if not 0 <= seat < 4:
            return ("no_such_seat", {})
        if self.phase is Phase.FINISHED:
            return ("game_over", {})
        if is_call(action):
            return self.call_problem(seat, action)
        if seat != self.turn:
            return ("not_your_turn", {"turn": self.turn})
        if is_card(action):
            if self.phase is not Phase.PLAYING:
                return ("not_playing_yet", {})
            if not self.hands[seat] >> action & 1:
                return ("card_not_in_hand", {"card": card_str(action)})
            if not self.legal_cards(seat) >> action & 1:
                led = self.scheme.cls[self.trick[0]]
                return ("must_follow", {"card": card_str(action), "led": led})
            return None
        if action in (HEALTHY, RESERVATION):
            if self.phase is not Phase.RESERVATIONS:
                return ("not_reservation_round", {})
            return None
        if action == DECLARE_WEDDING or DECLARE_SOLO <= action < DECLARE_SOLO + 7:
            if self.phase is not Phase.DECLARATIONS:
                return ("not_declaration_round", {})
            if action == DECLARE_WEDDING:
                if self.forced >= 0:
                    return ("forced_solo_only", {})
                if self.hands[seat] & CLUB_QUEENS != CLUB_QUEENS:
                    return ("wedding_needs_club_queens", {})
            return None
        return ("no_such_action", {})

    # ----------------------------------------------------------------- unchecked play
    def push(self, seat: Seat, action: Action) -> None:
        """Apply a legal action without checks (search). Undo with :meth:`pop`."""
        if 0 <= action < 48:
            self._push_card(seat, action)
            return
        self._undo.append(self._snapshot())
        self.log.append((seat, action))
        if action >= CALL_RE:
            self._call(seat, action)
        elif action <= RESERVATION:
            self._reserve(seat, action == RESERVATION)
        else:
            self._declare(seat, action)

    def pop(self) -> tuple[Seat, Action]:
        """Undo the last :meth:`push`; return what it was."""
        record = self._undo.pop()
        if record[0] == 0:
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
        self._restore(record)
        return self.log.pop()

    def _push_card(self, seat: Seat, card: Card) -> None:
        self.hands[seat] &= ~(1 << card)
        trick = self.trick
        trick.append(card)
        self.log.append((seat, card))
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            self._undo.append((0, seat, card, None))
            return
        scheme = self.scheme
        cls = scheme.cls
        key = scheme.key
        best = 0
        top = trick[0]
        for i in (1, 2, 3):
            c = trick[i]
            if ((cls[c] == cls[top] or cls[c] == TRUMP) and key[c] > key[top]) or (
                self.rules.second_heart10_wins
                and c >> 1 == top >> 1
                and (1 << c) & HEART_TENS
                and cls[c] == TRUMP
            ):
                best, top = i, c
        winner = (self.leader + best) & 3
        pts = POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]]
        self._undo.append(
            (
                0,
                seat,
                card,
                (
                    winner,
                    pts,
                    self.leader,
                    self.phase,
                    self.re_seats,
                    self.wedding_open,
                    self.wedding_trick,
                    self.shift,
                ),
            )
        )
        self.eyes[winner] += pts
        self.won[winner] += 1
        self.tricks.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.leader = winner
        self.turn = winner
        n = len(self.tricks)
        if self.wedding_open:
            if winner != self.declarer:
                self.re_seats |= 1 << winner
                self.wedding_open = False
                self.wedding_trick = n
                self.shift = n - 1
            elif n == 3:
                self.wedding_open = False
                self.wedding_trick = 0
                self.shift = 2
        if n == 12:
            self.phase = Phase.FINISHED

    def _reserve(self, seat: Seat, reservation: bool) -> None:
        self.reserved[seat] = int(reservation)
        nxt = (seat + 1) & 3
        if nxt != self.first_hand:
            self.turn = nxt
            return
        if not any(r == 1 for r in self.reserved):
            self._start_without_reservation()
            return
        self.phase = Phase.DECLARATIONS
        self.turn = self.first_hand
        self._advance_declarations()

    def _could_outrank(self, seat: Seat) -> bool:
        best = self.best
        if best < 0 or self.declarations[best] == DECLARE_WEDDING:
            return True
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
        best = self.best
        if action == DECLARE_WEDDING:
            if best < 0:
                self.best = seat
        elif (
            best < 0
            or self.declarations[best] == DECLARE_WEDDING
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
        self.phase = Phase.PLAYING
        self.leader = self.first_hand
        if action == DECLARE_WEDDING:
            self.game_type = GameType.WEDDING
            self.wedding_open = True
        else:
            self.game_type = GameType.SOLO
            self.solo = Solo(action - DECLARE_SOLO)
            self.scheme = SCHEMES[int(self.solo)]
            self.mandatory = self.forced >= 0 or self.is_mandatory_solo_of(seat)
            if self.mandatory or self.rules.lust_solo_leads:
                self.leader = seat
        self.turn = self.leader

    def _start_without_reservation(self) -> None:
        self.phase = Phase.PLAYING
        for seat in range(4):
            if self.hands[seat] & CLUB_QUEENS == CLUB_QUEENS:
                self.game_type = GameType.SILENT_WEDDING
                self.declarer = seat
                self.re_seats = 1 << seat
                break
        else:
            self.re_seats = sum(1 << s for s in range(4) if self.hands[s] & CLUB_QUEENS)
        self.turn = self.leader

    def _call(self, seat: Seat, action: Action) -> None:
        party = self.party_of(seat)
        held = self.hands[seat].bit_count()
        self.calls.append((seat, action))
        if call_level(action) == 1 and held < self.call_deadline(1):
            self.closed[party] = True  # a late reply ends the party's calls
        self.level[party] = call_level(action)

    # ----------------------------------------------------------------- snapshots
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            1,
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
        ) = s

    # ----------------------------------------------------------------- fast playout
    def playout(self, rng: random.Random) -> None:
        """Play the rest of the game with uniformly random legal cards (no calls).

        The fast path of rollouts: no undo records, no log entries.
        """
        if self.phase is not Phase.PLAYING:
            raise ValueError("playout needs the card play phase")
        scheme = self.scheme
        cls = scheme.cls
        key = scheme.key
        class_mask = scheme.class_mask
        hands = self.hands
        eyes = self.eyes
        won = self.won
        rand = rng.random
        trick = self.trick
        leader = self.leader
        second_h10 = self.rules.second_heart10_wins
        while True:
            seat = (leader + len(trick)) & 3
            while len(trick) < 4:
                hand = hands[seat]
                if trick:
                    m = hand & class_mask[cls[trick[0]]]
                    if not m:
                        m = hand
                else:
                    m = hand
                k = int(rand() * m.bit_count())
                while k:
                    m &= m - 1
                    k -= 1
                low = m & -m
                card = low.bit_length() - 1
                hands[seat] = hand ^ low
                trick.append(card)
                seat = (seat + 1) & 3
            best = 0
            top = trick[0]
            for i in (1, 2, 3):
                c = trick[i]
                if ((cls[c] == cls[top] or cls[c] == TRUMP) and key[c] > key[top]) or (
                    second_h10
                    and c >> 1 == top >> 1
                    and (1 << c) & HEART_TENS
                    and cls[c] == TRUMP
                ):
                    best, top = i, c
            winner = (leader + best) & 3
            eyes[winner] += (
                POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]]
            )
            won[winner] += 1
            self.tricks.append((leader, tuple(trick), winner))
            trick = []
            leader = winner
            n = len(self.tricks)
            if self.wedding_open:
                if winner != self.declarer:
                    self.re_seats |= 1 << winner
                    self.wedding_open = False
                    self.wedding_trick = n
                    self.shift = n - 1
                elif n == 3:
                    self.wedding_open = False
                    self.shift = 2
            if n == 12:
                break
        self.trick = trick
        self.leader = leader
        self.turn = leader
        self.phase = Phase.FINISHED

    def __repr__(self) -> str:
        return (
            f"<Game {self.phase.name} {self.game_type.key} turn={self.turn} "
            f"tricks={len(self.tricks)} calls={[action_name(a) for _, a in self.calls]}>"
        )


def hands_from_kinds(kinds: Iterable[Iterable[int]]) -> list[Mask]:
    """Hands from lists of card kinds (0..23); the two copies of a kind are told apart
    in the order they appear.

    >>> [h.bit_count() for h in hands_from_kinds([[0, 0], [1]])]
    [2, 1]
    """
    used = 0
    hands: list[Mask] = []
    for hand_kinds in kinds:
        hand = 0
        for kind in hand_kinds:
            card = kind * 2
            if used >> card & 1:
                card += 1
            if used >> card & 1:
                raise ValueError(f"{card_str(card)} is dealt more than twice")
            used |= 1 << card
            hand |= 1 << card
        hands.append(hand)
    return hands


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
    }.get(reason, reason)
    return f"{action_name(action) if 0 <= action < 64 else action}: {text}"
