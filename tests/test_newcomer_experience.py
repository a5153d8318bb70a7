"""What a newcomer meets in the first hour: the console, plain refusals, the score list
(one test per defect found)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dokobot.config import load_config


def _run(
    *args: str, stdin: str = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {
        k: v for k, v in os.environ.items() if k not in ("DOKOBOT_DISCORD_TOKEN", "DOKOBOT_CONFIG")
    }
    return subprocess.run([sys.executable, "-m", "dokobot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**base, **(env or {})})  # fmt: skip


# ---------------------------------------------------------------- 4, 19: command line
def test_4_plain_dokobot_accepts_config(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("language: de\n")
    res = _run("--config", str(cfg), stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "invalid choice" not in res.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("bots:\n  level: hard\n")
    res = _run("--config", str(bad), cwd=tmp_path)
    assert res.returncode == 2 and "bots.level" in res.stderr


def test_19_export_does_not_create_a_store(tmp_path: Path) -> None:
    res = _run("export", "console", cwd=tmp_path)
    assert res.returncode == 2
    assert "no store" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_19_unrelated_config_yaml_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("database:\n  url: postgres://x\nworkers: 4\n")
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        config = load_config(None)
    finally:
        os.chdir(cwd)
    assert config.source == "(defaults)"
    res = _run(stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "not a dokobot configuration" in res.stderr
    # Named explicitly, it is read (and refused, as it is not dokobot's).
    res = _run("--config", "config.yaml", stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 2 and "database: unknown key" in res.stderr
    # A config.yaml with dokobot's keys is still read, and still checked.
    (tmp_path / "config.yaml").write_text("bots:\n  level: hard\n")
    res = _run(stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 2 and "bots.level" in res.stderr


# ---------------------------------------------------------------- 9, 17: the console
def test_17_console_does_not_ask_for_start_and_quits_at_ctrl_c() -> None:
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "dokobot.cli", "console", "--seed", "3",
                             "--level", "random", "--players", "anna"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(0.5)
    deadline = time.monotonic() + 60
    # Wait until the game is dealt (the console prompts then), then press Ctrl-C.
    assert proc.stdout is not None
    seen = ""
    while "Healthy or reservation?" not in seen and time.monotonic() < deadline:
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("Ctrl-C did not quit the console") from None
    out = seen + out
    assert "Type /start to deal" not in out
    assert "Game 1:" in out
    assert "abandoned" in out
    assert "Traceback" not in err
    assert proc.returncode == 130


def test_9_console_lang_sets_table_and_player_language() -> None:
    res = _run("console", "--seed", "3", "--level", "random", "--players", "anna", "--lang",
               "de", stdin="/hilfe\n/quit\n")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "Konsole" in res.stdout and "console." not in res.stdout
    assert "Spiel 1:" in res.stdout and "Deine Karten" in res.stdout
    # /lang in the console changes everything on the one screen, public lines too.
    res = _run("console", "--seed", "3", "--level", "random", "--players", "anna",
               stdin="/lang de\n/gesund\n/quit\n")  # fmt: skip
    assert res.returncode == 0, res.stderr
    after = res.stdout.split("Deutsch", 1)[1]
    assert "anna: gesund." in after
    assert "healthy" not in after


# ---------------------------------------------------------------- 6-16: messages
from dokobot.host.events import Event, Private, Public  # noqa: E402
from dokobot.host.replay import Replayer  # noqa: E402

NAMES = ("anna", "ben", "carl", "dora")


def _table(*setup: str) -> Replayer:
    rep = Replayer()
    rep.run_text("\n".join([*(f"{n}: /join" for n in NAMES), "!dealer dora", *setup]))
    return rep


def _say(rep: Replayer, name: str, text: str) -> list[str]:
    return [e.text for e in rep.feed(0, name, text)]


def _private(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Private)]


def test_6_mode_refused_in_tournament_says_why() -> None:
    rep = _table("anna: /option tournament on")
    (answer,) = _say(rep, "anna", "/option mode single")
    assert "now: single" not in answer and "single" in answer and "tournament off" in answer
    assert rep.table.options.mode == "free"


def test_7_forced_solo_asks_for_the_solo_type_only() -> None:
    rep = _table("anna: /option tournament on", "anna: /option series_length 4")
    events = rep.feed(0, "anna", "/start")
    texts = [e.text for e in events]
    assert any("Forced solo" in t for t in texts)
    assert not any("names a reservation" in t or "/wedding" in t for t in texts)
    asked = [e for e in events if isinstance(e, Private) and e.kind == "reservation"]
    assert asked and "solo type" in asked[0].text
    assert all("/wedding" not in c.command for c in asked[0].choices)
    assert "forced solo" in _say(rep, "anna", "/healthy")[0]


def test_9_german_refusals_have_no_english_words() -> None:
    rep = _table("anna: /option language de", "anna: /start")
    (unknown,) = _say(rep, "anna", "/solo banana")
    assert "kreuz pik herz karo" in unknown and "clubs" not in unknown
    (which,) = _say(rep, "anna", "/solo")
    assert "fleischlos" in which and "fleshless" not in which
    for name in NAMES:
        _say(rep, name, "/gesund")
    # The Re players hold the club queens; a Kontra player calling re hears "du bist Kontra".
    game = rep.table.game
    assert game is not None
    kontra = next(s for s in range(4) if not game.re_seats >> s & 1)
    (wrong,) = _say(rep, NAMES[kontra], "/re")
    assert "du bist Kontra" in wrong
    assert game.turn == 0
    (ambiguous,) = _say(rep, "anna", "Dame")
    assert "♣D, ♠D, ♥D, ♦D" in ambiguous and "♣Q" not in ambiguous
    (help_de,) = _say(rep, "anna", "/hilfe")
    assert "/gesund" in help_de and "/vorbehalt" in help_de and "/mitspielen" in help_de
    assert "/healthy" not in help_de and "/reservation" not in help_de


def test_10_reservation_refusals_say_what_is_asked() -> None:
    rep = _table("anna: /start")
    (wedding,) = _say(rep, "anna", "/wedding")
    assert "Nobody is asked" not in wedding and "/reservation" in wedding
    _say(rep, "anna", "/reservation")
    (back,) = _say(rep, "anna", "/healthy")
    assert "cannot be taken back" in back
    for name in ("ben", "carl", "dora"):
        _say(rep, name, "/healthy")
    (now,) = _say(rep, "anna", "/healthy")
    assert "is over" not in now and "name it now" in now


def test_11_between_games_commands_say_no_game_is_running() -> None:
    rep = Replayer()
    rep.run_text("anna: /join\nben: /join")
    for command in ("/hand", "/play 1", "/spiel", "/healthy", "/abort"):
        (answer,) = _say(rep, "anna", command)
        assert "No game is running" in answer and "/join bot" in answer, command
    rep = _table()
    for command in ("/hand", "/play 1", "/spiel"):
        (answer,) = _say(rep, "anna", command)
        assert "No game is running" in answer and "/start" in answer, command
        assert "Your hand" not in answer and "card number" not in answer


def test_12_a_bare_token_on_ones_turn_always_answers() -> None:
    rep = _table("anna: /start", *(f"{n}: /healthy" for n in NAMES))
    game = rep.table.game
    assert game is not None and game.turn == 0
    for token in ("99", "XQ", "Dame"):
        answers = _private(rep.feed(0, "anna", token))
        assert len(answers) == 1 and answers[0], token
    assert "card number 99" in _private(rep.feed(0, "anna", "99"))[0]
    assert "ambiguous" in _private(rep.feed(0, "anna", "Dame"))[0]
    # Chat is not a card: a longer line gets no answer, and another player's line neither.
    assert rep.feed(0, "anna", "well played everybody") == []
    assert rep.feed(0, "ben", "XQ") == []
    assert game.turn == 0 and len(game.trick) == 0


def test_13_leave_join_and_replace_speak_plainly() -> None:
    rep = Replayer()
    rep.run_text("\n".join(["!user dora=u:dora", *(f"{n}: /join" for n in NAMES),
                            "anna: /start", "dora: /leave"]))  # fmt: skip
    view = _say(rep, "anna", "/table")[0]
    assert "dora (left" in view
    _say(rep, "anna", "/abort")
    assert "aborted" in _say(rep, "ben", "/abort")[0]
    # Between games the seat kept for dora is hers again by /join.
    (back,) = _say(rep, "dora", "/join")
    assert back == "dora is back in the seat."
    assert not rep.table.seats[3].is_bot
    rep = _table("anna: /leave", "ben: /join bot")
    (full,) = _say(rep, "anna", "/join")
    assert "/replace" in full
    (taken,) = _say(rep, "anna", "/replace")
    assert taken == "anna takes the seat of Bot1."


def test_14_a_second_abort_vote_does_not_count() -> None:
    rep = _table("anna: /start")
    assert "(1/3)" in _say(rep, "anna", "/abort")[0]
    again = rep.feed(0, "anna", "/abort")
    assert [type(e) for e in again] == [Private]
    assert "already" in again[0].text and "(1/3)" in again[0].text
    assert "(2/3)" in _say(rep, "ben", "/abort")[0]
    assert rep.table.running


def test_16_option_did_you_mean_and_quit_in_help() -> None:
    rep = _table()
    (answer,) = _say(rep, "anna", "/option turnament on")
    assert "Did you mean tournament?" in answer
    (help_list,) = _say(rep, "anna", "/help")
    assert "/quit" in help_list
    (quit_help,) = _say(rep, "anna", "/help quit")
    assert "Unknown command" not in quit_help and "console" in quit_help
    assert "/leave" in _say(rep, "anna", "/quit")[0]
    assert all(isinstance(e, Private) for e in rep.feed(0, "anna", "/quit"))
    assert not any(isinstance(e, Public) for e in rep.feed(0, "anna", "/help quit"))


# ---------------------------------------------------------------- 15, 18: the score list
def _play_out(rep: Replayer) -> None:
    from dokobot.engine.cards import card_ascii
    from dokobot.engine.types import Phase

    game = rep.table.game
    assert game is not None
    while game.phase is not Phase.FINISHED:
        if rep.table.seats[game.turn].is_bot:
            rep.run_bots()
            continue
        name = rep.table.seats[game.turn].name
        if game.phase is Phase.RESERVATIONS:
            rep.feed(0, name, "/healthy")
        else:
            rep.feed(0, name, f"/play {card_ascii(game.legal_actions()[0])}")


def _cells(sheet: list[str], number: int) -> dict[str, str]:
    """The player cells of game ``number``'s row, by the column headers above them."""
    import re

    header = next(line for line in sheet if line.startswith("#"))
    row = next(line for line in sheet if line.split() and line.split()[0] == str(number))
    marks = list(re.finditer(r"\S+", header))
    bar = next(i for i, m in enumerate(marks) if m.group() == "|")
    out = {}
    for i in range(4, bar):
        start, end = marks[i - 1].end() + 1, marks[i].end()
        out[marks[i].group()] = row[start:end].strip()
    return out


def test_18_score_columns_belong_to_players_not_seats() -> None:
    rep = _table("!seed 7", "anna: /start")
    _play_out(rep)
    first = rep.results()[0]["scores"]
    assert len(set(first.values())) > 1
    # anna leaves and comes back: the seats are now ben carl dora anna.
    rep.run_text("anna: /leave\nanna: /join\nben: /start")
    assert rep.table.names() == ["ben", "carl", "dora", "anna"]
    _play_out(rep)
    second = rep.results()[1]["scores"]
    note = rep.table.score_note("en")
    sheet = note.params["sheet"].splitlines()
    assert _cells(sheet, 1) == {n: f"{first[n]:+d}" if first[n] else "0" for n in NAMES}
    assert _cells(sheet, 2) == {n: f"{second[n]:+d}" if second[n] else "0" for n in NAMES}
    # A player who did not play a game has an empty cell in its row.
    from dokobot.host.service import default_bot_factory

    rep.table.bot_factory = default_bot_factory()
    rep.run_text("dora: /leave\nben: /join bot random\nben: /start")
    _play_out(rep)
    sheet = rep.table.score_note("en").params["sheet"].splitlines()
    assert _cells(sheet, 3)["dora"] == "" and _cells(sheet, 3)["Bot1"] != ""
    assert _cells(sheet, 1)["Bot1"] == ""
    totals = next(line for line in sheet if line.split()[:1] == ["Totals"])
    names = next(line for line in sheet if line.startswith("#")).split("|")[1].split()
    want = {n: first.get(n, 0) + second.get(n, 0) + rep.results()[2]["scores"].get(n, 0)
            for n in names}  # fmt: skip
    assert totals.split("|")[1].split() == [f"{want[n]:+d}" if want[n] else "0" for n in names]


def test_15_a_new_series_shows_only_its_own_games() -> None:
    rep = _table("!seed 7", "anna: /start")
    _play_out(rep)
    rep.run_text("anna: /option tournament on")
    (sheet,) = _say(rep, "anna", "/score")
    lines = sheet.splitlines()
    assert "series 2 (tournament)" in lines[0]
    assert "earlier series: 1" in sheet
    assert "No games yet." in sheet
    assert not any(line.split()[:1] == ["1"] for line in lines)


# ---------------------------------------------------------------- 8 and "explain itself"
def test_8_value_items_are_not_labelled_like_announcements() -> None:
    from dokobot.host.i18n import catalogue

    for lang in ("en", "de"):
        cat = catalogue(lang)
        calls = {v.lower() for k, v in cat.items() if k.startswith("call.")}
        items = {k: v.lower() for k, v in cat.items() if k.startswith("item.")}
        for key, label in items.items():
            assert label not in calls, (lang, key, label)
    assert catalogue("de")["item.under_90"].startswith("gegen 90 gespielt")
    assert catalogue("en")["item.under_90"] == "opponents under 90"  # docs/rules.md's words
    assert catalogue("de")["item.no90_called"] == "keine 90 angesagt"


def _game_one() -> tuple[Replayer, list[str]]:
    from testdata import CONFORMANCE

    rep = Replayer()
    lines = (CONFORMANCE / "default-1.doko").read_text(encoding="utf-8").splitlines()
    second = [i for i, line in enumerate(lines) if line.endswith(": /start")][1]
    rep.run_lines(lines[:second])
    texts = [e.text for _, e in rep.transcript if isinstance(e, Public)]
    over = next(i for i, t in enumerate(texts) if "Game 1 is over" in t)
    return rep, texts[over:]


def test_end_of_game_explains_eyes_items_value_scores_and_totals() -> None:
    rep, texts = _game_one()
    rec = rep.table.finished[0]
    assert texts[0].startswith(
        f"Game 1 is over. Eyes: Re (anna, ben) {rec.eyes[0]} : {rec.eyes[1]} Kontra"
    )
    items = texts[1 : 1 + len(rec.components)]
    assert len(items) == len(rec.components) >= 2
    for line, (party, _item, points) in zip(items, rec.components, strict=True):
        assert line.startswith(f"  {party.capitalize()}: ") and line.endswith(f" {points:+d}")
        assert "_" not in line
    rest = texts[1 + len(rec.components) :]
    assert rest[0] == f"Game value: {rec.value} (winner: {rec.winner.capitalize()})"  # type: ignore[union-attr]
    assert rest[1].startswith("Scores: anna ")
    assert rest[2].startswith("Running totals: anna ")


def test_hand_is_grouped_trumps_first_then_each_suit_and_numbered() -> None:
    import re

    from dokobot.engine.notation import parse_card

    rep, _ = _game_one()
    rep.run_text("anna: /start")
    (hand,) = [e.text for e in rep.feed(0, "anna", "/hand") if isinstance(e, Private)][:1]
    body = hand.split(": ", 1)[1]
    groups = [re.findall(r"(\d+):(\S+)", g) for g in body.split("|")]
    numbers = [int(n) for g in groups for n, _ in g]
    assert numbers == list(range(1, 13))
    assert len(groups) >= 2
    trumps = {"♥10"} | {s + r for s in "♣♠♥♦" for r in "QJ"} | {"♦A", "♦10", "♦K", "♦9"}
    assert all(card in trumps for _, card in groups[0])
    for group in groups[1:]:
        suits = {card[0] for _, card in group}
        assert len(suits) == 1 and not any(card in trumps for _, card in group)
    # The numbers are those /play N uses.
    game = rep.table.game
    assert game is not None
    from dokobot.host.table import sorted_hand

    order = sorted_hand(game, game.hands[0])
    _n, last_card = groups[-1][-1]
    assert order[11] == parse_card(last_card, game.hands[0])


# ---------------------------------------------------------------- 3: comments in replay files
def test_3_a_trailing_comment_on_a_directive_is_refused_not_taken_as_a_name() -> None:
    import pytest

    from dokobot.host.replay import ReplayError

    for line in ("!admin anna  # the owner", "!seed 42   # seeds every deal"):
        rep = Replayer()
        with pytest.raises(ReplayError, match="comment goes on a line of its own"):
            rep.run_text(f"anna: /join\n{line}\n")
        assert rep.admins == set()
    # A # inside chat text or an expectation is part of it.
    rep = Replayer()
    rep.run_text("anna: /join\nanna: #1 hello\n!admin anna\n")
    assert rep.admins == {"anna"}
