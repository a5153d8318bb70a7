"""The rating: OpenSkill (Plackett-Luce) over the two parties of every rated game.

A game is a match of two teams, the Re party against the Kontra party (a solo is one
against three); the party that won ranks first, a game without a winner is a draw. A
computer player (``None``) plays with the initial rating and is never rated itself.

>>> r = Ratings()
>>> r.rate(["anna", "ben"], ["carl", "dora"], "re")
>>> r.get("anna")[0] > r.get("carl")[0]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce


@dataclass(slots=True)
class Ratings:
    """(mu, sigma) by participant id."""

    model: Any = field(default_factory=PlackettLuce, repr=False)
    values: dict[str, tuple[float, float]] = field(default_factory=dict)

    def initial(self) -> tuple[float, float]:
        return float(self.model.mu), float(self.model.sigma)

    def get(self, who: str) -> tuple[float, float]:
        return self.values.get(who) or self.initial()

    def rate(self, re: list[str | None], kontra: list[str | None], winner: object) -> None:
        start = self.initial()
        teams = [
            [self.model.rating(*(start if p is None else self.get(p))) for p in re],
            [self.model.rating(*(start if p is None else self.get(p))) for p in kontra],
        ]
        ranks = [0, 1] if winner == "re" else [1, 0] if winner == "kontra" else [0, 0]
        new = self.model.rate(teams, ranks=ranks)
        for names, team in zip((re, kontra), new, strict=True):
            for p, rating in zip(names, team, strict=True):
                if p is not None:
                    self.values[p] = (float(rating.mu), float(rating.sigma))
