"""Learned card-location inference: where the unseen cards lie, from what a player saw.

A small model (trained by ``bench/train_inference.py`` on positions of the strong level's
own games, shipped as ``inference.json`` beside this module) scores, for every card the
observing player cannot see and every other seat that may hold it, how much likelier that
seat holds it than a deal of the unseen cards drawn uniformly (every consistent deal as
likely as another) would say. Its inputs are a function of the :class:`Observation` alone
(the public history and the observer's own hand), never of the game.

The score is bilinear: a card kind's features (its kind, class and rank in the game's
order, its eyes) times a seat's public features (position, party as known, calls, cards
played and led per class, tricks and eyes won, voids) through one weight matrix, plus a few
features of the pair (the seat passed up a trick this card would have taken, it played the
card's twin, it led or discarded the card's class). :meth:`CardModel.probabilities` turns
the scores into a distribution over the seats that may hold the card, with each seat's
number of unknown cards as the baseline (what the accuracy is measured with);
:func:`tilt_hands` draws deals from the uniform deals tilted by the scores (a Metropolis
chain of swaps between two hidden hands, which keeps every constraint of
:meth:`Observation.sample_hands`), and :func:`layout_weight` weighs an enumerated layout.

>>> from dokobot.engine import DEFAULT_RULES, Game, HEALTHY, observe
>>> import random
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> for _ in range(4):
...     g.push(g.turn, HEALTHY)
>>> rng = random.Random(1)
>>> for _ in range(9):
...     g.push(g.turn, rng.choice(g.legal_actions()))
>>> obs = observe(g, g.turn)
>>> p = default_model().probabilities(obs)
>>> all(abs(sum(row) - 1.0) < 1e-6 for c, row in p.items())
True
>>> sorted(p) == [c for c in range(48) if obs.unseen >> c & 1]
True
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

import numpy as np
import numpy.typing as npt

from dokobot.engine import GameType, Mask, Observation, Party, Phase
from dokobot.engine.cards import CLUB_QUEENS, N_CARDS, POINTS
from dokobot.engine.order import SCHEMES, TRUMP, Scheme

__all__ = [
    "KIND_FEATURES",
    "PAIR_FEATURES",
    "SEAT_FEATURES",
    "CardModel",
    "Features",
    "TiltedWorlds",
    "default_model",
    "features",
    "layout_weight",
    "tilt_hands",
]

Array = npt.NDArray[np.float64]

KIND_FEATURES: Final = 33
"""Per card kind: its kind (24), trump, trump strength, suit class (4), rank in its suit,
eyes, a constant."""
SEAT_FEATURES: Final = 32
"""Per other seat: a constant, its position (3), solo, its solo, the observer's solo,
wedding, its party (Re, Kontra, the observer's, the other), its calls, the game's
progress, its cards played (5 classes) and led (5), its voids (5), tricks and eyes won,
a ♣Q played."""
PAIR_FEATURES: Final = 6
"""Per seat and card: passed up a trick the card would have taken (the trick's best was
its partner's; another's), played the card's twin, led the card's class with a lower card,
led the class, discarded the class."""
WEIGHTS_FILE: Final = "inference.json"
SWAPS_PER_CARD: Final = 4
"""Metropolis proposals of :func:`tilt_hands` per unseen card."""
MIN_SWAPS: Final = 100
"""Proposals of :func:`tilt_hands` at least: late in a game, 4 per unseen card (24 for the
last 6) left the draws off the tilted law by a total variation of 0.12 (most proposals are
refused there: the same seat twice, a void); 100 brought it under 0.01."""
CHAIN_SWAPS_PER_CARD: Final = 2
MIN_CHAIN_SWAPS: Final = 25
"""Proposals between two worlds of one search (:class:`TiltedWorlds`), per unseen card and
at least (one per card left consecutive worlds a third more alike than fresh draws)."""


@dataclass(frozen=True, slots=True)
class Features:
    """The model's inputs for one observation: the three other seats (observer's left
    first), per seat its features, the cards each may hold and how many unknown cards it
    holds, and per card and seat the pair features."""

    seats: tuple[int, int, int]
    seat: Array
    """(3, SEAT_FEATURES)."""
    allowed: tuple[Mask, Mask, Mask]
    """The unseen cards each seat may hold (known cards excluded: they are certain)."""
    need: tuple[int, int, int]
    """Each seat's unknown cards."""
    pair: dict[int, Array]
    """Per card kind a (3, PAIR_FEATURES) array (only kinds with a non-zero feature)."""
    scheme: int


@cache
def _kind_table(scheme_index: int) -> Array:
    """(24, KIND_FEATURES): each kind's features in the order of ``scheme_index``."""
    scheme = SCHEMES[scheme_index]
    trumps = [c >> 1 for c in scheme.trumps_high_to_low]
    out = np.zeros((24, KIND_FEATURES))
    for k in range(24):
        c = 2 * k
        row = out[k]
        row[k] = 1.0
        if scheme.cls[c] == TRUMP:
            row[24] = 1.0
            row[25] = 1.0 - trumps.index(k) / max(1, len(trumps))
        else:
            row[26 + scheme.cls[c]] = 1.0
            same = [x for x in range(24) if scheme.cls[2 * x] == scheme.cls[c]]
            row[30] = sorted(same, key=lambda x: scheme.key[2 * x]).index(k) / max(1, len(same) - 1)
        row[31] = POINTS[c] / 11.0
        row[32] = 1.0
    return out


def _winner_card(scheme: Scheme, led: int, cards: tuple[int, ...] | list[int]) -> int:
    """The index of the best card so far in a trick's ``cards`` (the second ♥10 rule
    aside: the features only need an estimate)."""
    rank = scheme.rank[led]
    best = 0
    for i in range(1, len(cards)):
        if rank[cards[i]] > rank[cards[best]]:
            best = i
    return best


def features(obs: Observation) -> Features | None:
    """The model's inputs for ``obs`` (``None`` outside the card play: the model is trained
    on card-play positions only)."""
    if obs.phase is not Phase.PLAYING:
        return None
    scheme = obs.scheme
    me = obs.seat
    seats = ((me + 1) & 3, (me + 2) & 3, (me + 3) & 3)
    allowed_all, known, _, _ = obs.constraints()
    unseen = obs.unseen
    known_any = known[0] | known[1] | known[2] | known[3]
    allowed = tuple(allowed_all[s] & unseen & ~known_any for s in seats)
    need = tuple(obs.hand_sizes[s] - known[s].bit_count() for s in seats)
    seat = np.zeros((3, SEAT_FEATURES))
    idx = {s: i for i, s in enumerate(seats)}
    my_party = obs.parties[me]
    solo = obs.game_type is GameType.SOLO
    pair: dict[int, Array] = {}

    def bump(i: int, kind: int, f: int, by: float = 1.0) -> None:
        arr = pair.get(kind)
        if arr is None:
            arr = pair[kind] = np.zeros((3, PAIR_FEATURES))
        arr[i, f] += by

    for i, s in enumerate(seats):
        row = seat[i]
        row[0] = 1.0
        row[1 + i] = 1.0
        row[4] = 1.0 if solo else 0.0
        row[5] = 1.0 if solo and obs.declarer == s else 0.0
        row[6] = 1.0 if solo and obs.declarer == me else 0.0
        row[7] = 1.0 if obs.game_type is GameType.WEDDING else 0.0
        p = obs.parties[s]
        row[8] = 1.0 if p is Party.RE else 0.0
        row[9] = 1.0 if p is Party.KONTRA else 0.0
        row[10] = 1.0 if p is not None and p is my_party else 0.0
        row[11] = 1.0 if p is not None and my_party is not None and p is not my_party else 0.0
        row[12] = min(2, sum(1 for who, _ in obs.calls if who == s)) / 2.0
        row[13] = len(obs.tricks) / 12.0
        row[29] = obs.won[s] / 6.0
        row[30] = obs.eyes[s] / 120.0
        for c in range(5):
            row[24 + c] = float(obs.voids[s] >> c & 1)
    tricks = [(leader, list(cards)) for leader, cards, _ in obs.tricks]
    if obs.trick:
        tricks.append((obs.leader, list(obs.trick)))
    cls = scheme.cls
    rank = scheme.rank
    played_kinds: dict[int, int] = {}
    for leader, cards in tricks:
        led = cls[cards[0]]
        for j, c in enumerate(cards):
            s = (leader + j) & 3
            kind = c >> 1
            played_kinds[kind] = played_kinds.get(kind, 0) | 1 << s
            if s == me:
                continue
            i = idx[s]
            row = seat[i]
            row[14 + cls[c]] += 1.0 / 6.0
            if (1 << c) & CLUB_QUEENS:
                row[31] = 1.0
            if j == 0:
                row[19 + led] += 1.0 / 3.0
                bump(i, -1 - led, 4)  # the class led (per class, below)
                # the kinds of the led class above the card led
                for k in range(24):
                    if cls[2 * k] == led and scheme.key[2 * k] > scheme.key[c]:
                        bump(i, k, 3)
                continue
            if cls[c] != led and cls[c] != TRUMP:
                bump(i, -1 - cls[c], 5)  # discarded that class
            best = _winner_card(scheme, led, cards[:j])
            best_card = cards[best]
            if rank[led][c] > rank[led][best_card]:
                continue
            # s did not take the trick: the kinds of the class it played that would have
            best_seat = (leader + best) & 3
            partner = (
                obs.parties[s] is not None and obs.parties[best_seat] is obs.parties[s]
            ) or best_seat == s
            mine = cls[c]
            for k in range(24):
                if cls[2 * k] == mine and rank[led][2 * k] > rank[led][best_card]:
                    bump(i, k, 0 if partner else 1)
    # twins: a seat that played one copy of a kind
    for kind, who in played_kinds.items():
        for i, s in enumerate(seats):
            if who >> s & 1:
                bump(i, kind, 2)
    # per-class entries (negative keys) spread to the kinds of the class
    for key in [k for k in pair if k < 0]:
        klass = -1 - key
        arr = pair.pop(key)
        for k in range(24):
            if cls[2 * k] == klass:
                cur = pair.get(k)
                pair[k] = arr.copy() if cur is None else cur + arr
    for arr in pair.values():
        np.minimum(arr, 3.0, out=arr)
        arr /= 3.0
    return Features(seats, seat, allowed, need, pair, scheme.index)  # type: ignore[arg-type]


class CardModel:
    """The trained weights: ``bilinear`` (KIND_FEATURES, SEAT_FEATURES) and ``pair``
    (PAIR_FEATURES,)."""

    __slots__ = ("bilinear", "meta", "pair")

    def __init__(self, bilinear: Array, pair: Array, meta: dict[str, object] | None = None):
        if bilinear.shape != (KIND_FEATURES, SEAT_FEATURES) or pair.shape != (PAIR_FEATURES,):
            raise ValueError("inference weights of the wrong shape")
        self.bilinear = bilinear
        self.pair = pair
        self.meta = meta or {}

    @classmethod
    def from_json(cls, text: str) -> CardModel:
        data = json.loads(text)
        return cls(
            np.array(data["bilinear"], dtype=np.float64),
            np.array(data["pair"], dtype=np.float64),
            {k: v for k, v in data.items() if k not in ("bilinear", "pair")},
        )

    def to_json(self) -> str:
        data: dict[str, object] = dict(self.meta)
        data["bilinear"] = [[round(float(x), 5) for x in row] for row in self.bilinear]
        data["pair"] = [round(float(x), 5) for x in self.pair]
        return json.dumps(data, indent=0) + "\n"

    def scores(self, f: Features) -> dict[int, tuple[float, float, float]]:
        """Per card kind (0..23) the learned score of each of the three seats (before the
        baseline and the constraints)."""
        kw = _kind_table(f.scheme) @ self.bilinear  # (24, SEAT_FEATURES)
        base = kw @ f.seat.T  # (24, 3)
        for kind, arr in f.pair.items():
            base[kind] += arr @ self.pair
        return {k: (float(base[k, 0]), float(base[k, 1]), float(base[k, 2])) for k in range(24)}

    def seat_scores(self, obs: Observation) -> list[list[float]] | None:
        """Per card id (0..47) the learned score of each seat 0..3 (0 for the observer),
        or ``None`` outside the card play."""
        f = features(obs)
        if f is None:
            return None
        by_kind = self.scores(f)
        out = [[0.0, 0.0, 0.0, 0.0] for _ in range(N_CARDS)]
        for c in range(N_CARDS):
            row = by_kind[c >> 1]
            for i, s in enumerate(f.seats):
                out[c][s] = row[i]
        return out

    def probabilities(self, obs: Observation) -> dict[int, list[float]]:
        """Per unseen card the probability of each seat 0..3 holding it (the scores over
        the baseline of each seat's unknown cards, among the seats that may hold it; a
        card known to be with a seat is with it)."""
        f = features(obs)
        if f is None:
            return {}
        _, known, _, _ = obs.constraints()
        by_kind = self.scores(f)
        out: dict[int, list[float]] = {}
        for c in range(N_CARDS):
            if not obs.unseen >> c & 1:
                continue
            row = [0.0, 0.0, 0.0, 0.0]
            holder = next((s for s in range(4) if known[s] >> c & 1), -1)
            if holder >= 0:
                row[holder] = 1.0
                out[c] = row
                continue
            logits = [
                by_kind[c >> 1][i] + math.log(f.need[i])
                if f.allowed[i] >> c & 1 and f.need[i] > 0
                else -math.inf
                for i in range(3)
            ]
            top = max(logits)
            if top == -math.inf:  # a card in transit (poverty): nobody's
                continue
            ex = [math.exp(x - top) for x in logits]
            total = sum(ex)
            for i, s in enumerate(f.seats):
                row[s] = ex[i] / total
            out[c] = row
        return out


@cache
def default_model() -> CardModel:
    """The shipped model (``dokobot/ai/inference.json``)."""
    text = resources.files("dokobot.ai").joinpath(WEIGHTS_FILE).read_text("utf-8")
    return CardModel.from_json(text)


def layout_weight(scores: list[list[float]], hands: list[Mask], seat: int) -> float:
    """The tilt of a deal ``hands`` by ``scores`` (:meth:`CardModel.seat_scores`): exp of
    the sum of each other seat's scores of its cards, relative to the uniform deals."""
    total = 0.0
    for s in range(4):
        if s == seat:
            continue
        h = hands[s]
        while h:
            low = h & -h
            total += scores[low.bit_length() - 1][s]
            h ^= low
    return math.exp(total)


def tilt_hands(
    obs: Observation,
    hands: list[Mask],
    scores: list[list[float]],
    rng: random.Random,
    swaps: int | None = None,
) -> list[Mask]:
    """``hands`` (a deal drawn uniformly from those consistent with ``obs``) moved towards
    the deals tilted by ``scores``: a Metropolis chain of proposals, each swapping a card of
    one hidden hand with a card of another (both still allowed where they go, the
    constraints of ``obs`` kept: known cards stay, a seat that must hold a ♣Q keeps one, the
    poor player keeps his count of trumps), accepted with the ratio of the tilts. Its
    stationary law is the uniform deals times :func:`layout_weight`."""
    allowed, known, must_q, poor_trumps = obs.constraints()
    seats = [s for s in range(4) if s != obs.seat and hands[s] & ~known[s]]
    if len(seats) < 2:
        return hands
    hands = list(hands)
    poor = -1 if obs.exchange is None else obs.exchange.poor
    trump = obs.scheme.class_mask[TRUMP]
    n = swaps if swaps is not None else max(MIN_SWAPS, SWAPS_PER_CARD * obs.unseen.bit_count())
    rnd = rng.random
    exp = math.exp
    for _ in range(n):
        a = seats[int(rnd() * len(seats))]
        b = seats[int(rnd() * len(seats))]
        if a == b:
            continue
        ha = hands[a] & ~known[a]
        hb = hands[b] & ~known[b]
        x = _pick(ha, rnd())
        y = _pick(hb, rnd())
        if (x >> 1) == (y >> 1) or not allowed[b] >> x & 1 or not allowed[a] >> y & 1:
            continue
        delta = scores[x][b] + scores[y][a] - scores[x][a] - scores[y][b]
        if delta < 0.0 and rnd() >= exp(delta):
            continue
        new_a = hands[a] ^ (1 << x) | (1 << y)
        new_b = hands[b] ^ (1 << y) | (1 << x)
        if (must_q >> a & 1 and not new_a & CLUB_QUEENS) or (
            must_q >> b & 1 and not new_b & CLUB_QUEENS
        ):
            continue
        if poor_trumps >= 0 and poor in (a, b):
            before = (hands[poor] & trump).bit_count()
            after = ((new_a if poor == a else new_b) & trump).bit_count()
            if before != after:
                continue
        hands[a] = new_a
        hands[b] = new_b
    return hands


class TiltedWorlds:
    """The worlds of one search, drawn from the tilted law (:func:`tilt_hands`) by one
    Metropolis chain: the first from a uniform deal after the full :data:`SWAPS_PER_CARD`
    proposals, each later one :data:`CHAIN_SWAPS_PER_CARD` proposals per unseen card (at
    least :data:`MIN_CHAIN_SWAPS`) further along the chain from the one before. The chain's
    law stays the tilted one; a later world costs a quarter to a third of a fresh draw (no
    uniform deal, half the proposals), which the search spends on its rollouts instead. Two
    worlds in a row are nearly as unlike as two fresh draws: early in a game they put 12.4 of
    the others' cards in the same hands, two fresh draws 11.9 (19 positions each after 2, 6,
    14 and 26 cards; docs/lab/2026-12-04-worlds.md)."""

    __slots__ = ("_hands", "_obs", "_scores", "_swaps")

    def __init__(self, obs: Observation, scores: list[list[float]]) -> None:
        self._obs = obs
        self._scores = scores
        self._hands: list[Mask] | None = None
        self._swaps = max(MIN_CHAIN_SWAPS, CHAIN_SWAPS_PER_CARD * obs.unseen.bit_count())

    def draw(self, rng: random.Random) -> list[Mask]:
        """The next world: a fresh tilted deal the first time, then the chain moved on."""
        if self._hands is None:
            hands = tilt_hands(self._obs, self._obs.sample_hands(rng), self._scores, rng)
        else:
            hands = tilt_hands(self._obs, self._hands, self._scores, rng, self._swaps)
        self._hands = hands
        return list(hands)


def _pick(mask: Mask, u: float) -> int:
    """A card of ``mask`` (non-empty), the ``u``-th share of its cards."""
    k = int(u * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1
