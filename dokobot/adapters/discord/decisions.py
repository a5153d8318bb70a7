"""What the latest board of each table said (a part the :class:`DiscordAdapter` holds): the
decision it is at, which every prompt's buttons carry and which makes older prompts and
pings past, and whether the table shows cards as pictures."""

from __future__ import annotations

from dokobot.bounded import Bounded
from dokobot.host.board import BoardView


class Decisions:
    """The current decision and the pictures switch of up to ``channels`` tables, learned
    from their boards."""

    def __init__(self, channels: int) -> None:
        self._markers: Bounded[int, tuple[int, int]] = Bounded(channels)
        self._images: Bounded[int, bool] = Bounded(channels)

    def learn(self, table: int, view: BoardView) -> None:
        """The board ``view`` of ``table``. A reply's batch may come after the computer
        players' later moves (they move while the reply's pictures are drawn): a decision
        never goes back."""
        known = self._markers.get(table)
        if known is None or view.marker >= known:
            self._markers[table] = view.marker
        self._images[table] = view.images

    def current(self, table: int) -> tuple[int, int] | None:
        """The decision ``table`` is at (game, decision), or None before its first board."""
        return self._markers.get(table)

    def images(self, table: int) -> bool:
        """Whether ``table`` shows cards as pictures (yes until a board says)."""
        return self._images.get(table, True)
