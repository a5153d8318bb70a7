"""A rule-based player: hand evaluation for reservations and calls, classic card-play craft.

Card play: plain aces early, keep high trumps, win tricks cheaply, give points to a partner
who wins a trick (schmieren), save the fox (♦A) and catch the opponents', show the party
with ♣Q. ``slips`` makes a share of the card decisions a beginner's (:func:`slip_card`, the
``easy`` level).

>>> from dokobot.engine.cards import mask_of
>>> losers(mask_of(range(24, 48)), SCHEMES[0]) <= losers(mask_of(range(0, 24)), SCHEMES[0])
True
"""

from __future__ import annotations

import random
from typing import Final

from dokobot.engine import (
    CALL_KONTRA,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    Card,
    GameType,
    Mask,
    Observation,
    Party,
    Phase,
    Solo,
)
from dokobot.engine.cards import CLUB_QUEENS, DIAMOND_ACES, HEART_TENS, POINTS
from dokobot.engine.order import SCHEMES, TRUMP, Scheme
from dokobot.engine.types import is_solo

from .base import Restrictions
from .budget import Budget
from .exact import exact_values, solvable
from .house import TAKE_TRUMPS, THROW_IN_BELOW, house_action, house_plan
from .legal import cards_in, decision_rng, legal_actions, legal_calls, obs_scheme

__all__ = [
    "FOX_CARDS",
    "SLIP_EYES",
    "HeuristicPlayer",
    "best_solo",
    "choose_card",
    "losers",
    "normal_strength",
    "reservation_choice",
    "slip_card",
]

# Card ids of some cards.
CLUB_QUEEN_CARDS: Final = frozenset(cards_in(CLUB_QUEENS))
FOX_CARDS: Final = frozenset(cards_in(DIAMOND_ACES))


# Sorted (key descending) card lists per scheme and class.
def _class_orders(s: Scheme) -> tuple[tuple[Card, ...], ...]:
    def strength(card: Card) -> int:
        return -s.key[card]

    return tuple(tuple(sorted(cards_in(s.class_mask[c]), key=strength)) for c in range(5))


_ORDER: Final = tuple(_class_orders(s) for s in SCHEMES)


def _scheme_index(scheme: Scheme) -> int:
    return scheme.index


def losers(hand: Mask, scheme: Scheme) -> float:
    """Estimated tricks lost when playing ``hand`` alone (lower is stronger).

    Per class: cards below the top run of the class that the player holds count as losers;
    trumps count the opponents' trumps ranked among the top ``m`` (``m`` = own trumps), and
    a short trump holding against many opposing trumps costs extra.
    """
    order = _ORDER[_scheme_index(scheme)]
    total = 0.0
    trump_mask = scheme.class_mask[TRUMP]
    m = (hand & trump_mask).bit_count()
    if trump_mask:
        opp = trump_mask.bit_count() - m
        above = 0
        worst = 0
        j = 0
        for card in order[TRUMP]:
            if hand >> card & 1:
                worst = max(worst, above - j)
                j += 1
            else:
                above += 1
        total += worst
        # Opponents' trumps left when own trumps run out ruff plain winners.
        longest = opp / 3 + 1.5
        total += max(0.0, longest - (m - worst)) * 0.7
    for c in range(4):
        mine = (hand & scheme.class_mask[c]).bit_count()
        if not mine:
            continue
        run = 0
        for card in order[c]:
            if hand >> card & 1:
                run += 1
            else:
                break
        # A run longer than the opponents' length only wins once they are out of trumps.
        cls_size = scheme.class_mask[c].bit_count()
        opp_len = cls_size - mine
        if trump_mask:
            run = min(run, max(1, opp_len // 3 + (1 if opp_len % 3 else 0)))
        total += mine - run
    return total


def best_solo(hand: Mask) -> tuple[Solo, float]:
    """The solo with the fewest estimated losers (ties: the order of :class:`Solo`)."""
    best = Solo.DIAMONDS
    best_l = 99.0
    for solo in Solo:
        lo = losers(hand, SCHEMES[int(solo)])
        if lo < best_l:
            best, best_l = solo, lo
    return best, best_l


def normal_strength(hand: Mask) -> float:
    """Strength of a hand in a normal game, about 0..20 (a Re/Kontra call from about 10)."""
    s = SCHEMES[0]
    trumps = hand & s.class_mask[TRUMP]
    value = float(trumps.bit_count())
    value += 1.0 * (hand & HEART_TENS).bit_count()
    value += 0.7 * (hand & CLUB_QUEENS).bit_count()
    for card in cards_in(trumps):
        if s.key[card] >= s.key[s.trumps_high_to_low[4]]:  # ♦Q and above
            value += 0.3
    for c in range(3):
        suit = hand & s.class_mask[c]
        n = suit.bit_count()
        aces = sum(1 for card in _ORDER[0][c][:2] if suit >> card & 1)
        if n == 0:
            value += 0.8
        elif aces:
            value += 0.8 * aces if n <= 3 else 0.4 * aces
        elif n <= 2:
            value -= 0.3 * n
        else:
            value -= 0.6
    return value


SOLO_LOSERS_MAX: Final = 3.5


def reservation_choice(hand: Mask, restrictions: Restrictions) -> tuple[Action, Action | None]:
    """(HEALTHY or RESERVATION, the declaration planned with a reservation)."""
    both_q = hand & CLUB_QUEENS == CLUB_QUEENS
    if not restrictions.no_solo:
        solo, lo = best_solo(hand)
        if lo <= SOLO_LOSERS_MAX:
            return RESERVATION, DECLARE_SOLO + solo
    if both_q:
        return RESERVATION, DECLARE_WEDDING
    return HEALTHY, None


# ------------------------------------------------------------------ card play


def trick_winner(
    trick: tuple[int, ...] | list[int], scheme: Scheme, second_heart10: bool = False
) -> int:
    """Index in the trick of the card winning it so far (``second_heart10``: a later
    trump ♥10 takes it from the first, RULES §12.7)."""
    best = 0
    top = trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if scheme.beats(c, top, second_heart10):
            best, top = i, c
    return best


class _View:
    """What the card-play rules need, computed once per decision."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.scheme = obs_scheme(obs)
        self.me = obs.seat
        self.party = obs.parties[obs.seat]
        self.unseen = obs.unseen
        self.solo = obs.game_type is GameType.SOLO or (
            obs.game_type is GameType.SILENT_WEDDING and obs.declarer == obs.seat
        )
        self.soloist = self.solo and obs.declarer == obs.seat
        self.h10 = obs.rules.second_heart10_takes(len(obs.tricks))
        """A later trump ♥10 takes this trick from the first (RULES §12.7)."""
        led: set[int] = set()
        for leader, cards, _ in obs.tricks:
            led.add(self.scheme.cls[cards[0]])
            del leader
        self.led_classes = led

    def friend(self, seat: int) -> bool | None:
        if seat == self.me:
            return True
        p = self.obs.parties[seat]
        if p is None or self.party is None:
            return None
        return p is self.party

    def beaters(self, card: Card, led_cls: int, behind: list[int]) -> int:
        """Unseen cards that could beat ``card`` from the players still to play."""
        s = self.scheme
        if not behind:
            return 0
        voids = [self.obs.voids[b] for b in behind]
        n = 0
        higher_same = 0
        for c in cards_in(self.unseen & s.class_mask[s.cls[card]]):
            if s.beats(c, card, self.h10):
                higher_same += 1
        if s.cls[card] == TRUMP:
            if all(v >> TRUMP & 1 for v in voids):
                return 0
            return higher_same
        n = higher_same
        # A plain card can also be trumped by a player behind who has no cards of the suit.
        suit_left = (self.unseen & s.class_mask[led_cls]).bit_count()
        can_ruff = any(v >> led_cls & 1 and not v >> TRUMP & 1 for v in voids)
        if can_ruff or suit_left < 2 * len(behind):
            n += (self.unseen & s.class_mask[TRUMP]).bit_count() and 1
        return n


def _trump_cost(card: Card, scheme: Scheme) -> float:
    """How much giving away this card's strength hurts (high trumps are worth keeping)."""
    if scheme.cls[card] != TRUMP:
        return 0.0
    return max(0.0, (scheme.key[card] - 100) - 4) * 1.5


def choose_card(obs: Observation, rng: random.Random) -> Card:
    """The heuristic card for the player to move."""
    v = _View(obs)
    legal = legal_actions(obs)
    if len(legal) == 1:
        return legal[0]
    if not obs.trick:
        return _lead(v, legal)
    return _follow(v, legal)


def _lead(v: _View, legal: list[Card]) -> Card:
    s = v.scheme
    obs = v.obs
    hand = obs.hand
    trumps = [c for c in legal if s.cls[c] == TRUMP]
    plain = [c for c in legal if s.cls[c] != TRUMP]
    opp_trumps = (v.unseen & s.class_mask[TRUMP]).bit_count()
    if v.soloist and trumps and opp_trumps:
        top = max(trumps, key=lambda c: s.key[c])
        if v.beaters(top, TRUMP, [1, 2, 3]) == 0 or len(trumps) >= opp_trumps:
            return top
    # Plain aces (the top remaining card) of a suit in its first round.
    best_plain: Card | None = None
    best_score = -1.0
    for c in plain:
        cl = s.cls[c]
        higher = [x for x in cards_in(v.unseen & s.class_mask[cl]) if s.key[x] > s.key[c]]
        if higher:
            continue
        suit_left = (v.unseen & s.class_mask[cl]).bit_count()
        if cl in v.led_classes and suit_left < 5:
            continue
        mine = (hand & s.class_mask[cl]).bit_count()
        score = POINTS[c] + suit_left - mine
        if score > best_score:
            best_plain, best_score = c, score
    if best_plain is not None and (not v.soloist or not opp_trumps):
        return best_plain
    if v.soloist and best_plain is not None:
        return best_plain
    if (
        not v.solo
        and v.party is Party.RE
        and obs.game_type is not GameType.WEDDING
        and len(trumps) >= 6
    ):
        # Re with many trumps: lead trump, a club queen shows the party.
        qs = [c for c in trumps if c in CLUB_QUEEN_CARDS]
        if qs and len(obs.tricks) < 4:
            return qs[0]
        return _lowest(v, trumps)
    if plain:
        # Lead a low card of the shortest plain suit (to make a void), not a lone ten.
        def key(c: Card) -> tuple[int, int]:
            n = (hand & s.class_mask[s.cls[c]]).bit_count()
            return (n, POINTS[c])

        return min(plain, key=key)
    return _lowest(v, trumps)


def _lowest(v: _View, cards: list[Card]) -> Card:
    """The cheapest card to give away: few eyes, low strength, never the fox if avoidable."""
    s = v.scheme

    def key(c: Card) -> tuple[int, float, int]:
        fox = 1 if c in FOX_CARDS and not v.solo else 0
        return (fox, POINTS[c] + _trump_cost(c, s) * 0.5, s.key[c])

    return min(cards, key=key)


def _follow(v: _View, legal: list[Card]) -> Card:
    s = v.scheme
    obs = v.obs
    trick = obs.trick
    led = s.cls[trick[0]]
    wi = trick_winner(trick, s, v.h10)
    win_card = trick[wi]
    win_seat = (obs.leader + wi) & 3
    behind = [(obs.seat + k) & 3 for k in range(1, 4 - len(trick))]
    pts = sum(POINTS[c] for c in trick)
    fox_in = any(c in FOX_CARDS for c in trick)
    opp_behind = [b for b in behind if v.friend(b) is not True]
    friend_wins = v.friend(win_seat) is True
    if friend_wins and (not opp_behind or v.beaters(win_card, led, opp_behind) == 0):
        # Schmieren: give the partner the most eyes that cost no strength.
        def give(c: Card) -> float:
            bonus = 5.0 if c in FOX_CARDS and not v.solo else 0.0
            return POINTS[c] + bonus - _trump_cost(c, s) * 2

        return max(legal, key=give)
    winners = [c for c in legal if s.beats(c, win_card, v.h10)]
    if winners:
        safe = [c for c in winners if v.beaters(c, led, opp_behind) == 0]
        if safe:
            if not behind:
                # Last: win with the most eyes, but keep high trumps.
                def last_key(c: Card) -> float:
                    bonus = 6.0 if c in FOX_CARDS and not v.solo else 0.0
                    return POINTS[c] + bonus - _trump_cost(c, s)

                return max(safe, key=last_key)
            # Club queen shows the party (normal game, Re).
            if v.party is Party.RE and not v.solo:
                qs = [c for c in safe if c in CLUB_QUEEN_CARDS]
                if qs and len(obs.tricks) < 6:
                    return qs[0]
            return min(safe, key=lambda c: (s.key[c], -POINTS[c]))
        if pts >= 14 or fox_in:
            return max(winners, key=lambda c: s.key[c])
        if s.cls[winners[0]] != TRUMP or led != TRUMP:
            # A cheap ruff or a middle card may still hold.
            mid = [c for c in winners if _trump_cost(c, s) <= 3]
            if mid and pts >= 10:
                return min(mid, key=lambda c: s.key[c])
    return _lowest(v, legal)


SLIP_EYES: Final = 10
"""A trick with at least this many eyes is one a beginner lets go in the last seat."""


def slip_card(obs: Observation) -> Card | None:
    """A beginner's mistake for this card turn, or ``None`` where the turn offers none a
    beginner makes (then the level plays its sound card). The mistakes are the classic ones,
    each one that costs points where it is made (docs/lab/2026-12-04-review.md):

    - last to a trick the own party does not hold: taking it with the dearest card that
      wins where a cheaper one would do, or, with one winner only, letting a trick of
      :data:`SLIP_EYES` eyes or more go;
    - following a trick it does not take: the fox (♦A, a trump in a normal game) onto a
      trick its partner is not known to hold, or its card with the most eyes (a ten, an ace)
      onto a trick a known opponent holds;
    - leading: the fox.

    Leading its highest trump, or a ten onto a trick whose parties are not known yet, are
    beginner's habits too, but cost too little on average (about 0.15 points) to make a
    beginner of a player who has them.
    """
    v = _View(obs)
    s = v.scheme
    legal = legal_actions(obs)
    fox = [c for c in legal if c in FOX_CARDS and s.cls[c] == TRUMP and not v.solo]
    if not obs.trick:
        return fox[0] if fox else None
    wi = trick_winner(obs.trick, s, v.h10)
    win_card = obs.trick[wi]
    holder = v.friend((obs.leader + wi) & 3)
    if holder is True:
        return None
    winners = [c for c in legal if s.beats(c, win_card, v.h10)]
    others = [c for c in legal if c not in winners]
    if len(obs.trick) == 3 and winners:
        dearest = max(winners, key=lambda c: s.key[c])
        if s.key[dearest] > min(s.key[c] for c in winners):
            return dearest
        eyes = sum(POINTS[c] for c in obs.trick)
        if others and eyes >= SLIP_EYES:
            return min(others, key=lambda c: (POINTS[c], s.key[c]))
        return None
    if not others:
        return None
    thrown = [c for c in others if c in fox]
    if thrown:
        return thrown[0]
    if holder is False:
        most = max(others, key=lambda c: (POINTS[c], s.key[c]))
        if POINTS[most] >= SLIP_EYES:
            return most
    return None


# ------------------------------------------------------------------ the player


def call_choice(obs: Observation, threshold: float) -> Action | None:
    """A Re/Kontra call on a strong hand at the first chance (no lower calls)."""
    calls = legal_calls(obs)
    party_call = CALL_RE if obs.parties[obs.seat] is Party.RE else CALL_KONTRA
    if party_call not in calls or obs.level[obs.parties[obs.seat] or 0] > 0:
        return None
    if obs.hand.bit_count() < 11:
        return None
    start = obs.hand
    for leader, cards, _ in obs.tricks:
        for i, c in enumerate(cards):
            if (leader + i) & 3 == obs.seat:
                start |= 1 << c
    for i, c in enumerate(obs.trick):
        if (obs.leader + i) & 3 == obs.seat:
            start |= 1 << c
    if obs.game_type is GameType.SOLO:
        if obs.declarer != obs.seat:
            return None
        _, lo = best_solo(start)
        solo_lo = losers(start, obs_scheme(obs))
        return party_call if solo_lo <= 1.5 and lo <= 1.5 else None
    if obs.game_type in (GameType.SILENT_WEDDING, GameType.WEDDING):
        return None
    strength = normal_strength(start)
    need = threshold if party_call == CALL_RE else threshold + 1.0
    return party_call if strength >= need else None


class HeuristicPlayer:
    """The ``easy`` (with slips) and ``normal`` levels.

    ``slips`` is the share of card decisions with a choice played as a beginner would
    (:func:`slip_card`), drawn from the seeded decision generator: the same game gets the
    same slips."""

    name = "heuristic"

    def __init__(
        self,
        seed: int,
        restrictions: Restrictions,
        slips: float = 0.0,
        call_at: float = 13.0,
        throw_in_below: float = THROW_IN_BELOW,
        take_trumps: int = TAKE_TRUMPS,
        exact_cards: int = 0,
        exact_worlds: int = 0,
    ) -> None:
        self.seed = seed
        self.restrictions = restrictions
        self.slips = slips
        self.call_at = call_at
        self.throw_in_below = throw_in_below
        """Throws in (when it may) a hand whose normal-game strength is below this."""
        self.take_trumps = take_trumps
        """Takes a poverty with at least this many trumps of its own."""
        self.exact_cards = exact_cards
        """With this many cards in hand or fewer, the card with the best mean over worlds
        solved exactly (0: never)..."""
        self.exact_worlds = exact_worlds
        """... over every consistent layout if there are at most this many, else this many
        sampled worlds (fixed work: the same decision on every machine)."""

    def decide(self, obs: Observation) -> Action:
        actions = legal_actions(obs)
        if not actions:
            raise ValueError("it is not this player's turn")
        house = house_action(obs, self.take_trumps)
        if house is not None:
            return house
        throw = normal_strength(obs.hand) < self.throw_in_below
        if obs.phase is Phase.RESERVATIONS:
            choice, _ = reservation_choice(obs.hand, self.restrictions)
            return RESERVATION if house_plan(obs, throw=throw) is not None else choice
        if obs.phase is Phase.DECLARATIONS:
            _, plan = reservation_choice(obs.hand, self.restrictions)
            if plan is not None and is_solo(plan) and plan in actions:
                return plan
            hp = house_plan(obs, throw=throw)
            if hp is not None and hp in actions:
                return hp
            if plan is not None and plan in actions:
                return plan
            if DECLARE_WEDDING in actions:
                return DECLARE_WEDDING
            return DECLARE_SOLO + best_solo(obs.hand)[0]
        rng = decision_rng(self.seed, obs, "decide")
        if self.slips and len(actions) > 1 and rng.random() < self.slips:
            slip = slip_card(obs)
            if slip is not None:
                return slip
        if self.exact_cards and solvable(obs, self.exact_cards):
            worlds = Budget(0.0, self.exact_worlds)
            exact = exact_values(obs, decision_rng(self.seed, obs, "exact"), worlds)
            if exact is not None:
                return exact.best()
        return choose_card(obs, rng)

    def announce(self, obs: Observation) -> Action | None:
        if self.restrictions.no_calls or obs.turn != obs.seat:
            return None
        return call_choice(obs, self.call_at)
