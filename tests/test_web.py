"""The web pages in a real browser: Debian's Chromium, driven headless by Playwright.

Set ``DOKOBOT_SCREENSHOTS=DIR`` to keep the screenshots (docs/ holds the ones in README).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

from dokobot.host.events import Input, Public
from dokobot.host.feed import feed
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.render.cards import WIDTH
from dokobot.stats import Stats
from dokobot.store import MemoryStore
from dokobot.web import make_app

DATA = Path(__file__).resolve().parent / "data"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


async def _served(store: MemoryStore) -> AsyncIterator[tuple[Service, str]]:
    service = Service(Router(seed=0, table_seed=lambda _: 0), store)
    runner = web.AppRunner(make_app(Stats(store)))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    base = f"http://127.0.0.1:{port}"
    service.router.stats = Stats(store, web_url=base)
    await service.start()
    try:
        yield service, base
    finally:
        await runner.cleanup()


@pytest.fixture
async def site() -> AsyncIterator[tuple[Service, str]]:
    async for pair in _served(MemoryStore()):
        yield pair


@pytest.mark.long
async def test_pages_in_chromium(site: tuple[Service, str], tmp_path: Path) -> None:
    service, base = site
    lines = (DATA / "default-1.doko").read_text(encoding="utf-8").splitlines()
    with open(os.devnull, "w") as out:
        await feed(service, lines, out=out)
    # the next game is running: it has no page
    events = await service.handle(Input("feed", "replay:anna", "anna", "/start"))
    assert any("game 49" in e.text.lower() or "49" in e.text for e in events)
    table = service.router.tables["feed"]
    assert table.running and table.game_number == 49
    store = service.store
    assert len(store.results("feed")) == 48
    key, _ = store.web_page("feed")
    board = f"{base}/s/{key}/"
    shots = Path(os.environ.get("DOKOBOT_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    # a game with calls and a solo, to show everything
    with_calls = next(g for g in store.results("feed") if g.calls and len(g.calls) >= 2)

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = await browser.new_page(viewport={"width": 1000, "height": 900})
        # leaderboard
        resp = await page.goto(board)
        assert resp is not None and resp.status == 200
        rows = page.locator("#leaderboard tr")
        assert await rows.count() == 1 + 4
        heading = await page.locator("h1").inner_text()
        assert heading == "Leaderboard"
        assert "Finished games: 48, players: 4" in await page.locator(".sub").inner_text()
        first = await rows.nth(1).locator("td").all_inner_texts()
        book = service.router.stats.book("feed")  # type: ignore[union-attr]
        best = book.board("points")[0]
        assert first[1] == best.name and first[2] == "48"
        await page.screenshot(path=str(shots / "web-leaderboard.png"), full_page=True)
        # German, by rating
        await page.goto(board + "?by=rating&lang=de")
        assert await page.locator("h1").inner_text() == "Rangliste"
        # a player's page
        await page.goto(board)
        await page.locator("#leaderboard a", has_text=best.name).click()
        figures = await page.locator("#figures").inner_text()
        assert f"Statistics of {best.name}" in figures and "Games: 48," in figures
        assert await page.locator("img").count() == 1  # the rating chart
        # a game, trick by trick
        resp = await page.goto(f"{board}game/{with_calls.id}")
        assert resp is not None and resp.status == 200
        where = page.locator("#where")
        visible = page.locator("section.trick:visible")
        assert await where.inner_text() == "Trick 1 of 12"
        seen = []
        for n in range(1, 13):
            assert await where.inner_text() == f"Trick {n} of 12"
            assert await visible.count() == 1
            faces = visible.locator("img.card")
            cards = [
                str(await faces.nth(i).get_attribute("alt")) for i in range(await faces.count())
            ]
            assert len(cards) == 4
            # the pictures are drawn by dokobot.render and really load
            loaded = await faces.evaluate_all("els => els.map(e => e.complete && e.naturalWidth)")
            assert loaded == [WIDTH] * 4  # drawn at twice the size shown
            seen += cards
            if n == 3:
                await page.screenshot(path=str(shots / "web-game.png"), full_page=True)
            await page.locator("#next").click()
        assert await where.inner_text() == "Trick 12 of 12"  # stays at the last
        assert len(seen) == 48
        from dokobot.host.i18n import card_text

        played = sorted(card_text(c, "en") for _, cs, _ in with_calls.tricks for c in cs)
        assert sorted(seen) == played
        await page.locator("#prev").click()
        assert await where.inner_text() == "Trick 11 of 12"
        await page.locator("#all").click()
        assert await visible.count() == 12
        content = await page.content()
        assert "Calls" in content
        assert "{" not in await page.locator("body").inner_text(), "a placeholder was left"
        # the running game (49) and anything unknown do not exist
        for url in (f"{board}game/49", f"{board}game/0", f"{board}game/x",
                    f"{base}/s/not-the-key/", f"{base}/", f"{board}player/nobody"):  # fmt: skip
            resp = await page.goto(url)
            assert resp is not None and resp.status == 404, url
        # a server that turns its page off
        store.set_web_enabled("feed", False)
        resp = await page.goto(board)
        assert resp is not None and resp.status == 404
        resp = await page.goto(f"{board}game/{with_calls.id}")
        assert resp is not None and resp.status == 404
        await browser.close()


async def test_result_message_links_the_game_page(site: tuple[Service, str]) -> None:
    service, base = site
    lines = (DATA / "forced-1.doko").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith("/start")]
    script = lines[: starts[1]]
    # replay the first game, then play its last card through the service to see the answer
    last = max(i for i, line in enumerate(script) if "/play" in line)
    with open(os.devnull, "w") as out:
        await feed(service, script[:last], out=out)
    name, _, text = script[last].partition(": ")
    seat = next(s for s in service.router.tables["feed"].seats if s.name == name)
    events = await service.handle(Input("feed", seat.user, name, text))
    key, _ = service.store.web_page("feed")
    links = [e for e in events if isinstance(e, Public) and "trick by trick" in e.text]
    assert [e.text for e in links] == [f"Game 1 trick by trick: {base}/s/{key}/game/1"]
    # /web tells the link; only an admin turns the page off
    answer = await service.handle(Input("feed", seat.user, name, "/web"))
    assert answer[0].text == f"The web page of this server: {base}/s/{key}/"
    refused = await service.handle(Input("feed", seat.user, name, "/web off"))
    assert refused[0].text == "Only a server admin may turn the web page on or off."
    # the switch in any language (German "aus")
    off = await service.handle(Input("feed", seat.user, name, "/web aus", admin=True))
    assert off[0].text == "The web page of this server is turned off."
    new, enabled = service.store.web_page("feed")
    assert not enabled and new != key
    assert (await service.handle(Input("feed", seat.user, name, "/web")))[0].text == (
        "The web page of this server is turned off."
    )
    # on again: a new secret link; the old one (perhaps leaked) answers 404 for good
    on = await service.handle(Input("feed", seat.user, name, "/web on", admin=True))
    assert key not in on[0].text and f"{base}/s/{new}/" in on[0].text
    status, _ = await _get(f"{base}/s/{key}/")
    assert status == 404
    status, _ = await _get(f"{base}/s/{new}/")
    assert status == 200


def test_chromium_is_installed() -> None:
    assert shutil.which("chromium") or Path(CHROMIUM).exists(), "apt-get install chromium"
    _ = asyncio


def test_web_config() -> None:
    from dokobot.config import ConfigError, parse_config

    cfg = parse_config("web:\n  enabled: true\n  port: 9000\n", env={})
    assert cfg.web.enabled and cfg.web.url == "http://127.0.0.1:9000"
    cfg = parse_config("web:\n  base_url: https://doko.example.org\n", env={})
    assert not cfg.web.enabled and cfg.web.url == "https://doko.example.org"
    with pytest.raises(ConfigError, match=r"web\.port"):
        parse_config("web:\n  port: 0\n", env={})
    example = Path(__file__).resolve().parent.parent / "config.example.yaml"
    assert not parse_config(example.read_text(encoding="utf-8"), env={}).web.enabled


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _get(url: str, tries: int = 100) -> tuple[int, str]:
    import aiohttp

    for _ in range(tries):
        try:
            async with aiohttp.ClientSession() as session, session.get(url) as resp:
                return resp.status, await resp.text()
        except aiohttp.ClientConnectionError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"nothing answers at {url}")


def _stored(db: Path) -> str:
    """A store with the first game of forced-1; the key of its server's pages."""
    from dokobot.store import SqliteStore

    store = SqliteStore(db)
    lines = (DATA / "forced-1.doko").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith("/start")]

    async def run() -> None:
        service = Service(Router(seed=0, table_seed=lambda _: 0), store)
        await service.start()
        with open(os.devnull, "w") as out:
            await feed(service, lines[: starts[1]], out=out)

    asyncio.run(run())
    key, _ = store.web_page("feed")
    store.close()
    return key


async def test_dokobot_run_serves_the_pages_when_enabled(tmp_path: Path) -> None:
    from dokobot.config import Config, WebConfig
    from dokobot.runner import serve

    db = tmp_path / "s.db"
    key = await asyncio.to_thread(_stored, db)
    port = _free_port()
    config = Config(store_path=str(db), web=WebConfig(enabled=True, port=port))
    task = asyncio.create_task(serve(config))
    try:
        status, html = await _get(f"http://127.0.0.1:{port}/s/{key}/")
        assert status == 200 and "Finished games: 1, players: 4" in html
        status, _ = await _get(f"http://127.0.0.1:{port}/s/{key}/game/1")
        assert status == 200
        assert (await _get(f"http://127.0.0.1:{port}/"))[0] == 404
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_dokobot_web_command(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "s.db"
    key = await asyncio.to_thread(_stored, db)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dokobot.cli", "web", "--store", str(db), "--port", str(port),
         "--base-url", "https://doko.example.org"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        status, html = await _get(f"http://127.0.0.1:{port}/s/{key}/game/1")
        assert status == 200 and "Trick 1 of 12" in html
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert f"feed: https://doko.example.org/s/{key}/" in err


async def test_five_at_a_table_the_game_page_names_who_sat_out(
    site: tuple[Service, str],
) -> None:
    # RULES §12.9: the stored record of each game has the four who played, and its page
    # names who sat out (statistics and ratings read the stored seats: the games played)
    service, base = site
    lines = (DATA / "house" / "seats5.doko").read_text(encoding="utf-8").splitlines()
    with open(os.devnull, "w") as out:
        await feed(service, lines, out=out)
    stored = service.store.results("feed")
    assert [[s.name for s in g.seats] for g in stored][:2] == [
        ["anna", "ben", "carl", "dora"],
        ["ben", "carl", "dora", "emil"],
    ]
    key, _ = service.store.web_page("feed")
    status, page = await _get(f"{base}/s/{key}/game/2")
    assert status == 200
    assert "Sat out (five or six at a table): anna." in page and "dealer anna" in page
    status, page = await _get(f"{base}/s/{key}/game/1")
    assert "Sat out (five or six at a table): emil." in page
