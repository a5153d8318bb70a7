"""Commands and operations of the Discord adapter (issue 11, defects 4 to 7).

4. slash commands were synced globally on every start, with no way to turn it off;
5. /ledger, /score N, /score csv and /export csv could not be reached, /lang said "table";
6. DMs: discord.py's 128-channel cache made the bot reopen DMs; blocked users were retried on
   every prompt;
7. admin checks in DMs needed the members intent, the "My hand" label followed the guild
   locale after a restart, and missing permissions were only logged.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from dokobot.adapters.discord import DiscordAdapter, sync_discord
from dokobot.config import parse_config
from dokobot.host.events import Choice, Private, Public
from dokobot.host.router import Router
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import EPHEMERAL, FakeDiscord, running
from discord_fake.harness import ScriptedService, make_client, settle
from discord_fake.server import ALL_PERMISSIONS, ATTACH_FILES, EMBED_LINKS, MANAGE_GUILD


def uploads(fake: FakeDiscord) -> list[str]:
    return [c.path for c in fake.calls if c.method == "PUT" and c.path.endswith("/commands")]


# -- 4 ------------------------------------------------------------------------------------------


async def test_command_sync_global_guild_or_off(fake: FakeDiscord) -> None:
    service = ScriptedService(lambda inp: [])
    async with running(make_client(service, sync_commands="off")):
        pass
    assert uploads(fake) == []
    async with running(make_client(service, sync_commands="guild")) as client:
        await fake.wait_for(lambda: bool(uploads(fake)))
        assert isinstance(client, DiscordAdapter)
    assert uploads(fake) == [f"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"]
    async with running(make_client(service, sync_commands="global")):
        pass
    assert uploads(fake)[-1] == f"/applications/{fake.app_id}/commands"
    with pytest.raises(ValueError, match="sync_commands"):
        make_client(service, sync_commands="sometimes")
    # `dokobot sync`: log in, upload, log out; no gateway connection
    identifies = fake.identifies
    assert await sync_discord("fake-token") == ["global"]
    assert await sync_discord("fake-token", scope="guild") == [f"guild {fake.guild_id}"]
    assert fake.identifies == identifies
    assert fake.violations == []


def test_the_config_knows_sync_commands() -> None:
    env = {"DOKOBOT_DISCORD_TOKEN": "t"}
    cfg = parse_config("discord:\n  sync_commands: off\n", env=env)
    assert cfg.discord is not None and cfg.discord.sync_commands == "off"
    assert parse_config("", env=env).discord.sync_commands == "global"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="sync_commands"):
        parse_config("discord:\n  sync_commands: sometimes\n", env=env)


# -- 5 ------------------------------------------------------------------------------------------


async def test_ledger_score_and_export_commands_reach_the_host(fake: FakeDiscord) -> None:
    service = ScriptedService(
        lambda inp: [Private(f"discord:{fake.channel_id}", inp.user, "ok", reply=True)]
    )
    anna = fake.users[0]
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        for name, options in (
            ("ledger", {}),
            ("score", {}),
            ("score", {"game": 3}),
            ("score", {"csv": True}),
            ("export", {}),
            ("export", {"csv": True}),
        ):
            await settle(fake, client, await fake.slash(anna, name, options))
    assert [i.text for i in service.inputs] == [
        "/ledger",
        "/score",
        "/score 3",
        "/score csv",
        "/export",
        "/export csv",
    ]
    lang = next(c for c in fake.commands if c["name"] == "lang")
    assert lang["description"] == "Set the language of your own messages"
    assert "Tisches" not in lang["description_localizations"]["de"]
    assert fake.violations == []


# -- 6 ------------------------------------------------------------------------------------------


async def test_dm_channels_are_opened_once_and_blocked_users_not_retried(
    fake: FakeDiscord,
) -> None:
    ch = f"discord:{fake.channel_id}"
    _, ben, carl, _ = fake.users
    fake.blocked_dms.add(carl.id)
    service = ScriptedService(lambda inp: [])
    turn = (Choice("♣Q", "/play CQ"),)
    async with running(make_client(service, prompts_default="dm")) as client:
        assert service.listener is not None
        for n in range(3):
            await service.listener(
                [
                    Private(ch, f"discord:{ben.id}", f"Prompt {n}", turn, kind="turn"),
                    Private(ch, f"discord:{carl.id}", f"Prompt {n}", turn, kind="turn"),
                ]
            )
            await asyncio.wait_for(client.wait_idle(), 5)
    opened = [str(c.body["recipient_id"]) for c in fake.calls if c.path == "/users/@me/channels"]
    assert sorted(opened) == sorted([str(ben.id), str(carl.id)])  # once each
    assert [m.content for m in fake.dms(ben)] == ["Prompt 0", "Prompt 1", "Prompt 2"]
    assert len(fake.refused_dms(carl)) == 1  # not retried for 10 minutes
    # and Ben's older prompts lost their buttons: only the newest is live
    assert [bool(m.custom_ids) for m in fake.dms(ben)] == [False, False, True]
    assert fake.violations == []


# -- 7 ------------------------------------------------------------------------------------------


async def test_admin_in_dms_comes_from_interaction_permissions(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    anna, ben, carl, _ = fake.users
    ben.permissions |= MANAGE_GUILD  # an admin who is not the owner
    service = ScriptedService(lambda inp: [])
    turn = (Choice("♣Q", "/play CQ"),)
    async with running(make_client(service, prompts_default="dm")) as client:
        assert isinstance(client, DiscordAdapter)
        for user in (ben, carl):
            await settle(fake, client, await fake.slash(user, "table"))
        assert service.listener is not None
        await service.listener(
            [
                Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn"),
                Private(ch, f"discord:{carl.id}", "Your turn.", turn, kind="turn"),
            ]
        )
        await asyncio.wait_for(client.wait_idle(), 5)
        for user in (ben, carl):
            [dm] = fake.dms(user)
            await settle(fake, client, await fake.click(user, dm, dm.custom_ids[0]))
    # guild_permissions of a cached member would be empty without the members intent
    assert [(i.user, i.dm, i.admin) for i in service.inputs] == [
        (f"discord:{ben.id}", False, True),
        (f"discord:{carl.id}", False, False),
        (f"discord:{ben.id}", True, True),
        (f"discord:{carl.id}", True, False),
    ]
    assert anna.permissions & MANAGE_GUILD


async def test_missing_permissions_are_named_when_a_table_is_created(fake: FakeDiscord) -> None:
    fake.bot_permissions = ALL_PERMISSIONS & ~EMBED_LINKS & ~ATTACH_FILES
    service = ScriptedService(lambda inp: [Public(f"discord:{fake.channel_id}", "joined")])
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        join = await settle(fake, client, await fake.slash(fake.users[1], "join"))
    assert join.response_type == 4 and join.response_flags & EPHEMERAL
    [message] = join.ephemeral_messages
    assert "Embed Links" in message.content and "Attach Files" in message.content
    assert service.inputs == [] and fake.channel_messages() == []


async def test_my_cards_label_follows_the_table_language_after_a_restart(
    fake: FakeDiscord,
) -> None:
    service = Service(Router(seed=3))
    anna = fake.users[0]
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            for user in fake.users:
                await settle(fake, client, await fake.slash(user, "join"))
            option = {"name": "language", "value": "de"}
            await settle(fake, client, await fake.slash(anna, "option", option))
            await settle(fake, client, await fake.slash(anna, "start"))
        await service.close()
        service = Service(Router(seed=3), store=service.store)
        boards_before = len([m for m in fake.channel_messages() if m.embeds])
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await asyncio.wait_for(client.wait_idle(), 5)
    finally:
        await service.close()
    boards = [m for m in fake.channel_messages() if m.embeds]
    assert len(boards) == boards_before + 1  # the restored game gets its board again
    assert fake.guild_locale == "en-US"
    assert [b["label"] for b in boards[-1].buttons] == ["Meine Karten"]
    assert "Spiel 1" in boards[-1].embed_text
    assert fake.violations == []


def test_every_text_the_adapter_uses_is_in_the_catalogues() -> None:
    import re

    from dokobot.adapters.discord.checks import NEEDED_PERMISSIONS
    from dokobot.adapters.discord.i18n import text
    from dokobot.host.i18n import catalogue
    from dokobot.languages import codes

    root = Path(__file__).resolve().parent.parent / "dokobot" / "adapters" / "discord"
    used: set[str] = set()
    for path in root.glob("*.py"):
        used |= set(re.findall(r'\btext\(\s*"(\w+)"', path.read_text(encoding="utf-8")))
    used = {k for k in used if not k.endswith("_")}  # prefixes of computed keys, and those:
    used |= {"perm_" + name for name in NEEDED_PERMISSIONS} | {"prompts_dm", "prompts_here"}
    assert len(used) > 20
    for lang in codes():
        missing = sorted(k for k in used if f"discord.{k}" not in catalogue(lang))
        assert missing == [], (lang, missing)
    assert text("board_trick", "de", n="3") == "Stich 3 von 12"
    assert text("board_trick", "xx", n="3") == "Trick 3 of 12"  # unknown language: English


async def test_dokobot_sync_uploads_once_and_exits(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from dokobot.cli import main

    config = tmp_path / "dokobot.yaml"
    config.write_text("discord:\n  sync_commands: off\n", encoding="utf-8")
    monkeypatch.setenv("DOKOBOT_DISCORD_TOKEN", "fake-token")
    # (the command runs its own event loop; the fake keeps serving from this one)
    assert await asyncio.to_thread(main, ["sync", "--config", str(config)]) == 0
    assert uploads(fake) == [f"/applications/{fake.app_id}/commands"]
    guild = ["sync", "--config", str(config), "--guild", str(fake.guild_id)]
    assert await asyncio.to_thread(main, guild) == 0
    assert uploads(fake)[-1] == f"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"
    assert fake.identifies == 0 and fake.violations == []


async def test_more_than_128_dm_partners_do_not_reopen_dms(fake: FakeDiscord) -> None:
    """discord.py keeps 128 DM channels; the adapter keeps its own map of all of them."""
    ch = f"discord:{fake.channel_id}"
    fake.dm_open_limit = (1000, 10.0)
    people = [fake.snowflake() for _ in range(130)]
    service = ScriptedService(lambda inp: [])
    turn = (Choice("♣Q", "/play CQ"),)
    async with running(make_client(service, prompts_default="dm")) as client:
        assert service.listener is not None
        for rounds in range(2):
            await service.listener(
                [Private(ch, f"discord:{p}", f"Round {rounds}", turn, kind="turn") for p in people]
            )
            await asyncio.wait_for(client.wait_idle(), 30)
    opened = [c for c in fake.calls if c.path == "/users/@me/channels"]
    assert len(opened) == len(people)
    sent = [c for c in fake.calls if c.method == "POST" and c.path.endswith("/messages")]
    assert len(sent) == 2 * len(people) and all(c.status == 200 for c in sent)


async def test_restored_games_get_a_board_and_marked_prompts(fake: FakeDiscord) -> None:
    """As ``dokobot run`` restarts: the service restores the tables before the adapter
    connects, with boards on, and the adapter sends what it was given."""
    first = Service(Router(seed=3))
    async with running(make_client(first, prompts_default="dm")) as client:
        assert isinstance(client, DiscordAdapter)
        for user in fake.users:
            await settle(fake, client, await fake.slash(user, "join"))
        await settle(fake, client, await fake.slash(fake.users[0], "start"))
    await first.close()
    boards_before = len([m for m in fake.channel_messages() if m.embeds])
    service = Service(Router(seed=3), store=first.store)
    service.boards = True
    restored = await service.start()
    try:
        async with running(make_client(service, restored=restored, prompts_default="dm")) as client:
            await asyncio.wait_for(client.wait_idle(), 5)
            game = service.router.tables[f"discord:{fake.channel_id}"].game
            user = service.router.tables[f"discord:{fake.channel_id}"].seats[game.turn].user
            member = next(u for u in fake.users if f"discord:{u.id}" == user)
    finally:
        await service.close()
    boards = [m for m in fake.channel_messages() if m.embeds]
    assert len(boards) == boards_before + 1
    prompt = fake.dms(member)[-1]
    assert prompt.custom_ids and all(":1.0:" in c for c in prompt.custom_ids)
    assert fake.violations == []
