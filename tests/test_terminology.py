"""Issue 38, item 6: the catalogues follow the reviewed terminology table of
docs/languages.md, and no catalogue but English holds an English word (except the game's
terms the seeds use themselves, and names of programs and platforms)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dokobot import languages

DOC = Path(__file__).resolve().parent.parent / "docs" / "languages.md"
WORD = re.compile(r"[^\W\d_]+")
PLACEHOLDER = re.compile(r"\{[^}]*\}")

#: English words a catalogue of another language may hold: the game's terms as the seeds
#: write them in Italian and Czech (Re, Kontra, Solo, Doppelkopf; bock and Dullen, the
#: house rules' German names), names of platforms and formats, and the words that are words
#: of the language too (Italian per, come, computer, file, link, console, partner; Czech
#: list, limit, minus, partner; German Hand, Name, Dame, lang, was, also, normal, Person,
#: Gold, Links, Start, Lobby, Operator, Admins, private; the card letters KrD, KaA).
ALLOWED = frozenset(
    [
        "re",
        "kontra",
        "contra",
        "solo",
        "doppelkopf",
        "bock",
        "dullen",
        "karlchen",
        "discord",
        "irc",
        "web",
        "csv",
        "bot",
        "dokobot",
        "ctrl",
        "log",
        "admin",
        "admins",
        "server",
        "chat",
        "thread",
        "threads",
        "replay",
        "export",
        "auto",
        "lobby",
        "operator",
        "per",
        "come",
        "computer",
        "file",
        "link",
        "console",
        "partner",
        "all",
        "list",
        "limit",
        "minus",
        "krd",
        "kaa",
        "hand",
        "name",
        "dame",
        "lang",
        "was",
        "also",
        "normal",
        "person",
        "gold",
        "links",
        "start",
        "private",
    ]
)


def _table() -> list[dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Terminology") :]
    section = section[: section.index("\n## ", 3)]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in row.strip("|").split("|")), strict=True))
            for row in rows[1:]]  # fmt: skip


def _texts(lang: str) -> str:
    """Every text of ``lang``: its messages and the words people type."""
    words = languages.get(lang).file("words").read_text("utf-8")
    return "\n".join(languages.messages(lang).values()) + "\n" + words


def test_the_table_covers_every_language() -> None:
    rows = _table()
    assert len(rows) >= 20
    assert set(rows[0]) == {"concept", "not", *languages.codes()}


@pytest.mark.parametrize("lang", languages.codes())
def test_the_catalogues_use_the_tables_terms(lang: str) -> None:
    texts = _texts(lang)
    for row in _table():
        term = row[lang]
        assert re.search(rf"(?<!\w){re.escape(term)}(?!\w)", texts, re.I), (lang, row["concept"])
        for avoided in filter(None, (a.strip() for a in row["not"].split(";"))):
            code, _, word = avoided.partition(": ")
            if code == lang:
                hits = [
                    key
                    for key, text in languages.messages(lang).items()
                    if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text)
                ]
                assert hits == [], (lang, word)


@pytest.mark.parametrize("lang", [code for code in languages.codes() if code != "en"])
def test_no_catalogue_but_english_holds_an_english_word(lang: str) -> None:
    english = {
        w.lower()
        for text in languages.messages("en").values()
        for w in WORD.findall(PLACEHOLDER.sub(" ", text))
        if len(w) >= 3
    }
    w = languages.words(lang)  # the words a reader types in his language are his language's
    tables = (w.commands, w.options, w.values, w.solos)
    own_words = {x for t in tables for ws in t.values() for x in ws} | set(w.yes + w.no)
    leftovers = {
        key: sorted(found)
        for key, text in languages.messages(lang).items()
        if (
            found := {
                w
                for w in WORD.findall(PLACEHOLDER.sub(" ", text))
                if w.lower() in english and w.lower() not in ALLOWED | own_words
            }
        )
    }
    assert leftovers == {}
