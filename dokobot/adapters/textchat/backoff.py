"""How long a text chat waits before it connects (or joins a room) again."""

from __future__ import annotations

import random


def backoff_delay(
    attempt: int, *, initial: float, cap: float, rng: random.Random | None = None
) -> float:
    """Seconds to wait before reconnect attempt ``attempt`` (0-based): exponential, capped,
    with jitter (uniform between half and all of ``min(cap, initial * 2**attempt)``).

    >>> rng = random.Random(1)
    >>> [round(backoff_delay(n, initial=1, cap=8, rng=rng), 2) for n in range(6)]
    [0.57, 1.85, 3.53, 5.02, 5.98, 5.8]
    """
    ceiling = min(cap, initial * 2 ** min(attempt, 30))
    return (rng or random).uniform(ceiling / 2, ceiling)
