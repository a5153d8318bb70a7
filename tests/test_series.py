"""Score list, tournament series (mandatory solos, redeal, forced solo, end) and CSV export.

Games are scripted: deals with ``!deal``/``!dealer`` lines through :class:`Replayer`, the card
play by the first legal card, so every test is deterministic.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Callable

from testdata import CONFORMANCE

from dokobot.engine.cards import card_ascii
from dokobot.engine.game import shuffled_deck
from dokobot.engine.types import Phase
from dokobot.host.events import Event
from dokobot.host.i18n import render
from dokobot.host.replay import Replayer, export_table
from dokobot.host.series import CSV_COLUMNS, series_csv

NAMES = ("anna", "ben", "carl", "dora")


def deal_line(seed: int, names: tuple[str, ...] = NAMES) -> str:
    deck = shuffled_deck(random.Random(seed))
    return "!deal " + "; ".join(
        f"{n}=" + " ".join(card_ascii(c) for c in deck[12 * i : 12 * i + 12])
        for i, n in enumerate(names)
    )


def play_game(
    rep: Replayer,
    solos: dict[str, str] | None = None,
    card: Callable[[int, int], int | None] | None = None,
) -> list[Event]:
    """Play the running game to its end: reservations from ``solos`` (name -> solo type),
    everyone else healthy; cards from ``card(trick, seat)`` or the first legal one."""
    solos = solos or {}
    table = rep.table
    events: list[Event] = []
    while table.running:
        game = table.game
        assert game is not None
        seat = game.turn
        name = table.seats[seat].name
        if game.phase is Phase.RESERVATIONS:
            text = "/reservation" if name in solos else "/healthy"
        elif game.phase is Phase.DECLARATIONS:
            text = "/solo " + solos.get(name, "diamonds")
        else:
            chosen = card(len(game.tricks), seat) if card else None
            if chosen is None:
                chosen = game.legal_actions()[0]
            text = f"/play {card_ascii(chosen)}"
        before = len(game.log)
        events += rep.feed(0, name, text)
        assert len(game.log) > before or not table.running, (name, text, events[-1:])
    return events


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


def seated(*options: str) -> Replayer:
    rep = Replayer()
    rep.run_text("\n".join(f"{n}: /join" for n in NAMES))
    for opt in options:
        rep.run_text(f"anna: /option {opt}")
    return rep


def start(rep: Replayer, seed: int, dealer: str | None = None) -> list[Event]:
    if dealer:
        rep.run_text(f"!dealer {dealer}")
    rep.run_text(deal_line(seed))
    return rep.feed(0, "anna", "/start")


# ---------------------------------------------------------------------- tournament
def test_mandatory_solo_is_redealt_by_the_same_dealer_and_not_counted() -> None:
    rep = seated("tournament on", "series_length 8")
    start(rep, 1, dealer="dora")
    play_game(rep, solos={"ben": "queens"})
    rec = rep.table.finished[-1]
    assert (rec.type, rec.solo, rec.mandatory, rec.counted) == ("solo", "queens", True, False)
    assert rep.table.series.counted == 0
    assert rep.table.series.owed == [True, False, True, True]
    start(rep, 2)
    assert rep.table.game is not None and rep.table.game.dealer == 3  # dora again
    play_game(rep, solos={"ben": "jacks"})  # ben's second solo: a lust solo
    rec = rep.table.finished[-1]
    assert (rec.mandatory, rec.counted, rec.dealer) == (False, True, 3)
    start(rep, 3)
    assert rep.table.game is not None and rep.table.game.dealer == 0  # the deal passed on


def test_forced_solos_fill_the_end_of_the_series_then_ranking() -> None:
    rep = seated("tournament on", "series_length 8")
    # Game 1: carl's mandatory solo (redealt); then normal games until the solos still
    # missing (anna, ben, dora) equal the games left: games 5..8 of 8 counted.
    start(rep, 10, dealer="dora")
    play_game(rep, solos={"carl": "hearts"})
    for seed in range(11, 16):
        start(rep, seed)
        play_game(rep)
    series = rep.table.series
    assert series.counted == 5 and sum(series.owed) == 3
    forced_players = []
    for seed in range(16, 19):
        events = start(rep, seed)
        game = rep.table.game
        assert game is not None and game.forced >= 0
        forced_players.append(NAMES[game.forced])
        # The first in seat order after the dealer who still owes one.
        owed = [s for s in range(1, 5) if series.owed[(game.dealer + s) % 4]]
        assert game.forced == (game.dealer + owed[0]) % 4
        assert any("Forced solo" in t for t in texts(events))
        last = play_game(rep, solos={NAMES[game.forced]: "fleshless"})
        rec = rep.table.finished[-1]
        assert rec.forced and rec.mandatory and rec.counted
        assert rec.dealer == game.dealer
    assert sorted(forced_players) == ["anna", "ben", "dora"]
    assert series.counted == 8 and not any(series.owed)
    over = [t for t in texts(last) if t.startswith("The series is over")]
    assert over, texts(last)
    places = over[0].split(": ", 1)[1]
    for place, seat in series.standings():
        assert f"{place}. {NAMES[seat]} {series.totals[seat]:+d}" in places
    # The next /start begins a new series with every solo owed again.
    events = start(rep, 30)
    assert any("series 2" in t for t in texts(events))
    assert rep.table.series.number == 2 and all(rep.table.series.owed)


def test_forced_conformance_file_score_list_and_csv() -> None:
    rep = Replayer()
    rep.run_text((CONFORMANCE / "forced-1.doko").read_text(encoding="utf-8"))
    table = rep.table
    assert len(table.finished) == 4 and all(r.forced for r in table.finished)
    sheet = render("en", "score_sheet", table.score_note("en").params)
    lines = sheet.splitlines()
    assert lines[0] == (
        "Score list, series 1 (tournament): 4 of 4 games counted; mandatory solos owed: nobody"
    )
    assert lines[1].split() == ["this", "game", "|", "running", "totals"]
    header = lines[2].split()
    assert header[:4] == ["#", "dealer", "game", "pts"]
    assert header[4:] == ["anna", "ben", "carl", "dora", "|", "anna", "ben", "carl", "dora"]
    assert "♦ solo!" in lines[3] and "-12" in lines[3]
    assert lines[-2].split()[0] == "Totals"
    assert lines[-1] == "* mandatory solo  ! forced solo"
    # Every row has the same column layout: the bars line up.
    bars = {line.index("|") for line in lines[1:-1]}
    assert len(bars) == 1
    expected = [json.loads(x) for x in (CONFORMANCE / "forced-1.expected.jsonl").open()]
    totals = {n: sum(e["scores"][n] for e in expected) for n in NAMES}
    assert lines[-2].split()[-4:] == [f"{totals[n]:+d}" for n in NAMES]
    german = render("de", "score_sheet", table.score_note("de").params)
    assert "Karo-Solo!" in german and "Pflichtsolo offen bei: niemandem" in german

    rows = list(csv.DictReader(io.StringIO(series_csv(table))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["row"] for r in rows] == ["game"] * 4
    first = rows[0]
    assert (first["type"], first["solo"], first["forced_solo"], first["declarer"]) == (
        "solo",
        "diamonds",
        "1",
        "anna",
    )
    assert (first["eyes_re"], first["winner"], first["value"]) == ("24", "kontra", "4")
    assert first["components"].startswith("kontra:won:1")
    assert [first[f"score{i}"] for i in range(1, 5)] == ["-12", "4", "4", "4"]
    last = rows[-1]
    assert [int(last[f"total{i}"]) for i in range(1, 5)] == [totals[n] for n in NAMES]


def test_score_list_of_a_long_series_shows_the_last_games() -> None:
    rep = seated()
    for seed in range(40, 55):
        start(rep, seed)
        play_game(rep)
    note = rep.table.score_note("en", last=5)
    lines = render("en", note.key, note.params).splitlines()
    assert lines[0] == "Score list, series 1, games played: 15"
    assert lines[1] == "(earlier games not shown: 10)"
    numbers = [line.split()[0] for line in lines[4:9]]
    assert numbers == ["11", "12", "13", "14", "15"]
    assert lines[9].split()[0] == "Totals"
    totals = [int(x) for x in lines[9].split()[-4:]]
    assert totals == rep.table.series.totals
    assert sum(totals) == 0


def test_score_detail_of_one_game() -> None:
    rep = seated()
    start(rep, 7)
    play_game(rep)
    note = rep.table.game_note(1, "en")
    text = render("en", note.key, note.params)
    rec = rep.table.finished[0]
    assert text.startswith("Game 1 (series 1): ")
    assert f"Game value: {rec.value}" in text
    assert "Scores: " in text


def test_game_over_shows_the_score_list() -> None:
    rep = seated()
    start(rep, 3)
    events = play_game(rep)
    assert any(t.startswith("Score list, series 1, games played: 1") for t in texts(events))


def test_option_changes_close_a_started_series() -> None:
    rep = seated("tournament on", "series_length 8")
    start(rep, 1)
    play_game(rep)
    events = rep.feed(0, "anna", "/option series_length 12")
    assert rep.table.series.number == 1  # still fits: kept
    assert not any("new series" in t for t in texts(events))
    events = rep.feed(0, "anna", "/option tournament off")
    assert rep.table.series.number == 2 and not rep.table.series.games
    assert any("A new series begins (series 2)" in t for t in texts(events))


def test_journal_replay_rebuilds_the_score_list() -> None:
    rep = seated("tournament on", "series_length 4")
    start(rep, 5)
    play_game(rep, solos={"ben": "clubs"})
    for seed in (6, 7):
        start(rep, seed)
        play_game(rep)
    again = Replayer()
    again.run_text(export_table(rep.table))
    assert again.failures == []
    assert series_csv(again.table) == series_csv(rep.table)
    assert again.table.series.totals == rep.table.series.totals
