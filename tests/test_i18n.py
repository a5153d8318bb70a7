"""The message catalogues: the same keys and placeholders in every language."""

from __future__ import annotations

import re
from pathlib import Path

from dokobot.host.i18n import LANGS, catalogue, render
from dokobot.host.router import COMMANDS

FIELD = re.compile(r"\{(\w+)\}")


def test_catalogues_have_the_same_keys_and_fields() -> None:
    en = catalogue("en")
    for lang in LANGS:
        cat = catalogue(lang)
        assert set(cat) == set(en), (lang, set(cat) ^ set(en))
        for key, text in cat.items():
            assert set(FIELD.findall(text)) == set(FIELD.findall(en[key])), (lang, key)


def test_every_command_has_help_in_every_language() -> None:
    for lang in LANGS:
        for cmd in COMMANDS:
            assert f"brief.{cmd}" in catalogue(lang), (lang, cmd)
            assert f"help.{cmd}" in catalogue(lang), (lang, cmd)


def test_every_key_used_in_the_code_exists() -> None:
    root = Path(__file__).resolve().parent.parent / "dokobot" / "host"
    used: set[str] = set()
    for path in root.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'Refusal\(\s*"([\w.]+)"', text))
        used |= set(re.findall(r'Note\(\s*(?:ALL|seat|s|to|self\.\w+|\w+),\s*"([\w.]+)"', text))
    used = {k for k in used if not k.endswith(".")}  # prefixes of computed keys
    missing = sorted(k for k in used if k not in catalogue("en"))
    assert not missing, missing
    assert len(used) > 40


def test_engine_reasons_all_have_messages() -> None:
    from dokobot.engine import game

    reasons = set(re.findall(r'return \("(\w+)"', Path(game.__file__).read_text()))
    assert len(reasons) > 10
    missing = sorted(r for r in reasons if f"illegal.{r}" not in catalogue("en"))
    assert not missing, missing


def test_render_in_german() -> None:
    assert render("de", "not_owner", {"owner": "anna"}).startswith("Nur der Tischbesitzer")
