"""The Matrix adapter without a homeserver: its config section, its ids, its board text and
what it makes of a sync (rooms, people, commands, direct rooms, history)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dokobot.adapters.matrix import TOKEN_ENV, MatrixAdapter, MatrixSettings
from dokobot.adapters.matrix.board import board_text
from dokobot.config import ConfigError, parse_config
from dokobot.host.board import board_view
from dokobot.host.contract import BareHost
from dokobot.host.events import Input
from dokobot.host.table import Table

SECTION = "matrix:\n  homeserver: http://127.0.0.1:8008\n  user_id: '@doko:example.org'\n"


def test_the_config_section_with_the_token_from_the_environment() -> None:
    rooms = "  rooms: ['#doko:example.org', '!Jykz-v9lL_73']\n"  # an alias, a version 12 room id
    config = parse_config(SECTION + rooms, env={TOKEN_ENV: "t0k"})
    assert config.has_chat() and config.matrix == MatrixSettings(
        homeserver="http://127.0.0.1:8008", user_id="@doko:example.org",
        rooms=("#doko:example.org", "!Jykz-v9lL_73"),
    )  # fmt: skip
    assert "t0k" not in repr(config.matrix)  # the token is never kept in the settings


@pytest.mark.parametrize(
    ("text", "env", "says"),
    [
        (SECTION, {}, TOKEN_ENV),
        ("matrix:\n  homeserver: http://x\n", {TOKEN_ENV: "t"}, "matrix.user_id: required"),
        (SECTION + "  token: abc\n", {TOKEN_ENV: "t"}, "matrix.token: unknown key"),
        (SECTION + "  rooms: ['doko']\n", {TOKEN_ENV: "t"}, "bad room"),
        (SECTION.replace("http://127.0.0.1:8008", "ftp://x"), {TOKEN_ENV: "t"}, "http(s) URL"),
        (SECTION + "  admins: ['bob']\n", {TOKEN_ENV: "t"}, "bad Matrix ID"),
    ],
)
def test_a_bad_section_is_refused(text: str, env: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("(", r"\(").replace(")", r"\)")):
        parse_config(text, env=env)


def test_the_board_text() -> None:
    table = Table(channel="matrix:!r:x", seed=1)
    for name in ("anna", "ben", "carl", "dora"):
        table.join(name, name)
    table.start("anna")
    view = board_view(table)
    assert view is not None
    text = board_text(view)
    assert text.splitlines()[:3] == ["Game 1", "On the table: no card yet", "anna to play"]
    assert all(line.strip() for line in text.splitlines())


class Recording(BareHost):
    def __init__(self) -> None:
        self.inputs: list[Input] = []
        self.kept: dict[str, str] = {}

    async def handle(self, inp: Input) -> list[Any]:
        self.inputs.append(inp)
        return []

    async def remember_preference(self, user: str, name: str, value: str) -> None:
        self.kept[name] = value


def sync(room: str, *events: dict[str, Any], state: tuple[dict[str, Any], ...] = ()) -> Any:
    timeline = {"events": list(events)}
    return {"next_batch": "s2", "rooms": {"join": {room: {"state": {"events": list(state)},
                                                           "timeline": timeline}}}}  # fmt: skip


def said(sender: str, body: str, msgtype: str = "m.text") -> dict[str, Any]:
    return {"type": "m.room.message", "sender": sender,
            "content": {"msgtype": msgtype, "body": body}}  # fmt: skip


def member(mxid: str, name: str) -> dict[str, Any]:
    return {"type": "m.room.member", "state_key": mxid, "sender": mxid,
            "content": {"membership": "join", "displayname": name}}  # fmt: skip


async def test_commands_ids_names_and_what_is_not_a_command() -> None:
    host = Recording()
    settings = MatrixSettings(homeserver="http://x", user_id="@doko:x", admins=("@ben:x",))
    adapter = MatrixAdapter(host, settings, "token")
    adapter.direct = {"@anna:x": "!dm:x", "@ben:x": "!dm2:x"}  # no direct room to open
    room = "!game:x"
    power = {"type": "m.room.power_levels", "state_key": "", "content": {"users": {"@carl:x": 50}}}
    await adapter._take(sync(room, member("@anna:x", "Anna"), said("@anna:x", "!join"),
                             said("@ben:x", "hello there"), said("@ben:x", "!start", "m.notice"),
                             said("@doko:x", "!join"), said("@carl:x", "!option x"),
                             said("@ben:x", "!start"), state=(power,)), history=False)  # fmt: skip
    await adapter._take(sync("!dm:x", said("@anna:x", "hand")), history=False)
    await adapter._take(sync(room, said("@anna:x", "!leave")), history=True)  # history: skipped
    chat = adapter.chat
    got = []
    while not chat.inbox.empty():
        got.append(chat.inbox.get_nowait())
    inputs = [i for i in got if isinstance(i, Input)]
    assert [(i.channel, i.user, i.name, i.text, i.dm, i.admin) for i in inputs] == [
        ("matrix:!game:x", "matrix:@anna:x", "Anna", "/join", False, False),
        ("matrix:!game:x", "matrix:@carl:x", "carl", "/option x", False, True),  # moderator
        ("matrix:!game:x", "matrix:@ben:x", "ben", "/start", False, True),  # in admins
        ("", "matrix:@anna:x", "Anna", "/hand", True, False),
    ]
    assert adapter.room("matrix:!game:x") == "!game:x" and adapter.room("irc:n:#x") is None
    assert adapter.address("matrix:@anna:x") == "!dm:x" and adapter.address("matrix:@zoe:x") is None
    assert not adapter.present("matrix:@anna:x")  # not in her direct room yet
    await adapter._take(sync("!dm:x", member("@anna:x", "Anna")), history=False)
    assert adapter.present("matrix:@anna:x")
    # somebody else in her direct room: no private line goes there any more
    await adapter._take(sync("!dm:x", member("@eve:x", "Eve")), history=False)
    assert adapter.address("matrix:@anna:x") is None
    await asyncio.sleep(0)


async def test_a_new_display_name_renames_the_seat_and_is_kept() -> None:
    host = Recording()
    adapter = MatrixAdapter(host, MatrixSettings(homeserver="http://x", user_id="@doko:x"), "t")
    await adapter._take(sync("!game:x", member("@anna:x", "Anna")), history=False)
    assert adapter.chat.inbox.empty()  # first seen: her name, nothing to rename
    await adapter._take(sync("!game:x", member("@anna:x", "Anna B")), history=False)
    rename = adapter.chat.inbox.get_nowait()
    assert (rename.user, rename.name) == ("matrix:@anna:x", "Anna B")  # type: ignore[union-attr]
    assert adapter.names["@anna:x"] == "Anna B"


async def test_what_a_room_said_before_the_bot_joined_is_history() -> None:
    host = Recording()
    adapter = MatrixAdapter(host, MatrixSettings(homeserver="http://x", user_id="@doko:x"), "t")
    adapter.direct = {"@anna:x": "!dm:x"}
    joined = member("@doko:x", "dokobot")
    renamed = {**member("@doko:x", "doko"), "unsigned": {"prev_content": {"membership": "join"}}}
    await adapter._take(
        sync("!game:x", said("@anna:x", "!start"), joined, said("@anna:x", "!join"), renamed,
             said("@anna:x", "!leave")),
        history=False,
    )  # fmt: skip
    texts = []
    while not adapter.chat.inbox.empty():
        texts.append(adapter.chat.inbox.get_nowait().text)  # type: ignore[union-attr]
    assert texts == ["/join", "/leave"]  # a new display name of the bot is no new join
