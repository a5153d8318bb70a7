"""The statistics commands of the router: ``/stats``, ``/top``, ``/web``, ``/score chart``,
and the link to a finished game's web page. The figures come from :mod:`dokobot.stats`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from .. import languages
from ..engine.types import CALL_KEYS
from ..stats import BOARDS, FinishedGame, PlayerStats, Stats, StatsBook
from .events import Event, Private, Public
from .i18n import Number, Term, render
from .notes import Refusal
from .options import whole_number, yes_no
from .series import signed
from .stakes import server_of
from .table import Table

if TYPE_CHECKING:
    from .context import Context, Host

TOP_SIZE: Final = 10


@languages.derived
def board_names() -> dict[str, str]:
    """Every language's words for the leaderboards of ``/top`` -> the board."""
    out = {board: board for board in ("points", "rating", "games", "solo")}
    for code in reversed(languages.codes()):
        values = languages.words(code).values
        out.update({w: board for board in tuple(out.values()) for w in values.get(board, ())})
    return out


def is_chart_word(word: str) -> bool:
    """Whether ``word`` asks for a chart (``chart`` or a language's word for it)."""
    word = word.lower()
    return word == "chart" or any(word in languages.words(c).values.get("chart", ())
                                  for c in languages.codes())  # fmt: skip


SOLO_KINDS: Final = ("clubs", "spades", "hearts", "diamonds", "queens", "jacks", "fleshless")


def _stats(router: Host) -> Stats:
    if router.stats is None:
        raise Refusal("stats.unavailable")
    return router.stats


def _server(ctx: Context) -> str:
    table = ctx.table
    if table is None:
        raise Refusal("no_table_dm" if ctx.inp.dm else "no_table")
    return table.ledger.server or server_of(table.channel)


def _reply(
    router: Host, ctx: Context, text: str, draw: Callable[[], bytes] | None = None
) -> list[Event]:
    channel = ctx.inp.channel or (ctx.table.channel if ctx.table else "")
    lang = router.lang_of(ctx.inp.user, ctx.table)
    return [Private(channel, ctx.inp.user, text, reply=True, kind="info", draw=draw, lang=lang)]


def _rating(p: PlayerStats) -> dict[str, Any]:
    return {
        "rating": Number(p.rating, places=1),
        "mu": Number(p.mu, places=1),
        "sigma": Number(p.sigma, places=1),
        "rated": p.rated_games,
    }


def _order(keys: tuple[str, ...], key: str) -> tuple[int, str]:
    """Sort key: the place of ``key`` in ``keys`` (others after them, by name)."""
    return (keys.index(key) if key in keys else len(keys), key)


def player_lines(p: PlayerStats, lang: str) -> list[str]:
    """The figures of ``/stats`` as lines of text."""
    solos = [
        render(
            lang,
            "stats.solo_item",
            {
                "kind": Term(("solo." if kind in SOLO_KINDS else "score.type.") + kind),
                "played": pw[0],
                "won": pw[1],
            },
        )
        for kind, pw in sorted(p.solos.items(), key=lambda kv: _order(SOLO_KINDS, kv[0]))
    ]
    calls = [
        render(lang, "stats.call_item", {"call": Term("call." + k), "made": m, "good": g})
        for k, (m, g) in sorted(p.calls.items(), key=lambda kv: _order(CALL_KEYS, kv[0]))
    ]
    none = render(lang, "stats.none")
    lines = [
        render(lang, "stats.head", {"player": p.name}),
        render(
            lang,
            "stats.games",
            {
                "games": p.games,
                "wins": p.wins,
                "rate": Number(100 * p.win_rate, places=0),
                "points": Number(p.points, places=0, signed=True),
                "per_game": Number(p.per_game, places=2, signed=True),
            },
        ),
        render(
            lang,
            "stats.parties",
            {"re": p.re_games, "kontra": p.kontra_games, "cancelled": p.cancelled},
        ),
        render(lang, "stats.solos", {"solos": solos or none}),
        render(lang, "stats.weddings", {"played": p.weddings[0], "won": p.weddings[1]}),
        render(lang, "stats.poverties", {"played": p.poverties[0], "won": p.poverties[1]}),
        render(lang, "stats.calls", {"calls": calls or none}),
    ]
    if p.best is not None and p.worst is not None:
        lines.append(
            render(lang, "stats.best", {"best": signed(p.best[0]), "worst": signed(p.worst[0])})
        )
    if p.rated_games:
        lines.append(render(lang, "stats.rating", _rating(p)))
    else:
        lines.append(render(lang, "stats.unrated"))
    if p.turns:
        share = Number(100 * p.stood_in_share, places=1)
        params = {"player": p.name, "share": share, "stood_in": p.stood_in, "turns": p.turns}
        lines.append(render(lang, "stats.reliability", params))
    return lines


def cmd_stats(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/stats [PLAYER] [chart]``: a person's figures on this server, privately."""
    stats = _stats(router)
    book = stats.book(_server(ctx))
    lang = router.lang_of(ctx.inp.user, ctx.table)
    chart = bool(args) and is_chart_word(args[-1])
    if chart:
        args = args[:-1]
    who = " ".join(args) if args else ctx.inp.user
    p = book.find(dict(ctx.inp.mentions).get(who, who))
    if p is None or not (p.games or p.cancelled):
        if not args:
            raise Refusal("stats.no_games")
        raise Refusal("stats.unknown_player", player=who)
    if not chart:
        return _reply(router, ctx, "\n".join(player_lines(p, lang)))
    if not p.history:
        raise Refusal("stats.no_rating", player=p.name)
    from ..stats.charts import rating_chart

    draw = functools.partial(
        rating_chart,
        list(p.history),
        title=p.name,
        xlabel=render(lang, "stats.chart_game"),
        ylabel=render(lang, "stats.chart_skill"),
    )
    text = render(lang, "stats.rating_chart", {"player": p.name, **_rating(p)})
    return _reply(router, ctx, text, draw)


def board_value(p: PlayerStats, board: str) -> str:
    if board == "rating":
        return f"{p.rating:.1f} ({p.mu:.1f} ± {p.sigma:.1f})"
    if board == "games":
        return str(p.games)
    if board == "solo":
        return f"{p.solos_won}/{p.solos_played}"
    return signed(p.points)


def top_lines(book: StatsBook, board: str, user: str, lang: str) -> list[str]:
    """``/top``: the first :data:`TOP_SIZE` of ``board`` and the place of ``user``."""
    people = book.board(board)
    lines = [
        render(
            lang,
            "stats.top_head",
            {"board": Term("stats.board." + board), "players": len(people), "games": book.games},
        )
    ]
    lines += [
        f"{i + 1:>2}. {p.name} {board_value(p, board)}" for i, p in enumerate(people[:TOP_SIZE])
    ]
    place = book.rank(board, user)
    if place is None:
        lines.append(render(lang, "stats.top_you_none"))
    else:
        p = people[place - 1]
        row = f"{place}. {p.name} {board_value(p, board)}"
        lines.append(render(lang, "stats.top_you", {"row": row}))
    return lines


def cmd_top(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/top [points|rating|games|solo]``: the leaderboard, in the channel."""
    stats = _stats(router)
    board = board_names().get(args[0].lower()) if args else "points"
    if board is None or len(args) > 1:
        raise Refusal("stats.top_which", boards=" | ".join(BOARDS))
    table = ctx.table
    book = stats.book(_server(ctx))
    assert table is not None
    if not book.games:
        raise Refusal("stats.no_games")
    if ctx.inp.dm:
        lines = top_lines(book, board, ctx.inp.user, router.lang_of(ctx.inp.user, table))
        return _reply(router, ctx, "\n".join(lines))
    lang = table.options.language
    return [Public(table.channel, "\n".join(top_lines(book, board, ctx.inp.user, lang)), lang=lang)]


def cmd_web(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/web``: the link to the server's pages; ``/web on|off`` (admins)."""
    stats = _stats(router)
    server = _server(ctx)
    lang = router.lang_of(ctx.inp.user, ctx.table)
    if stats.web_url is None:
        raise Refusal("stats.web_none")
    if args:
        switch = yes_no().get(args[0].lower())  # on/off in any language (an, acceso, zap)
        if switch is None or len(args) > 1:
            raise Refusal("stats.web_which")
        if not ctx.inp.admin:
            raise Refusal("stats.web_admin_only")
        stats.set_web_enabled(server, switch)
        url = stats.page_url(server)
        if url is None:
            return _reply(router, ctx, render(lang, "stats.web_set_off"))
        return _reply(router, ctx, render(lang, "stats.web_set_on", {"url": url}))
    url = stats.page_url(server)
    if url is None:
        raise Refusal("stats.web_off")
    return _reply(router, ctx, render(lang, "stats.web_link", {"url": url}))


def score_chart(router: Host, ctx: Context, table: Table, args: list[str]) -> list[Event]:
    """``/score chart [N]``: the running totals of the running series (or series N)."""
    lang = router.lang_of(ctx.inp.user, table)
    number = whole_number(args[0]) if args else table.series.number
    if number is None or len(args) > 1:
        raise Refusal("stats.score_chart_which")
    records = [r for r in table.all_games() if r.series == number and not r.cancelled]
    if not records:
        raise Refusal("stats.score_chart_empty", series=number)
    names = records[-1].names
    last = records[-1].totals
    totals = [f"{names[s]} {signed(last[s])}" for s in range(len(names))]
    text = render(lang, "stats.score_chart", {"series": number, "games": len(records),
                                              "totals": totals})  # fmt: skip
    from ..stats.charts import totals_chart

    draw = functools.partial(
        totals_chart,
        [r.number for r in records],
        [r.totals for r in records],
        list(names),
        title=render(lang, "stats.chart_series", {"series": number}),
        xlabel=render(lang, "stats.chart_game"),
        ylabel=render(lang, "stats.chart_points"),
    )
    return _reply(router, ctx, text, draw)


def game_links(router: Host, table: Table, games: list[FinishedGame]) -> list[Event]:
    """Channel messages linking each stored game to its web page (none without pages)."""
    if router.stats is None:
        return []
    out: list[Event] = []
    for game in games:
        url = router.stats.game_url(game)
        if url is not None:
            lang = table.options.language
            text = render(lang, "stats.game_link", {"n": game.game, "url": url})
            out.append(Public(table.channel, text, lang=lang))
    return out
