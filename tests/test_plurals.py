"""Issue 38, item 2: plural forms and numbers from CLDR (Babel), in every language.

A message with a count writes it as ``{PARAM:PHRASE}``; the language's ``count:`` table holds
the phrase once per CLDR plural category of the language (Czech: one, few, many, other)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from dokobot import languages
from dokobot.host.i18n import Number, number_text, plural_categories, plural_category, render

COUNTS = (0, 1, 2, 3, 5, 21, 22, 25, Decimal("1.5"))
PHRASED = re.compile(r"\{(\w+):(\w+)\}")


def _phrased(lang: str) -> dict[str, list[tuple[str, str]]]:
    """key -> its (parameter, phrase) pairs, in ``lang``'s catalogue."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, template in languages.messages(lang).items():
        if not key.startswith("count."):
            out.update({key: PHRASED.findall(template)} if PHRASED.search(template) else {})
    return out


@pytest.mark.parametrize("lang", languages.codes())
def test_every_phrase_has_each_cldr_form_of_its_language(lang: str) -> None:
    own = languages.messages(lang)
    phrases = {p for pairs in _phrased(lang).values() for _, p in pairs}
    assert phrases, lang
    for phrase in phrases:
        for category in plural_categories(lang):
            form = own.get(f"count.{phrase}.{category}")
            assert form is not None and "{n}" in form, (lang, phrase, category)
    stray = {k.split(".")[1] for k in own if k.startswith("count.")} - phrases
    assert stray == set(), f"{lang}: phrases no message uses"


def test_every_count_that_a_language_phrases_is_phrased_or_labelled_in_czech_and_italian() -> None:
    counted = {
        (key, param)
        for lang in languages.codes()
        for key, pairs in _phrased(lang).items()
        for param, _ in pairs
    }
    for lang in ("cs", "it"):
        own = languages.messages(lang)
        for key, param in counted:
            template = own[key]
            # a count as its phrase, or after a label ("players: {n}"), never "{n} hráčů"
            assert f"{{{param}:" in template or re.search(
                rf"[:(]\s*\{{{param}\}}|\{{{param}\}}(\s*(/|z |di |su |\)|$)|krát|-mal)", template
            ), (lang, key, param, template)


@pytest.mark.parametrize("lang", ["cs", "it"])
def test_every_message_with_a_count_takes_the_cldr_form_of_the_count(lang: str) -> None:
    own = languages.messages(lang)
    checked = 0
    for key, pairs in _phrased(lang).items():
        names = re.findall(r"\{(\w+)(?::\w+)?\}", own[key])
        for param, phrase in pairs:
            for n in COUNTS:
                value: object = Number(n, places=1) if isinstance(n, Decimal) else n
                params = {name: f"<{name}>" for name in names if name != param}
                said = render(lang, key, {**params, param: value})
                form = own[f"count.{phrase}.{plural_category(lang, n)}"]
                shown = number_text(n, lang, 1 if isinstance(n, Decimal) else None)
                assert form.replace("{n}", shown) in said, (key, n, said)
                checked += 1
    assert checked > 100


def test_the_czech_forms_of_one_few_many_and_other() -> None:
    def top(n: int) -> str:
        return render("cs", "stats.top_head", {"board": "body", "players": n, "games": n})

    assert "(1 hráč, 1 hra)" in top(1)
    assert "(3 hráči, 3 hry)" in top(3)
    assert "(5 hráčů, 5 her)" in top(5) and "(22 hráčů, 22 her)" in top(22)  # 2-4 only
    hint = render("cs", "hint.card", {"card": "x", "next": "y", "margin": Number(1.5, places=1)})
    assert "o 1,5 bodu výš" in hint
    assert render("it", "score.earlier", {"n": 1}) == "(1 partita precedente non mostrata)"
    assert render("de", "bock_game", {"left": 1}).endswith("(danach noch 1 Bockspiel).")


@pytest.mark.parametrize(
    ("lang", "shown"), [("en", "+1.50"), ("de", "+1,50"), ("it", "+1,50"), ("cs", "+1,50")]
)
def test_numbers_take_the_languages_decimal_sign(lang: str, shown: str) -> None:
    assert number_text(1.5, lang, 2, signed=True) == shown
    said = render(lang, "stats.games", {"games": 2, "wins": 1, "rate": Number(50.0, places=0),
                                        "points": 3, "per_game": Number(1.5, 2, True)})  # fmt: skip
    assert shown in said, said


@pytest.mark.parametrize(("lang", "shown"), [("en", "anna +1.07"), ("it", "anna +1,07")])
def test_chips_with_cents_take_the_languages_decimal_sign(lang: str, shown: str) -> None:
    from dokobot.host.i18n import Labelled
    from dokobot.host.stakes import chip_numbers

    amounts = chip_numbers([Decimal("1.07"), Decimal(-5)])
    said = render(lang, "settlement_game", {"chips": [Labelled("anna", amounts[0])],
                                            "unit": chip_numbers([Decimal("2.5")], signed=False)[0]})  # fmt: skip
    assert shown in said and ("2.50" if lang == "en" else "2,50") in said, said
    assert number_text(amounts[1].value, lang, 2, signed=True) in ("-5.00", "-5,00")
