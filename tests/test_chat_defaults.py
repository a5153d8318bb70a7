"""Each chat's own defaults for the new tables of its channels, declared by its adapter
(:class:`~dokobot.host.options.ChatDefaults`): Discord and IRC have a turn clock and take no
bare cards in channels; the console and a host without adapters keep the options' own."""

from __future__ import annotations

import pytest

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.defaults import TABLE_DEFAULTS as DISCORD
from dokobot.adapters.irc import IrcAdapter, IrcSettings
from dokobot.adapters.irc.settings import TABLE_DEFAULTS as IRC
from dokobot.host.events import Input
from dokobot.host.i18n import render
from dokobot.host.options import ChatDefaults, OptionError, TableOptions
from dokobot.host.service import Service

IRC_CHANNEL = "irc:net:#doko"
DISCORD_CHANNEL = "discord:42"


async def _with_both(options: TableOptions | None = None) -> Service:
    service = Service.in_memory(seed=1, options=options)
    IrcAdapter(service, IrcSettings(host="h", network="net", channels=("#doko",)))
    DiscordAdapter(service)
    return service


async def test_each_chat_gives_its_new_tables_its_own_defaults() -> None:
    service = await _with_both()
    irc, discord = service.router.table(IRC_CHANNEL), service.router.table(DISCORD_CHANNEL)
    console = service.router.table("console")
    assert (irc.options.turn_timeout, irc.options.bare_cards) == (60, False)
    assert (discord.options.turn_timeout, discord.options.bare_cards) == (30, False)
    assert (console.options.turn_timeout, console.options.bare_cards) == (0, True)
    assert service.router.chats == [IRC, DISCORD]  # declared once each


async def test_a_host_without_the_adapter_keeps_the_options_own() -> None:
    service = Service.in_memory(seed=1)
    table = service.router.table(IRC_CHANNEL)
    assert (table.options.turn_timeout, table.options.bare_cards) == (0, True)


async def test_the_configurations_choice_wins_over_the_chats() -> None:
    service = await _with_both(TableOptions(turn_timeout=120))
    irc, discord = service.router.table(IRC_CHANNEL), service.router.table(DISCORD_CHANNEL)
    assert (irc.options.turn_timeout, discord.options.turn_timeout) == (120, 120)
    assert not irc.options.bare_cards and irc.options.set("bare_cards", "on").bare_cards


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_help_option_names_the_defaults_of_the_chats_served(lang: str) -> None:
    async def help_text(service: Service) -> str:
        await service.handle(
            Input(channel="console", user="console:anna", name="anna", text=f"/lang {lang}")
        )
        events = await service.handle(
            Input(
                channel="console",
                user="console:anna",
                name="anna",
                text="/help option turn_timeout",
            )
        )
        return events[0].text  # type: ignore[attr-defined,no-any-return]

    shown = await help_text(await _with_both())
    params = {"value": "0", "values": "", "defaults": "0, IRC 60, Discord 30"}
    assert shown == render(lang, "option_help.turn_timeout", params)
    assert ": 0, IRC 60, Discord 30)" in shown
    alone = await help_text(Service.in_memory(seed=1))
    assert alone == render(lang, "option_help.turn_timeout", {**params, "defaults": "0"})


def test_a_chat_cannot_declare_a_value_the_option_does_not_take() -> None:
    with pytest.raises(OptionError):
        ChatDefaults("x:", "X", (("turn_timeout", "5"),))
    with pytest.raises(OptionError):
        ChatDefaults("x:", "X", (("no_such_option", "on"),))
