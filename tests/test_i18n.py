"""The languages' files: messages with English keys and the same placeholders, typed words
that do not collide within a language, card notations that keep the engine's own code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dokobot import languages
from dokobot.engine.cards import card_ascii, card_str
from dokobot.engine.errors import NotationError
from dokobot.engine.notation import parse_kind
from dokobot.engine.types import Solo
from dokobot.host.commands import COMMANDS, find
from dokobot.host.handlers.actions import solo_names
from dokobot.host.i18n import catalogue, render
from dokobot.host.options import OPTIONS, TableOptions, yes_no

FIELD = re.compile(r"\{(\w+)(?::\w+)?\}")  # {eyes} or {eyes:eyes} (a count's phrase)
LANGS = languages.codes()


@pytest.mark.parametrize("lang", LANGS)
def test_every_key_exists_in_english_and_the_placeholders_agree(lang: str) -> None:
    en = catalogue("en")
    cat = catalogue(lang)
    assert cat, lang
    # the phrases of counts are each language's own (tests/test_plurals.py checks them)
    assert sorted(k for k in set(cat) - set(en) if not k.startswith("count.")) == [], lang
    for key, text in cat.items():
        if key.startswith("count."):
            continue
        assert set(FIELD.findall(text)) == set(FIELD.findall(en[key])), (lang, key)


def test_every_command_has_help_in_english() -> None:
    for cmd in COMMANDS:
        assert f"brief.{cmd}" in catalogue("en"), cmd
        assert f"help.{cmd}" in catalogue("en"), cmd


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


def test_a_missing_text_falls_back_to_english() -> None:
    assert render("xx", "not_owner", {"owner": "anna"}).startswith("Only the table owner")


# ---------------------------------------------------------------------------- typed words


@pytest.mark.parametrize("lang", LANGS)
def test_card_words_do_not_collide_within_a_language(lang: str) -> None:
    """Every suit word with every rank word, either way round, names exactly its card (an
    Italian D that were both Donna and a suit, or a Czech K both král and káry, would not)."""
    w = languages.words(lang)
    assert set(w.suits) == set(range(4)) and set(w.ranks) == set(range(6)), lang
    suit_words = {x for ws in w.suits.values() for x in ws}
    rank_words = {x for ws in w.ranks.values() for x in ws}
    assert not suit_words & rank_words, (lang, suit_words & rank_words)
    own = (languages.notation(lang),)
    for suit, sws in w.suits.items():
        for rank, rws in w.ranks.items():
            for s in sws:
                for r in rws:
                    for token in (s + r, r + s, f"{s} {r}", f"{r} {s}"):
                        assert parse_kind(token, own) == suit * 6 + rank, (lang, token)


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_reads_the_engines_code_and_its_own_shown_cards(lang: str) -> None:
    """Buttons and journals write ``/play CQ``: no language may read that as another card;
    and what a reader is shown (``♣D``) is read back as the same card."""
    from dokobot.host.i18n import card_text

    for card in range(0, 48, 2):
        for token in (card_ascii(card), card_ascii(card).lower(), card_str(card)):
            assert parse_kind(token, languages.notations(lang)) == card // 2, (lang, token)
        assert parse_kind(card_text(card, lang), languages.notations(lang)) == card // 2


@pytest.mark.parametrize("lang", LANGS)
def test_command_option_and_solo_words_do_not_collide_within_a_language(lang: str) -> None:
    w = languages.words(lang)
    seen: dict[str, str] = {}
    for name, words in w.commands.items():
        for word in words:
            assert seen.setdefault(word, name) == name, (lang, word, name, seen[word])
            if name in COMMANDS:
                assert find(word, lang) is COMMANDS[name], (lang, word)
    assert set(w.commands) <= set(COMMANDS) | {"prompts", "deck"}, set(w.commands) - set(COMMANDS)
    for name, words in w.options.items():
        assert name in OPTIONS, (lang, name)
        for word in words:
            assert TableOptions.canonical(word) == name, (lang, word)
    assert not set(w.yes) & set(w.no), lang
    for key, words in w.solos.items():
        for word in words:
            assert solo_names(lang)[word] is Solo[key.upper()], (lang, word)


def test_yes_and_no_mean_the_same_in_every_language() -> None:
    table = yes_no()
    for lang in LANGS:
        w = languages.words(lang)
        assert all(table[x] is True for x in w.yes) and all(table[x] is False for x in w.no)


def test_ambiguous_cards_list_their_readings_in_the_readers_language() -> None:
    with pytest.raises(NotationError) as info:
        parse_kind("D", languages.notations("de"))
    assert info.value.params["candidates"] == ["♣Q", "♠Q", "♥Q", "♦Q"]
    with pytest.raises(NotationError) as info:
        parse_kind("D", languages.notations("en"))
    assert info.value.params["candidates"][0] == "♦9"
