"""The chat commands' handlers, each declared by :func:`dokobot.host.commands.command`.

Importing this package registers every command; the help list shows them in the order of
:data:`MODULES` (seating, game actions, views, settings, statistics, then help), each
module's in the order of their declarations.
"""

from __future__ import annotations

from ..commands import arrange
from . import absence, actions, general, info, seating, settings, stats, teaching

MODULES: tuple[str, ...] = tuple(
    m.__name__ for m in (seating, absence, actions, info, teaching, settings, stats, general)
)
arrange(MODULES)
