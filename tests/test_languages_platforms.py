"""A German player at an Italian table, on Discord (the fake) and on IRC (ngIRCd): the table's
lines and board in Italian, each player's own lines, words and pictures in his language, in
the same game. The adapters learn the language from the events (they no longer read /lang or
/option language, nor the router's tables)."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.prompts import shown_cards
from dokobot.host.service import Service
from dokobot.host.table import sorted_hand
from dokobot.render import HandPicture, hand_png
from dokobot.render.cards import DEFAULT_DECK

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, running
from discord_fake.harness import make_client, open_my_cards, settle
from irc_server import NgircdServer


async def test_discord_a_german_player_at_an_italian_table(fake: FakeDiscord) -> None:
    anna, ben = fake.users[0], fake.users[1]
    ben.locale = "en-US"  # his Discord speaks English: only /lang makes him read German
    service = Service.in_memory(seed=5)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await settle(fake, client, await fake.slash(anna, "join"))
            option = {"name": "language", "value": "it"}
            await settle(fake, client, await fake.slash(anna, "option", option))
            lang = await settle(fake, client, await fake.slash(ben, "lang", {"language": "de"}))
            assert lang.ephemeral_messages[0].content.startswith("Ich schreibe dir")
            await settle(fake, client, await fake.slash(ben, "join"))
            for _ in range(2):
                await settle(fake, client, await fake.slash(anna, "join", {"bot": True}))
            await settle(fake, client, await fake.slash(anna, "start"))
            table = service.router.tables[channel]
            game = table.game
            assert game is not None and table.options.language == "it"

            board, opened = await open_my_cards(fake, client, ben)
            assert board.embeds and "Partita 1" in str(board.embeds[0])
            assert board.buttons[0]["label"].endswith("Le mie carte")  # the table's words
            [panel] = opened.ephemeral_messages
            assert "Deine Karten" in panel.content and "Meine Karten" in panel.content
            seat = table.seat_of(f"discord:{ben.id}")
            assert seat is not None
            shown = shown_cards(game, sorted_hand(game, game.hands[seat]))
            german = HandPicture(shown.cards, shown.groups, None, "de", DEFAULT_DECK)
            assert panel.files == [("hand.png", hand_png(german))]

            _, opened = await open_my_cards(fake, client, anna)
            [panel] = opened.ephemeral_messages
            assert "La tua mano" in panel.content and "Le mie carte" in panel.content
            shown = shown_cards(game, sorted_hand(game, game.hands[0]))
            italian = HandPicture(shown.cards, shown.groups, None, "it", DEFAULT_DECK)
            assert panel.files == [("hand.png", hand_png(italian))]
            assert hand_png(italian) != hand_png(german)  # ♣D, ♣F against ♣D, ♣B
    finally:
        await service.close()
    assert fake.violations == []


async def test_irc_a_german_player_at_an_italian_table(ngircd: NgircdServer) -> None:
    from test_irc_e2e import BOT, CHANNEL, players, require_ngircd, running, settings_for

    require_ngircd()
    service = Service.in_memory(seed=6)
    try:
        async with (
            running(service, settings_for(ngircd)),
            players(ngircd, "anna", "ben") as (anna, ben),
        ):
            await anna.say(CHANNEL, "!entra")  # Italian and English names work on IRC too
            await anna.wait_for(lambda m: m.text.startswith("anna join"))
            await anna.say(CHANNEL, "!opzione lingua it")
            await anna.wait_for(lambda m: "lingua" in m.text or "language" in m.text)
            mark = len(ben.messages)
            await ben.say(BOT, "!sprache de")
            said = await ben.wait_for(lambda m: m.command == "NOTICE", since=mark)
            assert said.text.startswith("Ich schreibe dir")
            await ben.say(CHANNEL, "!mitspielen")
            await ben.wait_for(lambda m: m.text.startswith("ben si siede"))
            for _ in range(2):
                await anna.say(CHANNEL, "!entra bot")
            await anna.wait_for(lambda m: "(4/4)" in m.text)
            mark_anna, mark_ben = len(anna.messages), len(ben.messages)
            await anna.say(CHANNEL, "!inizia")
            started = await anna.wait_for(
                lambda m: m.text.startswith("Partita 1:"), since=mark_anna
            )
            assert "primo di mano" in started.text  # the channel reads Italian
            # on IRC a hand comes with its player's first prompt: anna answers first
            await anna.wait_for(lambda m: m.command == "NOTICE", since=mark_anna)
            await anna.say(CHANNEL, "!healthy")
            hand_ben = await ben.wait_for(
                lambda m: m.command == "NOTICE" and m.nick == BOT, since=mark_ben
            )
            hand_anna = await anna.wait_for(
                lambda m: m.command == "NOTICE" and m.nick == BOT, since=mark_anna
            )
            assert hand_ben.text.startswith("Deine Karten"), hand_ben.text
            assert hand_anna.text.startswith("La tua mano"), hand_anna.text
            # each reads the cards in his letters: German B(ube), K(önig); Italian F(ante), R(e)
            letters = re.compile(r"[♣♠♥♦](10|\w)")
            assert set(letters.findall(hand_ben.text)) <= {"9", "B", "D", "K", "10", "A"}
            assert set(letters.findall(hand_anna.text)) <= {"9", "F", "D", "R", "10", "A"}
            assert len(letters.findall(hand_anna.text)) == 12
            mark = len(ben.messages)
            await ben.say(BOT, "!hilfe")
            helped = await ben.wait_for(lambda m: m.command == "NOTICE", since=mark)
            assert helped.text.startswith("Befehle")
    finally:
        await service.close()


@pytest.fixture
async def web_site() -> AsyncIterator[tuple[Service, str]]:
    from test_web import _served

    from dokobot.store import MemoryStore

    async for pair in _served(MemoryStore()):
        yield pair


async def test_the_web_pages_in_italian_and_czech(web_site: tuple[Service, str]) -> None:
    """The pages in the address's language (``?lang=it``) or the browser's: their texts, the
    cards' names and pictures in its letters."""
    import os

    from test_web import DATA, _get

    from dokobot.host.feed import feed

    service, base = web_site
    lines = (DATA / "forced-1.doko").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith("/start")]
    with open(os.devnull, "w") as out:
        await feed(service, [*lines[: starts[1]], "anna: /start"], out=out)
    key, _ = service.store.web_page("feed")
    board = f"{base}/s/{key}/"
    status, page = await _get(board + "?lang=it")
    assert status == 200 and "<h1>Classifica</h1>" in page and "Leaderboard" not in page
    status, page = await _get(board + "?lang=cs")
    assert status == 200 and "<h1>Žebříček</h1>" in page
    status, page = await _get(board + "game/1?lang=it")
    assert status == 200 and "Presa 1 di 12" in page and "Trick" not in page
    assert "/card/it/" in page and "/card/en/" not in page
    assert re.search(r'alt="[♣♠♥♦](10|[9FDRA])"', page) and not re.search(
        r'alt="[♣♠♥♦][JQK]"', page
    )
