"""``/prompts dm|here`` is kept in the store: a restart (or the adapter forgetting it) does
not send a user's prompts by DM again; a choice the store cannot keep is refused and the
old one stays."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.settings import PROMPTS_PREFERENCE
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore, Store, open_store

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, running
from discord_fake.harness import make_client, panel_in_a_game, settle


def _router() -> Router:
    return Router(seed=4, bot_factory=default_bot_factory())


async def _choose(fake: FakeDiscord, service: Service, user: FakeUser, where: str) -> str:
    """``user`` says ``/prompts where`` to a fresh adapter; its answer."""
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        answer = await settle(fake, client, await fake.slash(user, "prompts", {"where": where}))
        return answer.ephemeral_messages[0].content


async def _turn_comes_by_dm(fake: FakeDiscord, service: Service, forget: bool) -> bool:
    """Anna and three computer players start a game; Anna opens "My cards" and declares
    healthy. Whether her turn then came by DM (else into the open panel in the channel).
    ``forget``: the adapter drops its memory of users' /prompts choices first (eviction)."""
    anna = fake.users[0]
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        panel = await panel_in_a_game(fake, client, anna)
        healthy = panel.button(lambda c: c.endswith(":healthy"))
        assert healthy is not None
        if forget:
            client.settings.forget(anna.id)
        dms_before = len(fake.dms(anna))
        await settle(fake, client, await fake.click(anna, panel, healthy))
        await asyncio.wait_for(service.idle(), 10)
        await asyncio.wait_for(client.wait_idle(), 10)
        game = service.router.tables[f"discord:{fake.channel_id}"].game
        assert game.turn == 0 and game.phase.name == "PLAYING"
        in_panel = panel.button(lambda c: ":play " in c) is not None
        by_dm = len(fake.dms(anna)) > dms_before
        assert in_panel or by_dm
        return by_dm


async def test_prompts_here_survives_a_restart(fake: FakeDiscord, tmp_path: Path) -> None:
    path = str(tmp_path / "doko.db")
    service = Service(_router(), store=open_store(path))
    try:
        answer = await _choose(fake, service, fake.users[0], "here")
        assert "My cards" in answer
    finally:
        await service.close()
    # a new process on the same store: the adapter has forgotten everything
    service = Service(_router(), store=open_store(path))
    try:
        assert not await _turn_comes_by_dm(fake, service, forget=False)
    finally:
        await service.close()
    assert fake.violations == []


async def test_prompts_here_survives_the_adapter_forgetting_it(fake: FakeDiscord) -> None:
    service = Service(_router())
    try:
        await _choose(fake, service, fake.users[0], "here")
        assert not await _turn_comes_by_dm(fake, service, forget=True)
    finally:
        await service.close()


async def test_prompts_dm_is_kept_too(fake: FakeDiscord) -> None:
    """The other way round (and the check that the game above really prompts by DM)."""
    service = Service(_router())
    try:
        await _choose(fake, service, fake.users[0], "here")
        await _choose(fake, service, fake.users[0], "dm")
        assert await _turn_comes_by_dm(fake, service, forget=True)
    finally:
        await service.close()


class FailingPrefs(MemoryStore):
    """A store that cannot write preferences while ``failing``."""

    failing = False

    def set_preference(self, user: str, name: str, value: str) -> None:
        if self.failing:
            raise OSError("disk full")
        super().set_preference(user, name, value)


async def test_a_choice_the_store_cannot_keep_is_refused_and_the_old_one_stays(
    fake: FakeDiscord,
) -> None:
    anna = fake.users[0]
    store = FailingPrefs()
    service = Service(_router(), store=store)
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await settle(fake, client, await fake.slash(anna, "prompts", {"where": "here"}))
            store.failing = True
            answer = await settle(fake, client, await fake.slash(anna, "prompts", {"where": "dm"}))
            [message] = answer.ephemeral_messages
            assert message.content == render("en", "store_failed")
            assert client.settings.prompts_remembered(anna.id) is True
        assert _kept(store, anna) == "here"
    finally:
        await service.close()
    assert fake.violations == []


def _kept(store: Store, user: FakeUser) -> str | None:
    return store.preference(f"discord:{user.id}", PROMPTS_PREFERENCE)
