"""Statistics, ratings and leaderboards (issue 15): the figures agree with the games."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from dokobot.adapters.discord.messages import mentions_in
from dokobot.host.events import Input, Private, Public
from dokobot.host.feed import feed
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.stats import FinishedGame, SeatRecord, Stats, StatsBook
from dokobot.store import MemoryStore, SqliteStore

DATA = Path(__file__).resolve().parent / "data"


def _sums(results: list[dict[str, object]]) -> tuple[Counter[str], Counter[str]]:
    games: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for r in results:
        if r["cancelled"]:
            continue
        scores = r["scores"]
        assert isinstance(scores, dict)
        for name, pts in scores.items():
            games[name] += 1
            points[name] += pts
    return games, points


def _feed(path: Path, store: MemoryStore | SqliteStore) -> Service:
    async def run() -> Service:
        service = Service(Router(seed=0, table_seed=lambda _: 0), store)
        await service.start()
        lines = path.read_text(encoding="utf-8").splitlines()
        with open("/dev/null", "w") as out:
            await feed(service, lines, out=out)
        return service

    return asyncio.run(run())


@pytest.mark.parametrize("name", ["default-1", "tournament-2", "forced-1"])
def test_statistics_agree_with_the_replayed_session(name: str) -> None:
    path = DATA / f"{name}.doko"
    rep = Replayer()
    rep.run_text(path.read_text(encoding="utf-8"))
    results = rep.results()
    games, points = _sums(results)
    store = MemoryStore()
    _feed(path, store)
    stored = store.results("feed")
    assert [g.result for g in stored] == results
    book = Stats(store).book("feed")
    assert book.games == len(results)
    assert {p.name: p.games for p in book.players.values()} == dict(games)
    assert {p.name: p.points for p in book.players.values()} == dict(points)
    # every game's tricks are stored, and they hold all 48 cards exactly once
    for g in stored:
        assert len(g.tricks) == 12
        assert sorted(c for _, cards, _ in g.tricks for c in cards) == list(range(48))
    # win counts, solo counts and calls agree with the results too
    for p in book.players.values():
        mine = [r for r in results if p.name in r["scores"]]
        party = ["re" if p.name in r["re"] else "kontra" for r in mine]
        assert p.wins == sum(r["winner"] == pa for r, pa in zip(mine, party, strict=True))
        assert p.re_games == party.count("re")
        solos = [r for r in mine if r["type"] in ("solo", "silent_wedding") and r["re"] == [p.name]]
        assert p.solos_played == len(solos)
        assert p.solos_won == sum(r["winner"] == "re" for r in solos)
        made = Counter(c["call"] for r in mine for c in r["calls"] if c["player"] == p.name)
        assert {k: m for k, (m, _) in p.calls.items()} == dict(made)
        assert p.best is not None and p.worst is not None
        assert p.best[0] == max(r["scores"][p.name] for r in mine)
        assert p.worst[0] == min(r["scores"][p.name] for r in mine)
        assert p.rated_games == p.games  # four people: rated by default


def test_cli_stats_json_sums(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    script = DATA / "forced-1.doko"
    cli = [sys.executable, "-m", "dokobot.cli"]
    out = subprocess.run(
        [*cli, "feed", str(script), "--store", str(db), "--json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(results) == 4
    games, points = _sums(results)
    out = subprocess.run(
        [*cli, "stats", "--store", str(db), "--json"], capture_output=True, text=True, check=True
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["player"]: r["games"] for r in rows} == dict(games)
    assert {r["player"]: r["points"] for r in rows} == dict(points)
    for r in rows:
        assert {"player", "games", "points", "wins", "solos", "solos_won", "rating"} <= set(r)
        assert r["server"] == "feed"
    # every game is a forced solo: one per player, so each has played exactly one solo
    assert sorted(r["solos"] for r in rows) == [1, 1, 1, 1]
    text = subprocess.run(
        [*cli, "stats", "--store", str(db), "--server", "feed"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "feed: 4 games, 4 players" in text
    # a store with a table but no finished game says so instead of printing nothing
    empty = tmp_path / "e.db"
    started = tmp_path / "started.doko"
    started.write_text("anna: /join\nben: /join\ncarl: /join\ndora: /join\nanna: /start\n")
    subprocess.run([*cli, "feed", str(started), "--store", str(empty)], capture_output=True,
                   check=True)  # fmt: skip
    said = subprocess.run([*cli, "stats", "--store", str(empty)], capture_output=True, text=True)
    assert said.returncode == 0 and said.stdout == f"{empty}: no finished games yet\n"
    missing = subprocess.run([*cli, "stats", "--store", str(tmp_path / "none.db")],
                             capture_output=True, text=True)  # fmt: skip
    assert missing.returncode == 2 and "no store" in missing.stderr


def _game(
    gid: int, seats: list[SeatRecord], re: list[int], winner: str | None, rated: bool = True,
    scores: tuple[int, int, int, int] = (1, 1, -1, -1), kind: str = "normal",
    calls: list[tuple[int, str]] = (), eyes: tuple[int, int] = (150, 90),
) -> FinishedGame:  # fmt: skip
    names = [s.name for s in seats]
    result = {
        "game": gid, "type": kind, "solo": "clubs" if kind == "solo" else None,
        "declarer": names[re[0]] if kind != "normal" else None,
        "re": [names[i] for i in re], "kontra": [n for i, n in enumerate(names) if i not in re],
        "eyes": {"re": eyes[0], "kontra": eyes[1]},
        "tricks": {"re": 6, "kontra": 6},
        "calls": [{"player": names[s], "call": c} for s, c in calls],
        "winner": winner, "cancelled": False,
        "scores": dict(zip(names, scores, strict=True)),
    }  # fmt: skip
    return FinishedGame("srv", "srv:1", gid, 1, float(gid), tuple(seats), result, (), (),
                        rated, id=gid)  # fmt: skip


PEOPLE = [SeatRecord(f"u:{n}", n) for n in ("anna", "ben", "carl", "dora")]


def test_rating_follows_wins_and_solo_is_one_against_three() -> None:
    book = StatsBook("srv")
    for i in range(1, 11):
        book.add(_game(i, PEOPLE, [0, 1], "re"))
    anna, carl = book.players["u:anna"], book.players["u:carl"]
    assert anna.rating > carl.rating and anna.mu > carl.mu
    assert anna.sigma < 25 / 3  # less uncertain after ten games
    assert [p.name for p in book.board("rating")][:2] == ["anna", "ben"]
    # a won solo: the soloist gains, each of the three opponents loses
    before = {u: book.players[u].mu for u in book.players}
    book.add(_game(11, PEOPLE, [2], "re", scores=(-3, -3, 9, -3), kind="solo"))
    gain = book.players["u:carl"].mu - before["u:carl"]
    loss = before["u:anna"] - book.players["u:anna"].mu
    assert gain > 0 and loss > 0
    assert book.players["u:carl"].solos == {"clubs": [1, 1]}
    assert book.rank("solo", "u:carl") == 1 and book.rank("solo", "u:anna") is None


def test_computer_players_count_only_in_rated_games() -> None:
    seats = [*PEOPLE[:2], SeatRecord("bot:Bot1", "Bot1", True, "normal"),
             SeatRecord("bot:Bot2", "Bot2", True, "normal")]  # fmt: skip
    book = StatsBook("srv")
    book.add(_game(1, seats, [0, 2], "re", rated=False))
    book.add(_game(2, seats, [0, 2], "re", rated=True))
    assert set(book.players) == {"u:anna", "u:ben"}  # computers are nobody's statistics
    assert book.players["u:anna"].games == 2
    assert book.players["u:anna"].rated_games == 1
    assert book.players["u:ben"].rated_games == 1


def test_calls_made_good() -> None:
    book = StatsBook("srv")
    calls = [(0, "re"), (0, "no90"), (2, "kontra"), (1, "no60")]
    book.add(_game(1, PEOPLE, [0, 1], "re", calls=calls, eyes=(175, 65)))
    assert book.players["u:anna"].calls == {"re": [1, 1], "no90": [1, 1]}
    assert book.players["u:ben"].calls == {"no60": [1, 0]}  # kontra has 65, not under 60
    assert book.players["u:carl"].calls == {"kontra": [1, 0]}


def test_rated_option_default_only_four_people() -> None:
    from dokobot.host.options import TableOptions

    o = TableOptions()
    assert o.is_rated(4) and not o.is_rated(3)
    assert o.set("rated", "on").is_rated(2)
    assert not o.set("rated", "off").is_rated(4)
    with pytest.raises(ValueError):
        o.set("rated", "sometimes")


def test_store_keeps_results_once_and_by_server(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    g = _game(0, PEOPLE, [0, 1], "re")
    a = store.add_result(g)
    b = store.add_result(g)  # the same channel and game number: kept once
    assert a.id == b.id == 1
    other = FinishedGame("other", "other:1", 1, 1, 0.0, g.seats, g.result, (), (), True)
    c = store.add_result(other)
    assert [x.id for x in store.results("srv")] == [1]
    assert store.results("srv", after=1) == []
    assert store.result(1) == a and store.result(c.id) == c and store.result(c.id + 1) is None
    assert store.result_servers() == ["other", "srv"]
    key, enabled = store.web_page("srv")
    assert enabled and len(key) >= 20 and store.web_page("srv") == (key, True)
    assert store.web_server(key) == ("srv", True)
    store.set_web_enabled("srv", False)  # off draws a new key: the old link is dead
    assert store.web_server(key) is None
    off, enabled = store.web_page("srv")
    assert off != key and not enabled and store.web_server(off) == ("srv", False)
    assert store.web_server("guess") is None
    store.close()
    again = SqliteStore(tmp_path / "r.db")
    assert again.result(1) == a and again.web_page("srv") == (off, False)
    again.set_web_enabled("srv", True)
    assert again.web_page("srv") == (off, True) and again.web_server(key) is None
    again.close()


# ------------------------------------------------------------------ commands
def _session(script: str) -> Service:
    store = MemoryStore()

    async def run() -> Service:
        service = Service(Router(seed=0, table_seed=lambda _: 0), store)
        await service.start()
        with open("/dev/null", "w") as out:
            await feed(service, script.splitlines(), out=out)
        return service

    return asyncio.run(run())


def _ask(service: Service, user: str, text: str, admin: bool = False) -> list[Public | Private]:
    name = user.split(":")[-1]
    return asyncio.run(service.handle(Input("feed", user, name, text, admin=admin)))


@pytest.fixture(scope="module")
def played() -> Service:
    return _session((DATA / "forced-1.doko").read_text(encoding="utf-8"))


def test_stats_command_answers_privately(played: Service) -> None:
    events = _ask(played, "replay:anna", "/stats")
    assert len(events) == 1 and isinstance(events[0], Private) and events[0].reply
    assert "Statistics of anna" in events[0].text and "Games: 4," in events[0].text
    other = _ask(played, "replay:anna", "/statistik ben")
    assert "Statistics of ben" in other[0].text
    unknown = _ask(played, "replay:anna", "/stats zoe")
    assert unknown[0].text == "Nobody called zoe has finished a game on this server."
    chart = _ask(played, "replay:anna", "/stats ben chart")
    assert isinstance(chart[0], Private)
    assert chart[0].image is not None and chart[0].image.startswith(b"\x89PNG")
    assert "Rating of ben: " in chart[0].text and "rated games: 4)" in chart[0].text


def test_top_command_in_the_channel_with_own_place(played: Service) -> None:
    events = _ask(played, "replay:carl", "/top")
    assert len(events) == 1 and isinstance(events[0], Public)
    lines = events[0].text.splitlines()
    assert lines[0].startswith("Leaderboard by points (players: 4, games: 4)")
    assert len(lines) == 1 + 4 + 1 and lines[-1].startswith("Your place: ")
    for board in ("rating", "games", "solo", "punkte"):
        assert isinstance(_ask(played, "replay:carl", f"/rangliste {board}")[0], Public)
    bad = _ask(played, "replay:carl", "/top colour")
    assert bad[0].text == "Leaderboards: /top points | rating | games | solo."
    stranger = _ask(played, "x:zoe", "/top")
    assert stranger[0].text.splitlines()[-1] == "You are not on this leaderboard yet."


def test_score_chart(played: Service) -> None:
    events = _ask(played, "replay:anna", "/score chart 1")
    assert isinstance(events[0], Private) and events[0].image is not None
    assert events[0].text.startswith("Series 1 after game 4: ")
    assert "no finished game" in _ask(played, "replay:anna", "/score chart 9")[0].text
    assert "Which series" in _ask(played, "replay:anna", "/score chart x")[0].text


def test_no_statistics_without_a_store() -> None:
    rep = Replayer()
    rep.run_text("anna: /join\nanna: /stats")
    assert "Statistics are not kept here." in rep.transcript[-1][1].text


def test_running_game_is_not_recorded() -> None:
    lines = (DATA / "forced-1.doko").read_text(encoding="utf-8").splitlines()
    # stop in the middle of the second game
    starts = [i for i, line in enumerate(lines) if line.endswith("/start")]
    service = _session("\n".join(lines[: starts[1] + 20]))
    assert len(service.store.results("feed")) == 1
    assert service.router.stats is not None
    assert service.router.stats.book("feed").games == 1


def test_results_survive_a_restart_once_and_a_lost_result_is_recovered(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _feed(DATA / "forced-1.doko", SqliteStore(db)).store.close()
    store = SqliteStore(db)
    assert len(store.results("feed")) == 4
    # a stop after the last game's journal lines but before its result (and so before the
    # checkpoint that follows the result)
    store._db.execute("DELETE FROM game_results WHERE game = 4")
    store._db.execute("DELETE FROM checkpoints")
    store.close()

    async def restart() -> Service:
        service = Service(Router(seed=0, table_seed=lambda _: 0), SqliteStore(db))
        await service.start()
        return service

    service = asyncio.run(restart())
    stored = service.store.results("feed")
    assert [g.game for g in stored] == [1, 2, 3, 4]
    assert len(stored[-1].tricks) == 12
    service.store.close()
    service = asyncio.run(restart())  # nothing is added twice
    assert len(service.store.results("feed")) == 4
    service.store.close()


def test_stats_of_a_discord_mention() -> None:
    store = MemoryStore()
    seats = [SeatRecord("discord:42", "anna"), *PEOPLE[1:]]
    store.add_result(replace(_game(1, seats, [0, 1], "re"), server="discord"))
    service = Service(Router(seed=0), store)

    def stats(text: str) -> str:
        inp = Input("discord:7", "discord:9", "zoe", text, mentions=mentions_in(text))
        return asyncio.run(service.handle(inp))[0].text

    assert stats("/stats <@42>").startswith("Statistics of anna on this server:")
    assert stats("/stats <@43>") == "Nobody called <@43> has finished a game on this server."
    # the host knows no platform's mentions: without the adapter's, it is a name
    events = asyncio.run(service.handle(Input("discord:7", "discord:9", "zoe", "/stats <@42>")))
    assert events[0].text == "Nobody called <@42> has finished a game on this server."


def test_start_does_not_wait_for_the_statistics_and_a_question_waits_off_the_loop() -> None:
    """Reading a big server's stored games happens in the background: the start returns at
    once, and a /top meanwhile waits in a worker thread, never on the event loop."""
    import threading

    release = threading.Event()
    store = MemoryStore()
    store.add_result(_game(1, PEOPLE, [0, 1], "re"))

    class SlowStats(Stats):
        def warm(self) -> None:
            with self._lock:  # as a long read holds it
                release.wait(5)

    async def run() -> None:
        router = Router(seed=0)
        router.stats = SlowStats(store)
        service = Service(router, store)
        await asyncio.wait_for(service.start(), 1)  # not held up by the warming
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while not release.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.create_task(tick())
        asyncio.get_running_loop().call_later(0.3, release.set)
        events = await service.handle(Input("c", "u:zoe", "zoe", "/top"))
        await ticker
        assert ticks >= 10, "the event loop kept running while /top waited"
        assert events
        await service.close()

    asyncio.run(run())


def test_poverties_count_for_the_poor_player() -> None:
    book = StatsBook("srv")
    book.add(_game(1, PEOPLE, [1, 2], "re", kind="poverty", scores=(-1, 1, 1, -1)))
    book.add(_game(2, PEOPLE, [1, 3], "kontra", kind="poverty", scores=(1, -1, 1, -1)))
    ben = book.players["u:ben"]
    assert ben.poverties == [2, 1]
    assert book.players["u:carl"].poverties == [0, 0]
    assert ben.as_json()["poverties"] == 2 and ben.as_json()["poverties_won"] == 1
