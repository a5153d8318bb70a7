"""Adapters keep per-user and per-channel memory bounded (issue 10, growth): feeding ten
times the cap of distinct users leaves every map at its cap, and what was forgotten comes
back (a language from the store, a DM channel opened again)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from dokobot import bounded
from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.irc import IrcAdapter, IrcSettings
from dokobot.adapters.irc.identities import Identities
from dokobot.bounded import Bounded, Caps
from dokobot.host.contract import BareHost
from dokobot.host.events import Choice, Event, Input, Private
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.store import MemoryStore

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, running
from discord_fake.harness import make_client, settle

CAP = 4


def test_bounded_keeps_the_cap_and_the_most_recently_used() -> None:
    m: Bounded[int, str] = Bounded(CAP)
    for i in range(10 * CAP):
        m[i] = str(i)
        if i % 3 == 0:
            assert m.get(0) == "0"  # used again and again: never the one to leave
    assert len(m) == CAP and 0 in m
    assert 10 * CAP - 1 in m and 10 * CAP - CAP not in m
    with pytest.raises(ValueError):
        Bounded[int, int](0)


def test_bounded_entries_expire_after_their_ttl() -> None:
    now = [0.0]
    m: Bounded[str, int] = Bounded(CAP, ttl=10.0, clock=lambda: now[0])
    m["a"] = 1
    now[0] = 9.9
    assert "a" in m and m["a"] == 1
    now[0] = 10.0
    assert "a" not in m and m.get("a") is None and len(m) == 0


def _maps(client: DiscordAdapter) -> dict[str, int]:
    """The sizes of the adapter's bounded maps and of those of the parts it holds."""
    parts = {"": client}
    for name, part in vars(client).items():
        if type(part).__module__.startswith("dokobot.adapters.discord."):
            parts[f"{name}."] = part
    return {
        prefix + k: len(v)
        for prefix, part in parts.items()
        for k, v in vars(part).items()
        if isinstance(v, Bounded)
    }


async def test_discord_maps_stay_at_the_cap_and_forgotten_things_come_back(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounded, "CAPS", Caps(users=CAP, channels=CAP))
    fake.dm_open_limit = (1000, 1.0)
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]
    crowd = [FakeUser(fake.snowflake(), f"P{i}") for i in range(10 * CAP)]
    fake.users.extend(crowd)
    service = Service(Router(seed=1), MemoryStore())
    turn = (Choice("♣Q", "/play CQ"),)
    async with running(make_client(service, prompts_default="dm")) as client:
        assert isinstance(client, DiscordAdapter)
        await settle(fake, client, await fake.slash(anna, "lang", {"language": "de"}))
        assert service.language_of(f"discord:{anna.id}") == "de"
        assert service.listener is not None
        await service.listener([Private(ch, f"discord:{anna.id}", "Prompt A", turn, kind="turn")])
        await asyncio.wait_for(client.wait_idle(), 5)
        for user in crowd:
            await settle(fake, client, await fake.slash(user, "lang", {"language": "en"}))
            await settle(fake, client, await fake.slash(user, "prompts", {"where": "dm"}))
            await service.listener([Private(ch, f"discord:{user.id}", "Prompt", turn, kind="turn")])
            await asyncio.wait_for(client.wait_idle(), 5)
        sizes = _maps(client)
        assert sizes and max(sizes.values()) <= CAP, sizes
        assert sizes["dms._channels"] == CAP and sizes["settings._prompt_here"] == CAP
        assert not client.languages.remembers_user(anna.id)
        # forgotten: the language comes back from the store (read in the background: the
        # first answer is in her client's language), the DM channel is opened again
        answer = await settle(fake, client, await fake.slash(anna, "prompts", {"where": "dm"}))
        [reply] = answer.ephemeral_messages
        assert reply.content.startswith("Your"), reply.content
        await service.langs.fetch([f"discord:{anna.id}"])
        answer = await settle(fake, client, await fake.slash(anna, "prompts", {"where": "dm"}))
        [reply] = answer.ephemeral_messages
        assert reply.content.startswith("Deine"), reply.content
        await service.listener([Private(ch, f"discord:{anna.id}", "Prompt B", turn, kind="turn")])
        await asyncio.wait_for(client.wait_idle(), 5)
    opened = [str(c.body["recipient_id"]) for c in fake.calls if c.path == "/users/@me/channels"]
    assert opened.count(str(anna.id)) == 2
    assert [m.content for m in fake.dms(anna)] == ["Prompt A", "Prompt B"]
    assert fake.violations == []


class _NullService(BareHost):
    listener: Callable[[list[Event]], Awaitable[None]] | None = None

    async def handle(self, inp: Input) -> list[Event]:
        return []

    def pending_prompts(self, user: str) -> list[Event]:
        return [Private("irc:net:#c", user, "Your turn", (Choice("♣Q", "/play CQ"),), kind="turn")]


async def test_irc_maps_stay_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded, "CAPS", Caps(users=CAP, channels=CAP))
    adapter = IrcAdapter(_NullService(), IrcSettings(host="h", network="net", channels=("#c",)))
    users = [f"irc:net:p{i}" for i in range(10 * CAP)]
    for user in users:
        await adapter.deliver([Private("irc:net:#c", user, "Your turn", kind="turn")])
    assert len(adapter.chat.delivery.prompted) == CAP
    # a forgotten prompt is sent again when its player is seen (never lost); a remembered
    # one is not sent twice
    queued = len(adapter.outbox)
    adapter.chat.seen(users[-1])
    assert len(adapter.outbox) == queued
    adapter.chat.seen(users[0])
    assert len(adapter.outbox) == queued + 1


def test_identities_keep_one_entry_per_nick_not_per_change() -> None:
    ids = Identities("irc:n:", online=lambda nick: False)
    anna = ids.user_id("anna")
    for _ in range(10 * CAP):
        assert ids.rename("anna", "anja") == anna
        assert ids.rename("anja", "anna") == anna
    assert len(ids._spelled) == 2
    ids.set_casemapping("ascii")
    assert ids.user_id("anja") == anna and ids.nick_for(anna) == "anja"


async def test_users_languages_stay_at_the_cap_and_come_back_from_the_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bounded, "CAPS", Caps(users=CAP, channels=CAP))
    store = MemoryStore()
    svc = Service(Router(seed=1), store)
    await svc.handle(Input("c", "u0", "anna", "/lang de"))
    for i in range(1, 10 * CAP):
        await svc.handle(Input("c", f"u{i}", f"p{i}", "/lang en" if i % 2 else "/help"))
    langs = svc.router.langs
    assert len(langs._cache) == CAP and "u0" not in langs._cache  # type: ignore[attr-defined]
    await svc.langs.fetch(["u0"])  # (a miss is read in the background: none chosen until)
    assert svc.router.lang_of("u0") == "de" and svc.language_of("u0") == "de"
    assert svc.router.lang_of("u2") == "en"  # never chose: the default
    events = await svc.handle(Input("c", "u0", "anna", "/help"))
    assert "Befehle" in events[0].text or "Tisch" in events[0].text, events[0].text[:80]
    # a restart reads none of them before they are needed
    svc2 = Service(Router(seed=2), store)
    await svc2.start()
    assert len(svc2.router.langs) == 0
    await svc2.langs.fetch(["u0"])
    assert svc2.router.lang_of("u0") == "de"


def test_irc_identities_grow_only_with_people_who_write_to_the_bot() -> None:
    """Nicks that only join, part, rename or chat in the channel make no identity (nor a
    stored nick history row); a command does, and a known nick is still followed."""
    from irc_offline import offline_adapter

    adapter, conn = offline_adapter(_NullService())
    for i in range(10 * CAP):
        nick = f"passer{i}"
        adapter._on_seen(conn, nick)
        adapter._on_message(conn, "#c", nick, "hello all", dm=False)
        adapter._on_rename(conn, nick, nick + "_")
        adapter._on_gone(conn, nick + "_", "#c")
    assert not adapter.identities._owner and not adapter.identities._nick_by_id
    adapter._on_message(conn, "#c", "anna", "!help", dm=False)
    anna = adapter.identities.user_id("anna")
    adapter._on_rename(conn, "anna", "anja")
    assert adapter.identities.nick_for(anna) == "anja"
    assert len(adapter.identities._owner) == 2  # anna and anja, both hers
