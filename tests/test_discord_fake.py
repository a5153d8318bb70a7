"""The fake Discord enforces what Discord enforces: one test per rule, over plain HTTP.

Its limits live in one table (:mod:`discord_fake.limits`), each row with its Discord page.

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
from discord_fake.limits import LIMITS
from discord_fake.server import ALL_PERMISSIONS, ATTACH_FILES, EMBED_LINKS, SEND_MESSAGES

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
    fake.limits.clear()  # the rules, not the pace, are tested here
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
    fake.limits.clear()
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
    fake.speed = 1.0
    codes = []
    for _ in range(11):
        status, data = await send(http, "/users/@me/channels", {"recipient_id": fake.users[1].id})
        codes.append(data.get("code") if status != 200 else 200)
    assert codes == [200] * 10 + [40003]


async def test_rate_limit_buckets_and_injected_429s(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    fake.speed = 1.0  # Discord's own clock: 5 messages per 5 seconds per channel
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


def test_every_limit_names_its_discord_page() -> None:
    assert len(LIMITS) >= 20
    for name, row in LIMITS.items():
        assert row.source.startswith("https://docs.discord.com/developers/"), name
        assert row.what, name


async def test_the_bot_wide_limit_counts_all_but_interaction_routes(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.speed = 1.0
    fake.limits.clear()
    anna = fake.users[0]
    channels = [fake.add_channel() for _ in range(10)]
    statuses = []
    for n in range(50):  # ten channels, five messages each: no route bucket is full
        status, _ = await send(http, f"/channels/{channels[n % 10]}/messages", {"content": "x"})
        statuses.append(status)
    assert statuses == [200] * 50
    # interaction callbacks and follow-ups do not count: they go through
    interaction = fake.register_interaction(2, anna)
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    assert (await send(http, callback, {"type": 5, "data": {"flags": 64}}))[0] == 200
    webhook = f"/webhooks/{fake.app_id}/{interaction.token}"
    assert (await send(http, webhook, {"content": "follow-up", "flags": 64}))[0] == 200
    # the 51st counted request within the second is refused, globally
    async with http.post(f"channels/{fake.channel_id}/messages", json={"content": "y"}) as r:
        assert r.status == 429
        assert r.headers["X-RateLimit-Scope"] == "global"
        assert r.headers["X-RateLimit-Global"] == "true"
        assert (await r.json())["global"] is True
    assert fake.global_429s == 1
    assert sum(c.counted for c in fake.calls) == 51


async def test_rate_limit_headers_come_with_every_answer(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"channels/{fake.channel_id}/messages"
    remaining = []
    for n in range(3):
        async with http.post(path, json={"content": str(n)}) as response:
            assert response.status == 200
            assert response.headers["X-RateLimit-Limit"] == "5"
            assert float(response.headers["X-RateLimit-Reset-After"]) > 0
            assert response.headers["X-RateLimit-Bucket"]
            remaining.append(response.headers["X-RateLimit-Remaining"])
    assert remaining == ["4", "3", "2"]


async def test_follow_ups_are_checked_like_messages(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    interaction = fake.register_interaction(2, fake.users[0])
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    assert (await send(http, callback, {"type": 5, "data": {"flags": 64}}))[0] == 200
    webhook = f"/webhooks/{fake.app_id}/{interaction.token}"
    six_rows = [{"type": 1, "components": [button(f"r{r}")]} for r in range(6)]
    select = {"type": 3, "custom_id": "s", "options": [{"label": str(n), "value": str(n)}
                                                       for n in range(26)]}  # fmt: skip
    for body in [
        {"content": "x" * 2001},
        {"content": "x", "components": six_rows},
        {"content": "x", "components": [{"type": 1, "components": [select]}]},
    ]:
        status, data = await send(http, webhook, body)
        assert (status, data["code"]) == (400, 50035), body
    assert len(fake.violations) == 3


async def test_ephemeral_messages_are_unknown_to_the_channel_routes(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    interaction = fake.register_interaction(2, fake.users[0])
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    body = {"type": 4, "data": {"content": "secret", "flags": 64}}
    assert (await send(http, callback, body))[0] == 200
    original = interaction.original
    assert original is not None and original.ephemeral
    path = f"/channels/{fake.channel_id}/messages/{original.id}"
    status, data = await send(http, path, {"content": "edited"}, "PATCH")
    assert (status, data["code"]) == (404, 10008)
    # a channel message edited under another channel: unknown as well
    _, sent = await send(http, f"/channels/{fake.channel_id}/messages", {"content": "x"})
    other = fake.add_channel()
    status, data = await send(http, f"/channels/{other}/messages/{sent['id']}", {"content": "y"},
                              "PATCH")  # fmt: skip
    assert (status, data["code"]) == (404, 10008)
    # through the interaction's webhook the ephemeral message can be edited
    webhook = f"/webhooks/{fake.app_id}/{interaction.token}/messages/@original"
    assert (await send(http, webhook, {"content": "edited"}, "PATCH"))[0] == 200
    # and after 15 minutes neither read nor deleted
    fake.age(interaction, 15 * 60 + 1)
    assert (await send(http, webhook, {}, "GET"))[0] == 401
    assert (await send(http, webhook, {}, "DELETE"))[0] == 401


async def post_files(
    http: aiohttp.ClientSession, path: str, body: Json, files: list[tuple[str, bytes]]
) -> tuple[int, Json]:
    form = aiohttp.FormData()
    form.add_field("payload_json", __import__("json").dumps(body))
    for n, (name, data) in enumerate(files):
        form.add_field(f"files[{n}]", data, filename=name)
    async with http.post(path.lstrip("/"), data=form) as response:
        return response.status, await response.json()


async def test_attachments_count_size_names_and_permissions(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.limits.clear()
    path = f"/channels/{fake.channel_id}/messages"
    picture = {"embeds": [{"title": "t", "image": {"url": "attachment://table.png"}}]}
    assert (await post_files(http, path, picture, [("table.png", b"png")]))[0] == 200
    bad: list[tuple[Json, list[tuple[str, bytes]]]] = [
        (picture, [("other.png", b"png")]),  # attachment:// names no file
        ({"content": "x"}, [(f"{n}.png", b"p") for n in range(11)]),  # 11 files
    ]
    for body, files in bad:
        status, data = await post_files(http, path, body, files)
        assert (status, data["code"]) == (400, 50035), files[:1]
    assert len(fake.violations) == 2
    # over 10 MiB: 413 Request Entity Too Large (a refusal a client must handle, not a
    # violation of the rules)
    big = [("big.png", b"p" * (10 * 1024 * 1024 + 1))]
    assert await post_files(http, path, {"content": "x"}, big) == (
        413,
        {"message": "Request entity too large", "code": 40005},
    )
    assert len(fake.too_large) == 1 and len(fake.violations) == 2
    fake.bot_permissions = ALL_PERMISSIONS & ~EMBED_LINKS
    assert (await send(http, path, {"embeds": [{"title": "t"}]}))[1]["code"] == 50013
    fake.bot_permissions = ALL_PERMISSIONS & ~ATTACH_FILES
    status, data = await post_files(http, path, {"content": "x"}, [("a.png", b"p")])
    assert (status, data["code"]) == (403, 50013)


async def test_server_errors_and_dropped_connections_on_demand(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{fake.channel_id}/messages"
    fake.inject_status(fake.is_channel_send, 502)
    async with http.post(path.lstrip("/"), json={"content": "a"}) as response:
        assert response.status == 502
    fake.inject_status(fake.is_channel_send, 0)  # the connection drops
    with pytest.raises(aiohttp.ClientError):
        async with http.post(path.lstrip("/"), json={"content": "b"}) as response:
            await response.read()
    assert (await send(http, path, {"content": "c"}))[0] == 200
    assert [m.content for m in fake.channel_messages()] == ["c"]


async def test_a_mention_notifies_only_in_a_new_message_that_allows_it(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.limits.clear()
    anna, ben, carl = fake.users[:3]
    path = f"/channels/{fake.channel_id}/messages"
    only_ben = {"parse": [], "users": [str(ben.id)]}
    text = f"{anna.mention} {ben.mention} {carl.mention}"
    # a new message: the mentions that allowed_mentions lets through
    _, sent = await send(http, path, {"content": text, "allowed_mentions": only_ben})
    assert [u.id for u in fake.users if fake.notified(u)] == [ben.id]
    assert [m["id"] for m in sent["mentions"]] == [str(ben.id)]
    await send(http, path, {"content": carl.mention, "allowed_mentions": {"parse": []}})
    assert fake.notified(carl) == []
    await send(http, path, {"content": carl.mention})  # no allowed_mentions: all of them
    assert len(fake.notified(carl)) == 1
    # an edit that adds a mention notifies nobody
    _, quiet = await send(http, path, {"content": "nobody yet"})
    body = {"content": anna.mention, "allowed_mentions": {"parse": ["users"]}}
    assert (await send(http, f"{path}/{quiet['id']}", body, "PATCH"))[0] == 200
    assert fake.notified(anna) == []
    # an ephemeral message notifies nobody either
    interaction = fake.register_interaction(2, anna)
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    reply = {"type": 4, "data": {"content": anna.mention, "flags": 64}}
    assert (await send(http, callback, reply))[0] == 200
    assert fake.notified(anna) == []
    # a new DM notifies its recipient
    _, dm = await send(http, "/users/@me/channels", {"recipient_id": str(anna.id)})
    await send(http, f"/channels/{dm['id']}/messages", {"content": "your turn"})
    assert [m.content for m in fake.notified(anna)] == ["your turn"]
