"""Italian and Czech, complete: whole games replayed in each (a wedding and a solo, cards
typed in the language's notation, commands by their names in the language), every line to
the players in their language; /help and /help option translated; a German player at an
Italian table reads German in the same game."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dokobot import languages
from dokobot.engine.cards import CLUBS, QUEEN
from dokobot.engine.deck import hands_from_kinds
from dokobot.engine.types import Phase
from dokobot.host.commands import COMMANDS
from dokobot.host.events import Event, Private, Public
from dokobot.host.i18n import catalogue
from dokobot.host.replay import Replayer
from dokobot.host.table import sorted_hand

SEATS = ("anna", "ben", "carl", "dora")
FIELD = re.compile(r"\{\w+\}")


def english_fragments(lang: str) -> set[str]:
    """The pieces of English catalogue texts (between the placeholders) that the catalogue
    of ``lang`` says otherwise: any of them in a line to a reader of ``lang`` is English
    that reached them."""
    own = "\n".join(catalogue(lang).values())
    out: set[str] = set()
    for key, text in catalogue("en").items():
        if key.startswith(("discord.", "web.", "console.")):
            continue  # the adapters' and the pages' own words, tested with them
        for piece in FIELD.split(text):
            piece = piece.strip(" .,:;()!?'\n")
            if len(re.findall(r"[A-Za-z]{3,}", piece)) >= 2 and piece not in own:
                out.add(piece)
    return out


def typed(card: int, lang: str) -> str:
    """``card`` as a player of ``lang`` types it: the language's first words for its suit
    and rank (Italian ``fid``, Czech ``krd``)."""
    w = languages.words(lang)
    suit, rank = divmod(card >> 1, 6)
    return w.suits[suit][0] + w.ranks[rank][0]


def deal_line(seed: int) -> str:
    """A ``!deal`` in which anna holds both ♣Q (she may announce a wedding)."""
    kinds = [k for k in range(24) for _ in range(2)]
    random.Random(seed).shuffle(kinds)
    cq = CLUBS * 6 + QUEEN
    rest = [k for k in kinds if k != cq]
    hands = [[cq, cq, *rest[:10]], rest[10:22], rest[22:34], rest[34:46]]
    masks = hands_from_kinds(hands)
    from dokobot.engine.cards import card_ascii

    return "!deal " + "; ".join(
        f"{n}=" + " ".join(card_ascii(c) for c in sorted_hand(None, m))
        for n, m in zip(SEATS, masks, strict=True)
    )


class Game:
    """A replay written as it is played: each line is fed and kept."""

    def __init__(self, langs: dict[str, str], table_lang: str) -> None:
        self.langs = langs
        self.rep = Replayer()
        self.lines: list[str] = []
        self.events: list[Event] = []
        lang = langs["anna"]
        self.say("anna", f"/{COMMANDS['join'].name_in(lang)}")  # the owner sets the language
        option = COMMANDS["option"].name_in(lang)
        self.say("anna", f"/{option} {self.option_word('language', lang)} {table_lang}")
        for name in SEATS:
            self.say(name, f"/{COMMANDS['lang'].name_in(langs[name])} {langs[name]}")
            if name != "anna":
                self.say(name, f"/{COMMANDS['join'].name_in(langs[name])}")

    @staticmethod
    def option_word(name: str, lang: str) -> str:
        from dokobot.host.options import option_name

        return option_name(name, lang)

    def cmd(self, name: str, command: str) -> str:
        return "/" + COMMANDS[command].name_in(self.langs[name])

    def say(self, name: str, text: str) -> list[Event]:
        line = f"{name}: {text}"
        self.lines.append(line)
        before = len(self.rep.transcript)
        self.rep.run_text(line)
        assert not self.rep.failures
        new = [e for _, e in self.rep.transcript[before:]]
        self.events += new
        return new

    def directive(self, line: str) -> None:
        self.lines.append(line)
        self.rep.run_text(line)

    def play(self, contract: str) -> None:
        """One game: anna announces ``contract`` (``wedding`` or ``solo``), the others are
        healthy; every card is typed in its player's notation."""
        table = self.rep.table
        start = self.say("anna", self.cmd("anna", "start"))
        assert table.game is not None, [e.text for e in start]
        game = table.game
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            name = table.seats[seat].name
            if game.phase is Phase.RESERVATIONS:
                word = "reservation" if name == "anna" else "healthy"
                self.say(name, self.cmd(name, word))
            elif game.phase is Phase.DECLARATIONS:
                if contract == "wedding":
                    self.say(name, self.cmd(name, "wedding"))
                else:
                    solo = languages.words(self.langs[name]).solos["clubs"][0]
                    self.say(name, f"{self.cmd(name, 'solo')} {solo}")
            else:
                card = sorted_hand(game, game.legal_cards(seat))[0]
                answer = self.say(name, f"{self.cmd(name, 'play')} {typed(card, self.langs[name])}")
                assert not any(isinstance(e, Private) and e.kind == "error" for e in answer), [
                    e.text for e in answer
                ]
            game = table.game if table.game is not None else game

    def to(self, name: str) -> Iterator[str]:
        """Every text ``name`` read: the channel's and their own."""
        user = self.rep.users.get(name) or f"replay:{name}"
        for e in self.events:
            if isinstance(e, Public) or (isinstance(e, Private) and e.user == user):
                yield e.text


def _full_game(lang: str) -> Game:
    g = Game({n: lang for n in SEATS}, lang)
    g.directive(deal_line(1))
    g.play("wedding")
    g.directive(deal_line(2))
    g.play("solo")
    return g


@pytest.mark.parametrize("lang", ["it", "cs"])
def test_a_whole_series_in_the_language_reads_no_english(lang: str) -> None:
    g = _full_game(lang)
    results = g.rep.results()
    assert [r["type"] for r in results][:2] in (["wedding", "solo"], ["wedding_alone", "solo"])
    for name in ("anna", "ben"):
        g.say(name, g.cmd(name, "help"))
        g.say(name, f"{g.cmd(name, 'help')} {COMMANDS['option'].name_in(lang)}")
        for option in ("poverty", "tournament", "language"):
            g.say(name, f"{g.cmd(name, 'help')} option {g.option_word(option, lang)}")
        for command in ("play", "solo", "wedding", "score"):
            g.say(name, f"{g.cmd(name, 'help')} {COMMANDS[command].name_in(lang)}")
        g.say(name, g.cmd(name, "score"))
        g.say(name, g.cmd(name, "table"))
    english = english_fragments(lang)
    assert len(english) > 200
    texts = list(g.to("ben"))
    assert len(texts) > 100
    leaks = sorted({f for t in texts for f in english if f in t})
    assert leaks == [], leaks
    # and the language is really there: the seed's words
    joined = "\n".join(texts)
    words = {"it": ("Matrimonio", "Solo di fiori", "Buono", "presa"),
             "cs": ("svatbu", "křížové sólo", "zdravá", "tah")}[lang]  # fmt: skip
    for word in words:
        assert word in joined, word


@pytest.mark.parametrize("lang", ["it", "cs"])
def test_the_replay_written_in_the_language_gives_the_same_games(lang: str) -> None:
    g = _full_game(lang)
    again = Replayer()
    again.run_text("\n".join(g.lines))
    assert not again.failures
    assert again.results() == g.rep.results()
    assert [e.text for _, e in again.transcript] == [e.text for e in g.events]


def test_english_command_names_and_cards_work_at_an_italian_table() -> None:
    g = Game({n: "it" for n in SEATS}, "it")
    g.directive(deal_line(3))
    g.say("anna", "/start")
    g.say("anna", "/reservation")
    for name in ("ben", "carl", "dora"):
        g.say(name, "/healthy")
    g.say("anna", "/wedding")
    game = g.rep.table.game
    assert game is not None and game.phase is Phase.PLAYING
    from dokobot.engine.cards import card_ascii

    seat = game.turn
    card = sorted_hand(game, game.legal_cards(seat))[0]
    answer = g.say(SEATS[seat], f"/play {card_ascii(card)}")
    assert not any(isinstance(e, Private) and e.kind == "error" for e in answer)
    assert len(game.trick) == 1


def test_a_german_player_at_an_italian_table_reads_german() -> None:
    langs = {"anna": "it", "ben": "de", "carl": "it", "dora": "it"}
    g = Game(langs, "it")
    g.directive(deal_line(1))
    g.play("wedding")
    ben = [e.text for e in g.events if isinstance(e, Private) and e.user == "replay:ben"]
    carl = [e.text for e in g.events if isinstance(e, Private) and e.user == "replay:carl"]
    assert any(t.startswith("Dein Blatt") or "Deine Karten" in t for t in ben), ben[:5]
    assert any(t.startswith("La tua mano") for t in carl), carl[:5]
    public = [e.text for e in g.events if isinstance(e, Public)]
    assert any("Matrimonio" in t for t in public)
    german = english_fragments("de")
    italian_only = {f for f in english_fragments("it")}
    assert not [t for t in ben if any(f in t for f in german)]
    assert not [t for t in carl if any(f in t for f in italian_only)]


@pytest.mark.parametrize("lang", languages.codes()[1:])
def test_the_shipped_languages_are_complete(lang: str) -> None:
    """A catalogue may be partial (English fills in), but the shipped ones are not: every
    English text, every command's and option's name and every solo has its own word."""
    from dokobot.host.options import OPTIONS

    missing = set(catalogue("en")) - set(catalogue(lang))
    assert sorted(k for k in missing if not k.startswith("count.")) == []  # phrases: its own
    w = languages.words(lang)
    assert sorted(set(COMMANDS) - set(w.commands)) == []
    assert set(w.solos) == {"clubs", "spades", "hearts", "diamonds", "queens", "jacks", "fleshless"}
    if lang != "de":  # German keeps the English names of most options
        assert sorted(set(OPTIONS) - set(w.options)) == []


def test_events_carry_the_language_they_were_rendered_in() -> None:
    g = Game({"anna": "it", "ben": "de", "carl": "cs", "dora": "it"}, "it")
    g.directive(deal_line(4))
    g.play("solo")
    privates = [e for e in g.events if isinstance(e, Private)]
    by_user = {"replay:ben": "de", "replay:carl": "cs", "replay:anna": "it", "replay:dora": "it"}
    assert privates and all(e.lang == by_user[e.user] for e in privates)
    publics = [e for e in g.events if isinstance(e, Public)]
    assert publics[0].lang == "en"  # anna's join, before she set the table's language
    assert len(publics) > 40 and all(e.lang == "it" for e in publics[2:])


# ---------------------------------------------------------------------------- a language is data

SYNTHETIC_MESSAGES = """\
# A made-up language: only a few texts; English fills in the rest.
your_hand: "Yer booty: {cards}"
card_played: "{player} slaps down {card}"
lang_set: "Arr, pirate it be."
language_name: "Pirate"
solo:
  clubs: "clover solo"
brief:
  play: "slap down a card"
"""
SYNTHETIC_WORDS = """\
commands:
  join: [boardship]
  start: [hoist]
  healthy: [shipshape]
  reservation: [parley]
  wedding: [marry]
  solo: [lonewolf]
  play: [slap]
  lang: [tongue]
  help: [halp]
args:
  play.card: plunder
solos:
  clubs: [clover]
cards:
  suits:
    clubs: [cl, clover]
    spades: [pk, pike]
    hearts: [ht, heart]
    diamonds: [gm, gem]
  ranks:
    ace: [x, ace]
    ten: ["10", ten]
    king: [r, rex]
    queen: [w, wench]
    jack: [v, varlet]
    nine: ["9", nine]
  fillers: [o]
"""


def test_a_language_added_from_files_in_a_folder_plays_a_whole_game(tmp_path: Path) -> None:
    """Adding a language is its files plus one registry line: here both come from a test
    folder, and a wedding and a solo are played in it."""
    (tmp_path / "words").mkdir()
    (tmp_path / "fr.yaml").write_text(SYNTHETIC_MESSAGES, encoding="utf-8")
    (tmp_path / "words" / "fr.yaml").write_text(SYNTHETIC_WORDS, encoding="utf-8")
    line = languages.Language("fr", "Pirate", "9 V W R 10 X", folder=tmp_path)
    assert "fr" not in languages.codes()
    with languages.added(line):
        assert "fr" in languages.codes()
        g = Game({n: "fr" for n in SEATS}, "fr")
        g.directive(deal_line(1))
        g.play("wedding")
        g.directive(deal_line(2))
        g.play("solo")
        assert [r["type"] for r in g.rep.results()][:2][1] == "solo"
        texts = list(g.to("ben"))
        assert any(t.startswith("Yer booty: ") for t in texts)
        assert any(" slaps down ♣W" in t or " slaps down " in t for t in texts)
        assert any("clover solo" in t for t in texts)
        assert any(t.startswith("Game 1") for t in texts)  # a text it lacks: English
        shown = " ".join(t for t in texts if t.startswith("Yer booty: "))
        assert set(re.findall(r"[♣♠♥♦](10|\w)", shown)) <= {"9", "V", "W", "R", "10", "X"}
        assert "slap" in g.lines[-1] or any(": /slap " in ln for ln in g.lines)
        # help lists the commands by the language's names, English where it has none
        g.say("ben", "/halp")
        listing = g.events[-1].text
        assert "/slap" in listing and "slap down a card" in listing and "/leave" in listing
        # Discord's command picker names the commands in its locale (fr: the code's)
        from test_declarations import _payloads

        payloads = {p["name"]: p for p in _payloads()}
        assert payloads["play"]["name_localizations"]["fr"] == "slap"
        assert payloads["hand"]["name_localizations"]["fr"] == "hand"
    assert "fr" not in languages.codes()  # and gone again with its line
    assert languages.words("fr").commands == languages.words("en").commands


def test_the_players_page_lists_every_language_of_the_registry() -> None:
    root = Path(__file__).resolve().parent.parent / "docs"
    playing = (root / "playing.md").read_text(encoding="utf-8")
    assert "| `/lang " + "\\|".join(languages.codes()) + "` |" in playing
    section = playing[playing.index("## Languages\n") :]
    section = section[: section.index("\n## ", 1)]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, flags=re.M)
    assert [(code, name.strip()) for code, name in rows] == [
        (lang.code, lang.name) for lang in languages.REGISTRY
    ]
    for code in languages.codes()[2:]:  # the rules translated for the seeds' languages
        text = (root / f"rules.{code}.md").read_text(encoding="utf-8")
        numbered = re.findall(r"^## (\d+)\.", text, flags=re.M)
        assert numbered == re.findall(r"^## (\d+)\.", (root / "rules.md").read_text(), re.M)
    assert "one registry line" in (root / "languages.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("typed", "option", "value"),
    [
        ("/opzione mode duello", "mode", "duel"),
        ("/option wedding_trick trumf", "wedding_trick", "trump"),
        ("/option bot_level stark", "bot_level", "strong"),
        ("/option rated automatico", "rated", "auto"),
        ("/option mode einzeln", "mode", "single"),
    ],
)
def test_option_values_are_typed_in_every_language(typed: str, option: str, value: str) -> None:
    from dokobot.host.replay import Replayer

    rep = Replayer()
    rep.run_text("anna: /join\n!admin anna")
    if option == "rated":
        rep.run_text("anna: /option rated on")
    rep.run_text(f"anna: {typed}")
    assert rep.table.options.get(option) == value


def test_computer_levels_are_typed_in_every_language() -> None:
    from dokobot.host.replay import Replayer

    rep = Replayer()
    rep.run_text(
        "anna: /join\nanna: /join bot forte\nanna: /join bot silný\nanna: /join bot leicht"
    )
    assert [s.bot for s in rep.table.seats[1:]] == ["strong", "strong", "easy"]
    refused = Replayer()
    refused.run_text("anna: /join\nanna: /join bot zzz")
    assert len(refused.table.seats) == 1


def test_the_language_files_are_read_with_libyaml_where_pyyaml_has_it() -> None:
    """The C parser reads the same data as PyYAML's own (checked on every shipped file), at
    a tenth of the CPU: every ``dokobot`` process reads the language files at its start."""
    import yaml

    assert yaml.__with_libyaml__, "PyYAML without libyaml: install its wheel"
    assert languages.YAML_LOADER is yaml.CSafeLoader
    files = sorted((Path(languages.__file__).parent / "host" / "locales").rglob("*.yaml"))
    assert len(files) >= 4 * 2
    for path in files:
        text = path.read_text("utf-8")
        assert yaml.load(text, Loader=yaml.CSafeLoader) == yaml.safe_load(text), path


def _without_diacritics(word: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def test_czech_words_are_typed_with_or_without_their_diacritics() -> None:
    """The Czech words file promises that every word with diacritics may be typed without
    them (a keyboard without Czech letters): each entry lists both, and a command typed
    either way is the same command (``/výzvy`` and ``/vyzvy``, ``/zaskočit``)."""
    from dokobot.host.commands import find

    w = languages.words("cs")
    entries = [
        *w.commands.values(), *w.options.values(), *w.values.values(), *w.solos.values(),
        *w.suits.values(), *w.ranks.values(), w.yes, w.no,
    ]  # fmt: skip
    missing = [
        (entry[0], word)
        for entry in entries
        for word in entry
        if _without_diacritics(word) not in entry
    ]
    assert missing == []
    for name, words in w.commands.items():
        for word in words if name in COMMANDS else ():  # (not the adapters' own commands)
            found = find(_without_diacritics(word), "cs")
            assert found is not None and found.name == name, word
    assert find("zaskočit", "cs") is COMMANDS["standin"]
    assert find("zdravý", "cs") is COMMANDS["healthy"]


@pytest.mark.parametrize("lang", languages.codes())
def test_a_command_s_help_names_it_as_the_help_list_shows_it(lang: str) -> None:
    """``/help COMMAND`` starts with the command as the list shows it in the language (its
    first word there): the words file and the help text do not drift apart."""
    helps = {
        k.removeprefix("help."): v for k, v in catalogue(lang).items() if k.startswith("help.")
    }
    drifted = []
    for name, command in COMMANDS.items():
        text = helps.get(name, "")
        head = re.match(r"/([^\s:,.()]+)", text)
        if head is not None and head.group(1) != command.name_in(lang):
            drifted.append((name, head.group(1), command.name_in(lang)))
    assert drifted == []


@pytest.mark.parametrize("lang", languages.codes())
def test_every_command_a_message_names_is_named_in_the_message_s_language(lang: str) -> None:
    """A ``/command`` in any message of a language is one of that language's names for a
    command (German messages say ``/webseite``, not the English ``/web``): a renamed word in
    the words file cannot leave a stale name in a message."""
    own = {n for c in COMMANDS.values() for n in c.names_in(lang)}
    stale = {
        (key, m.group(1))
        for key, text in catalogue(lang).items()
        for m in re.finditer(r"(?<![\w/)])/([^\s/,.;:()\[\]|'\"»«„“{]+)", text)
        if m.group(1).lower() not in own
    }
    assert stale == set()
