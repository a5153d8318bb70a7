"""How a stored review is read: the channel's short summary in every language, a player's
own answer, and the review view of the web page (each mistake marked in its trick)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from dokobot.ai.review import Mistake
from dokobot.engine.types import DECLARE_SOLO, Solo
from dokobot.host.events import Input, Private
from dokobot.host.i18n import card_text
from dokobot.host.reviews import GameReview, own_answer, summary
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.stats import FinishedGame, Stats
from dokobot.store import MemoryStore
from dokobot.web import make_app

SA, H10, CQ, S9 = 22, 32, 4, 12  # ♠A, ♥10, ♣Q, ♠9
URL = "https://doko.example.org/s/k/game/7/review"


def _review() -> GameReview:
    """anna (seat 0): a serious reservation, two cards; ben (seat 2): one mistake nobody
    else may read (a reservation whose hand stays secret)."""
    return GameReview(
        4,
        ("u:anna", None, "u:ben", None),
        ("anna", "b1", "ben", "b2"),
        {0: 11, 2: 9},
        [
            Mistake(3, 0, 0, "reservation", None, DECLARE_SOLO + Solo.QUEENS, 1.6),
            Mistake(8, 2, 0, "reservation", None, DECLARE_SOLO + Solo.CLUBS, 2.0),
            Mistake(20, 0, 3, "card", SA, H10, 0.8),
            Mistake(31, 0, 5, "card", CQ, SA, 0.6),
        ],
        frozenset({8}),
    )


SUMMARIES = {
    "en": "Review of game 4: anna, costly decisions: 3 (−3.0): reservation: Healthy instead "
    "of queens solo (−1.6), serious; trick 3: ♠A instead of ♥10 (−0.8) and 1 more · ben: no "
    "mistake\nEach mistake marked in its trick: " + URL,
    "de": "Analyse von Spiel 4: anna, teure Entscheidungen: 3 (−3,0): Vorbehalt: Gesund statt "
    "Damensolo (−1,6), schwer; Stich 3: ♠A statt ♥10 (−0,8) und 1 weitere · ben: kein Fehler"
    "\nJeder Fehler in seinem Stich markiert: " + URL,
    "it": "Analisi della partita 4: anna, decisioni costose: 3 (−3,0): riserva: Buono invece "
    "di Solo di donne (−1,6), grave; presa 3: ♠A invece di ♥10 (−0,8) e altre 1 · ben: "
    "nessun errore\nOgni errore segnato nella sua presa: " + URL,
    "cs": "Rozbor hry 4: anna, drahá rozhodnutí: 3 (−3,0): výhrada: Zdravá místo dámské sólo "
    "(−1,6), vážná; tah 3: ♠A místo ♥10 (−0,8) a dalších 1 · ben: žádná chyba\nKaždá "
    "chyba vyznačená ve svém tahu: " + URL,
}


@pytest.mark.parametrize("lang", sorted(SUMMARIES))
def test_the_channels_summary_in_every_language(lang: str) -> None:
    text = summary(lang, _review(), URL)
    assert text == SUMMARIES[lang]
    # without web pages: the same line, no link
    assert summary(lang, _review(), None) == text.split("\n")[0]


def test_a_player_reads_all_his_own_mistakes_the_channel_only_the_public_ones() -> None:
    review = _review()
    assert own_answer("en", review, "u:ben") == (
        "Game 4: your decisions: 9, costly: 1 (lost in all: 2.0): reservation: Healthy "
        "instead of clubs solo (−2.0), serious"
    )
    assert own_answer("en", review, "u:anna") == (
        "Game 4: your decisions: 11, costly: 3 (lost in all: 3.0): reservation: Healthy "
        "instead of queens solo (−1.6), serious; trick 3: ♠A instead of ♥10 (−0.8); trick 5: "
        "♣Q instead of ♠A (−0.6)"
    )
    assert own_answer("en", review, "u:eve") is None
    assert "clubs solo" not in summary("en", review, URL)
    assert GameReview.from_json(review.to_json()) == review
    assert GameReview.from_json('{"v": 99}') is None


@pytest.fixture
async def played() -> AsyncIterator[tuple[MemoryStore, FinishedGame, str]]:
    """A stored game of anna (one person) and three random computer players; the web
    pages' base address."""
    store = MemoryStore()
    router = Router(seed=0, table_seed=lambda _: 0, bot_factory=default_bot_factory())
    svc = Service(router, store)
    await svc.start()
    inp = lambda text: Input("c", "u:anna", "anna", text)  # noqa: E731
    await svc.handle(inp("/join"))
    for _ in range(3):
        await svc.handle(inp("/join bot random"))
    await svc.handle(inp("/start"))
    table = router.tables["c"]
    while True:
        await svc.idle()
        if not table.running:
            break
        events = await svc.handle(inp("/hand"))
        choices = [c for e in events if isinstance(e, Private) for c in e.choices]
        await svc.handle(inp(choices[-1].command))
    await svc.close()
    [stored] = store.table_results("c")
    game = store.result(stored.id)
    assert game is not None
    runner = web.AppRunner(make_app(Stats(store)))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield store, game, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        return resp.status, await resp.text()


async def test_the_web_page_marks_each_mistake_in_its_trick(
    played: tuple[MemoryStore, FinishedGame, str],
) -> None:
    store, game, base = played
    key, _ = store.web_page(game.server)
    page = f"{base}/s/{key}/game/{game.id}"
    # before the review is stored: no review view, no link to it
    assert (await _get(page + "/review"))[0] == 404
    assert "review-link" not in (await _get(page))[1]

    def anna(trick: int) -> int:
        leader, cards, _ = game.tricks[trick - 1]
        return cards[(0 - leader) % 4]

    review = GameReview(
        game.game,
        ("u:anna", None, None, None),
        tuple(s.name for s in game.seats),
        {0: 12},
        [
            Mistake(2, 0, 0, "reservation", None, DECLARE_SOLO + Solo.JACKS, 0.9),
            Mistake(30, 0, 3, "card", anna(3), anna(9), 1.7),
            Mistake(50, 0, 7, "card", anna(7), anna(12), 0.6),
        ],
    )
    hidden = GameReview(**{**_fields(review), "hidden": frozenset({2})})
    assert store.queue_review("c", game.game, "{}")
    store.finish_review("c", game.game, review.to_json())
    status, html = await _get(page)
    assert status == 200 and 'id="review-link"' in html
    status, html = await _get(page + "/review")
    assert status == 200
    sections = html.split('<section class="trick')[1:]
    marked = {
        k + 1: play
        for k, section in enumerate(sections)
        for play in section.split('<div class="play')[1:]
        if "mistake" in play.split(">")[0]
    }
    assert sorted(marked) == [3, 7]  # each mark in its trick, on anna's card
    classes = {k: set(play.split('"')[0].split()) for k, play in marked.items()}
    assert {"mistake", "serious"} <= classes[3] and 'class="who">anna<' in marked[3]
    assert f'alt="{card_text(anna(3), "en")}"' in marked[3]
    assert f"better: {card_text(anna(9), 'en')} (−1.7)" in marked[3]
    assert "serious" not in classes[7] and 'class="who">anna<' in marked[7]
    assert f'alt="{card_text(anna(7), "en")}"' in marked[7]
    assert f"better: {card_text(anna(12), 'en')} (−0.6)" in marked[7]
    assert "anna, reservation: Healthy instead of jacks solo (−0.9)" in html
    assert "Mistakes in tricks 3, 7" in html
    assert "decisions: 12, costly: 3 (lost: 3.2)" in html
    # in German
    _, de = await _get(page + "/review?lang=de")
    assert "Analyse" in de and "besser: " in de
    # a mistake nobody else may read is not shown (nor counted)
    store.finish_review("c", game.game, hidden.to_json())
    _, html = await _get(page + "/review")
    assert "jacks solo" not in html and "costly: 2 (lost: 2.3)" in html
    # another server's key, or a game that is no game: nothing
    assert (await _get(f"{base}/s/nokey/game/{game.id}/review"))[0] == 404
    assert (await _get(f"{base}/s/{key}/game/999/review"))[0] == 404


def _fields(review: GameReview) -> dict[str, object]:
    return {name: getattr(review, name) for name in GameReview.__slots__}  # type: ignore[attr-defined]


def test_the_examples_of_the_players_page_are_what_players_read() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "computer-players.md").read_text(
        encoding="utf-8"
    )
    review = GameReview(
        4,
        ("u:anna", None, "u:ben", None),
        ("anna", "b1", "ben", "b2"),
        {0: 11, 2: 9},
        [
            Mistake(3, 0, 0, "reservation", None, DECLARE_SOLO + Solo.QUEENS, 1.5),
            Mistake(38, 0, 10, "card", SA, S9, 0.8, "points_given"),
        ],
    )
    url = "https://doko.example.org/s/KEY/game/17/review"
    for line in summary("en", review, url).split("\n"):
        assert f"\n{line}\n" in page, line
    mine = own_answer("en", review, "u:anna")
    assert mine is not None
    assert f"\n{mine}\n" in page
