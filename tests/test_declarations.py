"""Issue 14: each command, option, bot level and language is declared once, and everything
made from the declarations agrees with them: the router's dispatch and permission checks,
/help, the Discord slash tree (names in every language, arguments, choices), the service's slow
commands, the config schema, /options and the CLI."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import Locale, app_commands

from dokobot import languages
from dokobot.adapters.discord.i18n import DokoTranslator, lang_of, picker_texts
from dokobot.adapters.discord.slash import DECK, PROMPTS, help_topics, slash_commands
from dokobot.adapters.textchat.typed import with_choices
from dokobot.ai.levels import LEVELS, OFFERED_LEVELS
from dokobot.config import _SCHEMA, parse_config
from dokobot.engine.scoring import SCORE_ITEMS
from dokobot.engine.types import Solo
from dokobot.host.commands import COMMANDS, ArgKind, Command, Phase, Who, find
from dokobot.host.dispatch import SLOW_COMMANDS
from dokobot.host.events import Input, Private
from dokobot.host.handlers.actions import solo_names
from dokobot.host.handlers.general import defaults_text
from dokobot.host.i18n import (
    OptionValue,
    catalogue,
    command_in,
    name_text,
    option_value_text,
    render,
)
from dokobot.host.options import (
    BOT_LEVELS,
    HOUSE_RULES,
    NEEDS,
    OPTIONS,
    RULE_OPTIONS,
    OptionError,
    TableOptions,
    option_name,
    option_values,
)
from dokobot.host.router import Router
from dokobot.host.views import help_lists
from dokobot.stats import BOARDS
from tests.discord_fake.server import command_problems

ROOT = Path(__file__).resolve().parent.parent
SEATS = ("anna", "ben", "carl", "dora")
LANGS = languages.codes()


class _Host:
    """A stand-in bot that records the command texts the slash commands make."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def run_command(self, interaction: Any, text: str) -> None:
        self.texts.append(text)

    def card_suggestions(self, interaction: Any, current: str) -> list[app_commands.Choice[str]]:
        return []

    async def set_prompts(self, interaction: Any, where: str) -> None:
        self.texts.append(f"prompts {where}")


def _tree() -> dict[str, app_commands.Command[Any, ..., None]]:
    return {c.name: c for c in slash_commands(_Host())}


def _payloads() -> list[dict[str, Any]]:
    async def build() -> list[dict[str, Any]]:
        tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
        return [await c.get_translated_payload(tree, DokoTranslator())
                for c in slash_commands(_Host())]  # fmt: skip

    return asyncio.run(build())


def _seated_router() -> Router:
    router = Router(seed=3)
    for name in SEATS:
        router.handle(Input("c", name, name, "/join"))
    return router


def _texts(router: Router, user: str, line: str, dm: bool = False) -> list[str]:
    return [e.text for e in router.handle(Input("c", user, user, line, dm=dm))]


# ---------------------------------------------------------------------------- commands


def test_every_name_of_every_command_is_routed_to_it() -> None:
    unknown = render("en", "unknown_command", {"word": "xyz"}).split("/xyz")[0]
    for spec in COMMANDS.values():
        for lang in LANGS:
            for name in spec.names_for(lang):  # the language's names and the English ones
                assert find(name, lang) is spec and find(name.upper(), lang) is spec
        for name in {n for lang in LANGS for n in spec.names_in(lang)}:
            router = Router(seed=1)
            answer = _texts(router, "anna", f"/{name}") + _texts(router, "anna", f"!{name}")
            assert not any(t.startswith(unknown) for t in answer), (name, answer)


def test_names_are_unique_lower_case_words_in_each_language() -> None:
    for lang in LANGS:
        names = [n for spec in COMMANDS.values() for n in spec.names_in(lang)]
        assert len(names) == len(set(names)), lang
        assert all(re.fullmatch(r"\w+", n) and n == n.lower() for n in names), names


def test_a_second_declaration_of_a_name_is_refused() -> None:
    from dokobot.host.commands import command

    with pytest.raises(ValueError, match="twice"):
        command("play", summary="x")(lambda *a: [])


@pytest.mark.parametrize("lang", LANGS)
def test_help_lists_every_command_by_its_name_in_the_language(lang: str) -> None:
    router = Router(seed=1)
    _texts(router, "anna", f"/lang {lang}")
    rows = _texts(router, "anna", "/help")[0].splitlines()[1:-1]  # between head and foot
    listed = [row.split()[0][1:] for row in rows]
    assert listed == [spec.name_in(lang) for spec in COMMANDS.values()]
    for spec in COMMANDS.values():
        assert spec.brief_key in catalogue(lang) and spec.help_key in catalogue(lang)
        explained = _texts(router, "anna", f"/help {spec.names_in(lang)[-1]}")[0]
        aliases = explained_aliases(spec, lang)
        assert explained == render(lang, spec.help_key, {"aliases": aliases, **help_lists(lang)})
        assert "{" not in explained, explained


def explained_aliases(spec: Command, lang: str) -> str:
    return ", ".join("/" + a for a in spec.names_for(lang))


def test_the_help_order_is_the_declared_groups() -> None:
    order = list(COMMANDS)
    assert order[:4] == ["join", "leave", "replace", "start"]
    assert order[-2:] == ["help", "quit"]
    assert order.index("black") < order.index("hand") < order.index("option")


def test_seated_commands_refuse_people_who_are_not_seated() -> None:
    router = _seated_router()
    not_seated = render("en", "not_seated")
    for spec in COMMANDS.values():
        if spec.who is Who.SEATED:
            assert _texts(router, "eve", f"/{spec.name}") == [not_seated], spec.name


def test_game_commands_refuse_when_no_game_runs() -> None:
    router = _seated_router()
    no_game = render("en", "no_game")
    for spec in COMMANDS.values():
        if spec.phase is Phase.GAME:
            assert _texts(router, "anna", f"/{spec.name}") == [no_game], spec.name


def test_channel_commands_refuse_private_messages() -> None:
    router = _seated_router()
    here = render("en", "in_channel_only")
    for spec in COMMANDS.values():
        if spec.channel_only:
            assert _texts(router, "anna", f"/{spec.name}", dm=True) == [here], spec.name


def test_owner_only_changes_are_refused_to_others() -> None:
    router = _seated_router()
    changing = [s for s in COMMANDS.values() if s.changes is Who.OWNER]
    assert [s.name for s in changing] == ["option"]
    answer = _texts(router, "ben", "/option stake 5")
    assert answer == [render("en", "not_owner", {"owner": "anna"})]
    assert router.tables["c"].options.stake == 1


def test_slow_commands_are_the_declared_ones() -> None:
    assert {s.name for s in COMMANDS.values() if s.slow} == SLOW_COMMANDS
    assert {"export", "stats", "top", "score", "review", "hint"} == SLOW_COMMANDS


# ---------------------------------------------------------------------------- Discord


def test_every_command_is_a_slash_command_or_says_why_not() -> None:
    tree = _tree()
    on_discord = {s.name for s in COMMANDS.values() if s.summary is not None}
    assert set(tree) == on_discord | {PROMPTS, DECK}
    for spec in COMMANDS.values():
        assert (spec.summary is None) == bool(spec.unlisted), spec.name
    assert [s.name for s in COMMANDS.values() if s.summary is None] == ["quit"]
    assert set(help_topics()) == on_discord


OTHERS = tuple(lang for lang in languages.REGISTRY if lang.code != languages.DEFAULT)


def _localized(name: Any) -> dict[str, str]:
    """What the payload should localize: ``name(code)`` for every other language (Discord's
    locale of each is its code)."""
    return {lang.code: name(lang.code) for lang in OTHERS}


def _described(english: str) -> dict[str, str]:
    return {lang.code: picker_texts(lang.code)[english] for lang in OTHERS}


def test_the_slash_tree_has_the_declared_names_arguments_and_names_in_every_language() -> None:
    payloads = {p["name"]: p for p in _payloads()}
    assert command_problems(list(payloads.values())) == []
    for spec in COMMANDS.values():
        if spec.summary is None:
            continue
        p = payloads[spec.name]
        assert p["name_localizations"] == _localized(spec.name_in), spec.name
        assert p["description"] == spec.summary
        assert p["description_localizations"] == _described(spec.summary)
        options = {o["name"]: o for o in p.get("options", [])}
        assert set(options) == {a.name for a in spec.args}, spec.name
        for arg in spec.args:
            o = options[arg.name]
            named = {lang.code: arg.name_in(lang.code, spec.name) for lang in OTHERS}
            assert o["name_localizations"] == named
            assert o["description_localizations"] == _described(arg.describe)
            assert bool(o.get("required")) == arg.required
            got = [(c["value"], c["name"]) for c in o.get("choices", [])]
            if arg.suggest == "language":
                assert got == [(lang.code, lang.name) for lang in languages.REGISTRY]
                continue
            assert got == list(arg.choices), (spec.name, arg.name)
            for value, label in arg.choices:
                shown = next(c for c in o["choices"] if c["value"] == value)
                assert shown["name_localizations"] == _described(label)
            assert bool(o.get("autocomplete")) == bool(arg.suggest)
    assert payloads["prompts"]["name_localizations"]["de"] == "aufforderungen"


def test_every_english_text_of_the_slash_tree_is_translated_and_no_translation_is_stale() -> None:
    english: set[str] = set()
    for p in _payloads():
        english.add(p["description"])
        for o in p.get("options", []):
            english.add(o["description"])
            if o["name"] != "language":  # each language is named in its own language
                english |= {c["name"] for c in o.get("choices", [])}
    assert "Where your prompts come: by DM or here" in english and len(english) > 60
    for lang in LANGS:
        table = picker_texts(lang)
        if lang == "en":
            assert table == {}
            continue
        assert sorted(english - set(table)) == [], lang
        assert sorted(set(table) - english) == [], lang  # a text no declaration has any more
        assert all(v.strip() for v in table.values()), lang


def _call(cmd: str, **values: Any) -> str:
    host = _Host()
    command = next(c for c in slash_commands(host) if c.name == cmd)
    asyncio.run(command.callback(None, **values))  # type: ignore[arg-type, call-arg]
    return host.texts[-1]


def test_slash_commands_send_the_command_text_of_their_arguments() -> None:
    level = app_commands.Choice(name="Strong", value="strong")
    assert _call("join") == "/join"
    assert _call("join", bot=True) == "/join bot"
    assert _call("join", bot=True, level=level) == "/join bot strong"
    assert _call("solo", type=app_commands.Choice(name="x", value="queens")) == "/solo queens"
    assert _call("play", card=" CQ ") == "/play CQ"
    assert _call("score", game=3, csv=False, chart=False) == "/score 3"
    assert _call("score", game=3, csv=True, chart=True) == "/score csv"
    assert _call("score", chart=True) == "/score chart"
    assert _call("stats", player="ben", chart=True) == "/stats ben chart"
    assert _call("option", name="stake", value=None) == "/option stake"
    assert _call("option", name=" stake ", value="5") == "/option stake 5"
    assert _call("help", command="/play") == "/help play"
    assert _call("export", csv=True) == "/export csv"
    assert _call("prompts", where=app_commands.Choice(name="x", value="here")) == "prompts here"
    for spec in COMMANDS.values():  # and each text goes to the command it came from
        if spec.summary is not None and not any(a.required for a in spec.args):
            assert find(_call(spec.name)[1:].split()[0]) is spec


def test_choices_come_from_the_declared_levels_languages_and_boards() -> None:
    from dokobot.stats import BOARDS

    def choices(cmd: str, arg: str) -> tuple[str, ...]:
        return tuple(v for v, _ in next(a for a in COMMANDS[cmd].args if a.name == arg).choices)

    assert choices("join", "level") == OFFERED_LEVELS == BOT_LEVELS
    assert choices("top", "board") == BOARDS
    german = asyncio.run(DokoTranslator().translate(
        app_commands.locale_str("healthy", de="gesund"), Locale.german, None))  # fmt: skip
    assert german == "gesund"


def test_a_discord_locale_is_the_language_of_its_code() -> None:
    """No language declares its Discord locale: Discord's locales of the registry's languages
    are their codes (English's are en-US and en-GB), and every other reads English."""
    read = {loc.value: lang_of(loc) for loc in Locale}
    assert {value: code for value, code in read.items() if code != "en"} == {
        lang.code: lang.code for lang in OTHERS
    }
    assert read["en-US"] == read["en-GB"] == read["fr"] == "en"


# ---------------------------------------------------------------------------- options


def test_every_option_is_declared_in_the_config_schema_and_in_options() -> None:
    assert list(OPTIONS) == TableOptions.names()
    assert set(_SCHEMA["tables"]) == set(OPTIONS)
    router = _seated_router()
    shown = _texts(router, "anna", "/options")[0]
    for name in OPTIONS:
        assert re.search(rf"^{name} = ", shown, flags=re.M), name


@pytest.mark.parametrize("lang", LANGS)
def test_help_texts_name_the_declared_lists_filled_in_when_shown(lang: str) -> None:
    router = _seated_router()
    _texts(router, "anna", f"/lang {lang}")
    (option,) = _texts(router, "anna", "/help option")
    for name in OPTIONS:  # by the reader's names (issue 38)
        assert re.search(rf"\b{option_name(name, lang)}\b", option), (lang, name)
    house = option[option.index(", ".join(option_name(n, lang) for n in HOUSE_RULES)) :]
    assert option_name("tournament", lang) not in house  # the house rules are listed apart
    (join,) = _texts(router, "anna", "/help join")
    levels = "|".join(option_value_text(level, lang) for level in OFFERED_LEVELS)
    assert levels in join  # in the reader's words (forte, stark)
    (lang_help,) = _texts(router, "anna", "/help lang")
    assert "|".join(LANGS) in lang_help
    (top,) = _texts(router, "anna", "/help top")
    assert "|".join(BOARDS) in top
    listing = "\n".join(_texts(router, "anna", "/help"))
    assert levels in listing and "{" not in listing
    # no catalogue restates a declared list: they are placeholders
    for key in ("help.option", "help.join", "help.lang", "help.top", "brief.join", "brief.lang"):
        raw = catalogue(lang)[key]
        assert "wedding_trick" not in raw and "random|easy" not in raw, (lang, key)
        assert "points|rating" not in raw and "de|en" not in raw, (lang, key)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_solo_types_are_named_from_the_words_files(lang: str) -> None:
    """The prompts, refusals and help name the solos in the reader's words (the language's
    words file); no catalogue text lists them."""
    words = languages.words(lang).solos
    router = _seated_router()
    _texts(router, "anna", f"/lang {lang}")
    (solo,) = _texts(router, "anna", "/help solo")
    brief = "\n".join(_texts(router, "anna", "/help"))
    for key in ("clubs", "spades", "hearts", "diamonds", "queens", "jacks", "fleshless"):
        assert words[key][0] in solo and words[key][0] in brief, (lang, key)
    assert "solo_types" not in catalogue(lang)
    for key in ("help.solo", "brief.solo", "turn_declaration", "turn_forced"):
        assert words["fleshless"][0] not in catalogue(lang)[key], (lang, key)


@pytest.mark.parametrize("lang", LANGS)
def test_a_text_chat_lists_the_solos_to_declare_in_the_readers_words(lang: str) -> None:
    """The declaration prompt's solo choices, as a text chat lists them, are typed in the
    reader's words (before: ``[/solo diamonds | …]`` under an Italian prompt naming ``denari``),
    and a text that names the solo words already does not repeat them as commands."""
    router = _seated_router()
    for name in SEATS:
        _texts(router, name, f"/lang {lang}")
    events = router.handle(Input("c", "anna", "anna", "/start"))
    reserved = False
    prompt: Private | None = None
    while prompt is None:
        asked = next(e for e in events if isinstance(e, Private) and e.kind == "reservation")
        if any(c.command.startswith("/solo ") for c in asked.choices):
            prompt = asked
            break
        line = "/healthy" if reserved else "/reservation"
        reserved = True
        events = router.handle(Input("c", asked.user, asked.user, line))
    words = languages.words(lang).solos
    solos = [c for c in prompt.choices if c.command.startswith("/solo ")]
    assert len(solos) == len(Solo)
    for choice in solos:
        kind = choice.command.split()[1]
        typed = command_in(choice.command, lang)
        assert typed.split()[1] == words[kind][0], (lang, typed)
        assert solo_names(lang)[typed.split()[1]].key == kind
    assert with_choices(prompt.text, solos, lang, "/") == prompt.text
    # typed as listed, the solo is taken
    declared = command_in(solos[0].command, lang)
    router.handle(Input("c", prompt.user, prompt.user, declared))
    game = router.tables["c"].game
    assert game is not None and game.solo is not None
    assert game.solo.key == solos[0].command.split()[1]


@pytest.mark.parametrize("name", list(OPTIONS))
def test_the_config_takes_each_option_as_option_does(name: str) -> None:
    plain = TableOptions()
    default = plain.show(name)
    assert parse_config(f"tables:\n  {name}: {default}\n", env={}).tables == {name: default}
    with pytest.raises(OptionError):
        plain.set(name, "nonsense-value")
    with pytest.raises(ValueError, match=f"tables.{name}: must be"):
        parse_config(f"tables:\n  {name}: nonsense-value\n", env={})


def test_config_table_defaults_reach_new_tables() -> None:
    config = parse_config("tables:\n  poverty: on\n  stake: 5\n  turn_timeout: 30\n", env={})
    assert config.tables == {"poverty": "on", "stake": "5", "turn_timeout": "30"}
    assert config.turn_timeout == 30
    with pytest.raises(ValueError, match="tournament"):
        parse_config("tables:\n  poverty: on\n  tournament: on\n", env={})


def test_config_refuses_a_turn_timeout_that_option_refuses() -> None:
    # They disagreed: the config took 1-9 seconds, /option turn_timeout refuses them.
    with pytest.raises(OptionError):
        TableOptions().set("turn_timeout", "5")
    with pytest.raises(ValueError, match=r"tables\.turn_timeout"):
        parse_config("tables:\n  turn_timeout: 5\n", env={})


def test_house_rules_are_the_options_declared_so() -> None:
    assert list(HOUSE_RULES) == [n for n, d in OPTIONS.items() if d.house]
    assert {"poverty", "dullen", "superpiglets", "seats"} <= set(HOUSE_RULES)
    # every house rule is refused in tournament mode, and so are hints and watching
    assert [n for n, d in OPTIONS.items() if not d.tournament] == ["hints", "kibitz", *HOUSE_RULES]


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_each_house_rule_has_its_name_in_every_language_and_no_tournament(name: str) -> None:
    for lang in LANGS:
        if lang != languages.DEFAULT:  # its words file names it (German dullen is dullen too)
            assert name in languages.words(lang).options, (lang, name)
        assert TableOptions.canonical(option_name(name, lang)) == name
    other = _other_value(name)
    _needed(name).set(name, other)  # allowed outside tournament mode
    with pytest.raises(OptionError):
        TableOptions().set("tournament", "on").set(name, other)


def _needed(name: str) -> TableOptions:
    """The plain options with what option ``name`` needs on (superpiglets: piglets)."""
    needs = OPTIONS[name].needs
    return TableOptions().set(needs, "on") if needs else TableOptions()


@pytest.mark.parametrize("name", list(NEEDS))
def test_an_option_that_needs_another_is_refused_without_it_in_words_of_its_own(
    name: str,
) -> None:
    needed, other = NEEDS[name], _other_value(name)
    for options in (TableOptions(), _needed(name).set(name, other)):
        with pytest.raises(OptionError) as info:
            options.set(name, other).set(needed, "off")
        assert info.value.reason == f"option_needs.{name}"
    for lang in LANGS:
        assert f"option_needs.{name}" in catalogue(lang), lang
    assert NEEDS == {"superpiglets": "piglets"}  # RULES §12.8


def _other_value(name: str) -> str:
    """A value of option ``name`` that is not its default."""
    plain = TableOptions()
    decl = OPTIONS[name]
    values = option_values(name)
    if values:
        return next(v for v in values if v != plain.show(name))
    if isinstance(plain.get(name), bool):
        return "off" if plain.get(name) else "on"
    return str(int(decl.high))


@pytest.mark.parametrize("name", RULE_OPTIONS)
def test_every_rule_option_changes_the_rules(name: str) -> None:
    """The engine gets every rule option (a forgotten line used to make one do nothing)."""
    base = _needed(name)
    changed = base.set(name, _other_value(name))
    assert changed.rules != base.rules
    assert getattr(changed.rules, name) == changed.get(name)


def test_options_that_are_no_rule_options_leave_the_rules_alone() -> None:
    for name in OPTIONS:
        if name not in RULE_OPTIONS:
            assert TableOptions().set(name, _other_value(name)).rules == TableOptions().rules


def _options_module_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str
) -> None:
    """Import a copy of dokobot/host/options.py with ``old`` replaced by ``new``."""
    source = (ROOT / "dokobot" / "host" / "options.py").read_text(encoding="utf-8")
    assert old in source
    path = tmp_path / "options_probe.py"
    path.write_text(source.replace(old, new), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("dokobot.host.options_probe", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # the dataclasses look it up
    spec.loader.exec_module(module)


def test_a_rule_option_without_a_rules_field_is_refused_at_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    anchor = "    bock: bool = option("
    _options_module_with(tmp_path, monkeypatch, anchor, anchor)  # the copy itself imports
    jokers = "    jokers: bool = option(False, what=_ON_OFF, house=True, rule=True)\n"
    with pytest.raises(TypeError, match=r"without a field of Rules: \['jokers'\]"):
        _options_module_with(tmp_path, monkeypatch, anchor, jokers + anchor)
    source = (ROOT / "dokobot" / "host" / "options.py").read_text(encoding="utf-8")
    forgotten = next(line for line in source.splitlines() if line.startswith("    piglets: "))
    assert "rule=True" in forgotten
    with pytest.raises(TypeError, match=r"Rules fields without a rule option: \['piglets'\]"):
        _options_module_with(
            tmp_path, monkeypatch, forgotten, forgotten.replace("rule=True", "rule=False")
        )


@pytest.mark.parametrize("lang", LANGS)
def test_every_score_item_has_a_label_and_no_label_is_stale(lang: str) -> None:
    labels = {k.removeprefix("item.") for k in catalogue(lang) if k.startswith("item.")}
    assert labels == set(SCORE_ITEMS), lang
    assert SCORE_ITEMS[0] == "won" and len(SCORE_ITEMS) > 10


def _option_rows(page: str, heading: str) -> list[list[str]]:
    """The option table under ``heading`` of docs/``page``: its rows' cells."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    section = text[text.index(heading + "\n") :]
    section = section[: section.find("\n## ", 1)]
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in section.splitlines()
        if line.startswith("| `")
    ]


@pytest.mark.parametrize(("page", "heading"), [("playing.md", "## Options"),
                                               ("rules.md", "## 11. Options")])  # fmt: skip
def test_the_docs_option_tables_agree_with_the_declarations(page: str, heading: str) -> None:
    """Every option in declared order, with its values, its default and whether it is a
    house rule (the tables are written by hand for their readers and checked here)."""
    rows = _option_rows(page, heading)
    assert [r[0].strip("`") for r in rows] == list(OPTIONS), page
    plain = TableOptions()
    for name, values, default, meaning in rows:
        name = name.strip("`")
        decl = OPTIONS[name]
        if decl.values:
            assert set(re.split(r",\s*|/", values)) == set(decl.values), (page, name)
        elif isinstance(plain.get(name), bool):
            assert values in ("on/off", "on, off"), (page, name)
        assert default.split()[0] == plain.show(name), (page, name)
        assert ("house rule" in meaning) == decl.house, (page, name)


def test_every_house_rule_is_a_numbered_rule() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = rules[rules.index("## 12. House rules") :]
    for name in HOUSE_RULES:
        assert re.search(rf"^- \*\*12\.\d .*\(`{name}", section, flags=re.M), name


# ---------------------------------------------------------------------------- levels, languages


def test_bot_levels_and_languages_agree_everywhere() -> None:
    from dokobot import cli

    assert BOT_LEVELS == OFFERED_LEVELS and set(OFFERED_LEVELS) < set(LEVELS)
    assert tuple(_SCHEMA["bots"]["level"][1]) == OFFERED_LEVELS
    assert _SCHEMA["language"][1]() == LANGS
    assert OPTIONS["bot_level"].values == OFFERED_LEVELS
    assert OPTIONS["language"].languages and OPTIONS["language"].values == ()
    for lang in LANGS:
        assert TableOptions().set("language", lang).language == lang
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    console = sub.choices["console"]
    level = next(a for a in console._actions if a.dest == "level")
    lang = next(a for a in console._actions if a.dest == "lang")
    assert tuple(level.choices or ()) == OFFERED_LEVELS and set(lang.choices or ()) == set(LANGS)


def test_flags_and_choices_are_declared_completely() -> None:
    for spec in COMMANDS.values():
        for arg in spec.args:
            assert (arg.kind is ArgKind.FLAG) == bool(arg.word), (spec.name, arg.name)
            chosen = bool(arg.choices) or arg.suggest == "language"
            assert (arg.kind is ArgKind.CHOICE) == chosen, (spec.name, arg.name)


def test_every_prompt_button_answers_its_prompt_and_calls_do_not() -> None:
    # They disagreed: Discord used up the buttons of /play, /healthy, /reservation, /solo and
    # /wedding only; a pressed Poverty, Throw in, Take, Decline or card-to-give button stayed
    # (and a prompt kept for a member whose DMs are closed was not done with).
    from dokobot.adapters.discord.adapter import CONSUMING
    from dokobot.engine.types import N_ACTIONS, is_call
    from dokobot.engine.types import Phase as GamePhase
    from dokobot.host.table import command_for

    for action in range(N_ACTIONS):
        for phase in (None, GamePhase.EXCHANGE):
            spec = find(command_for(action, phase=phase)[1:].split()[0])
            assert spec is not None, action
            assert spec.answers_prompt == (not is_call(action)), (action, spec.name)
    assert {s.name for s in COMMANDS.values() if s.answers_prompt} == CONSUMING
    assert {"poverty", "throw", "take", "decline", "give"} <= CONSUMING


@pytest.mark.parametrize("lang", LANGS)
def test_every_option_has_a_help_text_that_help_option_shows(lang: str) -> None:
    router = _seated_router()
    _texts(router, "anna", f"/lang {lang}")
    _texts(router, "anna", "/option stake 5")
    for name, decl in OPTIONS.items():
        assert decl.name == name and decl.help_key in catalogue(lang), (lang, name)
        value = router.tables["c"].options.show(name)
        shown = _texts(router, "anna", f"/help option {name}")
        values = ", ".join(option_value_text(v, lang) for v in decl.values)
        defaults = defaults_text(name, router.chats)
        params = {"value": OptionValue(value), "values": values, "defaults": defaults}
        assert shown == [render(lang, decl.help_key, params)]
        assert "{" not in shown[0]
        assert name_text("option", name, lang) in shown[0]  # its name in the reader's words
    assert "5" in _texts(router, "anna", "/help option stake")[0]
    assert _texts(router, "anna", f"/help option {option_name('poverty', 'de')}") == _texts(
        router, "anna", "/help option poverty"
    )
    guess = _texts(router, "anna", "/help option stak")
    stake = name_text("option", "stake", lang)  # the guess in the reader's words
    assert guess == [render(lang, "option_unknown_guess", {"name": "stak", "guess": stake})]


def test_start_in_a_private_message_says_first_what_is_missing() -> None:
    router = _seated_router()
    assert _texts(router, "eve", "/start", dm=True) == [render("en", "no_table_dm")]
    assert _texts(router, "anna", "/start", dm=True) == [render("en", "in_channel_only")]
    assert _texts(router, "eve", "/join", dm=True) == [render("en", "in_channel_only")]
