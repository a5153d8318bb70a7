"""Cover deals: what an export shows instead of the real deal of a game that ended unplayed.

A game that was aborted (or ended before the card play: a throw-in, a poverty nobody took)
keeps its unplayed cards hidden for good. Its export shows start hands that agree with
everything public about the game and with nothing else: every card each seat has played,
the voids it showed, the ♣Q facts of the public parties, every reservation, declaration and
call it made stays legal, and in a poverty the count of trumps that came back. Everything
else is dealt at random, so the cover tells nothing about the real hands. The passed and
returned cards of a poverty are private to two players: the cover makes them up too, and
shows made-up ``/give`` actions instead of the real ones. So are the declarations the table
never learned (one that lost to a better one, or all of them when the game was aborted before
the declarations were over): the cover shows a random one instead (a wedding, a poverty or a
solo) that loses in the same way. Every cover is checked by replaying the game's log (with
the shown actions) on it.

>>> from dokobot.engine.types import HEALTHY
>>> g = Game.deal(DEFAULT_RULES, 3, seed=11)
>>> for s in range(4):
...     g.play(s, HEALTHY)
>>> for _ in range(5):
...     g.play(g.turn, g.legal_actions()[0])
>>> hands, shown = cover(g, random.Random(1))
>>> sum(h.bit_count() for h in hands), hands != list(g.start_hands), shown
(48, True, [])
"""

from __future__ import annotations

import random

from .cards import CLUB_QUEENS, N_CARDS, Card, Mask
from .game import _KINGS, _NINES, _NORMAL_TRUMPS, POVERTY_CARDS, POVERTY_MAX_TRUMPS, Game
from .observation import observe
from .order import TRUMP
from .rules import DEFAULT_RULES
from .types import (
    DECLARE_POVERTY,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    N_SOLOS,
    TAKE,
    THROW_IN,
    Action,
    GameType,
    Seat,
    is_solo,
)

__all__ = ["DEFAULT_RULES", "Shown", "cover", "cover_deal"]

Shown = list[tuple[Seat, Action]]
"""The actions a cover shows instead of the real ones, in the log's order: every give of a
poverty's exchange (a card) and every declaration the table never learned."""
Log = list[tuple[Seat, Action]]


def cover(game: Game, rng: random.Random, tries: int = 400) -> tuple[list[Mask], Shown]:
    """A cover of ``game`` (see the module): start hands, and the actions to show instead
    of the real ones."""
    if game.exchange is not None:
        return _poverty_cover(game, rng, tries)
    if not game.tricks and not game.trick:
        return _unplayed_cover(game, rng, tries)
    if _hidden_declarations(game) and game.game_type is GameType.SOLO:
        return _played_cover(game, rng, tries)
    return cover_deal(game, rng, tries), []


def _is_declaration(action: Action) -> bool:
    return action in (DECLARE_WEDDING, DECLARE_POVERTY, THROW_IN) or is_solo(action)


def _hidden_declarations(game: Game) -> list[int]:
    """Indices into ``game.log`` of the declarations the table never learned: all but the
    one that decided the game (a throw-in ends the game at once and is always told)."""
    return [i for i, (seat, action) in enumerate(game.log)
            if _is_declaration(action) and action != THROW_IN and seat != game.declarer]  # fmt: skip


def _disguised(game: Game, rng: random.Random, played: list[Mask] | None = None) -> Log:
    """``game.log`` with a random declaration (a wedding, a poverty, a solo of any kind)
    in place of each hidden one; never a wedding of a seat when another seat played a ♣Q
    (``played``: the cards each seat played)."""
    log = list(game.log)
    for i in _hidden_declarations(game):
        seat = log[i][0]
        kinds = [DECLARE_SOLO] + [DECLARE_POVERTY] * game.rules.poverty
        if played is None or not any(played[s] & CLUB_QUEENS for s in range(4) if s != seat):
            kinds.append(DECLARE_WEDDING)
        kind = rng.choice(kinds)
        log[i] = (
            log[i][0],
            DECLARE_SOLO + rng.randrange(N_SOLOS) if kind == DECLARE_SOLO else kind,
        )
    return log


def _throwers(game: Game, log: Log) -> list[Seat]:
    """Seats that declared after a solo: with throw-ins on, only a hand that may throw in
    is asked then, and the table saw them asked."""
    out: list[Seat] = []
    solo = False
    for seat, action in log:
        if not _is_declaration(action):
            continue
        if solo and game.rules.throw_in and seat != game.declarer:
            out.append(seat)
        solo = solo or is_solo(action)
    return out


def _may_throw(
    rng: random.Random, deck: Mask, fixed: list[Mask], seat: Seat, allowed: Mask | None = None
) -> bool:
    """Give ``seat`` five nines or five kings (which, at random), as far as the cards that
    other seats hold (and the ``allowed`` cards of ``seat``: none of a class he showed void
    in) allow; False if they do not."""
    pools = [p & deck for p in (_NINES, _KINGS) if p & deck]
    rng.shuffle(pools)
    others = 0
    for s in range(4):
        if s != seat:
            others |= fixed[s]
    for pool in pools:
        free = _cards(pool & ~others & ~fixed[seat] & (deck if allowed is None else allowed))
        need = 5 - (fixed[seat] & pool).bit_count()
        if len(free) >= need:
            fixed[seat] |= sum(1 << c for c in rng.sample(free, max(need, 0)))
            return True
    return False


def _shown(log: Log, indices: list[int]) -> Shown:
    return [log[i] for i in sorted(indices)]


def cover_deal(game: Game, rng: random.Random, tries: int = 400) -> list[Mask]:
    """Start hands of a game without a poverty that ended during the card play: the
    unplayed cards dealt at random as a spectator could (voids, public ♣Q facts)."""
    spectator = observe(game, -1, canonical=False)
    played = _played_by(game)
    for _ in range(tries):
        try:
            rest = spectator.sample_hands(rng)
        except ValueError:
            continue
        start = [rest[s] | played[s] for s in range(4)]
        if _replays(game, start):
            return start
    raise ValueError("no deal agrees with this game's public facts")


def _played_by(game: Game) -> list[Mask]:
    """Per seat the cards it has played so far."""
    played = [0, 0, 0, 0]
    for leader, cards, _ in [*game.tricks, (game.leader, tuple(game.trick), -1)]:
        for i, c in enumerate(cards):
            played[(leader + i) & 3] |= 1 << c
    return played


def _replays(game: Game, start: list[Mask], log: list[tuple[Seat, Action]] | None = None) -> bool:
    """Whether every action of ``log`` (default ``game.log``) is legal from the start hands
    ``start``."""
    forced = None if game.forced < 0 else game.forced
    try:
        g = Game.from_hands(game.rules, game.dealer, start, mandatory_owed=game.mandatory_owed,
                            forced_soloist=forced)  # fmt: skip
        for seat, action in game.log if log is None else log:
            g.play(seat, action)
    except ValueError:
        return False
    return _public_state(g) == _public_state(game)


def _public_state(game: Game) -> tuple[object, ...]:
    """Where a game stands as the table knows it: whose turn, the contract and its
    declarer (a silent wedding is a normal game to the table)."""
    silent = game.game_type in (GameType.NORMAL, GameType.SILENT_WEDDING)
    return (game.turn, game.solo, None if silent else (game.game_type, game.declarer),
            game.cancelled, len(game.tricks))  # fmt: skip


def _declared(log: Log, action: Action) -> list[Seat]:
    return [seat for seat, a in log if a == action]


def _caps(log: Log) -> list[int]:
    """Per seat the most trumps it may hold: three if it declared a poverty."""
    poor = _declared(log, DECLARE_POVERTY)
    return [POVERTY_MAX_TRUMPS if s in poor else 99 for s in range(4)]


def _cards(mask: Mask) -> list[Card]:
    return [c for c in range(N_CARDS) if mask >> c & 1]


def _deal_rest(
    rng: random.Random,
    deck: Mask,
    fixed: list[Mask],
    allowed: list[Mask],
    size: int,
    trump_cap: list[int],
) -> list[Mask] | None:
    """``fixed`` filled up to ``size`` cards each with the rest of ``deck`` at random: a
    seat gets only ``allowed`` cards and at most ``trump_cap`` normal trumps (None if no
    such deal exists). Each card goes to a random seat among those that leave the rest a
    deal (:func:`_fits`), so the deal never runs into a dead end."""
    hands = fixed[:]
    if any(hands[s] & hands[t] for s in range(4) for t in range(s)):
        return None
    trumps = [(h & _NORMAL_TRUMPS).bit_count() for h in hands]
    if any(trumps[s] > trump_cap[s] or hands[s].bit_count() > size for s in range(4)):
        return None
    rest = _cards(deck & ~(hands[0] | hands[1] | hands[2] | hands[3]))
    rng.shuffle(rest)
    rest.sort(key=lambda c: sum(1 for s in range(4) if allowed[s] >> c & 1))
    if not _fits(rest, hands, allowed, size, trump_cap, trumps):
        return None
    for i, c in enumerate(rest):
        trump = _NORMAL_TRUMPS >> c & 1
        seats = [
            s
            for s in range(4)
            if hands[s].bit_count() < size
            and allowed[s] >> c & 1
            and not (trump and trumps[s] >= trump_cap[s])
        ]
        while seats:
            s = rng.choices(seats, [size - hands[s].bit_count() for s in seats])[0]
            hands[s] |= 1 << c
            trumps[s] += trump
            if _fits(rest[i + 1 :], hands, allowed, size, trump_cap, trumps):
                break
            hands[s] &= ~(1 << c)
            trumps[s] -= trump
            seats.remove(s)
        else:
            return None  # (cannot happen: the rest fitted before this card)
    return hands


def _fits(
    cards: list[Card],
    hands: list[Mask],
    allowed: list[Mask],
    size: int,
    trump_cap: list[int],
    trumps: list[int],
) -> bool:
    """Whether ``cards`` can be dealt to fill ``hands`` up to ``size`` each, every card to a
    seat that allows it and no seat above its ``trump_cap`` of normal trumps.

    A flow from the cards through each seat's trump limit (trumps only) to the seats; by
    max-flow min-cut all cards fit iff no cut is smaller than their number. A cut is a set
    P of seats and a set Q of trump limits on the source side: the plain cards allowed
    only in P and the trumps allowed only in Q must fit the room of P and the trump room
    of the seats of Q outside P."""
    room = [size - hands[s].bit_count() for s in range(4)]
    if sum(room) != len(cards):
        return False
    trump_room = [min(trump_cap[s] - trumps[s], room[s]) for s in range(4)]
    plain = [0] * 16
    trump = [0] * 16
    for c in cards:
        seats = (allowed[0] >> c & 1) | (allowed[1] >> c & 1) << 1
        seats |= (allowed[2] >> c & 1) << 2 | (allowed[3] >> c & 1) << 3
        if _NORMAL_TRUMPS >> c & 1:
            trump[seats] += 1
        else:
            plain[seats] += 1
    plain_in = [sum(plain[m] for m in range(16) if not m & ~p) for p in range(16)]
    trump_in = [sum(trump[m] for m in range(16) if not m & ~q) for q in range(16)]
    room_of = [sum(room[s] for s in range(4) if p >> s & 1) for p in range(16)]
    trump_room_of = [sum(trump_room[s] for s in range(4) if q >> s & 1) for q in range(16)]
    return all(
        plain_in[p] + trump_in[q] <= room_of[p] + trump_room_of[q & ~p]
        for p in range(16)
        for q in range(16)
    )


def _unplayed_cover(game: Game, rng: random.Random, tries: int) -> tuple[list[Mask], Shown]:
    """A game without a poverty that ended before the card play: declared weddings keep
    both ♣Q; a thrower gets five kings or five nines, which of the two at random."""
    deck = game.rules.deck
    everyone = [deck] * 4
    hidden = _hidden_declarations(game)
    for _ in range(tries):
        log = _disguised(game, rng)
        fixed = [0, 0, 0, 0]
        for seat in _declared(log, DECLARE_WEDDING):
            fixed[seat] |= CLUB_QUEENS
        if game.cancelled == "thrown":
            pool = _NINES & deck if _NINES & deck and rng.random() < 0.5 else _KINGS
            fixed[game.declarer] |= sum(1 << c for c in rng.sample(_cards(pool), 5))
        if not all(_may_throw(rng, deck, fixed, seat) for seat in _throwers(game, log)):
            continue
        hands = _deal_rest(rng, deck, fixed, everyone, game.rules.hand_size, _caps(log))
        if hands is not None and _replays(game, hands, log):
            return hands, _shown(log, hidden)
    raise ValueError("no deal agrees with this game's public facts")


def _voids_allowed(game: Game) -> list[Mask]:
    """Per seat the cards it may hold: none of a class it has shown void in."""
    spectator = observe(game, -1, canonical=False)
    allowed = [game.rules.deck] * 4
    scheme = spectator.scheme
    for s in range(4):
        for c in range(5):
            if spectator.voids[s] >> c & 1:
                allowed[s] &= ~scheme.class_mask[TRUMP if c >= TRUMP else c]
    return allowed


def _played_cover(game: Game, rng: random.Random, tries: int) -> tuple[list[Mask], Shown]:
    """A solo ended during the card play whose losing declarations were never told: the
    unplayed cards dealt around the cards played and the voids shown, the made-up
    declarations' demands met (a wedding's ♣Q, a poverty's few trumps, a hand that may
    throw in for a seat asked after the solo)."""
    deck = game.rules.deck
    played = _played_by(game)
    unplayed = deck & ~(played[0] | played[1] | played[2] | played[3])
    allowed = _voids_allowed(game)
    hidden = _hidden_declarations(game)
    for _ in range(tries):
        log = _disguised(game, rng, played)
        fixed = played[:]
        for seat in _declared(log, DECLARE_WEDDING):
            fixed[seat] |= CLUB_QUEENS & unplayed
        throwers = _throwers(game, log)
        if not all(_may_throw(rng, deck, fixed, s, allowed[s]) for s in throwers):
            continue
        hands = _deal_rest(rng, deck, fixed, allowed, game.rules.hand_size, _caps(log))
        if hands is not None and _replays(game, hands, log):
            return hands, _shown(log, hidden)
    raise ValueError("no deal agrees with this game's public facts")


def _exchange_steps(game: Game) -> tuple[list[int], list[int]]:
    """Indices into ``game.log`` of the poor player's gives and of the taker's gives."""
    ex = game.exchange
    assert ex is not None
    poor: list[int] = []
    taker: list[int] = []
    taken = False
    for i, (seat, action) in enumerate(game.log):
        if action == TAKE:
            taken = True
        elif action < N_CARDS and not taken and seat == ex.poor:
            poor.append(i)
        elif action < N_CARDS and taken and seat == ex.taker and len(taker) < POVERTY_CARDS:
            taker.append(i)
    return poor, taker


def _passed(rng: random.Random, source: Mask, trumps: int) -> list[Card] | None:
    """Three made-up passed cards from ``source``: ``trumps`` trumps first, then plain."""
    t = _cards(source & _NORMAL_TRUMPS)
    p = _cards(source & ~_NORMAL_TRUMPS)
    if len(t) < trumps or len(p) < POVERTY_CARDS - trumps:
        return None
    return rng.sample(t, trumps) + rng.sample(p, POVERTY_CARDS - trumps)


def _poverty_cover(game: Game, rng: random.Random, tries: int) -> tuple[list[Mask], Shown]:
    """A cover of a poverty game (taken or not, ended in the exchange or in the card play).

    Public are the poor player, who declined and who took, whether the poor player's
    trumps went at once (exactly three) or one by one (at most two), how many gives each
    made, the trumps that came back once the exchange was over, and the card play. The
    passed and returned cards are made up: the poor player passes all his trumps first,
    the taker returns any cards, with the public trump count.
    """
    ex = game.exchange
    assert ex is not None
    poor_steps, taker_steps = _exchange_steps(game)
    at_once = not poor_steps and ex.passed.bit_count() == POVERTY_CARDS
    hidden = _hidden_declarations(game)
    for _ in range(tries):
        log = _disguised(game, rng)
        caps = _caps(log)
        weddings = _declared(log, DECLARE_WEDDING)
        trumps = POVERTY_CARDS if at_once else rng.randrange(POVERTY_CARDS)
        if ex.trumps_back >= 0:
            made = _after_exchange(game, rng, trumps, caps, weddings)
        else:
            made = _during_exchange(game, rng, trumps, caps, weddings)
        if made is None:
            continue
        start, passed, returned = made
        for steps, seat, cards in (
            (poor_steps, ex.poor, passed),
            (taker_steps, ex.taker, returned),
        ):
            for i, card in zip(steps, cards, strict=False):
                log[i] = (seat, card)
        if _replays(game, start, log):
            return start, _shown(log, [*hidden, *poor_steps, *taker_steps])
    raise ValueError("no deal agrees with this game's public facts")


def _during_exchange(
    game: Game, rng: random.Random, trumps: int, caps: list[int], weddings: list[Seat]
) -> tuple[list[Mask], list[Card], list[Card]] | None:
    """Start hands, passed and returned cards of a poverty ended before its exchange was
    over: the poor player holds the made-up passed cards and no other trump; the taker's
    gives so far are any cards of his hand after he took."""
    ex = game.exchange
    assert ex is not None
    deck = game.rules.deck
    fixed = [0, 0, 0, 0]
    for seat in weddings:
        fixed[seat] |= CLUB_QUEENS
    passed = _passed(rng, deck & ~(fixed[0] | fixed[1] | fixed[2] | fixed[3]), trumps)
    if passed is None:
        return None
    fixed[ex.poor] |= sum(1 << c for c in passed)
    allowed = [deck] * 4
    allowed[ex.poor] = deck & ~_NORMAL_TRUMPS | fixed[ex.poor]
    hands = _deal_rest(rng, deck, fixed, allowed, game.rules.hand_size, caps)
    if hands is None:
        return None
    returned: list[Card] = []
    if ex.taker >= 0:
        own = _cards(hands[ex.taker] | sum(1 << c for c in passed))
        returned = rng.sample(own, POVERTY_CARDS)
    return hands, passed, returned


def _after_exchange(
    game: Game, rng: random.Random, trumps: int, caps: list[int], weddings: list[Seat]
) -> tuple[list[Mask], list[Card], list[Card]] | None:
    """Start hands, passed and returned cards of a poverty whose exchange was over: the
    hands after the exchange are dealt around the cards played and the voids shown (the
    poor player holds exactly the trumps that came back), then turned back: the poor
    player returned all his trumps and some plain cards, the taker passed ``trumps``
    trumps and plain cards of his."""
    ex = game.exchange
    assert ex is not None
    deck = game.rules.deck
    played = _played_by(game)
    unplayed = deck & ~(played[0] | played[1] | played[2] | played[3])
    allowed = _voids_allowed(game)
    fixed = played[:]
    for seat in weddings:
        if seat != ex.taker:
            fixed[seat] |= CLUB_QUEENS & unplayed
    after_caps = caps[:]
    after_caps[ex.poor] = ex.trumps_back
    after_caps[ex.taker] = 99
    hands = _deal_rest(rng, deck, fixed, allowed, game.rules.hand_size, after_caps)
    if hands is None or (hands[ex.poor] & _NORMAL_TRUMPS).bit_count() != ex.trumps_back:
        return None
    poor_plain = _cards(hands[ex.poor] & ~_NORMAL_TRUMPS)
    if len(poor_plain) < POVERTY_CARDS - ex.trumps_back:
        return None
    returned = _cards(hands[ex.poor] & _NORMAL_TRUMPS)
    returned += rng.sample(poor_plain, POVERTY_CARDS - ex.trumps_back)
    rng.shuffle(returned)
    passed = _passed(rng, hands[ex.taker], trumps)
    if passed is None:
        return None
    back = sum(1 << c for c in returned)
    given = sum(1 << c for c in passed)
    hands[ex.poor] = (hands[ex.poor] & ~back) | given
    hands[ex.taker] = (hands[ex.taker] & ~given) | back
    return hands, passed, returned
