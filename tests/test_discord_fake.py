"""The fake Discord enforces what Discord enforces: one test per rule, over plain HTTP.

Rate-limit buckets (429 with ``retry_after``) and injected 429s, 2,000 characters per message,
embed limits, component rules, the response types that fit each interaction, 15-minute
interaction tokens (50027), missing permissions (50013) and opening DMs too fast (40003).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, message_problems
from discord_fake.server import ALL_PERMISSIONS, SEND_MESSAGES

Json = dict[str, Any]


@pytest.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=fake.base_url + "/") as session:
        yield session


async def send(
    http: aiohttp.ClientSession, path: str, body: Json, method: str = "POST"
) -> tuple[int, Json]:
    async with http.request(method, path.lstrip("/"), json=body) as response:
        data = await response.json() if response.status != 204 else {}
        return response.status, data


def button(custom_id: str, label: str = "x") -> Json:
    return {"type": 2, "style": 2, "label": label, "custom_id": custom_id}


async def test_messages_over_2000_characters_are_refused(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    assert (await send(http, path, {"content": "x" * 2000}))[0] == 200
    status, data = await send(http, path, {"content": "x" * 2001})
    assert (status, data["code"]) == (400, 50035)
    assert fake.violations == ["content of 2001 characters (at most 2000)"]


async def test_embed_limits(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    ok = {"title": "t" * 256, "description": "d" * 4096, "fields": [{"name": "n", "value": "v"}]}
    assert (await send(http, path, {"embeds": [ok]}))[0] == 200
    bad = [
        {"title": "t" * 257},
        {"description": "d" * 4097},
        {"fields": [{"name": "n", "value": "v"}] * 26},
        {"fields": [{"name": "n", "value": "v" * 1025}]},
        {"description": "d" * 4000, "fields": [{"name": "n", "value": "v" * 1000}] * 3},
    ]
    for embed in bad:
        status, _ = await send(http, path, {"embeds": [embed]})
        assert status == 400, embed
    assert len(fake.violations) == len(bad)
    assert any("6,000" in v for v in fake.violations)


async def test_component_rules(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    row = {"type": 1, "components": [button(f"b{i}") for i in range(5)]}
    assert (await send(http, path, {"content": "ok", "components": [row]}))[0] == 200
    bad = [
        [{"type": 1, "components": [button(f"b{i}") for i in range(6)]}],  # 6 in a row
        [{"type": 1, "components": [button(f"r{r}")]} for r in range(6)],  # 6 rows
        [{"type": 1, "components": [button("a", "l" * 81)]}],  # label
        [{"type": 1, "components": [button("c" * 101)]}],  # custom_id length
        [{"type": 1, "components": [button("same"), button("same")]}],  # unique
    ]
    for rows in bad:
        status, _ = await send(http, path, {"content": "x", "components": rows})
        assert status == 400, rows
    assert len(fake.violations) == len(bad)
    assert message_problems({"content": "fine"}) == []


async def test_response_types_must_fit_the_interaction(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    anna = fake.users[0]
    cases = [(2, 6), (2, 7), (2, 8), (3, 8), (4, 4)]  # (interaction type, response type)
    for kind, response in cases:
        interaction = fake.register_interaction(kind, anna)
        body = {"type": response, "data": {"content": "x"}}
        status, _ = await send(
            http, f"/interactions/{interaction.id}/{interaction.token}/callback", body
        )
        assert status == 400, (kind, response)
    for kind, response in [(2, 4), (2, 5), (3, 6), (3, 4), (4, 8)]:
        interaction = fake.register_interaction(kind, anna)
        body = {"type": response, "data": {"content": "x"} if response == 4 else {}}
        status, _ = await send(
            http, f"/interactions/{interaction.id}/{interaction.token}/callback", body
        )
        assert status == 200, (kind, response)
    assert len(fake.violations) == len(cases)


async def test_interaction_tokens_end_after_15_minutes(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    interaction = fake.register_interaction(2, fake.users[0])
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    assert (await send(http, callback, {"type": 5, "data": {"flags": 64}}))[0] == 200
    webhook = f"/webhooks/{fake.app_id}/{interaction.token}"
    assert (await send(http, webhook, {"content": "follow-up", "flags": 64}))[0] == 200
    fake.age(interaction, 15 * 60 + 1)
    status, data = await send(http, webhook, {"content": "too late"})
    assert (status, data["code"]) == (401, 50027)
    status, data = await send(http, webhook + "/messages/@original", {"content": "x"}, "PATCH")
    assert (status, data["code"]) == (401, 50027)
    assert len(fake.violations) == 2
    # and the first answer must come within 3 seconds (10062)
    late = fake.register_interaction(2, fake.users[0])
    fake.age(late, 3.5)
    status, data = await send(
        http, f"/interactions/{late.id}/{late.token}/callback", {"type": 4, "data": {}}
    )
    assert (status, data["code"]) == (404, 10062)


async def test_missing_send_messages_is_50013(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.bot_permissions = ALL_PERMISSIONS & ~SEND_MESSAGES
    status, data = await send(http, f"/channels/{fake.channel_id}/messages", {"content": "hi"})
    assert (status, data["code"]) == (403, 50013)
    assert fake.channel_messages() == []


async def test_opening_dms_too_fast_is_40003(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    codes = []
    for _ in range(11):
        status, data = await send(http, "/users/@me/channels", {"recipient_id": fake.users[1].id})
        codes.append(data.get("code") if status != 200 else 200)
    assert codes == [200] * 10 + [40003]


async def test_rate_limit_buckets_and_injected_429s(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    fake.limits["channel"] = (5, 5.0)  # Discord's 5 messages per 5 seconds per channel
    statuses = []
    for n in range(6):
        async with http.post(path.lstrip("/"), json={"content": str(n)}) as response:
            statuses.append(response.status)
            if response.status == 429:
                data = await response.json()
                assert 4.0 < data["retry_after"] <= 5.01 and data["global"] is False
                assert response.headers["Via"]  # discord.py treats a 429 without it as a ban
    assert statuses == [200] * 5 + [429]
    # DMs have buckets of their own
    _, dm = await send(http, "/users/@me/channels", {"recipient_id": fake.users[1].id})
    assert (await send(http, f"/channels/{dm['id']}/messages", {"content": "hi"}))[0] == 200
    # injection on demand, for the next matching request only
    fake.limits.clear()
    fake.inject_429(fake.is_channel_send, retry_after=3.2)
    async with http.post(path.lstrip("/"), json={"content": "a"}) as response:
        assert response.status == 429 and (await response.json())["retry_after"] == 3.2
    assert (await send(http, path, {"content": "b"}))[0] == 200
