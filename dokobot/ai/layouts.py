"""Every layout of the unseen cards consistent with an observation, when there are few.

Late in a game the cards a player cannot see may lie in only a handful of ways (three hands
of two cards, a void or two shown: often fewer than ten). Sampling 20 to 40 deals from three
layouts weighs them by chance; :func:`layouts` lists each exactly once with its weight (the
number of deals of the physical cards it stands for: twins of one kind split between two
hands count twice), so an evaluation over them is exact instead of a sample.

The rules are those of :meth:`Observation.sample_hands`: hand sizes, the classes a seat has
shown void in, what a player knows of a poverty's exchange, the club queens of a normal game
(a known Kontra player holds none, a revealed Re player who has played none holds one),
piglets and the poor player's trumps.

>>> from dokobot.engine import DEFAULT_RULES, Game, Phase, HEALTHY, observe
>>> import random
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> for _ in range(4):
...     g.push(g.turn, HEALTHY)
>>> rng = random.Random(1)
>>> while len(g.tricks) < 11:
...     g.push(g.turn, rng.choice(g.legal_actions()))
>>> found = layouts(observe(g, g.turn), 100)
>>> found is not None and len(found) <= 6 and all(w > 0 for _, w in found)
True
"""

from __future__ import annotations

from dokobot.engine import Observation, Phase
from dokobot.engine.cards import CLUB_QUEENS, Mask, cards_of
from dokobot.engine.order import TRUMP

__all__ = ["Layout", "layouts"]

Layout = tuple[list[Mask], int]
"""The four hands (the observer's own included) and the layout's weight."""


def _allowed(obs: Observation) -> tuple[list[Mask], list[Mask], int, int]:
    """Per seat the cards it may hold, the cards known to be with each seat, the seats that
    must hold a ♣Q and the poor player's known trump count (-1: unknown): the constraints
    of :meth:`Observation.sample_hands`, with the cards known to be with one seat taken
    from every other."""
    allowed, known, must_q, poor_trumps = obs.constraints()
    allowed = list(allowed)
    for s in range(4):
        for t in range(4):
            if t != s:
                allowed[t] &= ~known[s]
    return allowed, known, must_q, poor_trumps


def layouts(obs: Observation, limit: int) -> list[Layout] | None:
    """Every layout of the unseen cards consistent with ``obs`` with its weight, or ``None``
    if there are more than ``limit`` (or none, or the card play has not begun)."""
    if obs.phase is not Phase.PLAYING:
        return None
    allowed, known, must_q, poor_trumps = _allowed(obs)
    poor = -1 if obs.exchange is None else obs.exchange.poor
    trump = obs.scheme.class_mask[TRUMP]
    others = [s for s in range(4) if s != obs.seat]
    need = [obs.hand_sizes[s] - known[s].bit_count() if s != obs.seat else 0 for s in range(4)]
    free = obs.unseen & ~(known[0] | known[1] | known[2] | known[3])
    if sum(need) != free.bit_count():
        return None
    # the free cards by kind: [(the copies' ids, the seats that may hold the kind)]
    kinds: dict[int, list[int]] = {}
    for c in cards_of(free):
        kinds.setdefault(c >> 1, []).append(c)
    groups = sorted(
        kinds.values(), key=lambda cs: sum(1 for s in others if allowed[s] >> cs[0] & 1)
    )
    out: list[Layout] = []
    hands = list(known)
    hands[obs.seat] = obs.hand

    def ok() -> bool:
        for s in others:
            if must_q >> s & 1 and not hands[s] & CLUB_QUEENS:
                return False
        return poor_trumps < 0 or (hands[poor] & trump).bit_count() == poor_trumps

    def go(i: int, weight: int) -> bool:
        """False when the limit is passed."""
        if i == len(groups):
            if ok():
                out.append((list(hands), weight))
            return len(out) <= limit
        cs = groups[i]
        seats = [s for s in others if need[s] and allowed[s] >> cs[0] & 1]
        options: list[tuple[tuple[int, ...], int]]
        if len(cs) == 1:
            options = [((s,), 1) for s in seats]
        else:
            options = [((s, s), 1) for s in seats if need[s] >= 2]
            options += [((s, t), 2) for j, s in enumerate(seats) for t in seats[j + 1 :]]
        for holders, w in options:
            for s, c in zip(holders, cs, strict=True):
                hands[s] |= 1 << c
                need[s] -= 1
            going = go(i + 1, weight * w)
            for s, c in zip(holders, cs, strict=True):
                hands[s] &= ~(1 << c)
                need[s] += 1
            if not going:
                return False
        return True

    # none: only the soft ♣Q rule could fail (sample_hands then ignores it): sample instead
    return out if go(0, 1) and out else None
