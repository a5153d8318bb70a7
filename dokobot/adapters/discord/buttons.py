"""Persistent buttons: the table and the command live in the ``custom_id``.

Every button the adapter sends is a :class:`DokoButton`, a :class:`discord.ui.DynamicItem`
whose ``custom_id`` is ``doko:<table channel id>:<command without the slash>``, e.g.
``doko:1234:play ♣Q``. The class is registered once per client (``add_dynamic_items``), so a
click is understood on any message, also on messages sent before a restart.

>>> DokoButton.custom_id_for(1234, "/play CQ")
'doko:1234:play CQ'
>>> m = DokoButton.__discord_ui_compiled_template__.fullmatch("doko:1234:solo queens")
>>> m["channel"], m["cmd"]
('1234', 'solo queens')
>>> DokoButton.custom_id_for(1, "/" + "x" * 200) is None
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

import discord

from dokobot.host.events import Choice

log = logging.getLogger(__name__)

CUSTOM_ID_PREFIX = "doko"
TEMPLATE = r"doko:(?P<channel>[0-9]{1,20}):(?P<cmd>[^\r\n]{1,90})"
MAX_CUSTOM_ID = 100
MAX_BUTTONS = 25
MAX_LABEL = 80

_STYLES: dict[str, discord.ButtonStyle] = {
    "healthy": discord.ButtonStyle.success,
    "reservation": discord.ButtonStyle.primary,
    "solo": discord.ButtonStyle.primary,
    "wedding": discord.ButtonStyle.primary,
    "re": discord.ButtonStyle.danger,
    "kontra": discord.ButtonStyle.danger,
    "no90": discord.ButtonStyle.danger,
    "no60": discord.ButtonStyle.danger,
    "no30": discord.ButtonStyle.danger,
    "black": discord.ButtonStyle.danger,
    "hand": discord.ButtonStyle.primary,
}


@runtime_checkable
class ButtonHandler(Protocol):
    """What a client must offer to receive :class:`DokoButton` clicks."""

    async def on_doko_button(
        self, interaction: discord.Interaction[Any], table: int, command: str
    ) -> None: ...


def verb(command: str) -> str:
    """The command word of a command text: ``"/play CQ"`` -> ``"play"``.

    >>> verb("/play CQ"), verb("hand"), verb("")
    ('play', 'hand', '')
    """
    parts = command.lstrip("/").split(maxsplit=1)
    return parts[0].lower() if parts else ""


class DokoButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=TEMPLATE,
):
    """A button that sends ``/<cmd>`` to the host for the table in channel ``table``."""

    def __init__(
        self,
        table: int,
        command: str,
        label: str,
        style: discord.ButtonStyle | None = None,
    ) -> None:
        custom_id = self.custom_id_for(table, command)
        if custom_id is None:
            raise ValueError(f"command too long for a button: {command!r}")
        super().__init__(
            discord.ui.Button(
                label=label[:MAX_LABEL] or "?",
                style=style or _STYLES.get(verb(command), discord.ButtonStyle.secondary),
                custom_id=custom_id,
            )
        )
        self.table = table
        self.command = "/" + command.lstrip("/")

    @staticmethod
    def custom_id_for(table: int, command: str) -> str | None:
        """The ``custom_id`` for ``command`` at ``table``, or None if it would not fit."""
        cmd = command.lstrip("/").strip()
        custom_id = f"{CUSTOM_ID_PREFIX}:{table}:{cmd}"
        if not cmd or len(custom_id) > MAX_CUSTOM_ID or "\n" in cmd or "\r" in cmd:
            return None
        if DokoButton.__discord_ui_compiled_template__.fullmatch(custom_id) is None:
            return None
        return custom_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
        /,
    ) -> DokoButton:
        label = getattr(item, "label", None) or "?"
        style = getattr(item, "style", None)
        return cls(int(match["channel"]), match["cmd"], label, style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        if isinstance(client, ButtonHandler):
            await client.on_doko_button(interaction, self.table, self.command)
        else:  # pragma: no cover - only if registered on a foreign client
            log.error("DokoButton clicked on a client without a handler: %r", client)


def choices_view(table: int, choices: Iterable[Choice]) -> discord.ui.View | None:
    """Buttons for ``choices`` (at most 25, duplicates dropped), or None if there are none.

    >>> v = choices_view(7, [Choice("♣Q", "/play CQ"), Choice("♣Q", "/play CQ"),
    ...                      Choice("♠A", "/play SA")])
    >>> [c.custom_id for c in v.children]
    ['doko:7:play CQ', 'doko:7:play SA']
    >>> v.timeout is None
    True
    """
    view = discord.ui.View(timeout=None)
    seen: set[str] = set()
    for choice in choices:
        custom_id = DokoButton.custom_id_for(table, choice.command)
        if custom_id is None or custom_id in seen:
            if custom_id is None:
                log.warning("choice does not fit a button: %r", choice.command)
            continue
        if len(seen) >= MAX_BUTTONS:
            log.warning("more than %d choices; the rest get no button", MAX_BUTTONS)
            break
        seen.add(custom_id)
        view.add_item(DokoButton(table, choice.command, choice.label))
    return view if seen else None


def table_view(table: int, label: str) -> discord.ui.View:
    """The view under table messages: one "My hand" button (it sends ``/hand``)."""
    view = discord.ui.View(timeout=None)
    view.add_item(DokoButton(table, "/hand", "🂠 " + label, discord.ButtonStyle.primary))
    return view
