"""The Synapse test harness itself (tests/synapse_server.py): users registered with the
shared secret talk in a room, and a user's own limit makes the homeserver answer a burst
with M_LIMIT_EXCEEDED and ``retry_after_ms``, as the Matrix adapter's tests rely on."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synapse_server import SERVER_NAME, SynapseServer


async def _call(
    session: aiohttp.ClientSession, server: SynapseServer, method: str, path: str, token: str,
    body: Any = None,
) -> tuple[int, dict[str, Any]]:  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"}
    async with session.request(method, server.url + path, json=body, headers=headers) as answer:
        return answer.status, await answer.json()


async def test_users_talk_and_a_burst_is_limited(synapse: SynapseServer) -> None:
    tag = secrets.token_hex(3)
    anna, anna_token = synapse.register(f"anna{tag}", display="Anna")
    ben, ben_token = synapse.register(f"ben{tag}")
    assert anna == f"@anna{tag}:{SERVER_NAME}"
    synapse.limit(ben, per_second=1, burst_count=2)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        status, room = await _call(
            session, synapse, "POST", "/_matrix/client/v3/createRoom", anna_token,
            {"preset": "public_chat", "invite": [ben]},
        )  # fmt: skip
        assert status == 200, room
        room_id = room["room_id"]
        status, _ = await _call(
            session, synapse, "POST", f"/_matrix/client/v3/rooms/{room_id}/join", ben_token, {}
        )
        assert status == 200
        answers = []
        for n in range(6):
            path = f"/_matrix/client/v3/rooms/{room_id}/send/m.room.message/t{n}"
            answers.append(
                await _call(
                    session, synapse, "PUT", path, ben_token, {"msgtype": "m.text", "body": f"{n}"}
                )
            )
        limited = [body for status, body in answers if status == 429]
        assert limited, answers  # a burst of 6 against 2 at once
        assert all(b["errcode"] == "M_LIMIT_EXCEEDED" and b["retry_after_ms"] > 0 for b in limited)
        # anna has no limit of her own: the server-wide limits are loose
        for n in range(6):
            path = f"/_matrix/client/v3/rooms/{room_id}/send/m.room.message/a{n}"
            status, body = await _call(
                session, synapse, "PUT", path, anna_token, {"msgtype": "m.text", "body": "hi"}
            )
            assert status == 200, body
        status, messages = await _call(
            session, synapse, "GET",
            f"/_matrix/client/v3/rooms/{room_id}/messages?dir=b&limit=50", anna_token,
        )  # fmt: skip
        bodies = [
            e["content"].get("body") for e in messages["chunk"] if e["type"] == "m.room.message"
        ]
        assert bodies.count("hi") == 6
        assert len(bodies) == 6 + len(answers) - len(limited)
