"""Choices evaluated on the same worlds, and whether one is significantly better.

An evaluation of a decision (the cards one may play, the plans of a reservation, a call or
none) gives every choice a value in each of the same worlds (sampled deals of the cards the
player cannot see, or every consistent layout). Comparing two choices world by world
cancels the luck of the deal: the difference in each world is the paired estimate, and its
spread over the worlds says how sure the mean difference is (a paired test).

>>> p = Paired([{1: 2.0, 2: 1.0}, {1: 4.0, 2: 2.0}, {1: 0.0, 2: -1.0}], [1.0, 1.0, 1.0])
>>> p.best(), p.gap(1, 2)
(1, (1.3333333333333333, 0.3333333333333333))
>>> p.significant(1, 2, 1.0), p.significant(1, 2, 1.5)
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Z_SIGNIFICANT", "Paired"]

Z_SIGNIFICANT: Final = 2.0
"""How many standard errors a mean paired difference must lie beyond a threshold to count
(one-sided, about 2.3 % of true differences at the threshold pass)."""


@dataclass(slots=True)
class Paired:
    """Per world, each choice's value (a choice may be missing in a world its search never
    tried), with the worlds' weights. ``exact``: the worlds are every consistent layout with
    its weight and the values exact, so the means are exact (no standard error)."""

    values: list[dict[int, float]]
    weights: list[float]
    exact: bool = False
    seconds: float = field(default=0.0)

    def choices(self) -> list[int]:
        seen: dict[int, None] = {}
        for v in self.values:
            for a in v:
                seen[a] = None
        return list(seen)

    def mean(self, a: int) -> float:
        num = den = 0.0
        for v, w in zip(self.values, self.weights, strict=True):
            if a in v:
                num += w * v[a]
                den += w
        return num / den if den else -math.inf

    def best(self) -> int:
        """The choice with the highest mean (ties: the lowest)."""
        return max(sorted(self.choices()), key=self.mean)

    def gap(self, a: int, b: int) -> tuple[float, float]:
        """The mean of ``a``'s value minus ``b``'s over the worlds with both, and its
        standard error (0 if exact; infinite with fewer than two such worlds)."""
        ds: list[tuple[float, float]] = [
            (v[a] - v[b], w)
            for v, w in zip(self.values, self.weights, strict=True)
            if a in v and b in v
        ]
        total = sum(w for _, w in ds)
        if not ds or total <= 0:
            return 0.0, math.inf
        mean = sum(d * w for d, w in ds) / total
        if self.exact:
            return mean, 0.0
        n_eff = total * total / sum(w * w for _, w in ds)
        if n_eff < 2:
            return mean, math.inf
        var = sum(w * (d - mean) ** 2 for d, w in ds) / total * n_eff / (n_eff - 1)
        return mean, math.sqrt(var / n_eff)

    def significant(self, a: int, b: int, threshold: float) -> bool:
        """Whether ``a`` is better than ``b`` by at least ``threshold`` (exact: by the mean;
        else the mean must reach ``threshold`` and exceed 0 by :data:`Z_SIGNIFICANT` standard
        errors)."""
        d, se = self.gap(a, b)
        return d >= threshold and (self.exact or d >= Z_SIGNIFICANT * se)
