"""What a command handler gets: who sent it, where (:class:`Context`), and the router's
services it may use (:class:`Host`, which :class:`~dokobot.host.router.Router` provides).

Handlers are typed against :class:`Host`, not the router, so that the router can import
them (they register themselves on import) without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .events import Event, Input
from .journal import Record
from .notes import Note
from .table import Table

if TYPE_CHECKING:
    from ..stats import Stats
    from .options import ChatDefaults
    from .reviewqueue import ReviewQueue


@dataclass(slots=True)
class Context:
    """Who sent a command, where."""

    inp: Input
    table: Table | None
    seat: int | None


class Host(Protocol):
    """The router as command handlers see it."""

    tables: dict[str, Table]
    user_table: dict[str, str]
    langs: dict[str, str]
    history: Callable[[Table], list[Record]] | None
    stats: Stats | None
    review_budget: float
    """CPU seconds per decision of /review (and half of it for /hint)."""
    reviews: ReviewQueue | None
    chats: list[ChatDefaults]
    """The chats' own defaults for new tables (:meth:`~dokobot.host.contract.Host.table_defaults`)."""

    def lang_of(self, user: str, table: Table | None = None) -> str: ...

    def render_notes(self, table: Table, notes: list[Note], inp: Input | None) -> list[Event]: ...

    def _reply(
        self, ctx: Context, key: str, params: dict[str, Any] | None = None, kind: str = "info"
    ) -> list[Event]: ...
