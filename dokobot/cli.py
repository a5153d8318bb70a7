"""The ``dokobot`` command.

``dokobot`` alone starts what the configuration asks for: the chat adapters if a token or
an IRC server is configured, else a console game against three computer players.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__, languages
from .ai.levels import OFFERED_LEVELS
from .host.table import BotFactory

if TYPE_CHECKING:
    from .config import Config


def _bot_factory() -> BotFactory | None:
    from .host.service import default_bot_factory

    return default_bot_factory(fixed=True)  # replays are deterministic


def cmd_replay(args: argparse.Namespace) -> int:
    from .host.replay import Replayer, ReplayError, render_transcript, results_jsonl

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"dokobot replay: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    rep = Replayer(bot_factory=_bot_factory())
    try:
        rep.run_text(text)
    except ReplayError as exc:
        print(f"dokobot replay: {path}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(results_jsonl(rep.results()))
    elif not args.quiet:
        print(render_transcript(rep.transcript))
    for failure in rep.failures:
        print(f"{path}: {failure}", file=sys.stderr)
    return 1 if rep.failures else 0


def _config(args: argparse.Namespace) -> Config | None:
    """The configuration named by ``args.config`` (None: refused, said on stderr)."""
    from .config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as exc:
        print(f"dokobot: {exc}", file=sys.stderr)
        return None


def cmd_export(args: argparse.Namespace) -> int:
    from .store import is_url, open_store

    config = _config(args)
    if config is None:
        return 2
    where = config.store_path
    if where != ":memory:" and not is_url(where) and not Path(where).exists() and not _loops(where):
        print(
            f"dokobot export: no store at {where} (store.path of {config.source}); "
            "only tables of `dokobot run` are stored, the console keeps nothing",
            file=sys.stderr,
        )
        return 2
    store = open_store(where, readonly=True)  # the bot may be running
    try:
        journal = store.load_whole_journal(args.channel)
        channels = [] if journal else store.channels()
        stored_games = [g.game for g in store.table_results(args.channel)] if journal else []
    finally:
        store.close()
    from .host.journal import decode_journal
    from .store import StoreDamaged
    from .store.postgres import PostgresStore

    shown = store.url if isinstance(store, PostgresStore) else where  # no password
    try:
        records = decode_journal(journal)
    except ValueError as exc:
        raise StoreDamaged(f"store {shown}: table {args.channel}: {exc}") from None
    if not journal:
        known = ", ".join(channels) or "none"
        print(
            f"dokobot export: no table in channel {args.channel!r} (stored channels: {known})",
            file=sys.stderr,
        )
        return 1
    from .host.replay import RestoreError, export_lines, restore
    from .host.router import Router

    router = Router(seed=0)
    router.table(args.channel).scripted_bots = True
    try:  # an export that would not replay what was played is refused, never printed short
        restore(router, args.channel, records)
    except RestoreError as exc:
        raise StoreDamaged(f"store {shown}: table {args.channel}: nothing exported, its "
                           f"journal is damaged: {exc}") from None  # fmt: skip
    table = router.tables[args.channel]
    played = {g.number for g in table.all_games()}
    lost = sorted(set(stored_games) - played)
    if lost:
        raise StoreDamaged(
            f"store {shown}: table {args.channel}: {len(lost)} of the {len(stored_games)} "
            f"finished games the store holds (game {lost[0]} first) are not in its journal; "
            "restore it from a backup. Nothing exported"
        )
    lines = export_lines(args.channel, records, running=table.running)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def cmd_console(args: argparse.Namespace) -> int:
    from .console import run_console

    config = _config(args)
    if config is None:
        return 2
    options = config.table_options()
    for text in args.option:  # (the console deals its first game at once: set them before)
        name, sep, value = text.partition("=")
        try:
            if not sep:
                raise ValueError("write it as NAME=VALUE, e.g. --option hints=on")
            options = options.set(name.strip(), value)
        except ValueError as exc:  # (an OptionError is one: the option's own message)
            print(f"dokobot console: --option {text}: {exc}", file=sys.stderr)
            return 2
    return run_console(
        players=args.players,
        bots=args.bots,
        seed=args.seed,
        lang=args.lang or config.language,
        level=args.level or config.bot_level,
        options=options,
    )


def cmd_run(args: argparse.Namespace) -> int:
    from .runner import run_adapters

    config = _config(args)
    if config is None:
        return 2
    if not config.has_chat() and not config.web.enabled:
        if args.command == "run":  # `dokobot` alone plays in the console instead
            print(
                "dokobot run: no chat is configured (set DOKOBOT_DISCORD_TOKEN, an irc or a "
                "matrix section; `dokobot console` plays in the terminal)",
                file=sys.stderr,
            )
            return 2
        from .console import run_console

        return run_console(
            players=[],
            bots=3,
            seed=None,
            lang=config.language,
            level=config.bot_level,
            options=config.table_options(),
        )
    refusal = _new_store_refusal(config, args.new_store)
    if refusal:
        print(f"dokobot run: {refusal}", file=sys.stderr)
        return 2
    return run_adapters(config)


def _loops(path: str) -> bool:
    """Whether ``path`` is a symbolic link that leads back to itself."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _new_store_refusal(config: Config, asked: bool) -> str:
    """Why ``dokobot run`` may not start on the SQLite store of ``config`` ("" if it may): a
    store that does not exist is made only when asked (``--new-store``), and only in a
    folder that exists, so a mistyped path never starts the bot on a new, empty store (a
    symbolic link loop is the store's to refuse)."""
    from .store import is_url

    where = config.store_path
    if is_url(where) or where == ":memory:" or Path(where).exists() or _loops(where):
        return ""
    origin = "the default" if config.source.startswith("(") else f"of {config.source}"
    named = f"{where} (store.path, {origin})"
    if not asked:
        return (
            f"there is no store at {named}; to start a new, empty one there, run "
            "`dokobot run --new-store` once"
        )
    if not Path(where).absolute().parent.is_dir():
        return f"there is no folder {Path(where).absolute().parent} for the new store {named}"
    return ""


def cmd_sync(args: argparse.Namespace) -> int:
    """Upload the Discord slash commands (globally, or to the given servers) and exit."""
    import asyncio

    config = _config(args)
    if config is None:
        return 2
    if config.discord is None:
        print("dokobot sync: no Discord token (set DOKOBOT_DISCORD_TOKEN)", file=sys.stderr)
        return 2
    from .adapters.discord import sync_discord

    scope = "guild" if args.guild else config.discord.sync_commands
    scope = "global" if scope == "off" else scope
    done = asyncio.run(sync_discord(config.discord.token, scope=scope, guilds=args.guild or ()))
    for line in done:
        print(line)
    return 0 if done and not any(line.startswith("failed") for line in done) else 1


def cmd_feed(args: argparse.Namespace) -> int:
    from .host.feed import run_feed

    return run_feed(args.file, args.store, args.start, args.json)


def cmd_stats(args: argparse.Namespace) -> int:
    import json

    from .stats import Stats
    from .store import open_store

    store = open_store(args.store, readonly=True)  # the bot may be running
    try:
        stats = Stats(store)
        servers = [args.server] if args.server else store.result_servers()
        if not servers and not args.json:  # (JSON: no line is no player)
            print(f"{args.store}: no finished games yet")
        for server in servers:
            book = stats.book(server)
            people = book.board("points")
            if args.json:
                for p in people:
                    sys.stdout.write(json.dumps({"server": server, **p.as_json()},
                                                ensure_ascii=False) + "\n")  # fmt: skip
                continue
            print(f"{server}: {book.games} games, {len(people)} players")
            print(f"  {'player':<20} {'games':>6} {'wins':>5} {'win%':>5} {'points':>7} "
                  f"{'solos':>7} {'rating':>18}")  # fmt: skip
            for p in people:
                rating = f"{p.rating:.1f} ({p.mu:.1f}±{p.sigma:.1f})" if p.rated_games else "-"
                print(f"  {p.name:<20} {p.games:>6} {p.wins:>5} {100 * p.win_rate:>5.0f} "
                      f"{p.points:>+7d} {p.solos_won:>3}/{p.solos_played:<3} {rating:>18}")  # fmt: skip
    finally:
        store.close()
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    import asyncio

    from .stats import Stats
    from .store import open_store
    from .web import serve_web

    config = _config(args)
    if config is None:
        return 2
    web = config.web
    host = args.host or web.host
    port = args.port or web.port
    # read only, beside the bot that writes the store (and never making one)
    store = open_store(args.store or config.store_path, readonly=True)
    try:
        stats = Stats(store, web_url=args.base_url or web.base_url or f"http://{host}:{port}")
        stats.warm()  # reads every stored game: a damaged one stops the start
        for server in store.result_servers():
            print(f"{server}: {stats.page_url(server) or '(turned off)'}", file=sys.stderr)
        asyncio.run(serve_web(stats, host, port))
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0


CONFIG_HELP = "config file (default: $DOKOBOT_CONFIG, else dokobot.yaml or config.yaml)"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dokobot", description="Doppelkopf for chat channels.")
    p.add_argument("--version", action="version", version=f"dokobot {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log more")
    p.add_argument(
        "--config",
        dest="default_config",
        default=None,
        metavar="FILE",
        help="config file of plain `dokobot` (the same as `dokobot run --config FILE`)",
    )
    sub = p.add_subparsers(dest="command")

    r = sub.add_parser("replay", help="replay a scripted command log")
    r.add_argument("file", help="the replay file (.doko)")
    r.add_argument("--json", action="store_true", help="print one JSON object per finished game")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing but failures")
    r.set_defaults(func=cmd_replay)

    c = sub.add_parser("console", help="play in the terminal")
    c.add_argument("--players", nargs="*", default=None, help="names of local players")
    c.add_argument("--bots", type=int, default=None, help="computer players (default: fill)")
    c.add_argument("--seed", type=int, default=None, help="deal seed (the same games again)")
    c.add_argument(
        "--lang",
        default=None,
        choices=list(languages.codes()),
        help="language (default: the config's)",
    )
    c.add_argument(
        "--level",
        default=None,
        choices=list(OFFERED_LEVELS),
        help="computer players' level (default: the config's)",
    )
    c.add_argument("--config", default=os.environ.get("DOKOBOT_CONFIG"), metavar="FILE",
                   help=CONFIG_HELP + "; its tables section sets the options")  # fmt: skip
    c.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a table option as /option takes it, over the config's (repeatable): "
                   "--option hints=on --option seats=5")  # fmt: skip
    c.set_defaults(func=cmd_console)

    e = sub.add_parser("export", help="print a stored table as a replay file")
    e.add_argument("channel", help="the table's channel id, e.g. discord:123 or irc:net:#doko")
    e.add_argument("--config", default=os.environ.get("DOKOBOT_CONFIG"), metavar="FILE",
                   help=CONFIG_HELP)  # fmt: skip
    e.set_defaults(func=cmd_export)

    f = sub.add_parser("feed", help="feed a script to a durable table, line by line (testing)")
    f.add_argument("file", help="the script, one command line per line (.doko)")
    f.add_argument("--store", required=True, help="SQLite file")
    f.add_argument("--from", dest="start", type=int, default=1, help="first line to feed")
    f.add_argument("--json", action="store_true", help="print the results at the end")
    f.set_defaults(func=cmd_feed)

    sy = sub.add_parser("sync", help="upload the Discord slash commands and exit")
    sy.add_argument("--config", default=os.environ.get("DOKOBOT_CONFIG"), metavar="FILE",
                    help=CONFIG_HELP)  # fmt: skip
    sy.add_argument(
        "--guild", type=int, action="append", help="a server id (repeatable); default: global"
    )
    sy.set_defaults(func=cmd_sync)
    st = sub.add_parser("stats", help="print the statistics of the stored finished games")
    st.add_argument("--store", required=True, help="SQLite file")
    st.add_argument("--server", default=None, help="only this server (e.g. discord:123)")
    st.add_argument("--json", action="store_true", help="one JSON object per player")
    st.set_defaults(func=cmd_stats)

    w = sub.add_parser("web", help="serve the web pages (leaderboards, players, games)")
    w.add_argument("--config", default=os.environ.get("DOKOBOT_CONFIG"), metavar="FILE",
                   help=CONFIG_HELP)  # fmt: skip
    w.add_argument("--store", default=None, help="SQLite file (default: the config's)")
    w.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=int, default=None, help="port (default 8080)")
    w.add_argument("--base-url", default=None, help="public address of the pages")
    w.set_defaults(func=cmd_web)

    run = sub.add_parser("run", help="serve the configured chat platforms")
    run.add_argument("--config", default=os.environ.get("DOKOBOT_CONFIG"), metavar="FILE",
                     help=CONFIG_HELP)  # fmt: skip
    run.add_argument(
        "--new-store",
        action="store_true",
        help="make the SQLite store if it does not exist (else that is refused)",
    )
    run.set_defaults(func=cmd_run)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from .config import guard_logging

    guard_logging()
    if args.command is None:
        config = [] if args.default_config is None else ["--config", args.default_config]
        verbose = ["--verbose"] if args.verbose else []
        args = parser.parse_args([*verbose, "run", *config])
        args.command = "default"
    if args.default_config is not None and getattr(args, "config", "") in (
        None,
        os.environ.get("DOKOBOT_CONFIG"),
    ):
        args.config = args.default_config  # `dokobot --config FILE run|export ...`
    func = args.func
    from .store import StoreError

    try:
        return int(func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of the output went away (``dokobot replay FILE | head``): stop quietly;
        # output still buffered goes nowhere, so the interpreter's last flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except StoreError as exc:
        print(f"dokobot: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
