"""Every answer of the web pages (pages, 404s, card pictures, static files, errors) carries the
security headers, and no address, however odd, gets a 500 or names the server's software."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from dokobot.host.feed import feed
from dokobot.host.reviews import GameReview
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.stats import Stats
from dokobot.store import MemoryStore
from dokobot.web import make_app

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
async def client() -> AsyncIterator[tuple[TestClient, str, int]]:
    store = MemoryStore()
    service = Service(Router(seed=0, table_seed=lambda _: 0), store)
    lines = (DATA / "default-1.doko").read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith("/start")]
    with open(os.devnull, "w") as out:
        await feed(service, lines[: starts[1]], out=out)
    (game,) = store.results("feed")
    key, _ = store.web_page("feed")
    review = GameReview(game.game, tuple(s.user for s in game.seats),
                        tuple(s.name for s in game.seats), {0: 12})  # fmt: skip
    store.queue_review("feed", game.game, "{}")
    store.finish_review("feed", game.game, review.to_json())
    async with TestClient(TestServer(make_app(Stats(store)))) as c:
        yield c, key, game.id


def _check(headers: object, path: str) -> None:
    h = dict(headers)  # type: ignore[call-overload]
    csp = h.get("Content-Security-Policy", "")
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ") if d}
    assert "'unsafe-inline'" not in directives.get("script-src", ["'unsafe-inline'"]), path
    assert directives.get("frame-ancestors") == ["'none'"], path
    assert directives.get("default-src") == ["'none'"], path
    assert h.get("X-Content-Type-Options") == "nosniff", path
    assert h.get("X-Robots-Tag") == "noindex", path
    assert h.get("Referrer-Policy") == "no-referrer", path
    server = h.get("Server", "")
    assert "python" not in server.lower() and "aiohttp" not in server.lower(), (path, server)


async def test_every_route_and_every_404_carries_the_headers(
    client: tuple[TestClient, str, int],
) -> None:
    c, key, game = client
    app = c.server.app
    assert app is not None
    routes = {r.resource.canonical for r in app.router.routes() if r.resource is not None}
    ok = {
        "/s/{key}/": f"/s/{key}/",
        "/s/{key}/player/{user}": f"/s/{key}/player/replay%3Aanna",
        "/s/{key}/game/{id}": f"/s/{key}/game/{game}",
        "/s/{key}/game/{id}/{view}": f"/s/{key}/game/{game}/review",
        "/card/{lang}/{card}.png": "/card/de/10.png",
        "/static/{name}": "/static/game.js",
    }
    assert routes == set(ok), "a new route needs its address here"
    for path in [*ok.values(), "/static/style.css"]:
        resp = await c.get(path)
        assert resp.status == 200, path
        _check(resp.headers, path)
    missing = [
        "/", "/nothing", f"/s/{key}/player/nobody", "/s/not-the-key/", "/static/nothing.js",
        "/static/../__init__.py", "/static/" + "a" * 3000, "/static/" + "a/" * 1500,
        "/static/%2e%2e/__init__.py", "/static/game.js/x", "/card/xx/1.png", "/card/en/48.png", "/card/en/" + "9" * 5000 + ".png",
        f"/s/{key}/game/9223372036854775808", f"/s/{key}/game/9223372036854775807",
        f"/s/{key}/game/99999999999999999999999", f"/s/{key}/game/" + "9" * 5000,
        f"/s/{key}/game/0", f"/s/{key}/game/-1", f"/s/{key}/game/x", f"/s/{key}/game/%00",
        f"/s/{key}/game/\u0661", f"/s/{key}/game/{game}/other", f"/s/{key}/game/0/review",
    ]  # fmt: skip
    for path in missing:
        resp = await c.get(path)
        assert resp.status == 404, path
        _check(resp.headers, path)
        assert "Traceback" not in await resp.text()


async def test_the_game_page_has_no_inline_script(client: tuple[TestClient, str, int]) -> None:
    c, key, game = client
    html = await (await c.get(f"/s/{key}/game/{game}")).text()
    assert '<script src="/static/game.js"' in html
    assert "<script>" not in html and "<style>" not in html and " on" + "click=" not in html
    js = await c.get("/static/game.js")
    assert "javascript" in js.headers["Content-Type"]


async def test_a_request_aiohttp_cannot_parse_gets_the_headers_too(
    client: tuple[TestClient, str, int],
) -> None:
    """Answered before any handler or middleware runs (400): no versions, the same headers."""
    import asyncio

    c, _, _ = client
    for raw in (b"GARBAGE\r\n\r\n", b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"):  # fmt: skip
        reader, writer = await asyncio.open_connection(c.host, c.port)
        writer.write(raw)
        await writer.drain()
        head = (await asyncio.wait_for(reader.read(4000), 10)).decode(errors="replace")
        writer.close()
        status, *lines = head.split("\r\n\r\n")[0].split("\r\n")
        assert " 400 " in status, status
        _check(dict(line.split(": ", 1) for line in lines), repr(raw))


@pytest.mark.parametrize("lang", ["it", "cs", "de", "en"])
async def test_every_missing_address_is_one_page_in_the_visitors_language(
    client: tuple[TestClient, str, int], lang: str
) -> None:
    """A link opened too early (the game runs), a page turned off, an unknown key and a
    mistyped address get the same translated page: it says what may be wrong, not which."""
    from dokobot.host.i18n import render
    from dokobot.web import STATS

    c, key, game = client
    app = c.server.app
    assert app is not None
    asked = {"Accept-Language": f"{lang};q=0.9, en;q=0.5"}
    addresses = ["/", "/s/not-the-key/", f"/s/{key}/game/{game + 1}", f"/s/{key}/player/nobody",
                 "/static/nothing.js", "/card/xx/1.png", f"/s/{key}/game/x"]  # fmt: skip
    pages = set()
    for path in addresses:
        resp = await c.get(path, headers=asked)
        assert resp.status == 404 and resp.content_type == "text/html", path
        pages.add(await resp.text())
    app[STATS].store.set_web_enabled("feed", False)
    for path in (f"/s/{key}/", f"/s/{key}/game/{game}"):  # existed a moment ago
        resp = await c.get(path, headers=asked)
        assert resp.status == 404, path
        pages.add(await resp.text())
    (page,) = pages
    assert f'<html lang="{lang}">' in page
    assert render(lang, "web.not_found_title", {}) in page
    assert render(lang, "web.not_found_text", {}).split(".")[0] in page.replace("&#39;", "'")


@pytest.mark.parametrize("lang", ["it", "cs", "de", "en"])
async def test_a_damaged_store_is_a_translated_error_page_without_details(
    client: tuple[TestClient, str, int], lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dokobot.host.i18n import render
    from dokobot.store import StoreError
    from dokobot.web import STATS

    c, key, _ = client
    app = c.server.app
    assert app is not None

    def damaged(_key: str) -> None:
        raise StoreError("database disk image is malformed (/srv/secret/doko.db)")

    monkeypatch.setattr(app[STATS].store, "web_server", damaged)
    resp = await c.get(f"/s/{key}/", headers={"Accept-Language": lang})
    assert resp.status == 500 and resp.content_type == "text/html"
    _check(resp.headers, "500")
    page = await resp.text()
    assert render(lang, "web.error_title", {}) in page and f'<html lang="{lang}">' in page
    assert "malformed" not in page and "/srv/secret" not in page and "Traceback" not in page
