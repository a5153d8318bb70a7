"""Playouts with a fast card-play policy for search in sampled worlds.

:meth:`Game.playout` plays uniformly random cards: cheap, but a soloist who plays at random
loses almost every solo, so a plan evaluated that way is priced as if nobody could play.
:func:`greedy_playout` plays the rest of a game the way a sound player would if it could see
all hands (which it can, inside one sampled world): win a trick with the cheapest card the
players behind cannot beat, give points to a partner whose trick is safe, otherwise throw the
cheapest card; lead plain aces of suits not yet led, a lone player leads his highest trump.
A share ``eps`` of the cards is random so that the playouts of one world differ.

>>> import random
>>> from dokobot.engine import DEFAULT_RULES, Game, Phase, HEALTHY
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> for _ in range(4):
...     g.push(g.turn, HEALTHY)
>>> greedy_playout(g, random.Random(1))
>>> g.phase is Phase.FINISHED, sum(g.eyes), sum(g.won)
(True, 240, 12)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from dokobot.engine import Game, Phase
from dokobot.engine.cards import ACE, CARD_OF_BIT, N_CARDS, POINTS, Mask
from dokobot.engine.order import SCHEMES, TRUMP, Scheme

__all__ = ["Playout", "greedy_playout"]


class _Tables:
    """Per scheme: which cards beat a given rank in each led class, and card preferences."""

    __slots__ = (
        "aces",
        "beat",
        "discard",
        "heart10_mask",
        "high_first",
        "lead",
        "smear",
        "trump_mask",
    )

    def __init__(self, s: Scheme) -> None:
        top = max(s.key) + 2
        # beat[led][r]: the cards whose rank in a trick led with class ``led`` exceeds r
        # (r = -1 .. top; index r + 1).
        self.beat = tuple(
            tuple(sum(1 << c for c in range(N_CARDS) if s.rank[led][c] > r) for r in range(-1, top))
            for led in range(5)
        )
        self.trump_mask = s.class_mask[TRUMP]
        self.heart10_mask = (
            sum(1 << c for c in range(N_CARDS) if s.key[c] == s.heart10) if s.heart10 >= 0 else 0
        )
        trump = [s.cls[c] == TRUMP for c in range(N_CARDS)]
        # The cheapest card to throw: few points, and a plain card before a trump.
        self.discard = tuple(
            POINTS[c] * 3 + (s.key[c] if trump[c] else s.key[c] % 100) for c in range(N_CARDS)
        )
        # The cheapest card to lead without a sure winner: the fewest points first.
        self.lead = tuple(POINTS[c] * 1000 + self.discard[c] for c in range(N_CARDS))
        # The best card to give a partner (lowest first): many points, not a high trump.
        self.smear = tuple(
            ((s.key[c] - 100) * 2 if trump[c] else 0) - POINTS[c] * 3 for c in range(N_CARDS)
        )
        self.high_first = tuple(-k for k in s.key)
        self.aces = sum(1 << c for c in range(N_CARDS) if not trump[c] and (c >> 1) % 6 == ACE)


_TABLES: Final = {id(s): _Tables(s) for s in SCHEMES}


def _cheapest(m: Mask, cost: tuple[int, ...]) -> int:
    """The card of ``m`` with the lowest ``cost`` (ties: the lowest card id)."""
    best_v = 1 << 30
    card = -1
    while m:
        low = m & -m
        m ^= low
        c = CARD_OF_BIT[low]
        if cost[c] < best_v:
            best_v, card = cost[c], c
    return card


def _pick_random(m: Mask, r: float) -> int:
    k = int(r * m.bit_count())
    while k:
        m &= m - 1
        k -= 1
    return CARD_OF_BIT[m & -m]


def _sound_lead(
    m: Mask,
    hands: list[Mask],
    seat: int,
    re: int,
    t: _Tables,
    ranks: tuple[tuple[int, ...], ...],
    class_mask: tuple[Mask, ...],
    h10: int,
) -> int:
    """The lead of ``seat`` (cards ``m``) when it has no fresh ace: the cheapest card the
    other party cannot beat, whatever it plays (a plain card before a trump), else the card
    with the fewest points."""
    mine = (re >> seat) & 1
    others = [hands[s] for s in range(4) if s != seat and (re >> s) & 1 != mine]
    h10_mask = t.heart10_mask if h10 >= 0 else 0
    discard = t.discard
    best_v = 1 << 30
    card = -1
    for lc in range(5):
        own = m & class_mask[lc]
        if not own:
            continue
        follow = class_mask[lc]
        theirs = 0
        for h in others:
            theirs |= h & follow or h
        rank = ranks[lc]
        beat = t.beat[lc]
        while own:
            low = own & -own
            own ^= low
            c = CARD_OF_BIT[low]
            r = rank[c]
            if discard[c] < best_v and not theirs & (beat[r + 1] | (h10_mask if r == h10 else 0)):
                best_v, card = discard[c], c
    return card if card >= 0 else _cheapest(m, t.lead)


def greedy_playout(
    g: Game,
    rng: random.Random,
    eps: tuple[float, float, float, float] = (0.1, 0.1, 0.1, 0.1),
    sound_leads: bool = False,
) -> None:
    """Play ``g`` to its end with the greedy full-information policy (no calls);
    ``eps[s]`` is the share of random cards of seat ``s``. ``sound_leads``: without a fresh
    ace, lead the cheapest sure winner, else the card with the fewest points (not a random
    one; :func:`_sound_lead`)."""
    if g.phase is not Phase.PLAYING:
        raise ValueError("playout needs the card play phase")
    scheme = g.scheme
    t = _TABLES[id(scheme)]
    cls = scheme.cls
    key = scheme.key
    ranks = scheme.rank
    class_mask = scheme.class_mask
    beat = t.beat
    discard = t.discard
    smear = t.smear
    high_first = t.high_first
    aces = t.aces
    trump_mask = t.trump_mask
    rules = g.rules
    h10_all, h10_last = rules.heart10_ranks(scheme.heart10)  # RULES §12.7
    card_of = CARD_OF_BIT
    hands = g.hands
    rand = rng.random
    leader = g.leader
    trick = g.trick
    led_suits = 0
    for _leader, cards, _w in g.tricks:
        led_suits |= 1 << cls[cards[0]]
    while len(g.tricks) < rules.hand_size:
        h10 = h10_last if len(g.tricks) == rules.hand_size - 1 else h10_all
        h10_mask = t.heart10_mask if h10 >= 0 else 0
        seat = (leader + len(trick)) & 3
        while len(trick) < 4:
            hand = hands[seat]
            re = g.re_seats
            if trick:
                lc = cls[trick[0]]
                follow = class_mask[lc]
                m = hand & follow or hand
            else:
                lc = -1
                follow = 0
                m = hand
            if not m & (m - 1):
                card = card_of[m]
            elif rand() < eps[seat]:
                card = _pick_random(m, rand())
            elif not trick:
                mine = (re >> seat) & 1
                alone = re.bit_count() == (1 if mine else 3)
                if alone and m & trump_mask:
                    card = _cheapest(m & trump_mask, high_first)
                else:
                    fresh = m & aces
                    f = fresh
                    while f:
                        low = f & -f
                        f ^= low
                        if led_suits >> cls[card_of[low]] & 1:
                            fresh ^= low
                    if fresh:
                        card = card_of[fresh & -fresh]
                    elif sound_leads:
                        card = _sound_lead(m, hands, seat, re, t, ranks, class_mask, h10)
                    else:
                        card = _pick_random(m, rand())
            else:
                rank = ranks[lc]
                top = -1
                win_seat = leader
                for i, c in enumerate(trick):
                    r = rank[c]
                    if r > top or r == top == h10:
                        top = r
                        win_seat = (leader + i) & 3
                mine = (re >> seat) & 1
                # the legal cards of the opponents still to play in this trick
                behind = 0
                for j in range(len(trick) + 1, 4):
                    s = (leader + j) & 3
                    if (re >> s) & 1 != mine:
                        h = hands[s]
                        behind |= h & follow or h
                card = -1
                beats_top = beat[lc][top + 1] | (h10_mask if top == h10 else 0)
                partner_wins = (re >> win_seat) & 1 == mine
                if partner_wins and not behind & beats_top:
                    card = _cheapest(m, smear)
                else:
                    winners = m & beats_top
                    best_k = 999
                    while winners:
                        low = winners & -winners
                        winners ^= low
                        c = card_of[low]
                        k = key[c]
                        if k < best_k:
                            r = rank[c]
                            safe = beat[lc][r + 1] | (h10_mask if r == h10 else 0)
                            if not behind & safe:
                                best_k, card = k, c
                    if card < 0:
                        card = _cheapest(m, discard)
            hands[seat] = hand & ~(1 << card)
            trick.append(card)
            seat = (seat + 1) & 3
        led_suits |= 1 << cls[trick[0]]
        leader = g.close_trick()
        trick = g.trick


@dataclass(frozen=True, slots=True)
class Playout:
    """How a search plays out its worlds: :func:`greedy_playout` with these settings."""

    eps: tuple[float, float, float, float] = (0.1, 0.1, 0.1, 0.1)
    sound_leads: bool = False

    def run(self, g: Game, rng: random.Random) -> None:
        greedy_playout(g, rng, self.eps, self.sound_leads)
