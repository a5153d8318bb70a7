"""Issue 38, items 3, 4 and 8: every name a player reads in a message (card, option, value,
call, command) is in the reader's language and letters, one test per language."""

from __future__ import annotations

import pytest

from dokobot.engine import Game
from dokobot.engine.cards import card_ascii
from dokobot.host.events import Event, Input
from dokobot.host.i18n import name_text, render
from dokobot.host.options import OptionError, TableOptions
from dokobot.host.router import Router
from dokobot.host.table import Table

NAMES = ("anna", "ben", "carl", "dora")

#: Per language: the option nines, its value off, the Italian sentence of issue 38, a card.
EXPECTED = {
    "en": ("nines", "off", "Option nines is now off.", "♣Q"),
    "de": ("neunen", "aus", "Option neunen ist jetzt aus.", "♣D"),
    "it": ("nove", "disattivata", "L'opzione nove ora è disattivata.", "♣D"),
    "cs": ("devítky", "vypnutá", "Volba devítky je teď vypnutá.", "♣D"),
}


def _inp(name: str, text: str) -> Input:
    return Input("chan", f"u:{name}", name, text)


def _said(events: list[Event]) -> str:
    return "\n".join(e.text for e in events)


def _table(lang: str) -> Router:
    r = Router(seed=3)
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    r.handle(_inp("anna", f"/option language {lang}"))
    return r


@pytest.mark.parametrize("lang", list(EXPECTED))
def test_options_are_named_in_the_readers_language(lang: str) -> None:
    option, off, sentence, _ = EXPECTED[lang]
    assert name_text("option", "nines", lang) == option
    assert name_text("value", "off", lang) == off
    r = _table(lang)
    said = _said(r.handle(_inp("anna", "/option nines off")))
    assert sentence in said
    listed = _said(r.handle(_inp("anna", "/options")))
    assert f"{option} = {off}" in listed
    if lang != "en":
        assert "nines" not in said + listed


@pytest.mark.parametrize("lang", list(EXPECTED))
def test_the_tournament_refusal_names_the_value_each_house_rule_needs(lang: str) -> None:
    with pytest.raises(OptionError) as info:
        TableOptions(nines=False, poverty=True).set("tournament", "on")
    said = render(lang, info.value.reason, info.value.params)
    on, off = name_text("value", "on", lang), name_text("value", "off", lang)
    assert f"{name_text('option', 'nines', lang)} {on}" in said, said
    assert f"{name_text('option', 'poverty', lang)} {off}" in said, said


def _in_card_play(lang: str) -> tuple[Router, Table, Game]:
    """A table of ``lang`` whose first game is dealt and said healthy by all four."""
    r = _table(lang)
    r.handle(_inp("anna", "/start"))
    table = r.tables["chan"]
    game = table.game
    assert game is not None
    for seat in range(4):
        r.handle(_inp(table.seats[seat].name, "/healthy"))
    return r, table, game


@pytest.mark.parametrize("lang", list(EXPECTED))
def test_a_refused_card_is_shown_in_the_readers_letters(lang: str) -> None:
    r, table, game = _in_card_play(lang)
    seat = game.turn
    held = game.hands[seat]
    # a queen (a jack, a king) he does not hold: refused, named in his letters
    missing = next(c for c in (4, 2, 6, 10, 8, 14) if not held >> (c & ~1) & 3)
    said = _said(r.handle(_inp(table.seats[seat].name, f"/play {card_ascii(missing)}")))
    shown = name_text("card", card_ascii(missing), lang)
    assert shown in said, said
    assert lang == "en" or card_ascii(missing)[1] not in said.replace(shown, ""), said


def test_a_card_name_is_the_readers_letters() -> None:
    assert [name_text("card", "CQ", lang) for lang in EXPECTED] == [e[3] for e in EXPECTED.values()]


#: Per language: the natural ways a player names a card, each with the card it names.
TYPED = {
    "en": {"queen of clubs": "CQ", "the ten of hearts": "H10", "clubs queen": "CQ"},
    "de": {"Kreuz Dame": "CQ", "Kreuzdame": "CQ", "die Kreuzdame": "CQ", "Dame Kreuz": "CQ",
           "Herz-Zehn": "H10", "der Karo-Bube": "DJ", "das Pik-Ass": "SA"},
    "it": {"donna di fiori": "CQ", "la donna di fiori": "CQ", "l'asso di cuori": "HA",
           "il re di picche": "SK", "dieci di denari": "D10", "fante di quadri": "DJ"},
    "cs": {"křížová dáma": "CQ", "dáma křížová": "CQ", "dáma kříže": "CQ",
           "křížovou dámu": "CQ", "srdcová desítka": "H10", "desítka srdcová": "H10",
           "kárové eso": "DA", "eso kárové": "DA", "pikový kluk": "SJ", "kluka pikového": "SJ",
           "krále srdcového": "HK", "devítka piková": "S9"},
}  # fmt: skip


@pytest.mark.parametrize("lang", list(TYPED))
def test_cards_named_in_each_languages_natural_orders_and_cases(lang: str) -> None:
    from dokobot import languages
    from dokobot.engine.notation import CANONICAL, parse_kind

    for typed, code in TYPED[lang].items():
        assert parse_kind(typed, languages.notations(lang)) == parse_kind(code, (CANONICAL,)), typed


@pytest.mark.parametrize(("lang", "words"), [("it", "{rank} di {suit}"), ("cs", "{suit} {rank}")])
def test_a_card_named_in_words_alone_on_your_turn_is_played(lang: str, words: str) -> None:
    from dokobot import languages

    r, table, game = _in_card_play(lang)
    seat = game.turn
    legal = game.legal_cards(seat)
    card = next(c for c in range(48) if legal >> c & 1)
    w = languages.words(lang)
    suit = {"cs": ("křížová", "piková", "srdcová", "kárová"), "it": ("fiori", "picche", "cuori",
            "denari")}[lang][card // 12]  # fmt: skip
    rank = max(w.ranks[(card // 2) % 6], key=len)
    line = words.format(rank=rank, suit=suit)
    assert len(line.split()) >= 2
    said = _said(r.handle(_inp(table.seats[seat].name, line)))
    assert (
        render(lang, "card_played", {"player": table.seats[seat].name, "card": ""}).strip() in said
    )
    assert not game.hands[seat] >> card & 1 or game.hands[seat] >> (card ^ 1) & 1
    chat = _said(r.handle(_inp(table.seats[game.turn].name, "la partita è bella oggi")))
    assert chat == ""
