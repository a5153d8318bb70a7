"""The slash commands: each one turns into the host's command text.

Names and descriptions are :class:`~discord.app_commands.locale_str`, so German clients see
``/gesund``, ``/vorbehalt``, ``/hochzeit`` and so on (see :mod:`.i18n`). Every callback only
builds the text and hands it to :meth:`DiscordAdapter.run_command`, which answers the
interaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.app_commands import locale_str as _
from discord.ext import commands

from dokobot.host.options import BOT_LEVELS, TableOptions

if TYPE_CHECKING:
    from dokobot.adapters.discord.adapter import DiscordAdapter

    Interaction = discord.Interaction[DiscordAdapter]

SOLO_TYPES: Final[tuple[tuple[str, str], ...]] = (
    ("diamonds", "Diamonds solo"),
    ("clubs", "Clubs solo"),
    ("spades", "Spades solo"),
    ("hearts", "Hearts solo"),
    ("queens", "Queens solo"),
    ("jacks", "Jacks solo"),
    ("fleshless", "Fleshless (aces solo)"),
)

OPTION_NAMES: Final[tuple[str, ...]] = tuple(TableOptions.names())

BOARDS: Final[tuple[str, ...]] = ("points", "rating", "games", "solo")
"""The leaderboards of /top (dokobot.stats.BOARDS)."""

HELP_TOPICS: Final[tuple[str, ...]] = (
    "join", "leave", "start", "healthy", "reservation", "solo", "wedding", "play", "re",
    "kontra", "no90", "no60", "no30", "black", "hand", "table", "last", "score", "ledger",
    "option", "options", "lang", "abort", "export", "replace", "stats", "top", "web", "help",
    "poverty", "throw", "take", "decline", "give",
)  # fmt: skip


def _suggest(current: str, names: tuple[str, ...]) -> list[Choice[str]]:
    """Autocomplete suggestions: the names that contain what was typed so far.

    >>> [c.value for c in _suggest("s", ("stake", "mode", "limit", "series_length"))]
    ['stake', 'series_length']
    """
    typed = current.strip().lower()
    return [Choice(name=n, value=n) for n in names if typed in n][:25]


class DokoCommands(commands.Cog):
    """All of dokobot's slash commands."""

    def __init__(self, bot: DiscordAdapter) -> None:
        self.bot = bot

    async def _run(self, interaction: Interaction, text: str) -> None:
        await self.bot.run_command(interaction, text)

    # -- table --------------------------------------------------------------------------------

    @app_commands.command(name=_("join"), description=_("Take a seat at the table in this channel"))
    @app_commands.rename(bot=_("bot"), level=_("level"))
    @app_commands.describe(
        bot=_("Seat a computer player instead of yourself"),
        level=_("How strong the computer player is"),
    )
    @app_commands.choices(level=[Choice(name=_(v.capitalize()), value=v) for v in BOT_LEVELS])
    async def join(
        self, interaction: Interaction, bot: bool = False, level: Choice[str] | None = None
    ) -> None:
        if not bot:
            await self._run(interaction, "/join")
        else:
            await self._run(interaction, f"/join bot {level.value}" if level else "/join bot")

    @app_commands.command(name=_("leave"), description=_("Leave the table"))
    async def leave(self, interaction: Interaction) -> None:
        await self._run(interaction, "/leave")

    @app_commands.command(name=_("start"), description=_("Start the next game"))
    async def start(self, interaction: Interaction) -> None:
        await self._run(interaction, "/start")

    # -- reservations -------------------------------------------------------------------------

    @app_commands.command(name=_("healthy"), description=_("Say you have no reservation"))
    async def healthy(self, interaction: Interaction) -> None:
        await self._run(interaction, "/healthy")

    @app_commands.command(name=_("reservation"), description=_("Announce a reservation"))
    async def reservation(self, interaction: Interaction) -> None:
        await self._run(interaction, "/reservation")

    @app_commands.command(name=_("solo"), description=_("Declare a solo"))
    @app_commands.rename(solo_type=_("type"))
    @app_commands.describe(solo_type=_("Which solo"))
    @app_commands.choices(solo_type=[Choice(name=_(label), value=v) for v, label in SOLO_TYPES])
    async def solo(self, interaction: Interaction, solo_type: Choice[str]) -> None:
        await self._run(interaction, f"/solo {solo_type.value}")

    @app_commands.command(name=_("wedding"), description=_("Declare a wedding (both ♣Q)"))
    async def wedding(self, interaction: Interaction) -> None:
        await self._run(interaction, "/wedding")

    # -- house rules (RULES §12) --------------------------------------------------------------

    @app_commands.command(name=_("poverty"), description=_("Announce a poverty (house rule)"))
    async def poverty(self, interaction: Interaction) -> None:
        await self._run(interaction, "/poverty")

    @app_commands.command(name=_("throw"), description=_("Throw in five nines or kings"))
    async def throw(self, interaction: Interaction) -> None:
        await self._run(interaction, "/throw")

    @app_commands.command(name=_("take"), description=_("Take the poverty offered to you"))
    async def take(self, interaction: Interaction) -> None:
        await self._run(interaction, "/take")

    @app_commands.command(name=_("decline"), description=_("Decline the poverty offered to you"))
    async def decline(self, interaction: Interaction) -> None:
        await self._run(interaction, "/decline")

    @app_commands.command(name=_("give"), description=_("Give cards in a poverty's exchange"))
    @app_commands.rename(cards=_("cards"))
    @app_commands.describe(cards=_("One to three cards, e.g. DA D10 HK"))
    async def give(self, interaction: Interaction, cards: str) -> None:
        await self._run(interaction, f"/give {cards.strip()}")

    # -- play ---------------------------------------------------------------------------------

    @app_commands.command(name=_("play"), description=_("Play a card"))
    @app_commands.rename(card=_("card"))
    @app_commands.describe(card=_("The card, e.g. ♣Q, CQ, KrD or its position in your hand"))
    async def play(self, interaction: Interaction, card: str) -> None:
        await self._run(interaction, f"/play {card.strip()}")

    @play.autocomplete("card")
    async def play_card(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        return self.bot.card_suggestions(interaction, current)

    # -- announcements ------------------------------------------------------------------------

    @app_commands.command(name=_("re"), description=_("Announce Re"))
    async def re(self, interaction: Interaction) -> None:
        await self._run(interaction, "/re")

    @app_commands.command(name=_("kontra"), description=_("Announce Kontra"))
    async def kontra(self, interaction: Interaction) -> None:
        await self._run(interaction, "/kontra")

    @app_commands.command(name=_("no90"), description=_("Announce no 90"))
    async def no90(self, interaction: Interaction) -> None:
        await self._run(interaction, "/no90")

    @app_commands.command(name=_("no60"), description=_("Announce no 60"))
    async def no60(self, interaction: Interaction) -> None:
        await self._run(interaction, "/no60")

    @app_commands.command(name=_("no30"), description=_("Announce no 30"))
    async def no30(self, interaction: Interaction) -> None:
        await self._run(interaction, "/no30")

    @app_commands.command(name=_("black"), description=_("Announce black"))
    async def black(self, interaction: Interaction) -> None:
        await self._run(interaction, "/black")

    # -- information --------------------------------------------------------------------------

    @app_commands.command(name=_("hand"), description=_("Show your hand (only you see it)"))
    async def hand(self, interaction: Interaction) -> None:
        await self._run(interaction, "/hand")

    @app_commands.command(name=_("table"), description=_("Show the table"))
    async def table(self, interaction: Interaction) -> None:
        await self._run(interaction, "/table")

    @app_commands.command(name=_("last"), description=_("Show the last trick"))
    async def last(self, interaction: Interaction) -> None:
        await self._run(interaction, "/last")

    @app_commands.command(name=_("score"), description=_("Show the score list"))
    @app_commands.rename(game=_("game"), csv=_("csv"), chart=_("chart"))
    @app_commands.describe(
        game=_("A game number for its details"),
        csv=_("As CSV (a file)"),
        chart=_("The running totals of the series as a picture"),
    )
    async def score(
        self,
        interaction: Interaction,
        game: app_commands.Range[int, 1, 100000] | None = None,
        csv: bool = False,
        chart: bool = False,
    ) -> None:
        if csv:
            await self._run(interaction, "/score csv")
        elif chart:
            await self._run(interaction, "/score chart")
        elif game is not None:
            await self._run(interaction, f"/score {game}")
        else:
            await self._run(interaction, "/score")

    @app_commands.command(name=_("ledger"), description=_("Show the chip balances of this server"))
    async def ledger(self, interaction: Interaction) -> None:
        await self._run(interaction, "/ledger")

    @app_commands.command(
        name=_("prompts"), description=_("Where your prompts come: by DM or here")
    )
    @app_commands.rename(where=_("where"))
    @app_commands.describe(where=_("Where"))
    @app_commands.choices(
        where=[
            Choice(name=_("By direct message"), value="dm"),
            Choice(name=_("Here, in “My cards”"), value="here"),
        ]
    )
    async def prompts(self, interaction: Interaction, where: Choice[str]) -> None:
        await self.bot.set_prompts(interaction, where.value)

    @app_commands.command(
        name=_("stats"), description=_("Show statistics on this server (only you see them)")
    )
    @app_commands.rename(player=_("player"), chart=_("chart"))
    @app_commands.describe(
        player=_("Whose statistics (default: yours)"), chart=_("The rating over time as a picture")
    )
    async def stats(
        self, interaction: Interaction, player: str | None = None, chart: bool = False
    ) -> None:
        name = (player or "").strip()
        await self._run(interaction, " ".join(["/stats", *([name] if name else []),
                                               *(["chart"] if chart else [])]))  # fmt: skip

    @app_commands.command(name=_("top"), description=_("Show the leaderboard of this server"))
    @app_commands.rename(board=_("board"))
    @app_commands.describe(board=_("Ranked by what"))
    @app_commands.choices(board=[Choice(name=_(b.capitalize()), value=b) for b in BOARDS])
    async def top(self, interaction: Interaction, board: Choice[str] | None = None) -> None:
        await self._run(interaction, f"/top {board.value}" if board else "/top")

    @app_commands.command(name=_("web"), description=_("Link to this server's web page"))
    @app_commands.rename(switch=_("switch"))
    @app_commands.describe(switch=_("Turn the page on or off (admins)"))
    @app_commands.choices(
        switch=[Choice(name=_("On"), value="on"), Choice(name=_("Off"), value="off")]
    )
    async def web(self, interaction: Interaction, switch: Choice[str] | None = None) -> None:
        await self._run(interaction, f"/web {switch.value}" if switch else "/web")

    # -- settings and administration ----------------------------------------------------------

    @app_commands.command(name=_("option"), description=_("Show or change a table option"))
    @app_commands.rename(name=_("name"), value=_("value"))
    @app_commands.describe(
        name=_("Option name"), value=_("New value (leave empty to show the current one)")
    )
    async def option(self, interaction: Interaction, name: str, value: str | None = None) -> None:
        text = f"/option {name.strip()}"
        if value is not None and value.strip():
            text += f" {value.strip()}"
        await self._run(interaction, text)

    @option.autocomplete("name")
    async def option_name(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        return _suggest(current, OPTION_NAMES)

    @app_commands.command(name=_("options"), description=_("List the table options"))
    async def options(self, interaction: Interaction) -> None:
        await self._run(interaction, "/options")

    @app_commands.command(name=_("lang"), description=_("Set the language of your own messages"))
    @app_commands.rename(language=_("language"))
    @app_commands.describe(language=_("Language"))
    @app_commands.choices(
        language=[Choice(name="Deutsch", value="de"), Choice(name="English", value="en")]
    )
    async def lang(self, interaction: Interaction, language: Choice[str]) -> None:
        await self._run(interaction, f"/lang {language.value}")

    @app_commands.command(name=_("abort"), description=_("Abort the current game"))
    async def abort(self, interaction: Interaction) -> None:
        await self._run(interaction, "/abort")

    @app_commands.command(name=_("export"), description=_("Export the game record"))
    @app_commands.rename(csv=_("csv"))
    @app_commands.describe(csv=_("Export the score list as CSV instead"))
    async def export(self, interaction: Interaction, csv: bool = False) -> None:
        await self._run(interaction, "/export csv" if csv else "/export")

    @app_commands.command(
        name=_("replace"), description=_("Take a computer player's seat (between games)")
    )
    @app_commands.rename(player=_("player"))
    @app_commands.describe(player=_("The computer player whose seat you take"))
    async def replace(self, interaction: Interaction, player: str | None = None) -> None:
        name = (player or "").strip()
        await self._run(interaction, f"/replace {name}" if name else "/replace")

    @app_commands.command(name=_("help"), description=_("Explain the commands"))
    @app_commands.rename(command=_("command"))
    @app_commands.describe(command=_("A command to explain"))
    async def help(self, interaction: Interaction, command: str | None = None) -> None:
        topic = (command or "").strip().lstrip("/")
        await self._run(interaction, f"/help {topic}" if topic else "/help")

    @help.autocomplete("command")
    async def help_topic(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        return _suggest(current.lstrip("/"), HELP_TOPICS)
