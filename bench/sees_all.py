"""The strong level's ceiling: ``bench/ai.py`` with every world the strong player samples
replaced by the true deal, so that it plays as if it could see all cards.

Everything else is as in ``bench/ai.py`` (the same options, deals, opponents and report),
so ``--compare`` against a run of the real player shows what knowing the hidden cards is
worth to the search as it is: an upper bound for better sampling or inference. A diagnostic
only; the computer players never see hidden cards (they get an :class:`Observation`).
It ends with ``bench/ai.py``'s last line, ``strong_vs_normal_ppg: X ci95: A..B
worst_kind_lower: W budget_share_p50: S search_p95_s: Z``.

    PYTHONPATH=. python bench/sees_all.py --fixed --games 240 --seed 22000 --procs 1 \\
        --only search_vs_heuristic --by-kind
"""

from __future__ import annotations

import random
import runpy
import sys
from pathlib import Path

from dokobot.ai import arena
from dokobot.engine import Game, Observation, observe
from dokobot.engine.cards import Mask

_live: list[Game] = []
"""The game the arena is playing in this process (its current hands are the truth)."""
_observe = observe


def _observe_and_remember(g: Game, seat: int) -> Observation:
    # The true deal stands in for every sampled world, so the observation keeps the
    # game's own card ids (a canonical one numbers copies by what the seat saw).
    _live[:] = [g]
    return _observe(g, seat, canonical=False)


def _true_hands(self: Observation, rng: random.Random, tries: int = 200, **_: object) -> list[Mask]:
    """The hands of the game being played, if this observation is of it."""
    g = _live[0] if _live else None
    if g is None or g.hands[self.seat] != self.hand:
        raise RuntimeError("bench/sees_all.py: an observation of an unknown game")
    return list(g.hands)


def main() -> None:
    setattr(arena, "observe", _observe_and_remember)  # noqa: B010 (a diagnostic patch)
    setattr(Observation, "sample_hands", _true_hands)  # noqa: B010
    script = Path(__file__).with_name("ai.py")
    sys.argv = [str(script), *sys.argv[1:]]
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
