"""``dokobot run``: serve the configured chat platforms from one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import TYPE_CHECKING

from .config import Config
from .host.reviewqueue import ReviewQueue
from .host.router import Router
from .host.service import Service, default_bot_factory
from .store import Scope, Store, StoreLocked, is_url, open_store

if TYPE_CHECKING:
    from .adapters.discord.handoff import Handoff

log = logging.getLogger("dokobot")


def scope_of(config: Config) -> Scope:
    """The servers this process serves: its Discord shards, its IRC network (each IRC
    network is served by one process) and the Matrix rooms (all of them are served by one
    process); ``local`` tables without a chat. Each adapter declares how its chat splits
    servers among processes."""
    from .adapters.discord.shards import shard_part
    from .adapters.irc.network import network_part
    from .adapters.matrix.rooms import rooms_part

    discord, irc = config.discord, config.irc
    parts = []
    if discord is not None:
        count = discord.shard_count or 1
        shard_ids = discord.shard_ids if discord.shard_ids is not None else tuple(range(count))
        parts.append(shard_part(count, tuple(shard_ids)))
    if irc is not None:
        parts.append(network_part(str(irc.network)))
    if config.matrix is not None:
        parts.append(rooms_part(config.matrix.user_id))
    return Scope(tuple(parts))


def stop_when_fenced(store: Store) -> list[str]:
    """Cancel the running task as soon as ``store`` finds this process fenced (another
    process took its servers over, or a reshard ended its epoch); the list it returns gets
    the reason then. Call it from that task."""
    taken: list[str] = []
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def lost(reason: str) -> None:  # a store thread
        taken.append(reason)
        if main is not None:
            loop.call_soon_threadsafe(main.cancel)

    store.on_lost = lost  # type: ignore[attr-defined]
    return taken


def _handoff(config: Config, store: object) -> Handoff | None:
    """With several processes on PostgreSQL, DM presses (Discord sends them all to shard 0)
    are handed to the process that holds their table."""
    from .store.postgres import PostgresStore

    if config.discord is None or config.discord.processes < 2:
        return None
    if not isinstance(store, PostgresStore):
        return None
    from .adapters.discord.handoff import Handoff

    return Handoff(store.conninfo())


async def serve(config: Config) -> None:
    """Start the service and every configured adapter; run until cancelled."""
    scope = scope_of(config)
    taken: list[str] = []
    store = await asyncio.to_thread(
        open_store, config.store_path, scope=scope, lease_s=config.store_lease_s
    )
    where = repr(store) if is_url(config.store_path) else config.store_path
    if is_url(config.store_path):
        log.info("serving %s from %s", scope.describe(), where)
        taken = stop_when_fenced(store)
    router = Router(
        bot_factory=default_bot_factory(config.search_budget),
        default_language=config.language,
        default_options=config.table_options(),
    )
    router.review_budget = config.review_budget
    web = config.web
    if web.enabled or web.base_url:
        from .stats import Stats

        router.stats = Stats(store, web_url=web.url)
    reviews = None
    if config.review_queue:  # every finished game with people reviewed once, in the background
        reviews = ReviewQueue(store, config.review_budget, limit=config.review_queue)
    service = Service(router, store, bot_delay=config.bot_delay, reviews=reviews)
    # Discord and Matrix show one board per game: the restored games need theirs (and the decision
    # markers of their prompts) from the start
    service.boards = config.discord is not None or config.matrix is not None
    tasks: list[asyncio.Future[None]] = []
    # each chat's own defaults for its new tables, before the stored tables come back
    if config.discord is not None:
        from .adapters.discord.defaults import TABLE_DEFAULTS as DISCORD_DEFAULTS

        service.table_defaults(DISCORD_DEFAULTS)
    if config.irc is not None:
        from .adapters.irc.settings import TABLE_DEFAULTS as IRC_DEFAULTS

        service.table_defaults(IRC_DEFAULTS)
    try:  # a fence found during the start stops the process as well (exit 2)
        restored = await service.start()
        log.info("restored %d tables from %s", len(router.tables), where)
        jobs = []
        if config.discord is not None:
            from .adapters.discord import run_discord

            jobs.append(
                run_discord(
                    service,
                    config.discord.token,
                    sharded=config.discord.sharded,
                    shard_count=config.discord.shard_count,
                    shard_ids=config.discord.shard_ids,
                    restored=restored,
                    admin_role=config.discord.admin_role,
                    sync_commands=config.discord.sync_commands,
                    global_rps=config.discord.rps,
                    handoff=_handoff(config, service.store),
                )
            )
        if config.irc is not None:
            from .adapters.irc import run_irc

            jobs.append(run_irc(service, config.irc, restored=restored))
        if config.matrix is not None:
            from .adapters.matrix import run_matrix

            jobs.append(run_matrix(service, config.matrix, restored=restored))
        if web.enabled and router.stats is not None:
            from .web import serve_web

            jobs.append(serve_web(router.stats, web.host, web.port))
        # If one adapter fails, the others are stopped too, before the service closes.
        tasks = [asyncio.ensure_future(job) for job in jobs]
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await service.close()
        if taken:  # exit 2 with the reason, not as if stopped by a signal
            raise StoreLocked(f"store {where}: {taken[0]}; this process stops")


def run_adapters(config: Config) -> int:
    logging.getLogger().setLevel(config.log_level)
    loop = asyncio.new_event_loop()
    task = loop.create_task(serve(config))
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, task.cancel)
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        pass
    finally:
        loop.close()
    return 0
