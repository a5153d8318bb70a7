"""Unit tests of the IRC adapter's parts that need no server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from dokobot.adapters.irc import IrcAdapter, IrcSettings
from dokobot.adapters.irc.identities import Identities
from dokobot.adapters.irc.text import command_text, strip_formatting
from dokobot.adapters.textchat.lines import pack_lines, score_lines
from dokobot.adapters.textchat.outbox import (
    GAME,
    NOTES,
)
from dokobot.host.contract import BareHost
from dokobot.host.events import Choice, Event, Input, Private, Public
from dokobot.host.i18n import render
from dokobot.host.notes import Refusal
from dokobot.host.options import TableOptions
from dokobot.host.replay import Replayer, export_lines, restore
from dokobot.host.router import Router
from dokobot.host.views import help_lists
from dokobot.store import MemoryStore, SqliteStore, Store


def test_packed_lines_fit_the_protocol_limit() -> None:
    texts_ = [f"Trick {n}: anna ♣Q, ben ♠A, carl ♥10, dora ♦K — dora takes it (31 eyes)."
              for n in range(1, 13)]  # fmt: skip
    settings = IrcSettings(host="h")
    packed = pack_lines("\n".join(texts_), settings.max_line_bytes)
    assert len(packed) < len(texts_) / 2
    prefix = ":" + "n" * 30 + "!" + "u" * 10 + "@" + "h" * 63 + " PRIVMSG #" + "c" * 49 + " :"
    for text in packed:
        assert len((prefix + text + "\r\n").encode()) <= 512
    assert " · ".join(texts_) == " · ".join(packed)
    sheet = (
        "Series 1 (2 games)\nGame Dealer anna   ben  |  anna\n1    ben    +2    -2  |  +2\nChips"
    )
    assert score_lines(sheet) == [
        "Series 1 (2 games)",
        "Game Dealer anna ben | anna",
        "1 ben +2 -2 | +2",
        "Chips",
    ]


@pytest.mark.parametrize(
    ("line", "dm", "expected"),
    [
        ("!join", False, "/join"),
        ("! join", False, "/join"),
        ("/start", False, "/start"),
        ("!play ♣Q", False, "/play ♣Q"),
        ("CQ", False, "CQ"),
        ("♠10", False, "♠10"),
        ("3", False, "3"),
        ("twelvechars!", False, "twelvechars!"),
        ("thirteenchars", False, None),
        ("two words", False, None),
        ("two words", True, "/two words"),
        ("play ♦K", True, "/play ♦K"),
        ("hand", True, "/hand"),
        ("help", True, "/help"),
        ("♦K", True, "♦K"),
        ("7", True, "7"),
        ("hello", True, "/hello"),
        ("  CQ  ", False, "CQ"),
        ("\x02!join\x02", False, "/join"),
        ("\x0304CQ", False, "CQ"),
        ("\x01ACTION waves\x01", False, None),
        ("\x01VERSION\x01", True, None),
        ("!!join", False, None),
        ("", False, None),
        ("   ", True, None),
    ],
)
def test_command_text(line: str, dm: bool, expected: str | None) -> None:
    assert command_text(line, dm=dm) == expected


def test_command_text_cuts_very_long_input_but_keeps_it_too_long_for_the_host() -> None:
    text = command_text("x" * 5000, dm=True)
    assert text is not None and 400 < len(text) <= 1001


def test_strip_formatting_keeps_text() -> None:
    assert strip_formatting("\x1fu\x1f\x1di\x1d\x0f \x0312,4c\x03") == "ui c"


def test_identities_follow_renames_and_never_leak_to_a_new_holder() -> None:
    ids = Identities("irc:n:")
    anna = ids.user_id("Anna")
    bob = ids.user_id("bob")
    assert anna == "irc:n:anna"
    assert ids.user_id("ANNA") == anna  # case-insensitive
    assert ids.rename("Anna", "Anna_away") == anna
    assert ids.nick_for(anna) == "Anna_away"
    assert ids.user_id("anna_away") == anna
    # bob takes anna's old nick
    assert ids.rename("bob", "anna") == bob
    assert ids.user_id("anna") == bob
    assert ids.nick_for(anna) == "anna_away"
    # now anna (as anna_away) quits and bob renames to anna_away: anna loses her nick
    assert ids.rename("anna", "anna_away") == bob
    assert ids.nick_for(anna) is None
    assert ids.nick_for(bob) == "anna_away"
    # a stranger with bob's first nick gets a new id
    assert ids.user_id("bob") == "irc:n:bob~2"
    # a rename of a nick never seen creates the identity under the new nick
    assert ids.rename("ghost", "spirit") == "irc:n:spirit"
    # rfc1459 casemapping: [ ] \\ ~ fold to { } | ^
    assert ids.user_id("x[1]") == ids.user_id("X{1}")


def test_settings_validate_and_read_mappings(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = IrcSettings.from_mapping(
        {"host": "irc.example.org", "channels": "#doko", "admins": ["Anna"], "port": 6697}
    )
    assert settings.channels == ("#doko",)
    assert settings.admins == ("Anna",)
    assert settings.tls and settings.tls_verify
    for bad in (
        {"host": ""},
        {"host": "h", "port": 0},
        {"host": "h", "channels": ["doko"]},
        {"host": "h", "nick": "two words"},
        {"host": "h", "network": "a:b"},
        {"host": "h", "flood_rate": 0},
        {"host": "h", "password": "x"},  # never from the config file
        {"host": "h", "max_line_bytes": 600},
    ):
        with pytest.raises(ValueError):
            IrcSettings.from_mapping(bad)
    monkeypatch.delenv("DOKOBOT_IRC_PASSWORD", raising=False)
    assert IrcSettings.password() is None
    monkeypatch.setenv("DOKOBOT_IRC_PASSWORD", "pw")
    assert IrcSettings.password() == "pw"
    assert "pw" not in repr(settings)


class NullService(BareHost):
    listener: Callable[[list[Event]], Awaitable[None]] | None = None

    async def handle(self, inp: Input) -> list[Event]:
        return []


async def test_deliver_keeps_only_this_networks_events() -> None:
    adapter = IrcAdapter(NullService(), IrcSettings(host="h", network="net", channels=("#c",)))
    await adapter.deliver(
        [
            Public("irc:net:#c", "hello\nworld"),
            Public("irc:other:#c", "other network"),
            Public("discord:1", "discord"),
            Public("irc:net:", "no channel"),
            Private("irc:net:#c", "irc:net:anna", "psst", (Choice("♣Q", "/play CQ"),)),
            Private("irc:net:#c", "discord:7", "not ours"),
        ]
    )
    got = [(u.private, u.target, u.lines, u.lane) for u in adapter.outbox.units()]
    assert got == [
        (False, "#c", ["hello · world"], GAME),
        (True, "irc:net:anna", ["psst  [!play CQ]"], NOTES),
    ]


def test_identities_follow_the_servers_casemapping() -> None:
    ids = Identities("irc:n:")
    assert ids.user_id("x[1]") == ids.user_id("x{1}")  # rfc1459 until the server says
    ids = Identities("irc:n:")
    ids.set_casemapping("ascii")
    square, curly = ids.user_id("x[1]"), ids.user_id("x{1}")
    assert square != curly
    assert (square, curly) == ("irc:n:x[1]", "irc:n:x{1}")
    assert ids.user_id("X[1]") == square  # letters still fold
    ids.set_casemapping("strict-rfc1459")
    assert ids.fold("A[~") == "a{~"
    ids.set_casemapping("klingon")  # unknown values are ignored
    assert ids.casemapping == "strict-rfc1459"


def test_identities_come_back_under_an_old_nick_only_when_the_new_one_is_gone() -> None:
    online: set[str] = set()
    changes: list[tuple[str, str]] = []
    ids = Identities(
        "irc:n:",
        online=lambda nick: nick.lower() in online,
        on_change=lambda u, n: changes.append((u, n)),
    )
    ben = ids.user_id("ben")
    online.add("ben")
    assert ids.rename("ben", "benny") == ben
    online.discard("ben")
    online.add("benny")
    # while benny is online, somebody else called ben is somebody else
    other = ids.user_id("ben")
    assert other == "irc:n:ben~2" and ids.nick_for(ben) == "benny"
    # benny goes away (server restart); the other "ben" was last seen as ben, so ben now
    # belongs to the newcomer: only ben's own later nick brings him back
    online.clear()
    assert ids.user_id("benny") == ben
    # both directions: a fresh identity store restored from the history
    restored = Identities("irc:n:", online=lambda nick: False)
    restored.load(changes)
    assert restored.nick_for(ben) == "benny"
    assert restored.user_id("benny") == ben
    assert restored.user_id("ben") == other  # the nick's last user
    solo = Identities("irc:n:", online=lambda nick: False)
    solo.load([(ben, "ben"), (ben, "benny")])
    assert solo.user_id("ben") == ben  # back under the first nick after a restart
    assert solo.nick_for(ben) == "ben"


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_store_keeps_the_nick_history(kind: str, tmp_path: Path) -> None:
    store: Store = MemoryStore() if kind == "memory" else SqliteStore(tmp_path / "s.db")
    store.remember_nick("irc:n:ben", "irc:n:ben")
    store.remember_nick("irc:n:anna", "irc:n:Anna")
    store.remember_nick("irc:n:ben", "irc:n:benny")
    store.remember_nick("irc:other:x", "irc:other:x")
    store.remember_nick("irc:n:ben~2", "irc:n:BEN")  # the nick's new user, newest
    assert store.nick_history("irc:n:") == [
        ("irc:n:anna", "irc:n:Anna"),
        ("irc:n:ben", "irc:n:benny"),
        ("irc:n:ben~2", "irc:n:BEN"),
    ]
    store.close()
    if kind == "sqlite":
        again = SqliteStore(tmp_path / "s.db")
        assert again.nick_history("irc:other:") == [("irc:other:x", "irc:other:x")]
        again.close()


def test_bare_cards_is_an_option_with_its_names() -> None:
    options = TableOptions()
    assert options.bare_cards
    assert options.set("bare_cards", "on").bare_cards
    assert "bare_cards" in render("en", "help.option", help_lists("en"))
    assert "karte_allein" in render("de", "help.option", help_lists("de"))  # its German name


def test_a_renamed_seat_survives_replay() -> None:
    router = Router(seed=1)
    for name in ("anna", "ben", "carl", "dora"):
        router.handle(Input("irc:n:#c", f"irc:n:{name}", name, "/join"))
    table = router.tables["irc:n:#c"]
    table.rename(1, "benny")
    with pytest.raises(Refusal):
        table.rename(1, "Anna")
    # A restart restores the journal's records...
    restored = Router(seed=1)
    restore(restored, "irc:n:#c", list(table.journal))
    assert restored.tables["irc:n:#c"].names() == ["anna", "benny", "carl", "dora"]
    assert restored.tables["irc:n:#c"].seat_of("irc:n:ben") == 1
    # ...and the export's `!rename` line replays.
    lines = export_lines("irc:n:#c", list(table.journal))
    assert "!rename ben=benny" in lines
    rep = Replayer(router=Router(seed=1), channel="irc:n:#c", trusted=True)
    rep.run_lines(lines)
    assert rep.table.names() == ["anna", "benny", "carl", "dora"]
    assert rep.table.seat_of("irc:n:ben") == 1


def test_account_bindings_are_kept_in_the_history() -> None:
    changes: list[tuple[str, str]] = []
    ids = Identities("irc:n:", on_change=lambda u, n: changes.append((u, n)))
    ben = ids.user_id("ben", account="BenAcct")
    assert ("irc:n:ben", "@BenAcct") in changes
    restored = Identities("irc:n:", online=lambda nick: False)
    restored.load(changes)
    assert restored.user_id("whoever", account="benacct") == ben
    assert restored.user_id("ben", account="") == "irc:n:ben~2"  # not logged in: not ben


def test_channel_lines_are_marked_overheard_and_private_lines_are_not() -> None:
    """A channel line is read by everyone: the host refuses secret commands (``/give``)
    from it; a private line is not."""
    from irc_offline import offline_adapter

    class _Quiet(BareHost):
        listener = None

        async def handle(self, inp: object) -> list[object]:
            return []

    adapter, conn = offline_adapter(_Quiet())
    adapter._on_message(conn, "#c", "dora", "!give D10 DA C10", dm=False)
    adapter._on_message(conn, "dokobot", "dora", "give D10 DA C10", dm=True)
    from dokobot.host.events import Input

    lines = []
    while not adapter.chat.inbox.empty():
        item = adapter.chat.inbox.get_nowait()
        if isinstance(item, Input):  # (the adapter also queues a first-seen rename)
            lines.append(item)
    assert [(i.text, i.dm, i.overheard) for i in lines] == [
        ("/give D10 DA C10", False, True),
        ("/give D10 DA C10", True, False),
    ]


def test_score_csv_counts_by_player_across_a_seat_change() -> None:
    """dora leaves after game 1 and eve takes the seat: eve's running total in the CSV is
    her own score, not the seat's (dora's points stay dora's), as the score list counts."""
    import csv
    import io

    from test_series import deal_line, play_game, seated

    from dokobot.host.series import series_csv

    rep = seated()
    rep.run_text(deal_line(5))
    rep.feed(0, "anna", "/start")
    play_game(rep)
    rep.feed(0, "dora", "/leave")
    rep.feed(0, "eve", "/join")
    rep.run_text(deal_line(6, ("anna", "ben", "carl", "eve")))
    rep.feed(0, "anna", "/start")
    play_game(rep)
    first, second = list(csv.DictReader(io.StringIO(series_csv(rep.table))))
    assert first["player4"] == "dora" and second["player4"] == "eve"
    assert int(first["score4"]) != 0  # dora's game counted something to lose
    assert second["total4"] == second["score4"]  # eve's own points only
    for i in (1, 2, 3):  # the others keep adding up
        assert int(second[f"total{i}"]) == int(first[f"score{i}"]) + int(second[f"score{i}"])
    assert rep.table.series.totals_by_player()["eve"] == int(second["total4"])


async def test_an_answer_is_not_delivered_into_the_persons_next_session() -> None:
    """anna asked something, then left (QUIT) before the answer went out: when she comes
    back she does not get the old answer."""
    from irc_offline import offline_adapter

    adapter, conn = offline_adapter(NullService())
    conn.is_present = lambda nick: True
    adapter.identities.user_id("anna")
    await adapter.deliver([Private("irc:net:#c", "irc:net:anna", "Seats: …", reply=True)])
    await adapter.deliver([Private("irc:net:#c", "irc:net:ben", "Seats: …", reply=True)])
    adapter._on_gone(conn, "anna", None)
    got = []
    while len(adapter.outbox):
        got.append((await adapter.outbox.get()).target)
    assert got == ["irc:net:ben"] and adapter.outbox.dropped == 1


async def test_a_card_number_means_the_card_the_player_saw_under_it() -> None:
    """The leader of a trick gets no new prompt (the trick line names him): a number he
    types counts in the hand he was last shown, not in the host's renumbered hand."""
    from irc_offline import offline_adapter

    adapter, conn = offline_adapter(NullService())
    conn.is_present = lambda nick: True
    anna = adapter.identities.user_id("anna")
    prompt = Private("irc:net:#c", anna, "Your turn: 1:♣9  2:♣Q", kind="turn", hand=(0, 5, 32))
    await adapter.deliver([prompt])
    (unit,) = adapter.outbox.units()
    assert unit.on_sent is not None
    unit.on_sent()  # the prompt went out
    adapter._on_message(conn, "#c", "anna", "!play 2", dm=False)
    adapter._on_message(conn, "#c", "anna", "3", dm=True)
    adapter._on_message(conn, "#c", "anna", "!table 2", dm=False)
    from dokobot.host.i18n import card_text

    got = []
    while not adapter.chat.inbox.empty():
        item = adapter.chat.inbox.get_nowait()
        if isinstance(item, Input):
            got.append(item.text)
    assert got == [f"/play {card_text(5, 'en')}", card_text(32, "en"), "/table 2"]
