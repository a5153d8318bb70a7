"""The fast random playout of rollouts: the rest of a game's card play with uniformly random
legal cards, unrolled trick by trick with the hands in locals (no undo records, no log).

:meth:`dokobot.engine.game.Game.playout` is this function; it reads and writes only the
fields of :class:`PlayoutState`, which a :class:`~dokobot.engine.game.Game` has.
"""

from __future__ import annotations

import random
from typing import Final, Protocol

from .cards import CARD_OF_BIT, POINTS, Card, Mask
from .order import Scheme
from .rules import Rules
from .types import Phase, Seat

__all__ = ["PlayoutState", "playout"]

_PLAYING: Final = Phase.PLAYING
_FINISHED: Final = Phase.FINISHED
_NEXT3: Final = tuple(((s + 1) & 3, (s + 2) & 3, (s + 3) & 3) for s in range(4))


class PlayoutState(Protocol):
    """The fields of a game that a playout reads and writes."""

    rules: Rules
    phase: Phase
    scheme: Scheme
    hands: list[Mask]
    eyes: list[int]
    won: list[int]
    tricks: list[tuple[Seat, tuple[Card, ...], Seat]]
    trick: list[Card]
    leader: Seat
    turn: Seat
    declarer: Seat
    re_seats: int
    wedding_open: bool
    wedding_trick: int
    shift: int

    def _clarifies(self, led: Card) -> bool: ...


def playout(game: PlayoutState, rng: random.Random) -> None:
    """Play the rest of the game with uniformly random legal cards (no calls).

    The fast path of rollouts: no undo records, no log entries. Each card takes one
    ``rng.random()`` r and is the k-th lowest card id of the legal cards,
    k = int(r * their number).
    """
    if game.phase is not _PLAYING:
        raise ValueError("playout needs the card play phase")
    scheme = game.scheme
    cls = scheme.cls
    ranks = scheme.rank
    class_mask = scheme.class_mask
    rules = game.rules
    h10, h10_last = rules.heart10_ranks(scheme.heart10)  # RULES §12.7
    card_of = CARD_OF_BIT
    hands = game.hands
    eyes = game.eyes
    won = game.won
    tricks = game.tricks
    rand = rng.random
    leader = game.leader
    n = len(tricks)
    last = rules.hand_size
    wedding = game.wedding_open
    partial = game.trick
    # The hands in play order from the leader, a0 the leader's, kept in locals and
    # rotated to the winner after each trick.
    s1, s2, s3 = _NEXT3[leader]
    a0, a1, a2, a3 = hands[leader], hands[s1], hands[s2], hands[s3]
    # In the picks, k is a float: r * count // 1 == int(r * count), and "while k"
    # counts it down the same number of times.
    while True:
        if partial:  # finish the trick in progress
            follow = class_mask[cls[partial[0]]]
            seat = (leader + len(partial)) & 3
            while len(partial) < 4:
                hand = hands[seat]
                m = hand & follow or hand
                k = rand() * m.bit_count() // 1
                while k:
                    m &= m - 1
                    k -= 1
                low = m & -m
                hands[seat] = hand ^ low
                partial.append(card_of[low])
                seat = (seat + 1) & 3
            c0, c1, c2, c3 = partial
            partial = []
            lead_class = cls[c0]
            a0, a1, a2, a3 = hands[leader], hands[s1], hands[s2], hands[s3]
        else:
            m = a0
            k = rand() * m.bit_count() // 1
            while k:
                m &= m - 1
                k -= 1
            low = m & -m
            a0 ^= low
            c0 = card_of[low]
            lead_class = cls[c0]
            follow = class_mask[lead_class]

            m = a1 & follow or a1
            k = rand() * m.bit_count() // 1
            while k:
                m &= m - 1
                k -= 1
            low = m & -m
            a1 ^= low
            c1 = card_of[low]

            m = a2 & follow or a2
            k = rand() * m.bit_count() // 1
            while k:
                m &= m - 1
                k -= 1
            low = m & -m
            a2 ^= low
            c2 = card_of[low]

            m = a3 & follow or a3
            k = rand() * m.bit_count() // 1
            while k:
                m &= m - 1
                k -= 1
            low = m & -m
            a3 ^= low
            c3 = card_of[low]
        rank = ranks[lead_class]
        if n == last - 1:
            h10 = h10_last
        best = 0
        top = rank[c0]
        r = rank[c1]
        if r > top or r == top == h10:  # h10: a later trump ♥10 takes a first one
            best, top = 1, r
        r = rank[c2]
        if r > top or r == top == h10:
            best, top = 2, r
        r = rank[c3]
        if r > top or r == top == h10:
            best = 3
        winner = (leader + best) & 3
        eyes[winner] += POINTS[c0] + POINTS[c1] + POINTS[c2] + POINTS[c3]
        won[winner] += 1
        tricks.append((leader, (c0, c1, c2, c3), winner))
        if best == 1:
            a0, a1, a2, a3 = a1, a2, a3, a0
        elif best == 2:
            a0, a1, a2, a3 = a2, a3, a0, a1
        elif best == 3:
            a0, a1, a2, a3 = a3, a0, a1, a2
        leader = winner
        n += 1
        if wedding:
            if winner != game.declarer and game._clarifies(c0):
                game.re_seats |= 1 << winner
                game.wedding_open = wedding = False
                game.wedding_trick = n
                game.shift = n - 1
            elif n == 3:
                game.wedding_open = wedding = False
                game.shift = 2
        if n == last:
            break
    s1, s2, s3 = _NEXT3[leader]
    hands[leader], hands[s1], hands[s2], hands[s3] = a0, a1, a2, a3
    game.trick = []
    game.leader = leader
    game.turn = leader
    game.phase = _FINISHED
