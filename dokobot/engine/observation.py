"""What one player may know, and worlds consistent with it (for search).

An :class:`Observation` holds only public facts and the player's own hand: the
reservations said (healthy / reservation), the game that is played as far as it is
announced, every played card, every call, and the parties as far as they are revealed.
:meth:`Observation.sample_hands` deals the unseen cards to the other players so that every
known fact holds (voids shown by play, ♣Q played or announced), and :meth:`Observation.world`
turns such a deal into a full :class:`~dokobot.engine.game.Game` at the same point of play.

The two copies of a card are the same card for the rules, and which copy a player holds
tells him nothing: it depends on where the other copy is. So an observation numbers the
copies canonically, from what the player saw alone: of each kind, the copy played first is
copy 0; of a kind nobody played, a single copy in the player's hand is copy 0, then a single
copy the player knows from a poverty's exchange. Two deals alike in everything a player may
see give him the same observation (and so the same computer player's choice, hint and
review); a card chosen on it is played as the copy the player holds (:meth:`Game.play`).

>>> import random
>>> from dokobot.engine.game import Game
>>> from dokobot.engine.types import HEALTHY
>>> g = Game.deal(DEFAULT_RULES, 3, seed=11)
>>> for s in range(4):
...     g.play(s, HEALTHY)
>>> obs = observe(g, 2)
>>> hands = obs.sample_hands(random.Random(0))
>>> hands[2] == obs.hand, sum(h.bit_count() for h in hands)
(True, 48)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Final, NamedTuple

from .cards import CLUB_QUEENS, DIAMOND_ACES, FULL_DECK, Card, Mask, cards_of
from .game import Exchange, Game, Trick
from .order import (
    NORMAL_SCHEME,
    PIGLETS_SCHEME,
    SCHEMES,
    SUPERPIGLETS_NO_NINES_SCHEME,
    SUPERPIGLETS_SCHEME,
    TRUMP,
    Scheme,
)
from .rules import DEFAULT_RULES, Rules
from .types import Action, GameType, Party, Phase, Seat, Solo

_PIGLET_FAMILY = (NORMAL_SCHEME, PIGLETS_SCHEME, SUPERPIGLETS_SCHEME, SUPERPIGLETS_NO_NINES_SCHEME)
"""The orders of a game with the normal trumps, with or without (super)piglets."""

__all__ = [
    "DEFAULT_RULES",
    "Observation",
    "observe",
    "public_parties",
]


class HandConstraints(NamedTuple):
    """What the seats may hold, as one player knows it (:meth:`Observation.constraints`)."""

    allowed: list[Mask]
    """Per seat the cards it may hold by what it showed (voids, a known Kontra player's
    missing ♣Q, piglets and superpiglets, a poor player without trumps); 0 for the
    observer's own seat. The cards known to be with another seat are still in it."""
    known: list[Mask]
    """Per seat the cards known to be with it (the observer's own: none here)."""
    must_club_queen: int
    """Bit per seat: a revealed Re player who has not played a ♣Q holds one."""
    poor_trumps: int
    """The poor player's known count of trumps (-1: unknown)."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One player's view of a game."""

    seat: Seat
    rules: Rules
    dealer: Seat
    phase: Phase
    turn: Seat
    hand: Mask = field(repr=False)
    """The player's own cards (never in a repr, which may reach a log)."""
    hand_sizes: tuple[int, int, int, int]
    reserved: tuple[int, int, int, int]
    """-1 not yet said, 0 healthy, 1 reservation."""
    game_type: GameType
    """As the player knows it: others see a silent wedding as a normal game."""
    solo: Solo | None
    declarer: Seat
    mandatory: bool
    wedding_open: bool
    shift: int
    tricks: tuple[Trick, ...]
    trick: tuple[int, ...]
    leader: Seat
    calls: tuple[tuple[Seat, Action], ...]
    level: tuple[int, int]
    closed: tuple[bool, bool]
    parties: tuple[Party | None, Party | None, Party | None, Party | None]
    """Each seat's party as far as this player knows it."""
    voids: tuple[int, int, int, int]
    """Per seat a bit set of classes (suit 0..3, trump 4) the seat has shown it lacks."""
    eyes: tuple[int, int, int, int]
    won: tuple[int, int, int, int]
    mandatory_owed: tuple[bool, bool, bool, bool]
    forced: Seat
    scheme: Scheme = SCHEMES[NORMAL_SCHEME]
    """The trump order as this player knows it (the engine's answer: piglets only once
    they are his or public)."""
    piglets: Seat = -1
    """The seat with piglets, if this player knows it."""
    superpiglets: Seat = -1
    """The seat with superpiglets, if this player knows it (his own count only once he
    knows that somebody has piglets)."""
    exchange: Exchange | None = None
    """A poverty's exchange; the cards only for the poor player and the taker."""
    cancelled: str = ""

    @property
    def played(self) -> Mask:
        m = 0
        for _, cards, _ in self.tricks:
            for c in cards:
                m |= 1 << c
        for c in self.trick:
            m |= 1 << c
        return m

    def plays(self) -> list[tuple[Seat, Card]]:
        """Every card played so far, in order, with the seat that played it."""
        out = [
            ((leader + i) & 3, c) for leader, cards, _ in self.tricks for i, c in enumerate(cards)
        ]
        out += [((self.leader + i) & 3, c) for i, c in enumerate(self.trick)]
        return out

    def played_by(self) -> list[Mask]:
        """Per seat the cards it has played so far."""
        out = [0, 0, 0, 0]
        for seat, c in self.plays():
            out[seat] |= 1 << c
        return out

    @property
    def unseen(self) -> Mask:
        """Cards held by the other players."""
        return self.rules.deck & ~self.played & ~self.hand

    def _known_cards(self) -> list[Mask]:
        """Per seat the unplayed cards this player knows it holds: what he passed to the
        taker of his poverty (also while the taker gives back), or what he gave back to the
        poor player."""
        ex = self.exchange
        known = [0, 0, 0, 0]
        if ex is None or ex.taker < 0:
            return known
        unseen = self.unseen
        if ex.trumps_back < 0:  # the taker is giving back: the poor player knows what he took
            if self.seat == ex.poor:
                known[ex.taker] = ex.passed & ~ex.returned & unseen
            return known
        if self.seat == ex.poor:
            known[ex.taker] = ex.passed & ~ex.returned & unseen
        elif self.seat == ex.taker:
            known[ex.poor] = ex.returned & unseen
        elif ex.passed:  # a view that knows the whole exchange (cover deals only)
            known[ex.taker] = ex.passed & ~ex.returned & unseen
            known[ex.poor] = ex.returned & unseen
        return known

    def _poor_trumps_left(self) -> int:
        """For the two players outside a poverty: how many trumps the poor player still
        holds (all he holds came back in the exchange), or -1 if nothing is known."""
        ex = self.exchange
        if ex is None or ex.trumps_back < 0 or self.seat in (ex.poor, ex.taker):
            return -1
        trump = SCHEMES[NORMAL_SCHEME].class_mask[TRUMP]
        played = 0
        for leader, cards, _ in [*self.tricks, (self.leader, self.trick, -1)]:
            for i, c in enumerate(cards):
                if (leader + i) & 3 == ex.poor and trump >> c & 1:
                    played += 1
        return ex.trumps_back - played

    def _pile(self) -> tuple[Mask, int]:
        """The cards of a poverty's exchange in transit, held by nobody: passed by the poor
        player and not yet taken, or given back and not yet arrived. (Those of them this
        player knows: all or none, how many there are.)"""
        others = sum(self.hand_sizes[s] for s in range(4) if s != self.seat)
        size = self.unseen.bit_count() - others
        ex = self.exchange
        if size <= 0 or ex is None:
            return 0, 0
        moving = (ex.passed if ex.taker < 0 else ex.returned) & self.unseen
        return (moving if moving.bit_count() == size else 0), size

    def _poor_has_no_trumps(self) -> bool:
        """Whether the poor player is known to hold no trump beyond what came back to him:
        he passed all his trumps, so from the end of his passing until the cards come back
        he holds none, and afterwards the taker knows which trumps he gave him."""
        ex = self.exchange
        if ex is None or self.seat == ex.poor:
            return False
        if ex.trumps_back < 0:
            return self.hand_sizes[ex.poor] <= self.rules.hand_size - 3
        return self.seat == ex.taker

    def _club_queen_rules(self) -> tuple[int, int]:
        """(seats that hold no unplayed ♣Q, seats that must hold one)."""
        if self.game_type not in (GameType.NORMAL, GameType.WEDDING) or self.solo is not None:
            return 0, 0
        unseen_q = (self.unseen & CLUB_QUEENS).bit_count()
        played_by = [0, 0, 0, 0]
        for leader, cards, _ in self.tricks:
            for i, c in enumerate(cards):
                if (1 << c) & CLUB_QUEENS:
                    played_by[(leader + i) & 3] += 1
        for i, c in enumerate(self.trick):
            if (1 << c) & CLUB_QUEENS:
                played_by[(self.leader + i) & 3] += 1
        no_q = 0
        must_q = 0
        for s in range(4):
            if s == self.seat:
                continue
            p = self.parties[s]
            if self.game_type is GameType.WEDDING:
                if s != self.declarer:
                    no_q |= 1 << s  # the wedding player holds both
            elif p is Party.KONTRA:
                no_q |= 1 << s
            elif p is Party.RE and played_by[s] == 0 and unseen_q:
                must_q |= 1 << s
        return no_q, must_q

    def constraints(self) -> HandConstraints:
        """What the seats may hold by all this player saw (:meth:`sample_hands` draws by it,
        and the exact layouts of :mod:`dokobot.ai.layouts` list by it)."""
        scheme = self.scheme
        allowed = [0, 0, 0, 0]
        no_q, must_q = self._club_queen_rules()
        no_aces = self._no_piglet_aces()
        no_nines = self._no_super_nines()
        nines = self.rules.trump_nines
        poor = -1 if self.exchange is None else self.exchange.poor
        no_trumps = self._poor_has_no_trumps()
        for s in range(4):
            if s == self.seat:
                continue
            bad = 0
            for c in range(5):
                if self.voids[s] >> c & 1:
                    bad |= scheme.class_mask[c] if c < TRUMP else scheme.class_mask[TRUMP]
            if no_q >> s & 1:
                bad |= CLUB_QUEENS
            if no_aces >> s & 1:
                bad |= DIAMOND_ACES
            if no_nines >> s & 1:
                bad |= nines
            if no_trumps and s == poor:
                bad |= SCHEMES[NORMAL_SCHEME].class_mask[TRUMP]
            allowed[s] = FULL_DECK & ~bad
        return HandConstraints(allowed, self._known_cards(), must_q, self._poor_trumps_left())

    def sample_hands(self, rng: random.Random, tries: int = 200) -> list[Mask]:
        """A deal of the unseen cards consistent with this observation.

        Every hand has its true size; a seat never gets a card of a class it has shown
        void in; a known Kontra player (normal game) gets no ♣Q, a revealed Re player who
        has not played one gets one. In a poverty's exchange the cards in transit (passed
        and not yet taken, or given back and not yet arrived) are in no hand: unless this
        player knows them, they are drawn like the hands (:meth:`world` puts them back in
        the exchange), and the poor player holds no trump from the end of his passing.
        """
        scheme = self.scheme
        seats, known, must_q, poor_trumps = self.constraints()
        poor = -1 if self.exchange is None else self.exchange.poor
        pile_known, pile_size = self._pile()
        allowed = [*seats, FULL_DECK if pile_size and not pile_known else 0]
        known = [*known, pile_known]
        for s in range(5):  # cards known to be with a seat (or in transit) are nobody else's
            for t in range(5):
                if t != s:
                    allowed[t] &= ~known[s]
        # the holders drawn for: the other seats and the cards in transit (index 4)
        others = [s for s in range(5) if s != self.seat and (s < 4 or allowed[4])]
        sizes = [*self.hand_sizes, pile_size]
        cards = [c for c in cards_of(self.unseen) if not any(k >> c & 1 for k in known)]
        for _ in range(tries):
            hands = list(known)
            if self.seat >= 0:
                hands[self.seat] = self.hand
            need = [sizes[s] - known[s].bit_count() if s != self.seat else 0 for s in range(5)]
            pool = list(cards)
            ok = True
            # Revealed Re players get a ♣Q first.
            for s in others:
                if must_q >> s & 1:
                    qs = [c for c in pool if (1 << c) & CLUB_QUEENS & allowed[s]]
                    if not qs or need[s] == 0:
                        continue
                    q = rng.choice(qs)
                    pool.remove(q)
                    hands[s] |= 1 << q
                    need[s] -= 1
            # Most constrained cards first, then random among the seats that may hold them.
            rng.shuffle(pool)
            pool.sort(key=lambda c: sum(1 for s in others if allowed[s] >> c & 1))
            for c in pool:
                choices = [s for s in others if need[s] and allowed[s] >> c & 1]
                if not choices:
                    ok = False
                    break
                weights = [need[s] for s in choices]
                s = rng.choices(choices, weights)[0]
                hands[s] |= 1 << c
                need[s] -= 1
            if ok and poor_trumps >= 0:
                ok = (hands[poor] & scheme.class_mask[TRUMP]).bit_count() == poor_trumps
            if ok:
                return hands[:4]
        return self._sample_exact(rng, cards, allowed, known, sizes, others)

    def _sample_exact(
        self,
        rng: random.Random,
        cards: list[int],
        allowed: list[Mask],
        known: list[Mask],
        sizes: list[int],
        others: list[int],
    ) -> list[Mask]:
        """Backtracking fallback; ignores the soft ♣Q rule if nothing else fits."""
        need = [sizes[s] - known[s].bit_count() if s != self.seat else 0 for s in range(5)]
        if sum(need) != len(cards):
            raise ValueError("no deal fits this observation")
        hands = list(known)
        if self.seat >= 0:
            hands[self.seat] = self.hand
        order = sorted(cards, key=lambda c: sum(1 for s in others if allowed[s] >> c & 1))

        def go(i: int) -> bool:
            if i == len(order):
                return True
            c = order[i]
            seats = [s for s in others if need[s] and allowed[s] >> c & 1]
            rng.shuffle(seats)
            for s in seats:
                need[s] -= 1
                hands[s] |= 1 << c
                if go(i + 1):
                    return True
                need[s] += 1
                hands[s] &= ~(1 << c)
            return False

        if not go(0):
            raise ValueError("no deal fits this observation")
        return hands[:4]

    def _no_piglet_aces(self) -> int:
        """Seats (bit set) that hold no unplayed ♦A: with piglets on, a seat that played
        one ♦A without showing piglets holds no second; known piglets leave the other ♦A
        only to their holder."""
        if not self.rules.piglets or self.scheme.index not in _PIGLET_FAMILY:
            return 0
        if self.piglets >= 0:
            return 0b1111 & ~(1 << self.piglets)
        return self._played(DIAMOND_ACES)

    def _no_super_nines(self) -> int:
        """Seats (bit set) that hold no unplayed trump nine of superpiglets (RULES §12.8),
        once this player knows there are piglets: a seat that played one without showing
        superpiglets holds no second; known superpiglets leave the other only to their
        holder."""
        if not self.rules.trump_nines or self.scheme.index not in _PIGLET_FAMILY:
            return 0
        if self.superpiglets >= 0:
            return 0b1111 & ~(1 << self.superpiglets)
        if self.piglets < 0:
            return 0
        return self._played(self.rules.trump_nines)

    def _played(self, cards: Mask) -> int:
        """Seats (bit set) that played one of ``cards``."""
        out = 0
        for leader, trick, _ in [*self.tricks, (self.leader, self.trick, -1)]:
            for i, c in enumerate(trick):
                if cards >> c & 1:
                    out |= 1 << ((leader + i) & 3)
        return out

    def world(self, hands: list[Mask]) -> Game:
        """A full game at this point of play in which the players hold ``hands`` (in a
        poverty's exchange the cards in nobody's hand are those in transit)."""
        if self.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
            raise ValueError("worlds are built for the card play and a poverty's exchange")
        if self.phase is Phase.EXCHANGE:
            return self._exchange_world(hands)
        start = [h | p for h, p in zip(hands, self.played_by(), strict=True)]
        g = Game.from_hands(self.rules, self.dealer, start, mandatory_owed=self.mandatory_owed)
        g.hands = list(hands)
        g.phase = self.phase
        g.reserved = list(self.reserved)
        g.game_type = self.game_type
        g.solo = self.solo
        g.declarer = self.declarer
        g.mandatory = self.mandatory
        g.scheme = self.scheme
        g.exchange = self.exchange
        g.piglets = self.piglets
        g.superpiglets = self.superpiglets
        if (
            self.rules.piglets
            and self.scheme.index in _PIGLET_FAMILY
            and (self.piglets < 0 or (self.rules.trump_nines and self.superpiglets < 0))
        ):
            # (super)piglets this player has not seen yet, if this deal has them: from the
            # hands at the start of the play (the samples keep what he knows true)
            g.scheme = SCHEMES[NORMAL_SCHEME]
            g.piglets = g.superpiglets = -1
            g.hands = start
            g._find_piglets()
            g.hands = list(hands)
            if self.superpiglets >= 0:  # shown before the piglets were
                g.superpiglets = self.superpiglets
                g.scheme = self.scheme
        g.wedding_open = self.wedding_open
        g.shift = self.shift
        g.level = list(self.level)
        g.closed = list(self.closed)
        g.calls = list(self.calls)
        g.tricks = list(self.tricks)
        g.trick = list(self.trick)
        g.leader = self.leader
        g.turn = self.turn
        g.eyes = list(self.eyes)
        g.won = list(self.won)
        if self.game_type is GameType.SOLO:
            g.re_seats = 1 << self.declarer
        elif self.game_type is GameType.POVERTY and self.exchange is not None:
            g.re_seats = 1 << self.exchange.poor | 1 << self.exchange.taker
        elif self.game_type is GameType.WEDDING:
            g.re_seats = 1 << self.declarer
            for s in range(4):
                if s != self.declarer and self.parties[s] is Party.RE:
                    g.re_seats |= 1 << s
        else:
            holders = [s for s in range(4) if start[s] & CLUB_QUEENS]
            if len(holders) == 1:
                g.game_type = GameType.SILENT_WEDDING
                g.declarer = holders[0]
            g.re_seats = sum(1 << s for s in holders)
        return g

    def _exchange_world(self, hands: list[Mask]) -> Game:
        """:meth:`world` in a poverty's exchange: the cards of the deck in nobody's hand are
        in transit (passed and not taken yet, or given back and not arrived yet)."""
        ex = self.exchange
        assert ex is not None
        pile = self.rules.deck & ~(hands[0] | hands[1] | hands[2] | hands[3])
        start = list(hands)
        if ex.taker < 0:
            ex = replace(ex, passed=pile)
            start[ex.poor] |= pile
        else:
            ex = replace(ex, returned=pile)  # the others do not know the cards, only how many
            start[ex.poor] |= ex.passed
            start[ex.taker] = (hands[ex.taker] | pile) & ~ex.passed
        h0, h1, h2, h3 = start
        g = Game._new(self.rules, self.dealer, h0, h1, h2, h3, self.mandatory_owed, None)
        g.hands = list(hands)
        g.phase = Phase.EXCHANGE
        g.reserved = list(self.reserved)
        g.game_type = GameType.POVERTY
        g.declarer = ex.poor
        g.exchange = ex
        g.re_seats = 1 << ex.poor
        g.turn = self.turn
        return g


def public_parties(game: Game) -> list[Party | None]:
    """Each seat's party as far as everybody at the table (and every spectator) knows it.

    The one answer to "which parties are public": a declared solo or a clarified wedding
    reveals all four, a wedding player is Re from the declaration on, a call reveals the
    caller's party and a played ♣Q makes its player Re (in a silent wedding exactly as in a
    normal game, so nothing here tells the two apart); two public Re players make the other
    two Kontra. Two public Kontra players do not make the other two Re: one of them may hold
    both ♣Q (a silent wedding, with three Kontra players).

    >>> from dokobot.engine.types import HEALTHY
    >>> g = Game.deal(DEFAULT_RULES, 3, seed=11)
    >>> for s in range(4):
    ...     g.play(s, HEALTHY)
    >>> public_parties(g)
    [None, None, None, None]
    """
    known: list[Party | None] = [None, None, None, None]
    gt = game.game_type
    if game.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
        return known
    if gt is GameType.SOLO:
        return [game.party_of(s) for s in range(4)]
    if gt is GameType.POVERTY:  # the poor player is Re; with the taker the parties are public
        if game.phase is Phase.EXCHANGE or game.cancelled:
            known[game.declarer] = Party.RE
            return known
        return [game.party_of(s) for s in range(4)]
    if gt is GameType.WEDDING:
        known[game.declarer] = Party.RE
        if not game.wedding_open:
            return [game.party_of(s) for s in range(4)]
        return known
    for s, _ in game.calls:
        known[s] = game.party_of(s)
    for leader, cards, _ in [*game.tricks, (game.leader, tuple(game.trick), -1)]:
        for i, c in enumerate(cards):
            if (1 << c) & CLUB_QUEENS:
                known[(leader + i) & 3] = Party.RE
    res = [s for s in range(4) if known[s] is Party.RE]
    if len(res) == 2:
        known = [Party.RE if s in res else Party.KONTRA for s in range(4)]
    return known


def _known_parties(game: Game, seat: Seat) -> list[Party | None]:
    """What ``seat`` knows: the public parties, its own, and what follows from both."""
    known = public_parties(game)
    gt = game.game_type
    if game.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS) or gt in (
        GameType.SOLO,
        GameType.WEDDING,
        GameType.POVERTY,
    ):
        return known
    if gt is GameType.SILENT_WEDDING and seat == game.declarer:
        return [game.party_of(s) for s in range(4)]
    known[seat] = game.party_of(seat)
    res = [s for s in range(4) if known[s] is Party.RE]
    if len(res) == 2:
        known = [Party.RE if s in res else Party.KONTRA for s in range(4)]
    return known


_EVEN: Final = int("01" * 24, 2)
"""Copy 0 of every kind."""
_ODD: Final = _EVEN << 1
"""Copy 1 of every kind."""


def _flip_mask(mask: Mask, swap: Mask) -> Mask:
    """``mask`` with the two copies of each kind in ``swap`` exchanged."""
    moved = ((mask & _EVEN) << 1 | (mask & _ODD) >> 1) & swap
    return mask & ~swap | moved


def _flip_cards(cards: tuple[Card, ...], swap: Mask) -> tuple[Card, ...]:
    return tuple(c ^ 1 if swap >> c & 1 else c for c in cards)


def _single_copies(mask: Mask, assigned: Mask) -> tuple[Mask, Mask]:
    """For the kinds of ``mask`` not in ``assigned``: (the kinds to swap so that a single
    copy of one becomes copy 0, ``assigned`` with these kinds added)."""
    rest = mask & ~assigned
    odd_only = rest & _ODD & ~((rest & _EVEN) << 1)
    kinds = (rest | rest >> 1) & _EVEN
    return odd_only | odd_only >> 1, assigned | kinds | kinds << 1


def observe(game: Game, seat: Seat, *, canonical: bool = True) -> Observation:
    """The observation of ``seat`` (-1: a spectator, who holds no cards), its copies
    numbered canonically (see the module; ``canonical=False`` keeps the game's own card
    ids, for code that builds deals around the real cards, such as cover deals)."""
    voids = [0, 0, 0, 0]
    cls = game.scheme.cls
    assigned = 0  # both copies of each kind whose canonical numbering is fixed
    swap = 0  # both copies of each kind whose copies the canonical numbering exchanges
    for leader, cards, _ in [*game.tricks, (game.leader, tuple(game.trick), -1)]:
        if not cards:
            continue
        led = cls[cards[0]]
        for i in range(len(cards)):
            c = cards[i]
            if not assigned >> c & 1:
                assigned |= 3 << (c & ~1)
                if c & 1:
                    swap |= 3 << (c & ~1)
            if i and cls[c] != led:
                voids[(leader + i) & 3] |= 1 << led
    game_type = game.game_type
    declarer = game.declarer
    if game_type is GameType.SILENT_WEDDING and seat != game.declarer:
        game_type = GameType.NORMAL
        declarer = -1
    p = _known_parties(game, seat) if seat >= 0 else public_parties(game)
    piglets = game.piglets
    if piglets >= 0 and seat != piglets and not _shown(game, piglets, DIAMOND_ACES):
        piglets = -1
    superpiglets = game.superpiglets
    if (
        superpiglets >= 0
        and not _shown(game, superpiglets, game.rules.trump_nines)
        and (seat != superpiglets or piglets < 0)
    ):
        superpiglets = -1  # unseen, or his own while he knows of no piglets
    if superpiglets >= 0:
        scheme = game.scheme
    elif piglets >= 0:
        scheme = SCHEMES[PIGLETS_SCHEME]
    else:
        scheme = SCHEMES[NORMAL_SCHEME] if game.piglets >= 0 else game.scheme
    ex = game.exchange
    if ex is not None and seat not in (ex.poor, ex.taker):
        ex = ex.hidden()
    hand = game.hands[seat] if seat >= 0 else 0
    tricks = tuple(game.tricks)
    trick = tuple(game.trick)
    if canonical:
        more, assigned = _single_copies(hand, assigned)
        swap |= more
        if ex is not None:
            more, assigned = _single_copies(ex.passed | ex.returned, assigned)
            swap |= more
    if canonical and swap:
        hand = _flip_mask(hand, swap)
        tricks = tuple((ld, _flip_cards(cs, swap), w) for ld, cs, w in tricks)
        trick = _flip_cards(trick, swap)
        if ex is not None and (ex.passed or ex.returned):
            ex = replace(
                ex, passed=_flip_mask(ex.passed, swap), returned=_flip_mask(ex.returned, swap)
            )
    return Observation(
        seat=seat,
        rules=game.rules,
        dealer=game.dealer,
        phase=game.phase,
        turn=game.turn,
        hand=hand,
        hand_sizes=(
            game.hands[0].bit_count(),
            game.hands[1].bit_count(),
            game.hands[2].bit_count(),
            game.hands[3].bit_count(),
        ),
        reserved=(game.reserved[0], game.reserved[1], game.reserved[2], game.reserved[3]),
        game_type=game_type,
        solo=game.solo,
        declarer=declarer,
        mandatory=game.mandatory,
        wedding_open=game.wedding_open,
        shift=game.shift,
        tricks=tricks,
        trick=trick,
        leader=game.leader,
        calls=tuple(game.calls),
        level=(game.level[0], game.level[1]),
        closed=(game.closed[0], game.closed[1]),
        parties=(p[0], p[1], p[2], p[3]),
        voids=(voids[0], voids[1], voids[2], voids[3]),
        eyes=(game.eyes[0], game.eyes[1], game.eyes[2], game.eyes[3]),
        won=(game.won[0], game.won[1], game.won[2], game.won[3]),
        mandatory_owed=(
            game.mandatory_owed[0],
            game.mandatory_owed[1],
            game.mandatory_owed[2],
            game.mandatory_owed[3],
        ),
        forced=game.forced,
        scheme=scheme,
        piglets=piglets,
        superpiglets=superpiglets,
        exchange=ex,
        cancelled=game.cancelled,
    )


def _shown(game: Game, holder: Seat, pair: Mask) -> bool:
    """Whether ``holder`` has played one of ``pair`` (the ♦A of piglets, the trump nines of
    superpiglets): then everybody knows."""
    for leader, cards, _ in [*game.tricks, (game.leader, tuple(game.trick), -1)]:
        for i, c in enumerate(cards):
            if pair >> c & 1 and (leader + i) & 3 == holder:
                return True
    return False
