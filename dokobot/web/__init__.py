"""The read-only web pages (aiohttp, jinja2): per server a leaderboard, a page per player,
every finished game trick by trick, and its review (``game/ID/review``: each person's
mistakes marked on the trick they were made in, with the better choice and the points
lost; only what everybody may read after the game, see :mod:`dokobot.host.reviews`).

Pages live under ``/s/KEY/`` where KEY is the server's unguessable id from the store; a
server whose pages are turned off (``/web off``), an unknown key, a game of another server
and a game that is not finished (it has no record yet) are all "404 Not Found", one page in
the visitor's language that does not say which. Nothing else is served.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from jinja2 import Environment, PackageLoader, select_autoescape

from .. import languages
from ..engine.cards import N_CARDS
from ..host.i18n import Number, Term, render, text
from ..host.reviews import GameReview, choice, reason
from ..host.series import signed
from ..host.statcmds import player_lines
from ..render.cards import card_png
from ..stats import BOARDS, FinishedGame, Stats, StatsBook
from ..store import StoreError
from .cards import card_html

log = logging.getLogger(__name__)

STATS: Final = web.AppKey("stats", Stats)
HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
    "X-Content-Type-Options": "nosniff",
    "Server": "dokobot",
}
"""Every answer (pages, 404s, card pictures, static files): no third-party content, no inline
script, never in a frame, never indexed, the secret part of the address never leaves in a
Referer header, and no software versions."""
STATIC: Final = Path(__file__).with_name("static")
"""The script and the style sheet of the pages (no inline script: the policy forbids it)."""
MAX_ID: Final = (1 << 63) - 1
"""The largest game id a store can hold; a larger one is no game."""


def _harden_protocol_errors() -> None:
    """Answers aiohttp makes before any handler or middleware runs (a request it cannot
    parse: 400) carry :data:`HEADERS` too. Wraps aiohttp's error answer once per process."""
    original = RequestHandler.handle_error
    if getattr(original, "dokobot", False):
        return

    def handle_error(self: RequestHandler, *args: Any, **kwargs: Any) -> web.StreamResponse:
        response = original(self, *args, **kwargs)
        response.headers.update(HEADERS)
        return response

    handle_error.dokobot = True  # type: ignore[attr-defined]
    RequestHandler.handle_error = handle_error  # type: ignore[method-assign]


_harden_protocol_errors()


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """The one place every answer passes: it carries :data:`HEADERS`, and an unexpected
    error is logged and answered 500 without details."""
    try:
        response = await handler(request)
    except web.HTTPNotFound:
        # one page for every missing address, in the visitor's language: it tells an
        # unknown key, a page turned off and a game not finished apart no more than the
        # bare status did
        response = _notice(request, 404, "not_found")
    except web.HTTPException as exc:
        exc.headers.update(HEADERS)
        raise
    except StoreError as exc:  # a damaged store: its cause in one line, not a traceback
        log.error("web request %s failed: %s", request.path, exc)
        response = _notice(request, 500, "error")
    except Exception:
        log.exception("web request %s failed", request.path)
        response = _notice(request, 500, "error")
    response.headers.update(HEADERS)
    return response


def _notice(request: web.Request, status: int, notice: str) -> web.Response:
    """A 404 or 500 as a page in the visitor's language, without details (the catalogue's
    ``web.NOTICE_title`` and ``web.NOTICE_text``); the bare status if even that page cannot
    be made."""
    try:
        return _page("notice.html", request, status=status, notice=notice)
    except Exception:
        log.exception("the %d page failed", status)
        return web.Response(status=status, text=f"{status}")


_env = Environment(
    loader=PackageLoader("dokobot.web", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _lang(request: web.Request) -> tuple[str, bool]:
    """(language, chosen in the address)."""
    asked = request.query.get("lang", "")
    if asked in languages.codes():
        return asked, True
    header = request.headers.get("Accept-Language", "").lower()
    for part in header.split(","):
        code = part.split(";")[0].strip()[:2]
        if code in languages.codes():
            return code, False
    return "en", False


def _page(template: str, request: web.Request, status: int = 200, **params: Any) -> web.Response:
    """One of the templates, in the visitor's language."""
    lang, chosen = _lang(request)

    def t(key: str, **p: Any) -> str:
        return render(lang, "web." + key, p)

    html = _env.get_template(template).render(
        t=t,
        lang=lang,
        lang_q=f"&lang={lang}" if chosen else "",
        lang_q1=f"?lang={lang}" if chosen else "",
        **params,
    )
    return web.Response(status=status, text=html, content_type="text/html")


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def type_label(result: dict[str, Any], lang: str) -> str:
    """The short name of a game, as in the score list (``*``: mandatory solo)."""
    if result.get("cancelled"):
        base = text(lang, "score.type.cancelled")
    elif result.get("solo"):
        base = text(lang, "score.solo." + str(result["solo"]))
    elif result["type"] == "wedding" and len(result["re"]) == 1:
        base = text(lang, "score.type.wedding_alone")
    else:
        base = text(lang, "score.type." + str(result["type"]))
    return base + ("*" if result.get("mandatory_solo") else "")


class Pages:
    """The request handlers over one :class:`Stats`."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats

    async def _server(self, request: web.Request) -> str:
        page = await asyncio.to_thread(self.stats.store.web_server, request.match_info["key"])
        if page is None or not page[1]:
            raise web.HTTPNotFound()
        return page[0]

    async def board(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        book: StatsBook = await asyncio.to_thread(self.stats.book, server)
        by = request.query.get("by", "points")
        if by not in BOARDS:
            by = "points"
        lang, _ = _lang(request)
        recent = [
            {
                "id": g.id,
                "game": g.game,
                "label": type_label(g.result, lang),
                "scores": ", ".join(f"{s.name} {signed(x)}" for s, x in zip(g.seats, g.scores(),
                                                                            strict=True)),
                "when": _when(g.finished_at),
            }
            for g in reversed(book.recent)
        ]  # fmt: skip
        return _page(
            "board.html", request, book=book, people=book.board(by), by=by, boards=BOARDS,
            recent=recent,
        )  # fmt: skip

    async def player(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        book = await asyncio.to_thread(self.stats.book, server)
        p = book.players.get(unquote(request.match_info["user"]))
        if p is None:
            raise web.HTTPNotFound()
        lang, _ = _lang(request)
        chart = ""
        if p.history:
            from ..stats.charts import rating_chart

            png = await asyncio.to_thread(
                rating_chart,
                list(p.history),
                title=p.name,
                xlabel=render(lang, "stats.chart_game"),
                ylabel=render(lang, "stats.chart_skill"),
            )
            chart = base64.b64encode(png).decode("ascii")
        recent = []
        for g in reversed(p.recent):
            seat = next(i for i, s in enumerate(g.seats) if s.user == p.user)
            recent.append(
                {
                    "id": g.id,
                    "game": g.game,
                    "label": type_label(g.result, lang),
                    "points": "-" if g.cancelled else signed(g.scores()[seat]),
                    "when": _when(g.finished_at),
                }
            )
        return _page(
            "player.html", request, p=p, lines=player_lines(p, lang), chart=chart, recent=recent
        )

    async def game(self, request: web.Request) -> web.Response:
        """A finished game trick by trick, or (``…/review``) its review."""
        g = await self._game(request)
        lang, _ = _lang(request)
        stored = await asyncio.to_thread(self.stats.store.review, g.channel, g.game)
        found = None if stored is None else GameReview.from_json(stored)
        if request.match_info.get("view") == "review":
            if found is None:
                raise web.HTTPNotFound()
            return _page("game.html", request, **review_view(g, found, lang))
        return _page("game.html", request, reviewed=found is not None, **game_view(g, lang))

    async def _game(self, request: web.Request) -> FinishedGame:
        """The finished game of the address (404: none of this server)."""
        server = await self._server(request)
        raw = request.match_info["id"]
        if not (raw.isascii() and raw.isdigit() and len(raw) < 20 and 0 < int(raw) <= MAX_ID):
            raise web.HTTPNotFound()
        g: FinishedGame | None = await asyncio.to_thread(self.stats.store.result, int(raw))
        if g is None or g.server != server:
            raise web.HTTPNotFound()
        return g


def game_view(g: FinishedGame, lang: str) -> dict[str, Any]:
    """What the game page shows: parties, result, value items, calls and every trick."""
    r = g.result
    names = [s.name for s in g.seats]
    parties = g.parties()
    scores = g.scores()
    seats = [
        {
            "name": names[i],
            "party": text(lang, "party." + parties[i]) if parties[i] else "",
            "points": "-" if g.cancelled else signed(scores[i]),
        }
        for i in range(len(names))
    ]
    summary = render(
        lang,
        "score.game_result",
        {
            "re": r["re"],
            "kontra": r["kontra"],
            "eyes_re": r["eyes"]["re"],
            "eyes_kontra": r["eyes"]["kontra"],
            "winner": Term("party." + (r["winner"] or "nobody")),
        },
    )
    components = [
        render(
            lang,
            "component",
            {"party": Term("party." + c["party"]), "item": Term("item." + c["item"]),
             "points": c["points"]},
        )
        for c in r["components"]
    ]  # fmt: skip
    won_by = Term("party." + (r["winner"] or "nobody"))
    times = int(r.get("multiplier", 1))
    if times > 1:  # a bock game: the items add up to the value before doubling
        value = sum_value(r)
        components.append(
            render(lang, "score.bock", {"base": value // times, "times": times, "value": value})
        )
    components.append(render(lang, "score.value", {"value": sum_value(r), "winner": won_by}))

    def call_text(seat: int, key: str) -> str:
        return f"{names[seat]}: {text(lang, 'call.' + key)}"

    by_trick: dict[int, list[str]] = {}
    for seat, key, played in g.calls:
        index = min(played // 4, max(len(g.tricks) - 1, 0))
        by_trick.setdefault(index, []).append(call_text(seat, key))
    tricks = []
    for k, (leader, cards, winner) in enumerate(g.tricks):
        plays = [
            {
                "name": names[(leader + i) % 4],
                "card": card_html(c, lang),
                "wins": (leader + i) % 4 == winner,
            }
            for i, c in enumerate(cards)
        ]
        eyes = sum((0, 2, 3, 4, 10, 11)[(c >> 1) % 6] for c in cards)
        tricks.append(
            {"plays": plays, "winner": names[winner], "eyes": eyes, "calls": by_trick.get(k, []),
             "notes": []}
        )  # fmt: skip
    return {
        "g": g,
        "r": r,
        "label": type_label(r, lang),
        "when": _when(g.finished_at),
        "seats": seats,
        "summary": summary,
        "components": components,
        "calls": [call_text(s, k) for s, k, _ in g.calls],
        "tricks": tricks,
    }


def review_view(g: FinishedGame, review: GameReview, lang: str) -> dict[str, Any]:
    """The game page with the review: each person's public mistakes marked on the card (or
    the call) in its trick, with the better choice and the points lost, serious ones apart;
    the reservations above the tricks; per person the decisions reviewed and the mistakes."""
    view = game_view(g, lang)
    names = [s.name for s in g.seats]
    tricks = view["tricks"]
    people = []
    before: list[dict[str, Any]] = []
    for seat in sorted(review.decisions):
        mine = review.of(seat, public=True)
        people.append(
            {
                "name": names[seat],
                "line": render(lang, "web.review_player", {
                    "decisions": review.decisions[seat], "count": len(mine),
                    "lost": Number(sum(m.loss for m in mine), places=1)}),
            }
        )  # fmt: skip
        for m in mine:
            said = render(
                lang,
                "web.review_" + m.kind,
                {
                    "player": names[seat],
                    "played": choice(m.played, m.kind),
                    "trick": m.trick,
                    "better": choice(m.better, m.kind),
                    "loss": Number(m.loss, places=1),
                },
            )
            if m.reason != "other":
                said = render(lang, "review.because", {"item": said, "reason": reason(m)})
            mark = {"text": said, "serious": m.serious}  # fmt: skip
            if m.kind == "reservation" or not 1 <= m.trick <= len(tricks):
                before.append(mark)
                continue
            trick = tricks[m.trick - 1]
            leader, cards, _ = g.tricks[m.trick - 1]
            at = (seat - leader) % 4
            if m.kind == "card" and m.played is not None and cards[at] >> 1 == m.played >> 1:
                trick["plays"][at]["mistake"] = mark
            else:
                trick["notes"].append(mark)
    view["review"] = {"people": people, "before": before}
    view["marked"] = [
        k + 1
        for k, tr in enumerate(tricks)
        if tr["notes"] or any("mistake" in p for p in tr["plays"])
    ]
    return view


def sum_value(result: dict[str, Any]) -> int:
    """The game value: what each player of the bigger party wins or loses (a soloist
    three times as much).

    >>> sum_value({"scores": {"a": 9, "b": -3, "c": -3, "d": -3}})
    3
    """
    return min((abs(int(x)) for x in result["scores"].values()), default=0)


def make_app(stats: Stats) -> web.Application:
    pages = Pages(stats)
    app = web.Application(middlewares=[_guard])
    app[STATS] = stats
    app.router.add_get("/s/{key}/", pages.board)
    app.router.add_get("/s/{key}/player/{user}", pages.player)
    app.router.add_get("/s/{key}/game/{id}", pages.game)
    app.router.add_get("/s/{key}/game/{id}/{view:review}", pages.game)
    app.router.add_get("/card/{lang}/{card}.png", card_picture)
    app.router.add_get("/static/{name}", static_file)
    return app


_STATIC_FILES: Final = frozenset(p.name for p in STATIC.iterdir() if p.is_file())
"""The files under ``/static/``: any other address is no file (404), whatever its length."""


async def static_file(request: web.Request) -> web.StreamResponse:
    """The pages' script or style sheet (``/static/game.js``)."""
    name = request.match_info["name"]
    if name not in _STATIC_FILES:
        raise web.HTTPNotFound()
    return web.FileResponse(STATIC / name)


_CARD_NAMES: Final = frozenset(str(c) for c in range(N_CARDS))


async def card_picture(request: web.Request) -> web.Response:
    """The face of one card (``/card/de/10.png``): no secret, the same for everybody."""
    lang = request.match_info["lang"]
    raw = request.match_info["card"]
    if lang not in languages.codes() or raw not in _CARD_NAMES:
        raise web.HTTPNotFound()
    png = await asyncio.to_thread(card_png, int(raw), lang)
    return web.Response(body=png, content_type="image/png",
                        headers={"Cache-Control": "public, max-age=86400"})  # fmt: skip


async def serve_web(stats: Stats, host: str, port: int) -> None:
    """Serve the pages until cancelled."""
    runner = web.AppRunner(make_app(stats), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    log.info("web pages on http://%s:%d/", host, port)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
