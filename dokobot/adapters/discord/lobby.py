"""The lobby message of a table: who sits where, edited in place, with the buttons Join,
Leave and Start and a menu to add a computer player of a chosen level; and the buttons under
a game's result (Next game, Score).

Joining by button or by ``/join`` edits the same message: the texts of a batch between games
("Anna joined (2/4)") go onto the lobby ("Latest"), not into messages of their own; only a
game's result is a message of its own. The lobby is edited only when what it shows changed.

>>> from dokobot.host.board import LobbyView
>>> v = LobbyView("discord:7", (("Anna", ""), ("Bot1", "easy")), "Anna", False, 0)
>>> e = lobby_embed(v, ["Anna joined (1/4)."], "en")
>>> print(e.description)
1. **Anna** · owner
2. **Bot1** · computer (easy)
3. free
4. free
>>> [c.custom_id for c in lobby_components(7, v, "en").children]
['doko:7:join', 'doko:7:leave', 'doko:7:start', 'dokolevel:7']
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import discord

from dokobot.adapters.discord.buttons import ButtonHandler, DokoButton, PersistentView
from dokobot.adapters.discord.i18n import text
from dokobot.host.board import LobbyView
from dokobot.host.i18n import option_value_text
from dokobot.host.options import BOT_LEVELS

log = logging.getLogger(__name__)

COLOUR: Final = 0x5865F2
NEWS: Final = 5
"""Latest public texts shown on a lobby."""
LEVEL_TEMPLATE: Final = r"dokolevel:(?P<channel>[0-9]{1,20})"


class LevelSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=LEVEL_TEMPLATE,
):
    """The menu "Add a computer player": the chosen level becomes ``/join bot LEVEL`` for
    the table in channel ``table`` (kept across restarts like :class:`DokoButton`)."""

    def __init__(self, table: int, placeholder: str = "", row: int | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"dokolevel:{table}",
                placeholder=placeholder[:150] or None,
                options=[discord.SelectOption(label=level, value=level) for level in BOT_LEVELS],
            ),
            row=row,
        )
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> LevelSelect:
        return cls(int(match["channel"]), str(getattr(item, "placeholder", "") or ""))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        values = list(self.item.values)
        level = values[0] if values and values[0] in BOT_LEVELS else ""
        if isinstance(client, ButtonHandler) and level:
            await client.on_doko_button(interaction, self.table, f"/join bot {level}", level, None)
        else:  # pragma: no cover - a foreign client or a level Discord did not offer
            log.error("level menu used on %r with %r", client, values)


def _seat_line(n: int, view: LobbyView, lang: str) -> str:
    if n >= len(view.seats):
        return f"{n + 1}. {text('lobby_free', lang)}"
    name, level = view.seats[n]
    line = f"{n + 1}. **{discord.utils.escape_markdown(name)}**"
    if level:
        line += " · " + text("lobby_computer", lang, level=option_value_text(level, lang))
    elif name == view.owner:
        line += " · " + text("lobby_owner", lang)
    return line


def lobby_embed(view: LobbyView, news: Sequence[str], lang: str) -> discord.Embed:
    """The lobby's embed: the seats (four, five or six), what happens now and the latest
    texts."""
    embed = discord.Embed(title=text("lobby_title", lang), colour=COLOUR)
    embed.description = "\n".join(_seat_line(n, view, lang) for n in range(view.size))
    if view.running:
        status = text("lobby_running", lang, n=str(view.game_number))
    elif view.full:
        status = text("lobby_ready", lang, owner=discord.utils.escape_markdown(view.owner))
    else:
        status = text("lobby_waiting", lang, n=str(len(view.seats)), of=str(view.size))
    embed.add_field(name=text("lobby_status", lang), value=status[:1024], inline=False)
    if news:
        body = "\n".join(discord.utils.escape_markdown(line) for line in news)
        embed.add_field(name=text("board_news", lang), value=body[-1024:], inline=False)
    return embed


def lobby_components(
    table: int, view: LobbyView, lang: str, parent: int | None = None
) -> discord.ui.View:
    """Join, Leave, Start (Start only between games), "New table" for a table in a thread
    of the channel ``parent`` (a table in a new thread there) and, while a seat is free, the
    menu to add a computer player."""
    out = PersistentView()
    out.add_item(DokoButton(table, "/join", text("lobby_join", lang), discord.ButtonStyle.success))
    out.add_item(DokoButton(table, "/leave", text("lobby_leave", lang)))
    if not view.running:
        start = text("lobby_start", lang)
        out.add_item(DokoButton(table, "/start", start, discord.ButtonStyle.primary))
    if parent is not None:
        out.add_item(DokoButton(parent, "/newtable", text("lobby_new", lang)))
    if not view.full:
        out.add_item(LevelSelect(table, text("lobby_add", lang), row=1))
    return out


def result_components(table: int, lang: str) -> discord.ui.View:
    """The buttons under a game's result: Next game (``/start``) and Score (``/score``)."""
    out = PersistentView()
    out.add_item(
        DokoButton(table, "/start", text("result_next", lang), discord.ButtonStyle.primary)
    )
    out.add_item(DokoButton(table, "/score", text("result_score", lang)))
    return out


@dataclass(eq=False)
class _LobbyMessage:
    """The one lobby message of a table, edited in place when what it shows changes."""

    channel_id: int
    view: LobbyView
    news: list[str] = field(default_factory=list)
    message_id: int | None = None
    shown: tuple[LobbyView, tuple[str, ...]] | None = None
    sending: bool = False
    """A post or an edit of it is on its way (maybe slow, past its channel's turn): the
    batches meanwhile send nothing (no second lobby, no queue of edits); an edit with their
    latest state follows it."""
