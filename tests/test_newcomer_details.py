"""Small things a newcomer hit (issue 32), one test each: the console and the command line,
prompts, refusals, plurals, the score list and the channel's sentences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_every_name_of_quit_ends_the_console_with_or_without_the_slash(tmp_path: Path) -> None:
    for word in ("beenden", "!exit"):
        res = _run("console", "--seed", "1", "--lang", "de", stdin=f"{word}\n/options\n",
                   cwd=tmp_path)  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert "stake = " not in res.stdout, (word, res.stdout)  # /options never ran
        assert "Befehle:" not in res.stdout, word  # no help list instead of quitting


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


def test_the_console_asks_each_question_once(tmp_path: Path) -> None:
    res = _run("console", "--seed", "3", "--lang", "de", stdin="gesund\n", cwd=tmp_path)
    assert res.stdout.count("Vorbehalt?") == 1, res.stdout  # not the channel's line too


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
