"""Small things a newcomer hit (issue 32), one test each: the console and the command line,
prompts, refusals, plurals, the score list and the channel's sentences."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dokobot.cli import build_parser
from dokobot.host.events import Private, Public
from dokobot.host.i18n import render
from dokobot.host.options import OptionError, TableOptions
from dokobot.host.replay import Replayer, ReplayError


def _run(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DOKOBOT_DISCORD_TOKEN", "DOKOBOT_CONFIG")
    }
    return subprocess.run([sys.executable, "-m", "dokobot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=env)  # fmt: skip


# ---------------------------------------------------------------- console and command line
def test_the_console_takes_the_configs_table_defaults(tmp_path: Path) -> None:
    (tmp_path / "dokobot.yaml").write_text("tables:\n  poverty: on\n  stake: 5\n")
    for args in (["console", "--seed", "1"], []):  # `dokobot console` and plain `dokobot`
        res = _run(*args, stdin="/options\n/quit\n", cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        assert "poverty = on" in res.stdout and "stake = 5" in res.stdout, res.stdout
    (tmp_path / "dokobot.yaml").write_text("tables:\n  tournament: on\n")
    res = _run("console", "--seed", "1", stdin="/options\n", cwd=tmp_path)
    assert "tournament = on" in res.stdout


def _console(
    lines: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lang: str = "en",
) -> str:
    """What ``dokobot console --seed 3`` prints (in this process) for the typed ``lines``."""
    from dokobot.console import run_console

    todo = list(lines)

    def typed(prompt: str = "") -> str:
        if not todo:
            raise EOFError
        return todo.pop(0)

    monkeypatch.setattr("builtins.input", typed)
    assert run_console(players=None, bots=None, seed=3, lang=lang) == 0
    return capsys.readouterr().out


def test_every_name_of_quit_ends_the_console_with_or_without_the_slash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for word in ("beenden", "/beenden", "!exit", "quit"):
        out = _console([word, "/options"], monkeypatch, capsys, lang="de")
        assert "stake = " not in out, (word, out)  # /options never ran
        assert "Befehle:" not in out, word  # no help list instead of quitting


def test_every_command_line_argument_is_explained() -> None:
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in [("dokobot", parser), *sub.choices.items()]:
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, (name, action.dest)
            assert (
                action.metavar != "DEFAULT_CONFIG" and action.dest.upper() != (action.metavar or "")
            ) or action.metavar is None, (name, action.dest)
    assert "--config FILE" in parser.format_help()


def test_the_console_asks_each_question_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _console(["gesund"], monkeypatch, capsys, lang="de")
    assert out.count("Vorbehalt?") == 1, out  # not the channel's line too


# ---------------------------------------------------------------- prompts and refusals
HOUSE = Path(__file__).parent / "data" / "house"


def _replay(text: str) -> Replayer:
    rep = Replayer()
    rep.run_text(text)
    assert not rep.failures, rep.failures
    return rep


def _private(rep: Replayer, user: str, start: int = 0) -> list[str]:
    return [e.text for _, e in rep.transcript[start:] if isinstance(e, Private) and e.user == user]


def _public(rep: Replayer, start: int = 0) -> list[str]:
    return [e.text for _, e in rep.transcript[start:] if isinstance(e, Public)]


def _until(path: Path, last: str) -> str:
    """The lines of replay ``path`` up to and including the first line ``last``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[: lines.index(last) + 1])


def test_the_declaration_prompt_offers_what_the_player_may_declare_in_his_words() -> None:
    # dora: 2 trumps and no ♣Q (poverty on): /armut, no /hochzeit, in German
    text = _until(HOUSE / "poverty.doko", "carl: /healthy")
    rep = _replay(text.replace("anna: /start", "dora (dm): /sprache de\nanna: /start"))
    (prompt,) = [t for t in _private(rep, "replay:dora") if t.startswith("Nenne deinen Vorbehalt")]
    assert "/armut" in prompt and "/poverty" not in prompt
    assert "/hochzeit" not in prompt and "/schmeissen" not in prompt
    # ben: five kings and throw-in on; no ♣Q pair either
    rep = _replay(_until(HOUSE / "throw-in.doko", "carl: /healthy"))
    (prompt,) = [t for t in _private(rep, "replay:ben") if t.startswith("Name your reservation")]
    assert "/throw" in prompt and "/wedding" not in prompt and "/poverty" not in prompt
    # anna holds both ♣Q (wedding-trump.doko): the wedding is offered, nothing else
    rep = _replay(_until(HOUSE / "wedding-trump.doko", "dora: /healthy"))
    (prompt,) = [t for t in _private(rep, "replay:anna") if t.startswith("Name your reservation")]
    assert prompt.endswith("or /wedding.")


def test_without_nines_the_throw_in_refusal_speaks_of_kings_only() -> None:
    deal = (
        "!deal anna=CA CA C10 C10 CK SQ SQ HJ HJ DA; ben=CK CQ CQ CJ CJ SA SA S10 S10 SK; "
        "carl=SK SJ SJ HA HA H10 H10 HK HK HQ; dora=HQ DA D10 D10 DK DK DQ DQ DJ DJ"
    )
    lines = ["anna: /join", "ben: /join", "carl: /join", "dora: /join",
             "anna: /option throw_in on", "anna: /option nines off", "!dealer carl", deal,
             "anna: /start", "dora: /healthy", "anna: /reservation", "ben: /healthy",
             "carl: /healthy"]  # fmt: skip
    rep = _replay("\n".join(lines))
    start = len(rep.transcript)
    rep.run_text("anna: /throw")  # one king, and there are no nines
    (refusal,) = _private(rep, "replay:anna", start)
    assert "kings" in refusal and "or more nines" not in refusal, refusal


def test_option_refusals_name_what_to_change_not_what_is_already_off() -> None:
    with pytest.raises(OptionError) as info:
        TableOptions(tournament=True).set("poverty", "on")
    said = render("en", info.value.reason, info.value.params)
    assert "tournament off" in said and "turn these off" not in said
    with pytest.raises(OptionError) as info:
        TableOptions(piglets=True).set("tournament", "on")
    said = render("en", info.value.reason, info.value.params)
    assert "piglets" in said and "tournament off" not in said
    with pytest.raises(OptionError) as info:
        TableOptions(mode="single").set("tournament", "on")
    said = render("en", info.value.reason, info.value.params)
    assert "mode free" in said and "tournament off" not in said


def test_help_option_explains_a_house_rule() -> None:
    rep = _replay("anna: /join\nanna: /help option poverty")
    (said,) = _private(rep, "replay:anna", 1)
    assert len(said) > 150 and "/poverty" in said and "/take" in said and "Now: off" in said


# ---------------------------------------------------------------- the channel's sentences
def test_a_bock_games_value_lines_name_the_doubling() -> None:
    rep = _replay((HOUSE / "bock.doko").read_text(encoding="utf-8"))
    public = _public(rep)
    values = [t for t in public if t.startswith("Game value")]
    bock = [t for t in public if " × " in t]
    assert len(bock) == 1 and bock[0].endswith(" × 2 = " + values[1].split()[2])


def test_a_wedding_alone_names_the_tricks_that_count() -> None:
    # trick 2 went to carl (led with a plain suit): only trump-led tricks count here
    rep = _replay((HOUSE / "wedding-trump.doko").read_text(encoding="utf-8"))
    (alone,) = [t for t in _public(rep) if "plays alone" in t]
    assert "trump-led" in alone and "one of the first three tricks" not in alone


def test_a_table_record_in_a_replay_is_refused_where_option_refuses() -> None:
    options = TableOptions().as_dict() | {"tournament": True, "poverty": True}
    state = {"seats": [], "owner": None, "options": options, "waiting": [],
             "bot_counter": 0, "series": 1, "fresh": True}  # fmt: skip
    with pytest.raises(ReplayError, match="tournament"):
        Replayer().run_text("!table " + json.dumps(state))
    good = {**state, "options": TableOptions().as_dict() | {"poverty": True}}
    rep = Replayer()
    rep.run_text("!table " + json.dumps(good))
    assert not rep.failures


def test_a_forced_solo_is_announced_as_forced() -> None:
    rep = _replay("\n".join([*(f"{n}: /join" for n in ("anna", "ben", "carl", "dora")),
                             "!dealer dora", "anna: /option tournament on",
                             "anna: /option series_length 4"]))  # fmt: skip
    asked = [e for e in rep.feed(0, "anna", "/start") if isinstance(e, Private)]
    forced = next(e.user for e in asked if e.kind == "reservation").split(":")[-1]
    public = [e.text for e in rep.feed(0, forced, "/solo clubs") if isinstance(e, Public)]
    (contract,) = [t for t in public if " plays a " in t]
    assert "forced solo" in contract and "(mandatory solo)" not in contract


def test_give_with_several_cards_prompts_once_and_counts_what_is_left() -> None:
    rep = _replay(_until(HOUSE / "poverty.doko", "ben: /take"))
    (first,) = [t for t in _private(rep, "replay:ben") if "give back" in t]
    assert first.startswith("Cards to give back: 3") and "more" not in first
    start = len(rep.transcript)
    rep.run_text("ben: /give C9 C9 CJ")
    assert not [t for t in _private(rep, "replay:ben", start) if "give back" in t]


def test_typo_hints_are_as_good_without_the_slash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _console(["hlep", "/hlep", "hello there"], monkeypatch, capsys)
    assert out.count("Did you mean /help?") == 2, out
    assert "Commands start with /" in out  # a chat line gets the general hint


# ---------------------------------------------------------------- words, plurals, pictures
def test_the_score_items_have_the_rules_names() -> None:
    from dokobot.engine.scoring import SCORE_ITEMS
    from dokobot.host.i18n import catalogue

    rules = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    scoring = rules[rules.index("## 8.") : rules.index("## 9.")]
    labels = {item: catalogue("en")["item." + item] for item in SCORE_ITEMS}
    for item, label in labels.items():
        assert label in scoring, (item, label)
    # "played against 90" is the item of docs/rules.md (120 against no 90), not under 90
    assert "against" not in labels["under_90"]
    assert labels["reached_120_against_no90"].startswith("played against 90")


COUNT_NOUNS = re.compile(
    r"\{(\w+)\} (?:(?!je |per )\w+ )?(games|cards|players|tricks|points|chips|Spiele|Spielen|Karten|Spieler"
    r"|Stiche|Punkte)\b|\((s|n|e)\)"
)
NEVER_ONE = {
    "cards": "a call needs at least 5 cards in hand",
    "length": "a series has 4+ games",
    "margin": "a decimal figure (1.00 points)",
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_text_glues_a_count_to_a_plural(lang: str) -> None:
    """ "1 frühere Spiele", "card(s)", "Als Re 1 Spiele": counts stand after a colon."""
    from dokobot.host.i18n import catalogue

    for key, text in catalogue(lang).items():
        if key.startswith("count."):
            continue  # a count's phrase, one form per plural category (tests/test_plurals.py)
        for m in COUNT_NOUNS.finditer(text):
            assert m.group(1) in NEVER_ONE, (lang, key, text)


def test_the_score_list_marks_the_totals() -> None:
    rep = _replay((HOUSE / "bock.doko").read_text(encoding="utf-8") + "\nanna: /score")
    sheet = _private(rep, "replay:anna", len(rep.transcript) - 1)[-1].splitlines()
    header = next(i for i, line in enumerate(sheet) if line.startswith("#"))
    over, names = sheet[header - 1], sheet[header]
    assert over.index("|") == names.index("|")
    assert "running totals" in over[over.index("|") :] and "this game" in over[: over.index("|")]


def test_the_charts_count_games_in_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    from dokobot.stats import charts

    figures: list[Any] = []
    monkeypatch.setattr(charts, "_png", lambda fig: figures.append(fig) or b"")
    charts.rating_chart([(0.0, 25.0, 8.0), (1.0, 26.0, 7.0)], title="", xlabel="", ylabel="")
    charts.totals_chart([1, 2, 3], [(1, -1, 0, 0)] * 3, list("abcd"), title="", xlabel="",
                        ylabel="")  # fmt: skip
    for fig in figures:
        ticks = fig.axes[0].get_xticks()
        assert len(ticks) and all(float(t).is_integer() for t in ticks), ticks
