"""Issue 38, item 7: command hints for the platform. IRC clients take a leading slash as their
own command and send nothing, so no line the bot sends on IRC suggests one (``!start``);
Discord and the console keep ``/start``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from dokobot import languages
from dokobot.host.contract import BareHost
from dokobot.host.events import Public
from dokobot.host.i18n import command_hints, render
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

#: A slash a reader would take for the start of a command: at the start of the text or after
#: a space, a bracket or a quotation mark, before a letter.
LEADING = re.compile(r"(?:^|[\s(\[{„\"'«“‘`*])/[^\W\d_]", re.M)
FIELD = re.compile(r"\{(\w+)(?::\w+)?\}")


def _rendered(lang: str, key: str) -> str:
    template = languages.messages(lang)[key]
    return render(lang, key, {name: name for name in FIELD.findall(template)})


def test_no_message_suggests_a_leading_slash_on_irc() -> None:
    from irc_offline import offline_adapter

    adapter, _ = offline_adapter(BareHost())
    suggested = 0
    for lang in languages.codes():
        for key in languages.messages(lang):
            said = _rendered(lang, key)
            suggested += bool(LEADING.search(said))
            adapter.chat.delivery.say("irc:net:#c", said)
            for line in adapter.outbox.units()[-1].lines:
                assert not LEADING.search(line), (lang, key, line)
    assert suggested > 100  # the messages do suggest commands (as /start on Discord)


def test_the_hint_keeps_slashes_that_are_no_commands() -> None:
    said = "on/off, Re/Kontra, 3/4, https://doko.example.org/game/7, ♣Q/♠Q"
    assert command_hints(said, "!") == said
    assert command_hints("„/zdravá“ nebo (/výhrada)", "!") == "„!zdravá“ nebo (!výhrada)"
    assert command_hints("/start", "/") == "/start"  # Discord, the console


async def test_the_irc_adapter_sends_the_hints_with_an_exclamation_mark() -> None:
    from irc_offline import offline_adapter

    adapter, _ = offline_adapter(Service.in_memory(seed=1))
    text = render("it", "no_game_seats", {"n": 1})
    assert "/entra" in text
    await adapter.deliver([Public("irc:net:#c", text)])
    (unit,) = adapter.outbox.units()
    assert "!entra" in unit.lines[0] and "/entra" not in unit.lines[0]


async def test_an_export_sent_on_irc_is_left_as_it_is() -> None:
    from irc_offline import offline_adapter

    from dokobot.host.events import Private

    adapter, _ = offline_adapter(Service.in_memory(seed=1))
    export = "# dokobot export\nanna: /join\nben: /join"
    await adapter.deliver([Private("irc:net:#c", "irc:net:anna", export, reply=True,
                                   kind="export")])  # fmt: skip
    (unit,) = adapter.outbox.units()
    assert "anna: /join" in "\n".join(unit.lines)
