"""Five or six at a table (RULES §12.9): the option, who sits out, what they see and score."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dokobot.host.events import Private, Public
from dokobot.host.options import HOUSE_RULES, NEEDS, OptionError, TableOptions
from dokobot.host.prompts import command_for
from dokobot.host.replay import Replayer
from dokobot.host.seats import arrangement, sitting_out
from dokobot.host.service import default_bot_factory

NAMES = ("anna", "ben", "carl", "dora", "emil", "fritz")


def _people(n: int, *options: str) -> Replayer:
    """``n`` people at a table of ``n`` seats, with ``options`` set; no game yet."""
    rep = Replayer()
    lines = ["!seed 7", "anna: /join", f"anna: /option seats {n}"]
    lines += [f"anna: /option {o}" for o in options]
    lines += [f"{name}: /join" for name in NAMES[1:n]]
    rep.run_text("\n".join(lines))
    assert not rep.failures
    return rep


def _private(rep: Replayer, start: int) -> dict[str, list[Private]]:
    out: dict[str, list[Private]] = {}
    for _, e in rep.transcript[start:]:
        if isinstance(e, Private):
            out.setdefault(e.user, []).append(e)
    return out


# ------------------------------------------------------------------------------ the option


def test_seats_is_a_house_rule_refused_with_tournament_and_with_a_duel_or_fixed_stake() -> None:
    o = TableOptions()
    assert o.set("seats", "5").seats == 5 and o.set("plätze", "6").seats == 6
    for bad in ("3", "7", "fünf", "4.5"):
        with pytest.raises(OptionError):
            o.set("seats", bad)
    with pytest.raises(OptionError) as exc:
        o.set("seats", "5").set("tournament", "on")
    assert exc.value.reason == "option_seats_tournament"
    with pytest.raises(OptionError) as exc:
        o.set("tournament", "on").set("seats", "6")
    assert exc.value.reason == "option_seats_in_tournament"
    for mode in ("duel", "fixed4"):
        with pytest.raises(OptionError) as exc:
            o.set("mode", mode).set("seats", "5")
        assert exc.value.reason == "option_seats_mode"
        with pytest.raises(OptionError):
            o.set("seats", "5").set("mode", mode)
    assert o.set("seats", "5").set("mode", "single").seats == 5


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["exactly four", "/option seats 4"]),
        ("de", ["genau vier", "/option plätze 4"]),
        ("it", ["esattamente in quattro", "/opzione posti 4"]),
        ("cs", ["přesně čtyři", "/volba místa 4"]),
    ],
)
def test_tournament_refuses_five_seats_with_a_translated_reason(
    lang: str, words: list[str]
) -> None:
    rep = _people(4, f"language {lang}")
    rep.run_text("anna: /option seats 5\nanna: /option tournament on")
    said = rep.transcript[-1][1].text
    assert all(w in said for w in words), said
    assert rep.table.options.seats == 5 and not rep.table.options.tournament


def test_the_table_seats_as_many_as_the_option_and_start_needs_them_all() -> None:
    rep = _people(4, "seats 5")
    rep.run_text("anna: /start")
    assert "needs all its seats taken (seats: 5, seated: 4)" in rep.transcript[-1][1].text
    rep.run_text("emil: /join\nfritz: /join")
    texts = [e.text for _, e in rep.transcript[-3:]]
    assert any("emil joined (5/5)" in t for t in texts)
    assert "The table is full (seats: 5)." in rep.transcript[-1][1].text
    assert rep.table.names() == list(NAMES[:5])
    rep.run_text("anna: /option seats 4")  # five are seated
    assert "5 are seated" in rep.transcript[-1][1].text and rep.table.options.seats == 5


# ------------------------------------------------------------------------------ who sits out


def test_who_sits_out_and_the_engine_seats() -> None:
    assert [sitting_out(5, d) for d in range(5)] == [(0,), (1,), (2,), (3,), (4,)]
    assert [sitting_out(6, d) for d in range(6)] == [(d, (d + 3) % 6) for d in range(6)]
    for n in (4, 5, 6):
        for d in range(n):
            order, dealer = arrangement(n, d)
            assert sorted(order) == list(range(n))
            playing = order[:4]
            assert list(playing) == sorted(playing)  # ring order, clockwise
            assert set(order[4:]) == set(sitting_out(n, d))
            first = playing[(dealer + 1) % 4]  # the engine's first hand
            # ... is the first player to the dealer's left who plays
            left = [(d + k) % n for k in range(1, n) if (d + k) % n in playing]
            assert first == left[0]


@pytest.mark.parametrize("n", [5, 6])
def test_the_deal_moves_left_and_everybody_sits_out_equally_often(n: int) -> None:
    rep = Replayer(bot_factory=default_bot_factory(budget_s=0.005))
    lines = ["!seed 11", "anna: /join", f"anna: /option seats {n}"]
    lines += ["anna: /join bot random"] * (n - 1) + ["anna: /leave", "anna: /join bot random"]
    rep.run_text("\n".join(lines))
    table = rep.table
    bots = table.names()
    for _ in range(2 * n):
        rep.feed(0, bots[0], "/start")
        assert not table.running
    results = rep.results()
    dealers = [r["dealer"] for r in results]
    assert dealers == [bots[(n - 1 + g) % n] for g in range(2 * n)]
    out = [name for r in results for name in r["sitting_out"]]
    assert sorted(out) == sorted(bots * (2 if n == 5 else 4))
    for r in results:
        assert r["sitting_out"][0] == r["dealer"] and len(r["scores"]) == 4
        assert not set(r["sitting_out"]) & set(r["scores"])
        assert sum(r["scores"].values()) == 0
        if n == 6:  # the player opposite the dealer
            d = bots.index(r["dealer"])
            assert r["sitting_out"][1] == bots[(d + 3) % 6]
    sheet = table.score_note(last=0).params["sheet"]
    assert "out: sat out this game" in sheet
    row = sheet.splitlines()[3]  # game 1: the last seat deals and sits out
    assert row.split("|")[0].split()[-1] == "out", row


def test_those_who_sit_out_get_nothing_private_and_are_refused() -> None:
    rep = _people(5, "seats 5")
    start = len(rep.transcript)
    rep.run_text("anna: /start")
    said = [e.text for _, e in rep.transcript[start:] if isinstance(e, Public)]
    assert "Game 1: emil deals, anna is first hand." in said[0]
    assert "Sitting out this game: emil." in said
    private = _private(rep, start)
    assert set(private) == {"replay:anna", "replay:ben", "replay:carl", "replay:dora"}
    start = len(rep.transcript)
    for command in ("/play 1", "/healthy", "/hand", "/abort"):
        rep.run_text(f"emil: {command}")
        assert "You sit out this game" in rep.transcript[-1][1].text
    assert rep.table.game is not None and not rep.table.game.log


def test_the_board_the_lobby_and_the_stored_record_know_who_plays() -> None:
    from dokobot.host.archive import finished_game
    from dokobot.host.board import board_view, lobby_view
    from dokobot.host.views import describe

    rep = _people(6, "seats 6")
    table = rep.table
    lobby = lobby_view(table)
    assert lobby.size == 6 and lobby.full and len(lobby.seats) == 6
    rep.run_text("anna: /start")
    view = board_view(table)
    assert view is not None
    # fritz deals: he and carl (the third to his left) sit out; anna is first hand
    assert view.seats == ("anna", "ben", "dora", "emil") and view.sitting_out == ("fritz", "carl")
    assert view.turn == 0 and len(view.tricks_won) == 4
    assert "Sitting out this game: fritz, carl." in describe(table, "en")
    rep.run_text("anna: /abort\nben: /abort\ndora: /abort")
    assert not table.running
    rec = table.finished[-1]
    assert rec.out == ["fritz", "carl"] and rec.names == ["anna", "ben", "dora", "emil"]
    stored = finished_game(table, rec, now=0.0)
    # statistics and ratings read the stored seats: only those who played the game
    assert [s.name for s in stored.seats] == ["anna", "ben", "dora", "emil"]
    assert len(stored.turns) == 4  # each player's turns, for /stats
    assert stored.result["sitting_out"] == ["fritz", "carl"]
    # the same dealer deals again after an abort
    rep.run_text("anna: /start")
    assert table.sitting_out() == ["fritz", "carl"]


# ------------------------------------------------------------------------------ the replays

HOUSE = Path(__file__).parent / "data" / "house"


@pytest.mark.parametrize(
    ("name", "chips", "bock_left"),
    [
        ("seats5", {"anna": 52, "ben": -20, "carl": -28, "dora": 40, "emil": -44}, 1),
        ("seats6", {"anna": 78, "ben": -90, "carl": 48, "dora": -18, "emil": 90, "fritz": -108}, 4),
    ],
)
def test_five_and_six_seat_series_give_the_score_list_and_chips_worked_by_hand(
    name: str, chips: dict[str, int], bock_left: int
) -> None:
    # (the JSON lines are checked with the other house replays in test_house_host.py)
    rep = Replayer()
    rep.run_text((HOUSE / f"{name}.doko").read_text(encoding="utf-8"))
    assert not rep.failures
    table = rep.table
    sheet = table.score_note(last=0).params["sheet"]
    assert sheet + "\n" == (HOUSE / f"{name}.score.txt").read_text(encoding="utf-8")
    assert table.chips_lines("en")[0] == "Chips at this table: " + ", ".join(
        f"{n} {x:+d}" for n, x in chips.items()
    )
    assert table.series.bock_left == bock_left
    # the CSV export: the four who played each game, who sat out, the real dealer
    import csv
    import io

    from dokobot.host.series import series_csv

    rows = list(csv.DictReader(io.StringIO(series_csv(table))))
    assert [r["sitting_out"] for r in rows] == [" ".join(r["sitting_out"]) for r in rep.results()]
    assert all(r["dealer"] == r["sitting_out"].split()[0] for r in rows)
    # the export gives the series back: each !deal names the four who play
    from dokobot.host.replay import export_lines

    exported = export_lines("replay", table.journal)
    deals = [line for line in exported if line.startswith("!deal ")]
    assert all(line.count("=") == 4 for line in deals)
    again = Replayer()
    again.run_text("\n".join(exported))
    assert again.results() == rep.results()


# ------------------------------------------------------------------------------ properties


_ON_OFF_HOUSE_RULES = [
    n for n in HOUSE_RULES if getattr(TableOptions(), n) is False and n not in NEEDS
]
"""The house rules turned on alone (``/option NAME on``): those the plain game leaves off."""


@st.composite
def _tables(draw: st.DrawFn) -> dict[str, object]:
    return {
        "n": draw(st.sampled_from([5, 6])),
        "seed": draw(st.integers(0, 2**31)),
        "games": draw(st.integers(1, 3)),
        "options": [f"{name} on" for name in _ON_OFF_HOUSE_RULES if draw(st.booleans())],
    }


@given(_tables())
def test_random_five_and_six_seat_games(s: dict[str, object]) -> None:
    """People in every seat play random legal moves (calls too): every move is taken, each
    game has 240 eyes, its scores sum to 0 over its four players, and nothing private (no
    card, no question) reaches anyone who sits it out."""
    n, seed, games, options = s["n"], s["seed"], s["games"], s["options"]
    assert isinstance(n, int) and isinstance(seed, int) and isinstance(games, int)
    assert isinstance(options, list)
    rng = random.Random(seed)
    rep = Replayer()
    lines = [f"!seed {seed}", "anna: /join", f"anna: /option seats {n}"]
    lines += [f"anna: /option {o}" for o in options]
    lines += [f"{name}: /join" for name in NAMES[1:n]]
    rep.run_text("\n".join(lines))
    table = rep.table
    for _ in range(games):
        start = len(rep.transcript)
        rep.feed(0, "anna", "/start")
        game = table.game
        assert game is not None
        players = {f"replay:{name}" for name in table.player_names()}
        assert len(players) == 4 and not players & {f"replay:{o}" for o in table.sitting_out()}
        for _ in range(200):
            if not table.running:
                break
            seat = game.turn
            name = table.seats[seat].name
            calls = [c for c in game.legal_calls(seat)] if rng.random() < 0.1 else []
            action = rng.choice(calls or game.legal_actions())
            before = len(game.log)
            rep.feed(0, name, command_for(action, phase=game.phase))
            assert len(game.log) == before + 1, rep.transcript[-1][1].text
        assert not table.running
        for _, e in rep.transcript[start:]:
            if isinstance(e, Private):
                assert e.user in players, e.user
        rec = table.finished[-1]
        assert sum(rec.scores) == 0
        assert len(rec.names) == 4 and rec.out == table.sitting_out()
        if not rec.cancelled:
            assert sum(rec.eyes) == 240


# ------------------------------------------------------------------------------ restore, bots


@pytest.mark.parametrize("cut", [60, 130, 260])
def test_a_five_seat_table_is_restored_from_its_journal_mid_series(cut: int) -> None:
    from dokobot.host.replay import restore
    from dokobot.host.router import Router

    lines = (HOUSE / "seats5.doko").read_text(encoding="utf-8").splitlines()
    rep = Replayer()
    rep.run_text("\n".join(lines[:cut]))
    table = rep.table
    router = Router(seed=0, table_seed=lambda _: 0)
    restore(router, table.channel, list(table.journal))
    again = router.tables[table.channel]
    assert again.names() == table.names() and again.order == table.order
    assert again.dealer == table.dealer and again.series.bock_left == table.series.bock_left
    assert [r.as_json() for r in again.finished] == [r.as_json() for r in table.finished]
    if table.game is not None:
        assert again.game is not None and again.game.log == table.game.log


@pytest.mark.parametrize("level", ["easy", "normal"])  # strong: the same seam, slower
def test_computer_players_in_every_seat_of_six(level: str) -> None:
    rep = Replayer(bot_factory=default_bot_factory(budget_s=0.005))
    lines = ["!seed 2", "anna: /join", "anna: /option seats 6", "anna: /option poverty on"]
    lines += [f"anna: /join bot {level}"] * 5 + ["anna: /leave", f"anna: /join bot {level}"]
    rep.run_text("\n".join(lines))
    table = rep.table
    for _ in range(2):
        rep.feed(0, table.names()[0], "/start")
        assert not table.running
    assert [len(r["scores"]) for r in rep.results()] == [4, 4]
    assert [len(r["sitting_out"]) for r in rep.results()] == [2, 2]


def test_a_watcher_of_one_who_sits_out_gets_nothing_and_score_n_names_him() -> None:
    rep = _people(5, "kibitz on", "rated off")
    rep.run_text("zoe: /watch emil\notto: /watch anna")
    start = len(rep.transcript)
    rep.run_text("anna: /start")  # emil deals and sits out
    private = _private(rep, start)
    assert "replay:zoe" not in private and "replay:otto" in private
    assert set(private) == {
        "replay:anna",
        "replay:ben",
        "replay:carl",
        "replay:dora",
        "replay:otto",
    }
    rep.run_text("anna: /abort\nben: /abort\ncarl: /abort\nanna: /score 1")
    assert "Sat out: emil." in rep.transcript[-1][1].text


def test_a_folded_state_keeps_the_seats_in_the_order_people_sat_down() -> None:
    from dokobot.host.fold import apply_state, state_record
    from dokobot.host.table import Table

    rep = _people(5, "seats 5")
    rep.run_text("anna: /start\nanna: /abort\nben: /abort\ncarl: /abort")
    table = rep.table
    assert table.names() == ["anna", "ben", "carl", "dora", "emil"]  # emil sat out: last
    rep.run_text("!dealer anna\nben: /start\nben: /abort\ncarl: /abort\ndora: /abort")
    assert table.names() == ["ben", "carl", "dora", "emil", "anna"]  # anna sat out: last
    from dokobot.host.board import lobby_view
    from dokobot.host.views import describe

    # the lobby and /table show the seats in the order people sat down
    assert [name for name, _ in lobby_view(table).seats] == list(NAMES[:5])
    assert "anna, ben, carl, dora, emil" in describe(table, "en")
    copy = Table(channel="c")
    apply_state(copy, state_record(table).text)
    assert copy.names() == list(NAMES[:5]) and copy.options.seats == 5 and copy.order == ()
