"""Train the card-location model of :mod:`dokobot.ai.inference` from the strong level's games.

Plays ``--games`` self-play games of four ``strong_prev`` players (the strong level without
the model, so the data does not depend on the weights being trained; fixed work of
``--budget`` seconds per decision, deterministic: deals ``--seed``, ``--seed`` + 1, …).
Every card decision gives one position: the observation of the player on turn, and for each
card it cannot see (and that may lie with more than one seat) the seat that holds it. The
games are split: the last ``--holdout`` share is held out. A bilinear model (kind features x
seat features, plus pair features; :mod:`dokobot.ai.inference`) is trained on the rest by
full-batch Adam with a small L2 penalty, every step the same on every machine.

Held out, per card that could lie with two or three seats: the model's log-loss (nats per
card) and top-1 accuracy (the seat it rates likeliest holds the card), against uniform
sampling over consistent layouts (each card's seat counted over ``--uniform-samples``
deals of :meth:`~dokobot.engine.Observation.sample_hands`, smoothed by half a count per
seat that may hold it).

    nice -n 10 python bench/train_inference.py --out dokobot/ai/inference.json   # retrain
    python bench/train_inference.py --games 4 --steps 20      # a smoke run, writes nothing

Ends with ``positions: P cards: C train_s: T model_logloss: L uniform_logloss: U
model_top1: A uniform_top1: B`` (C the held-out cards, T the CPU seconds of playing and
training).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import pickle
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import numpy.typing as npt

from dokobot.ai.inference import (
    KIND_FEATURES,
    PAIR_FEATURES,
    SEAT_FEATURES,
    CardModel,
    _kind_table,
    features,
)
from dokobot.ai.levels import make_player
from dokobot.engine import DEFAULT_RULES, Game, Observation, Phase, observe
from dokobot.engine.order import SCHEMES

Array = npt.NDArray[np.float64]


@dataclass
class Data:
    """Positions and their cards (one row per unseen card with a choice of seats)."""

    seat: list[Array] = field(default_factory=list)  # per position (3, SEAT_FEATURES)
    obs: list[Observation] = field(default_factory=list)
    truth: list[list[int]] = field(default_factory=list)  # per position: holder of each card
    pos: list[int] = field(default_factory=list)
    kind_row: list[int] = field(default_factory=list)  # scheme * 24 + kind
    card: list[int] = field(default_factory=list)
    pair: list[Array] = field(default_factory=list)  # (3, PAIR_FEATURES)
    offset: list[list[float]] = field(default_factory=list)  # log need, or -inf
    label: list[int] = field(default_factory=list)


def add_position(data: Data, obs: Observation, hands: list[int]) -> None:
    f = features(obs)
    if f is None:
        return
    p = len(data.seat)
    data.seat.append(f.seat)
    data.obs.append(obs)
    holder = [-1] * 48
    for s in range(4):
        for c in range(48):
            if hands[s] >> c & 1:
                holder[c] = s
    data.truth.append(holder)
    zero = np.zeros((3, PAIR_FEATURES))
    for c in range(48):
        seats = [i for i in range(3) if f.allowed[i] >> c & 1 and f.need[i] > 0]
        if len(seats) < 2 or holder[c] not in f.seats:
            continue
        label = f.seats.index(holder[c])
        if label not in seats:
            raise AssertionError("a card lies where the constraints say it cannot")
        data.pos.append(p)
        data.kind_row.append(f.scheme * 24 + (c >> 1))
        data.card.append(c)
        data.pair.append(f.pair.get(c >> 1, zero))
        data.offset.append([math.log(f.need[i]) if i in seats else -math.inf for i in range(3)])
        data.label.append(label)


def play_one(deal: int, budget: float) -> tuple[Data, float]:
    """The positions of the self-play game on ``deal``, and its CPU seconds."""
    t0 = time.process_time()
    players = [
        make_player("strong_prev", seed=deal * 4 + s, budget_s=budget, fixed=True) for s in range(4)
    ]
    g = Game.deal(DEFAULT_RULES, deal % 4, deal)
    data = Data()
    while g.phase is not Phase.FINISHED:
        seat = g.turn
        if g.phase is Phase.PLAYING:
            call = players[seat].announce(observe(g, seat))
            if call is not None:
                g.play(seat, call)
            if len(g.legal_actions()) > 1:
                add_position(data, observe(g, seat), list(g.hands))
        g.play(seat, players[seat].decide(observe(g, seat)))
    return data, time.process_time() - t0


def play(games: int, seed: int, budget: float, procs: int) -> tuple[list[Data], float]:
    """Per game its positions (in the order of the deals, whatever ``procs``); and the CPU
    seconds spent."""
    with mp.Pool(procs) as pool:
        done = pool.starmap(play_one, [(seed + i, budget) for i in range(games)], chunksize=1)
    return [d for d, _ in done], sum(t for _, t in done)


@dataclass
class Arrays:
    seat: Array  # (P, 3, SF)
    pos: npt.NDArray[np.int64]
    kind: Array  # (N, KF)
    pair: Array  # (N, 3, PF)
    offset: Array  # (N, 3)
    label: npt.NDArray[np.int64]


def arrays(parts: list[Data]) -> Arrays:
    seat: list[Array] = []
    pos: list[int] = []
    kind_rows: list[int] = []
    pair: list[Array] = []
    offset: list[list[float]] = []
    label: list[int] = []
    for d in parts:
        base = len(seat)
        seat += d.seat
        pos += [base + p for p in d.pos]
        kind_rows += d.kind_row
        pair += d.pair
        offset += d.offset
        label += d.label
    table = np.concatenate([_kind_table(s.index) for s in SCHEMES])
    return Arrays(
        np.array(seat).reshape(-1, 3, SEAT_FEATURES),
        np.array(pos, dtype=np.int64),
        table[np.array(kind_rows, dtype=np.int64)].reshape(-1, KIND_FEATURES),
        np.array(pair).reshape(-1, 3, PAIR_FEATURES),
        np.array(offset).reshape(-1, 3),
        np.array(label, dtype=np.int64),
    )


def logits(a: Arrays, w: Array, v: Array) -> Array:
    kw = a.kind @ w  # (N, SF)
    return (
        np.einsum("nf,njf->nj", kw, a.seat[a.pos])
        + a.pair @ v
        + np.where(np.isfinite(a.offset), a.offset, -1e9)
    )


def log_probs(z: Array) -> Array:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def train(a: Arrays, steps: int, l2: float, lr: float) -> tuple[Array, Array]:
    """Full-batch Adam from zero weights (the baseline: each seat by its unknown cards)."""
    w = np.zeros((KIND_FEATURES, SEAT_FEATURES))
    v = np.zeros(PAIR_FEATURES)
    m = [np.zeros_like(w), np.zeros_like(v)]
    s2 = [np.zeros_like(w), np.zeros_like(v)]
    n = len(a.label)
    seat = a.seat[a.pos]
    onehot = np.eye(3)[a.label]
    for t in range(1, steps + 1):
        kw = a.kind @ w
        z = np.einsum("nf,njf->nj", kw, seat) + a.pair @ v
        z = z + np.where(np.isfinite(a.offset), a.offset, -1e9)
        p = np.exp(log_probs(z))
        d = (p - onehot) / n  # (N, 3)
        gw = a.kind.T @ np.einsum("nj,njf->nf", d, seat) + l2 * w
        gv = np.einsum("nj,njf->f", d, a.pair) + l2 * v
        for i, (x, g) in enumerate(((w, gw), (v, gv))):
            m[i] = 0.9 * m[i] + 0.1 * g
            s2[i] = 0.999 * s2[i] + 0.001 * g * g
            mh = m[i] / (1 - 0.9**t)
            sh = s2[i] / (1 - 0.999**t)
            x -= lr * mh / (np.sqrt(sh) + 1e-8)
    return w, v


def uniform_probs(parts: list[Data], samples: int, seed: int) -> Array:
    """Per held-out card the share of uniform consistent deals with each seat holding it."""
    rng = random.Random(seed)
    rows: list[list[float]] = []
    for d in parts:
        counts: list[list[list[float]]] = []
        for obs in d.obs:
            seats = ((obs.seat + 1) & 3, (obs.seat + 2) & 3, (obs.seat + 3) & 3)
            cnt = [[0.0, 0.0, 0.0] for _ in range(48)]
            for _ in range(samples):
                hands = obs.sample_hands(rng)
                for i, s in enumerate(seats):
                    h = hands[s]
                    while h:
                        low = h & -h
                        cnt[low.bit_length() - 1][i] += 1.0
                        h ^= low
            counts.append(cnt)
        for p, c, off in zip(d.pos, d.card, d.offset, strict=True):
            row = [counts[p][c][i] + 0.5 if math.isfinite(off[i]) else 0.0 for i in range(3)]
            total = sum(row)
            rows.append([x / total for x in row])
    return np.array(rows).reshape(-1, 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=39_000)
    ap.add_argument("--budget", type=float, default=0.02, help="strong_prev's fixed work")
    ap.add_argument("--procs", type=int, default=1, help="processes playing the games")
    ap.add_argument("--holdout", type=float, default=0.2)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--uniform-samples", type=int, default=40)
    ap.add_argument("--out", help="write the weights here (dokobot/ai/inference.json)")
    ap.add_argument(
        "--games-file",
        help="keep the played positions in this file and read them from it when it exists "
        "(to try training settings without playing again)",
    )
    args = ap.parse_args()

    cache = Path(args.games_file) if args.games_file else None
    if cache is not None and cache.exists():
        games, play_s = pickle.loads(cache.read_bytes())
    else:
        games, play_s = play(args.games, args.seed, args.budget, args.procs)
        if cache is not None:
            cache.write_bytes(pickle.dumps((games, play_s)))
    cut = max(1, round(len(games) * (1 - args.holdout)))
    cut = min(cut, len(games) - 1)
    train_part, test_part = games[:cut], games[cut:]
    tr = arrays(train_part)
    te = arrays(test_part)
    t0 = time.process_time()
    w, v = train(tr, args.steps, args.l2, args.lr)
    train_s = time.process_time() - t0
    lp = log_probs(logits(te, w, v))
    n = len(te.label)
    idx = np.arange(n)
    model_ll = float(-lp[idx, te.label].mean())
    model_top1 = float((lp.argmax(axis=1) == te.label).mean())
    up = uniform_probs(test_part, args.uniform_samples, args.seed)
    uniform_ll = float(-np.log(up[idx, te.label]).mean())
    uniform_top1 = float((up.argmax(axis=1) == te.label).mean())
    positions = sum(len(d.seat) for d in games)
    print(
        f"games {len(games)} (train {len(train_part)}, held out {len(test_part)}), "
        f"positions {positions}, training cards {len(tr.label)}, held-out cards {n}; "
        f"play {play_s:.0f} s CPU, training {train_s:.1f} s CPU, "
        f"parameters {w.size + v.size}"
    )
    if args.out:
        model = CardModel(
            w,
            v,
            {
                "trained": (
                    f"bench/train_inference.py --games {args.games} --seed {args.seed} "
                    f"--budget {args.budget} --steps {args.steps}"
                ),
                "held_out": {
                    "cards": n,
                    "model_logloss": round(model_ll, 4),
                    "uniform_logloss": round(uniform_ll, 4),
                    "model_top1": round(model_top1, 4),
                    "uniform_top1": round(uniform_top1, 4),
                },
            },
        )
        Path(args.out).write_text(model.to_json(), "utf-8")
        print(f"weights written to {args.out}")
    print(
        f"positions: {positions} cards: {n} train_s: {play_s + train_s:.0f} "
        f"model_logloss: {model_ll:.4f} uniform_logloss: {uniform_ll:.4f} "
        f"model_top1: {model_top1:.3f} uniform_top1: {uniform_top1:.3f}"
    )


if __name__ == "__main__":
    main()
