"""Persistent buttons: the table, the decision and the command live in the ``custom_id``.

Every button the adapter sends is a :class:`DokoButton`, a :class:`discord.ui.DynamicItem`
whose ``custom_id`` is ``doko:<table channel id>:<command without the slash>``, e.g.
``doko:1234:hand``; a prompt's buttons also carry the game and decision number they belong
to: ``doko:1234:3.17:play CQ`` (game 3, decision 17). The host refuses a press whose decision
is past. The class is registered once per client (``add_dynamic_items``), so a click is
understood on any message, also on messages sent before a restart.

>>> DokoButton.custom_id_for(1234, "/play CQ", (3, 17))
'doko:1234:3.17:play CQ'
>>> DokoButton.custom_id_for(1234, "/hand")
'doko:1234:hand'
>>> m = DokoButton.__discord_ui_compiled_template__.fullmatch("doko:1234:2.5:solo queens")
>>> m["channel"], m["game"], m["decision"], m["cmd"]
('1234', '2', '5', 'solo queens')
>>> DokoButton.custom_id_for(1, "/" + "x" * 200) is None
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any, Final, Protocol, runtime_checkable

import discord
from discord.app_commands import Choice as AppChoice

from dokobot.host.commands import confirmed_commands
from dokobot.host.events import Choice
from dokobot.render.cards import SUIT_SIGNS

log = logging.getLogger(__name__)

CUSTOM_ID_PREFIX = "doko"
TEMPLATE = (
    r"doko:(?P<channel>[0-9]{1,20}):(?:(?P<game>[0-9]{1,9})\.(?P<decision>[0-9]{1,9}):)?"
    r"(?P<cmd>[a-z][^\r\n]{0,89})"
)
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
    "ask": discord.ButtonStyle.danger,
}

CARD_COMMANDS: Final = frozenset({"play", "give"})
"""Commands whose choice is a card (played, or given in a poverty's exchange): their
buttons fill rows of their own and have their suit's colour (:data:`SUIT_STYLES`)."""
SUIT_STYLES: Final[dict[str, discord.ButtonStyle]] = dict(
    zip(
        SUIT_SIGNS,
        (
            discord.ButtonStyle.success,  # ♣ green
            discord.ButtonStyle.secondary,  # ♠ grey, for black
            discord.ButtonStyle.danger,  # ♥ red
            discord.ButtonStyle.primary,  # ♦ blurple, for blue
        ),
        strict=True,
    )
)
"""A card button's style by its suit: Discord's four button colours are the four-colour
deck's (the default ``/deck``), so a ♦ never looks like a ♥ and red suits never like black."""

ASK: Final = "ask"
"""The adapter's own command of a button that asks before a call (:func:`asking`)."""


def asking(command: str) -> str:
    """The command of the button for ``command``: a call's button asks for a second press
    first (``/ask re``: the adapter answers it with a confirming button, the host never
    sees it); any other command is itself.

    >>> asking("/re"), asking("/play CQ")
    ('/ask re', '/play CQ')
    """
    return f"/{ASK} {command.lstrip('/')}" if verb(command) in confirmed_commands() else command


@runtime_checkable
class ButtonHandler(Protocol):
    """What a client must offer to receive :class:`DokoButton` clicks."""

    async def on_doko_button(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        command: str,
        label: str,
        marker: tuple[int, int] | None,
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
        row: int | None = None,
        emoji: str | None = None,
        marker: tuple[int, int] | None = None,
    ) -> None:
        custom_id = self.custom_id_for(table, command, marker)
        if custom_id is None:
            raise ValueError(f"command too long for a button: {command!r}")
        super().__init__(
            discord.ui.Button(
                label=label[:MAX_LABEL] or "?",
                style=style or _STYLES.get(verb(command), discord.ButtonStyle.secondary),
                custom_id=custom_id,
                emoji=emoji,
            ),
            row=row,
        )
        self.table = table
        self.command = "/" + command.lstrip("/")
        self.label = label
        self.marker = marker

    @staticmethod
    def custom_id_for(
        table: int, command: str, marker: tuple[int, int] | None = None
    ) -> str | None:
        """The ``custom_id`` for ``command`` at ``table`` (for the prompt of decision
        ``marker``), or None if it would not fit."""
        cmd = command.lstrip("/").strip()
        stamp = "" if marker is None else f"{marker[0]}.{marker[1]}:"
        custom_id = f"{CUSTOM_ID_PREFIX}:{table}:{stamp}{cmd}"
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
        emoji = getattr(item, "emoji", None)
        marker = None
        if match["game"] is not None:
            marker = (int(match["game"]), int(match["decision"]))
        return cls(
            int(match["channel"]),
            match["cmd"],
            label,
            style,
            emoji=str(emoji) if emoji else None,
            marker=marker,
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        if isinstance(client, ButtonHandler):
            await client.on_doko_button(
                interaction, self.table, self.command, self.label, self.marker
            )
        else:  # pragma: no cover - only if registered on a foreign client
            log.error("DokoButton clicked on a client without a handler: %r", client)


class PersistentView(discord.ui.View):
    """A view whose timeout stays None.

    discord.py gives a view sent ephemerally a 15 minute timeout, and when a view times out
    it unregisters the :class:`~discord.ui.DynamicItem` templates it contains, for every
    message. This view ignores that timeout, so :class:`DokoButton` stays registered.

    >>> v = PersistentView()
    >>> v.timeout = 900.0
    >>> v.timeout is None
    True
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @property
    def timeout(self) -> float | None:
        return None

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        return None


def choices_view(
    table: int, choices: Iterable[Choice], marker: tuple[int, int] | None = None
) -> discord.ui.View | None:
    """Buttons for ``choices`` (of the decision ``marker``), or None if there are none.

    Cards fill rows of five, each button in its suit's colour (:data:`SUIT_STYLES`); other
    choices (calls such as Re) start a row of their own. Duplicates are dropped; Discord
    allows 25 buttons in 5 rows.

    >>> names = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
    >>> cards = [Choice(names[c[0]] + c[1:], "/play " + c)
    ...          for c in ["CQ", "CQ", "SA", "S9", "H9", "D9", "DA"]]
    >>> v = choices_view(7, [*cards, Choice("Re", "/re")])
    >>> [(c.custom_id, c.row) for c in v.children]  # doctest: +NORMALIZE_WHITESPACE
    [('doko:7:play CQ', 0), ('doko:7:play SA', 0), ('doko:7:play S9', 0), ('doko:7:play H9', 0),
     ('doko:7:play D9', 0), ('doko:7:play DA', 1), ('doko:7:ask re', 2)]
    >>> [c.item.style.name for c in v.children]  # doctest: +NORMALIZE_WHITESPACE
    ['success', 'secondary', 'secondary', 'danger', 'primary', 'primary', 'danger']
    >>> v.timeout is None
    True
    """
    unique: list[Choice] = []
    seen: set[str] = set()
    for choice in choices:
        custom_id = DokoButton.custom_id_for(table, choice.command, marker)
        if custom_id is None:
            log.warning("choice does not fit a button: %r", choice.command)
        elif custom_id not in seen:
            seen.add(custom_id)
            unique.append(choice)
    if not unique:
        return None
    cards = [c for c in unique if verb(c.command) in CARD_COMMANDS]
    others = [c for c in unique if verb(c.command) not in CARD_COMMANDS]
    rows = [cards[i : i + 5] for i in range(0, len(cards), 5)]
    rows += [others[i : i + 5] for i in range(0, len(others), 5)]
    if len(rows) > 5:  # too many rows when grouped: fill them in order instead
        rows = [unique[i : i + 5] for i in range(0, min(len(unique), MAX_BUTTONS), 5)]
    if len(unique) > sum(map(len, rows)):
        log.warning("more than %d choices; the rest get no button", MAX_BUTTONS)
    view = PersistentView()
    for number, row in enumerate(rows):
        for choice in row:
            view.add_item(
                DokoButton(
                    table, asking(choice.command), choice.label, card_style(choice), number, None,
                    marker,
                )
            )  # fmt: skip
    return view


def card_style(choice: Choice) -> discord.ButtonStyle | None:
    """The style of a card's button: its suit's colour (None: not a card, the command's
    own style).

    >>> card_style(Choice("♦10", "/play D10")), card_style(Choice("Re", "/re"))
    (<ButtonStyle.primary: 1>, None)
    """
    if verb(choice.command) not in CARD_COMMANDS:
        return None
    return SUIT_STYLES.get(choice.label[:1])


def table_view(table: int, label: str) -> discord.ui.View:
    """The view under the board: one "My cards" button (it sends ``/hand``)."""
    view = PersistentView()
    view.add_item(DokoButton(table, "/hand", label, discord.ButtonStyle.primary, emoji="🃏"))
    return view


def play_suggestions(choices: Sequence[Choice], current: str) -> list[AppChoice[str]]:
    """The cards among ``choices`` (a turn prompt's) that match what is typed so far
    (``current``), as ``/play`` autocompletes them (at most 25, Discord's limit)."""
    typed = current.strip().lower()
    out: list[AppChoice[str]] = []
    for choice in choices:
        if verb(choice.command) != "play":
            continue
        value = choice.command.split(maxsplit=1)[1] if " " in choice.command else ""
        if value and (typed in value.lower() or typed in choice.label.lower()):
            out.append(AppChoice(name=choice.label[:100] or value, value=value[:100]))
    return out[:25]
