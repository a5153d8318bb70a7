"""Issue 37, item 8: the table's policy for absent people (``/handover``) and the share of
a person's turns a computer player had to make (reliability in ``/stats``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dokobot import languages
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.export import export_table
from dokobot.host.journal import Record
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.statcmds import player_lines
from dokobot.stats import StatsBook
from dokobot.store import MemoryStore

DATA = Path(__file__).parent / "data"
PEOPLE = ("anna", "ben", "carl", "dora")


def _inp(name: str, text: str, channel: str = "c", **kw: object) -> Input:
    return Input(channel, f"u:{name}", name, text, **kw)  # type: ignore[arg-type]


def _texts(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, (Public, Private))]


def _router() -> Router:
    r = Router(seed=4)
    for n in PEOPLE:
        r.handle(_inp(n, "/join"))
    return r


def _refused(r: Router, name: str, text: str, **kw: object) -> str:
    events = r.handle(_inp(name, text, **kw))
    assert len(events) == 1 and isinstance(events[0], Private), _texts(events)
    assert events[0].kind == "error"
    return events[0].text


def test_refusals_change_nothing() -> None:
    r = _router()
    t = r.tables["c"]
    r.handle(_inp("anna", "/start"))
    before = len(t.journal)
    # nobody stood in for dora yet
    assert "dora is not absent" in _refused(r, "anna", "/handover dora")
    t.mark_away(3)
    before = len(t.journal)
    assert "Type /join first" in _refused(r, "eve", "/handover dora")  # not seated
    assert "Nobody called zed" in _refused(r, "anna", "/handover zed")
    assert "Whose seat?" in _refused(r, "anna", "/handover")
    assert "in the table's channel" in _refused(r, "anna", "/handover dora", dm=True)
    assert "is not absent" in _refused(r, "anna", "/handover ben")  # present people
    assert "eve is not waiting" in _refused(r, "anna", "/handover dora eve")
    assert len(t.journal) == before and t.seat_vote is None
    # one vote at a time: a vote for a waiting person is another vote than for the computer
    r.handle(_inp("eve", "/join"))  # waits (a game runs)
    assert _texts(r.handle(_inp("anna", "/handover dora")))
    assert "A vote on the seat of dora is open" in _refused(r, "ben", "/handover dora eve")
    assert "You have voted already (1/2)" in _refused(r, "anna", "/handover dora")
    # IRC's and the console's text command, in another language's words too
    assert "You have voted already (1/2)" in _refused(r, "anna", "!vergeben dora")


def test_a_tournament_gives_a_seat_to_the_computer_only() -> None:
    r = Router(seed=4)
    r.handle(_inp("anna", "/join"))
    r.handle(_inp("anna", "/option tournament on"))
    for n in PEOPLE[1:]:
        r.handle(_inp(n, "/join"))
    t = r.tables["c"]
    r.handle(_inp("anna", "/start"))
    t.mark_away(3)
    r.handle(_inp("eve", "/join"))
    assert "a seat goes to a computer player only" in _refused(r, "anna", "/handover dora eve")
    assert any("(1/2)" in x for x in _texts(r.handle(_inp("anna", "/handover dora"))))


def test_the_absent_persons_return_ends_the_vote_and_replays_so() -> None:
    r = _router()
    t = r.tables["c"]
    r.handle(_inp("anna", "/start"))
    t.mark_away(3)
    r.handle(_inp("anna", "/handover dora"))
    assert t.seat_vote is not None
    said = _texts(r.handle(_inp("dora", "/table")))  # any input of dora's: back in time
    assert any("dora is back: the vote on the seat of dora has ended" in x for x in said)
    assert t.seat_vote is None and 3 not in t.away
    assert "dora is not absent" in _refused(r, "ben", "/handover dora")
    assert Record("back", seat=3, name="dora") in t.journal  # /table itself leaves no record
    # the journal rebuilds the same table: the vote ended at the same point
    again = Router(seed=4)
    from dokobot.host.replay import restore

    restore(again, "c", list(t.journal))
    u = again.tables["c"]
    assert u.seat_vote is None and u.away == set() and u.names() == t.names()


def test_a_replayed_series_with_a_seat_given_to_the_computer() -> None:
    """tests/data/table/handover.doko: the vote carries between games 1 and 2; games 2 and 3 are
    the computer player's in dora's seat; dora cannot take it back in the series."""
    path = DATA / "table" / "handover.doko"
    rep = Replayer()
    rep.run_text(path.read_text(encoding="utf-8"))
    assert rep.failures == []
    expected = [json.loads(x) for x in path.with_suffix(".expected.jsonl").open()]
    assert rep.results() == expected
    t = rep.table
    seat = t.seats[3]
    assert seat.is_bot and seat.standin_for == "replay:dora" and seat.given_away == 1
    assert seat.name == "dora" and t.standins == (3,)
    # the score list keeps the seat's scores: its total is the sum of its games
    assert t.series.totals[3] == sum(g["scores"]["dora"] for g in expected)
    assert len(expected) == 3


async def _play_people(svc: Service, channel: str = "c") -> None:
    """Every person on turn takes the first choice until the game ends."""
    table = svc.router.tables[channel]
    for _ in range(400):
        await svc.idle()
        if not table.running:
            return
        game = table.game
        assert game is not None
        name = table.seats[game.turn].name
        choices = [
            c
            for e in await svc.handle(_inp(name, "/hand", channel))
            if isinstance(e, Private)
            for c in e.choices
        ]
        await svc.handle(_inp(name, choices[0].command, channel))
    raise AssertionError("the game did not end")


async def _table_with_standin(svc: Service) -> int:
    """Four people, a game, two rounds of play, then the owner lets a computer player stand
    in for the person on turn: that seat."""
    for n in PEOPLE:
        await svc.handle(_inp(n, "/join"))
    await svc.handle(_inp("anna", "/start"))
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    for _ in range(9):  # the reservations and a trick and more by the people themselves
        name = table.seats[game.turn].name
        choices = [
            c
            for e in await svc.handle(_inp(name, "/hand"))
            if isinstance(e, Private)
            for c in e.choices
        ]
        await svc.handle(_inp(name, choices[0].command))
    if table.seats[game.turn].user == "u:anna":  # the owner stands in for others only
        await svc.handle(_inp("anna", "/hand"))
        choices = [c for e in await svc.handle(_inp("anna", "/hand"))
                   if isinstance(e, Private) for c in e.choices]  # fmt: skip
        await svc.handle(_inp("anna", choices[0].command))
    seat = game.turn
    await svc.handle(_inp("anna", "/standin"))
    assert seat in table.away
    return seat


async def test_a_vote_carries_during_a_game_and_a_restart_gives_the_same_table() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=7, bot_factory=Service.in_memory().router.bot_factory), store)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    seat = await _table_with_standin(svc)
    table = svc.router.tables["c"]
    absent = table.seats[seat]
    person, name = absent.user, absent.name
    voters = [s.name for s in table.seats if s.user not in (person,)][:2]
    first = await svc.handle(_inp(voters[0], f"/handover {name}"))
    assert any("(1/2)" in x for x in _texts(first))
    done = await svc.handle(_inp(voters[1], f"/handover {name}"))
    said = _texts(done)
    assert (
        f"The table gave the seat of {name} to the computer player for the rest of the series."
        in said
    )
    told = [e for e in done if isinstance(e, Private) and e.user == person]
    assert told and "gave your seat" in told[0].text
    info = table.seats[seat]
    assert info.is_bot and info.standin_for == person and info.given_away == 1
    # the absent person's press now cancels nothing: they are not seated any more
    late = await svc.handle(_inp(name, "/handover anna"))
    assert any("Type /join first" in x for x in _texts(late))
    await _play_people(svc)
    assert not table.running
    # the seat stays the computer player's: no /join takes it back in this series
    again = await svc.handle(_inp(name, "/join"))
    assert any("gave the seat of" in x and "away" in x for x in _texts(again))
    # a restart from the store gives the same seats, game and counts
    lines = [Record.decode(x) for x in store.load_journal("c")]
    assert [r.kind for r in lines].count("cmd") > 4
    # and so does the export, replayed as a file: the stand-in's moves stay its moves
    text = export_table(table, lines)
    assert f"!away {name}" in text
    rep = Replayer(router=Router(seed=7), channel="c")
    rep.run_text(text)
    assert rep.failures == []
    replayed = rep.table
    assert [(s.user, s.name, s.bot, s.standin_for, s.given_away) for s in replayed.seats] == [
        (s.user, s.name, s.bot, s.standin_for, s.given_away) for s in table.seats
    ]
    assert replayed.turn_count == table.turn_count
    assert [r.as_json() for r in replayed.finished] == [r.as_json() for r in table.finished]
    await svc.close()
    svc2 = Service(Router(seed=7), store)
    await svc2.start()
    await svc2.load("c")
    rebuilt = svc2.router.tables["c"]
    assert [(s.user, s.name, s.bot, s.standin_for, s.given_away) for s in rebuilt.seats] == [
        (s.user, s.name, s.bot, s.standin_for, s.given_away) for s in table.seats
    ]
    assert rebuilt.series.totals == table.series.totals
    await svc2.close()


def test_a_return_without_a_vote_is_journaled_so_a_restore_has_the_person_back() -> None:
    """``/table`` leaves no record of its own: the return it means must (a restore that kept
    the seat away would let the computer player move for a person who is there)."""
    from dokobot.host.replay import restore

    r = _router()
    t = r.tables["c"]
    r.handle(_inp("anna", "/start"))
    t.mark_away(3)
    said = _texts(r.handle(_inp("dora", "/table")))
    assert any("dora" in x and "back" in x for x in said), said
    assert 3 not in t.away
    assert t.journal[-1] == Record("back", seat=3, name="dora")
    again = Router(seed=4)
    restore(again, "c", list(t.journal))
    assert again.tables["c"].away == set()
    assert again.tables["c"].bot_to_move() == t.bot_to_move()


async def test_a_slow_command_of_the_absent_person_ends_the_vote() -> None:
    """``/stats`` is answered on a snapshot in a worker thread: the return it means is the
    table's own, stored (RULES: any command at the table ends the vote)."""
    store = MemoryStore()
    svc = Service(Router(seed=7, bot_factory=Service.in_memory().router.bot_factory), store)
    seat = await _table_with_standin(svc)
    table = svc.router.tables["c"]
    name = table.seats[seat].name
    voter = next(s.name for i, s in enumerate(table.seats) if i != seat)
    await svc.handle(_inp(voter, f"/handover {name}"))
    assert table.seat_vote is not None
    said = _texts(await svc.handle(_inp(name, "/stats")))
    assert any(f"{name} is back: the vote on the seat of {name} has ended" in x for x in said)
    assert table.seat_vote is None and seat not in table.away
    assert f"{name} is not absent" in _texts(await svc.handle(_inp(voter, f"/handover {name}")))[0]
    await svc.close()
    records = [Record.decode(x) for x in store.load_journal("c")]
    assert Record("back", seat=seat, name=name) in records
    svc2 = Service(Router(seed=7), store)
    await svc2.start()
    await svc2.load("c")
    rebuilt = svc2.router.tables["c"]
    assert rebuilt.seat_vote is None and rebuilt.away == set()
    await svc2.close()


async def test_a_waiting_person_gets_the_seat_at_the_next_deal() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=7, bot_factory=Service.in_memory().router.bot_factory), store)
    seat = await _table_with_standin(svc)
    table = svc.router.tables["c"]
    name = table.seats[seat].name
    voters = [s.name for i, s in enumerate(table.seats) if i != seat][:2]
    await svc.handle(_inp("eve", "/join"))
    assert table.waiting == [("u:eve", "eve")]
    await svc.handle(_inp(voters[0], f"/handover {name} eve"))
    done = await svc.handle(_inp(voters[1], f"/handover {name} eve"))
    assert (
        f"The table gave the seat of {name} to eve: the computer player plays this game, eve the next ones."
        in _texts(done)
    )
    assert any(isinstance(e, Private) and e.user == "u:eve" and "next game" in e.text for e in done)
    assert table.seats[seat].heir == ("u:eve", "eve") and table.waiting == []
    await _play_people(svc)
    started = await svc.handle(_inp(voters[0], "/start"))
    assert any(f"eve takes the seat of {name}" in x for x in _texts(started))
    assert table.seats[seat].user == "u:eve" and not table.seats[seat].is_bot
    assert svc.router.user_table["u:eve"] == "c"
    await svc.close()
    # the journal holds the waiting person's place (not journaled otherwise during a game)
    records = [Record.decode(x) for x in store.load_journal("c")]
    assert Record("waiting", user="u:eve", name="eve") in records
    svc2 = Service(Router(seed=7), store)
    await svc2.start()
    await svc2.load("c")
    rebuilt = svc2.router.tables["c"]
    assert rebuilt.names() == table.names() and rebuilt.seats[seat].user == "u:eve"
    await svc2.close()


async def test_reliability_from_a_known_journal() -> None:
    """The share of a person's turns a computer player made: counted at the table, stored
    with the game, folded into /stats; checked against the journal's own records."""
    store = MemoryStore()
    svc = Service(Router(seed=7, bot_factory=Service.in_memory().router.bot_factory), store)
    seat = await _table_with_standin(svc)
    table = svc.router.tables["c"]
    person = table.seats[seat].user
    name = table.seats[seat].name
    await _play_people(svc)  # the stand-in plays the seat to the end (nobody comes back)
    records = [Record.decode(x) for x in store.load_journal("c")]
    game = [r for r in records if r.seat == seat and r.kind in ("cmd", "move")
            and r.text.split()[0] not in ("/re", "/kontra", "/no90", "/no60", "/no30",
                                          "/black", "/start", "/join", "/standin")]  # fmt: skip
    turns = len(game)
    stood_in = sum(r.kind == "move" for r in game)
    assert 0 < stood_in < turns
    (result,) = store.results(table.ledger.server)
    assert result.turns[seat] == (turns, stood_in)
    book = StatsBook(result.server)
    book.add(result)
    p = book.players[person]
    assert (p.turns, p.stood_in) == (turns, stood_in)
    share = 100 * stood_in / turns
    de = "\n".join(player_lines(p, "de"))
    assert f"{share:.1f} %".replace(".", ",") in de and f"({stood_in} von {turns})" in de
    en = await svc.handle(_inp("anna", f"/stats {name}"))
    assert any(f"{share:.1f}% of their turns ({stood_in} of {turns})" in x for x in _texts(en))
    # the person's web page shows it too
    from urllib.parse import quote

    from aiohttp.test_utils import TestClient, TestServer

    from dokobot.stats import Stats
    from dokobot.web import make_app

    key, _ = store.web_page(table.ledger.server)
    async with TestClient(TestServer(make_app(Stats(store)))) as c:
        resp = await c.get(f"/s/{key}/player/{quote(person, safe='')}")
        assert resp.status == 200
        assert f"({stood_in} of {turns})" in await resp.text()
    await svc.close()


@pytest.mark.parametrize("lang", languages.codes())
def test_every_language_names_the_command(lang: str) -> None:
    from dokobot.host.commands import COMMANDS

    spec = COMMANDS["handover"]
    assert spec.name_in(lang) == {"en": "handover", "de": "vergeben", "it": "assegna",
                                  "cs": "předat"}[lang]  # fmt: skip


def test_at_five_seats_the_one_who_sits_out_votes_and_the_seat_goes_on_in_the_ring() -> None:
    """At a table of five the person sitting out this game is seated: their vote counts
    (three of the four others); the seat given away keeps its place in the ring."""
    r = Router(seed=4, bot_factory=None)
    names = (*PEOPLE, "emil")
    r.handle(_inp("anna", "/join"))
    r.handle(_inp("anna", "/option seats 5"))
    for n in names[1:]:
        r.handle(_inp(n, "/join"))
    t = r.tables["c"]
    r.handle(_inp("anna", "/start"))
    playing = t.names()[:4]
    out = t.names()[4]
    absent = playing[1]
    t.mark_away(t.names().index(absent))
    voters = [n for n in names if n != absent]
    assert out in voters
    said = _texts(r.handle(_inp(out, f"/handover {absent}")))
    assert any("(1/3)" in x for x in said)
    r.handle(_inp(voters[0] if voters[0] != out else voters[1], f"/handover {absent}"))
    last = [n for n in voters if n != out][1]
    done = _texts(r.handle(_inp(last, f"/handover {absent}")))
    assert any(f"gave the seat of {absent} to the computer player" in x for x in done)
    ring = [s.name for s in t.ring()]
    assert ring == list(names)  # the seat keeps its place in the join order
    seat = t.ring()[names.index(absent)]
    assert seat.is_bot and seat.standin_for == f"u:{absent}"
