"""Exact endgames: a double-dummy solver on the engine's bitmasks.

In a world where every hand is known (a sampled or enumerated layout,
:meth:`Observation.world`), :func:`solve` finds by alpha-beta the score every card of the
player on turn leads to if from then on everybody plays perfectly for his party (Re against
Kontra, the parties of that world): the real score of the game (the eyes' thresholds, the
calls made, the trick special points: Doppelkopf, fox, Karlchen), no further calls. It is
exact, and cheap enough for the last three or four tricks:

- a transposition table at trick boundaries (hands, leader, what is won so far);
- twins (the two copies of a card) tried once, and so are neighbouring cards of one hand
  that no other unplayed card separates, with the same eyes and no special point;
- the cards most likely to decide first (winners of the trick, then the cheapest).

:func:`solve_brute` is the same minimax without any of that, on the engine's own moves and
scoring (the tests compare both on random endgames).

>>> from dokobot.engine import DEFAULT_RULES, Game, Phase, HEALTHY
>>> import random
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> for _ in range(4):
...     g.push(g.turn, HEALTHY)
>>> rng = random.Random(1)
>>> while len(g.tricks) < 9:
...     g.push(g.turn, rng.choice(g.legal_actions()))
>>> solve(g) == solve_brute(g)
True
"""

from __future__ import annotations

from typing import Final

from dokobot.engine import Game, Phase, score
from dokobot.engine.cards import CARD_OF_BIT, CLUB_JACKS, DIAMOND_ACES, POINTS, Card, Mask
from dokobot.engine.scoring import outcome_scores
from dokobot.engine.types import is_card

__all__ = ["MAX_TRICKS", "solve", "solve_brute"]

MAX_TRICKS: Final = 4
"""The most tricks left for which the solver is used (beyond, its tree grows too fast for
a decision's budget in CPython)."""

_FOX_MIN: Final = min(c for c in range(48) if DIAMOND_ACES >> c & 1)
_EXACT, _LOWER, _UPPER = 0, 1, 2


def _past_specials(g: Game) -> int:
    """The special points of the tricks already won (Re's net: Doppelkopf and fox; the
    Karlchen counts only in the last trick, which is never past)."""
    if g.re_seats.bit_count() == 1:
        return 0
    fox = _FOX_MIN if g.piglets < 0 else 48
    re = g.re_seats
    net = 0
    for leader, cards, taker in g.tricks:
        side = 1 if re >> taker & 1 else -1
        if all(POINTS[c] >= 10 for c in cards):
            net += side
        for i, c in enumerate(cards):
            if c >= fox and (re >> ((leader + i) & 3) & 1) != (re >> taker & 1):
                net += side
    return net


def solve(g: Game) -> dict[Card, int]:
    """The score of the seat on turn in ``g`` (card play, all hands known, no open wedding)
    after each of its legal cards (one of twins), with perfect play of all four seats."""
    if g.phase is not Phase.PLAYING or g.wedding_open:
        raise ValueError("the solver needs the card play with the parties settled")
    scheme = g.scheme
    cls = scheme.cls
    ranks = scheme.rank
    class_mask = scheme.class_mask
    key = scheme.key
    h10 = scheme.heart10 if g.rules.heart10_second else -2
    # RULES §12.7 dullen second_except_last: the first ♥10 wins the last trick
    h10_last = -2 if g.rules.heart10_last_first else h10
    re = g.re_seats
    solo_scored = re.bit_count() == 1
    mult = 3 if solo_scored else 1
    fox = 48 if solo_scored or g.piglets >= 0 else _FOX_MIN
    karlchen = 0 if solo_scored else CLUB_JACKS
    n_tricks = g.rules.hand_size
    level = list(g.level)
    game_type = g.game_type
    re_seat = (re & -re).bit_length() - 1
    points = POINTS
    card_of = CARD_OF_BIT
    hands = list(g.hands)
    special: Mask = 0  # cards whose holder matters beyond rank and eyes
    for c in range(48):
        if c >= fox or karlchen >> c & 1 or (h10 >= 0 and key[c] == h10):
            special |= 1 << c
    order = tuple(cls[c] * 1000 - key[c] for c in range(48)).__getitem__
    tens = sum(1 << c for c in range(48) if points[c] >= 10)
    foxes = 0 if fox >= 48 else sum(1 << c for c in range(fox, 48))
    eyes_memo: dict[Mask, int] = {}

    def eyes_of(m: Mask) -> int:
        e = eyes_memo.get(m)
        if e is None:
            e = 0
            x = m
            while x:
                low = x & -x
                x ^= low
                e += points[card_of[low]]
            eyes_memo[m] = e
        return e

    terminal: dict[tuple[int, int, int], int] = {}
    table: dict[tuple[int, ...], tuple[int, int]] = {}

    def final(re_eyes: int, re_won: int, net: int) -> int:
        k = (re_eyes, re_won, net)
        v = terminal.get(k)
        if v is None:
            v = outcome_scores(game_type, re, re_eyes, re_won, level, n_tricks)[re_seat]
            v += net
            terminal[k] = v
        return v

    def moves(seat: int, trick: tuple[int, ...]) -> list[int]:
        """One card of each class of equivalent legal cards, the likeliest best first."""
        hand = hands[seat]
        if trick:
            lc = cls[trick[0]]
            m = hand & class_mask[lc] or hand
        else:
            lc = -1
            m = hand
        if not m & (m - 1):
            return [card_of[m]]
        rest = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand
        for c in trick:
            rest |= 1 << c
        # by class, then key (high first): neighbours of one hand are adjacent in this order
        cards = []
        while m:
            low = m & -m
            m ^= low
            cards.append(card_of[low])
        cards.sort(key=order)
        out: list[int] = []
        prev = -1
        for c in cards:
            if prev < 0 or (c >> 1 != prev >> 1 and not _equivalent(prev, c, rest)):
                out.append(c)
            prev = c
        if lc >= 0 and len(out) > 1:
            rank = ranks[lc]
            top = -1
            for t in trick:
                if rank[t] > top:
                    top = rank[t]
            out.sort(key=lambda c: (rank[c] <= top, points[c] if rank[c] > top else -rank[c]))
        return out

    def _equivalent(a: int, b: int, rest: Mask) -> bool:
        """Same class and eyes, no special point, and no card of the others (in their hands
        or in the trick) of the class between them or equal to either."""
        if cls[a] != cls[b] or points[a] != points[b] or (special >> a | special >> b) & 1:
            return False
        lo, hi = key[b], key[a]
        between = class_mask[cls[a]] & rest
        while between:
            low = between & -between
            between ^= low
            k = key[card_of[low]]
            if lo <= k <= hi:
                return False
        return True

    def search(
        trick: tuple[int, ...],
        leader: int,
        re_eyes: int,
        re_won: int,
        net: int,
        done: int,
        alpha: int,
        beta: int,
    ) -> int:
        k = len(trick)
        tkey: tuple[int, ...] = ()
        if k == 0:
            if done == n_tricks:
                return final(re_eyes, re_won, net)
            if done == n_tricks - 1:  # one card each: the last trick is forced
                t = tuple(card_of[hands[(leader + i) & 3]] for i in range(4))
                return close(t, leader, re_eyes, re_won, net, done, alpha, beta)
            # the score is monotone in Re's eyes and tricks; special points move it by at most
            # ``swing``: bounds that often settle a node without searching it
            rest = hands[0] | hands[1] | hands[2] | hands[3]
            swing = 0
            if not solo_scored:
                swing = (rest & tens).bit_count() // 4 + (rest & foxes).bit_count()
                swing += 1 if rest & karlchen else 0
            left = n_tricks - done
            lo = final(re_eyes, re_won, net - swing)
            if lo >= beta:
                return lo
            hi = final(re_eyes + eyes_of(rest), re_won + left, net + swing)
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            tkey = (hands[0], hands[1], hands[2], hands[3], leader, re_eyes, re_won, net)
            hit = table.get(tkey)
            if hit is not None:
                v, flag = hit
                if flag == _EXACT:
                    return v
                if flag == _LOWER and v >= beta:
                    return v
                if flag == _UPPER and v <= alpha:
                    return v
        a0, b0 = alpha, beta
        seat = (leader + k) & 3
        maxing = re >> seat & 1
        best = -(1 << 30) if maxing else 1 << 30
        for c in moves(seat, trick):
            hands[seat] ^= 1 << c
            t = (*trick, c)
            if k < 3:
                v = search(t, leader, re_eyes, re_won, net, done, alpha, beta)
            else:
                v = close(t, leader, re_eyes, re_won, net, done, alpha, beta)
            hands[seat] |= 1 << c
            if maxing:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        if k == 0:
            flag = _EXACT
            if best <= a0:
                flag = _UPPER
            elif best >= b0:
                flag = _LOWER
            table[tkey] = (best, flag)
        return best

    def close(
        t: tuple[int, ...],
        leader: int,
        re_eyes: int,
        re_won: int,
        net: int,
        done: int,
        alpha: int,
        beta: int,
    ) -> int:
        rank = ranks[cls[t[0]]]
        best_i = 0
        top = rank[t[0]]
        second = h10_last if done == n_tricks - 1 else h10  # a later ♥10 takes a first
        for i in (1, 2, 3):
            r = rank[t[i]]
            if r > top or r == top == second:
                best_i, top = i, r
        winner = (leader + best_i) & 3
        pts = points[t[0]] + points[t[1]] + points[t[2]] + points[t[3]]
        win_re = re >> winner & 1
        done += 1
        if not solo_scored:
            side = 1 if win_re else -1
            if (
                points[t[0]] >= 10
                and points[t[1]] >= 10
                and points[t[2]] >= 10
                and (points[t[3]] >= 10)
            ):
                net += side
            for i in range(4):
                if t[i] >= fox and (re >> ((leader + i) & 3) & 1) != win_re:
                    net += side
            if done == n_tricks and karlchen >> t[best_i] & 1:
                net += side
        if win_re:
            re_eyes += pts
            re_won += 1
        return search((), winner, re_eyes, re_won, net, done, alpha, beta)

    re_eyes = sum(g.eyes[s] for s in range(4) if re >> s & 1)
    re_won = sum(g.won[s] for s in range(4) if re >> s & 1)
    net = _past_specials(g)
    done = len(g.tricks)
    trick = tuple(g.trick)
    seat = g.turn
    out: dict[Card, int] = {}
    lo, hi = -(1 << 30), 1 << 30
    for c in _root_cards(g):
        hands[seat] ^= 1 << c
        t = (*trick, c)
        if len(t) < 4:
            v = search(t, g.leader, re_eyes, re_won, net, done, lo, hi)
        else:
            v = close(t, g.leader, re_eyes, re_won, net, done, lo, hi)
        hands[seat] |= 1 << c
        out[c] = v if re >> seat & 1 else -v // mult
    return out


def solve_brute(g: Game) -> dict[Card, int]:
    """:func:`solve` by plain minimax on the engine's moves and :func:`score` (slow: tests)."""
    seat = g.turn
    re_seat = (g.re_seats & -g.re_seats).bit_length() - 1
    h = g.copy()

    def value() -> int:
        if h.phase is Phase.FINISHED:
            return score(h).scores[re_seat]
        maxing = h.re_seats >> h.turn & 1
        vals = []
        for a in h.legal_actions():
            if not is_card(a):
                continue
            h.push(h.turn, a)
            vals.append(value())
            h.pop()
        return max(vals) if maxing else min(vals)

    out: dict[Card, int] = {}
    for a in _root_cards(g):
        if is_card(a):
            h.push(seat, a)
            v = value()
            h.pop()
            out[a] = score_of(g, seat, v)
    return out


def _root_cards(g: Game) -> list[Card]:
    """The legal cards of the seat on turn, one of twins (the lower legal copy)."""
    out: list[Card] = []
    for a in sorted(a for a in g.legal_actions() if is_card(a)):
        if not out or out[-1] >> 1 != a >> 1:
            out.append(a)
    return out


def score_of(g: Game, seat: int, re_score: int) -> int:
    """``seat``'s score when a Re seat scores ``re_score``."""
    re = g.re_seats
    if re >> seat & 1:
        return re_score
    return -re_score // (3 if re.bit_count() == 1 else 1)
