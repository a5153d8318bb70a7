"""A real ``dokobot run`` process pointed at a fake Discord (tests and benches that need the
bot in its own operating-system process: several shards on PostgreSQL, or the bot measured
apart from the fake and its simulated people).

    python tests/discord_fake/bot_process.py PORT [dokobot run options ...]

PORT is the port of a running :class:`~discord_fake.FakeDiscord` on 127.0.0.1. discord.py's
REST base and default gateway are pointed at it exactly as :meth:`FakeDiscord.patched` does
in-process; everything else is the command line's ``dokobot run`` (configuration file,
``DOKOBOT_DISCORD_TOKEN`` and the other variables from the environment).

``DOKOBOT_FAKE_SPEED=S`` (default 1) runs the adapter's board interval and the grace before a
player who may be looking at his panel is pinged S times faster, for a
fake whose clock runs S times faster (:attr:`FakeDiscord.speed`; the bot's request budget is
the configuration's ``discord.global_rps``, which the caller scales the same).
``DOKOBOT_FAKE_STOPS=1`` logs each stop of the process's event loop of 0.5 s or more and
each garbage collection of 0.1 s or more, with the monotonic time it ended (a bench puts
them beside its own clock).
``DOKOBOT_FAKE_IDENTIFY_S=T`` holds a turn to IDENTIFY T seconds after READY instead of
Discord's 5 (for a fake whose :attr:`FakeDiscord.identify_spacing` is T: a test that is not
about the spacing).

:class:`BotProcess` starts one such process from a test, with the configuration of one
shard of several (:func:`shard_config`), and stops, pauses or kills it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import discord
import yarl

from dokobot.adapters.discord.adapter import DiscordAdapter
from dokobot.adapters.discord.board_messages import BOARD_INTERVAL
from dokobot.adapters.discord.handoff import Handoff
from dokobot.adapters.discord.notify import PING_GRACE
from dokobot.cli import main

TOKEN = "fake-token"
SPEED_ENV = "DOKOBOT_FAKE_SPEED"
IDENTIFY_ENV = "DOKOBOT_FAKE_IDENTIFY_S"
STOPS_ENV = "DOKOBOT_FAKE_STOPS"


def dump_tasks(signum: int, frame: object) -> None:
    """SIGUSR1: every asyncio task with where it waits, then a ``TABLE`` line per table in memory
    (its phase, who is to act, who is away, its turn clock and computer players' task), to
    stderr: a bench that finds a stuck table asks for it before it stops the bot."""
    import asyncio
    import gc

    from dokobot.host.service import Service

    loop = asyncio._get_running_loop()
    out = sys.stderr
    for task in asyncio.all_tasks(loop) if loop is not None else ():
        print(f"TASK {task.get_name()}: {' <- '.join(awaits(task.get_coro()))}", file=out)
    for service in (o for o in gc.get_objects() if isinstance(o, Service)):
        for channel, table in service.router.tables.items():
            game = table.game
            bots, timer = service.turns._bot_tasks.get(channel), service.turns._timers.get(channel)
            failed = None
            if bots is not None and bots.done() and not bots.cancelled():
                failed = bots.exception()
            print(
                f"TABLE {channel} game={table.game_number} running={table.running} "
                f"phase={None if game is None else game.phase.name} "
                f"turn={None if game is None else game.turn} away={sorted(table.away)} "
                f"computer_to_move={table.bot_to_move()} lock_held={channel in service.locks._holders} "
                f"timer={None if timer is None else timer.done()} "
                f"computer_task={None if bots is None else bots.done()} "
                f"computer_failed={failed!r} held={channel in service.residency.held}",
                file=out,
            )
    out.flush()


def awaits(coro: object) -> list[str]:
    """Where the coroutine ``coro`` waits: its frame, then the frames of what it awaits."""
    chain: list[str] = []
    while coro is not None and len(chain) < 30:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return chain


def collection_timer(
    least_s: float, record: Callable[[float, float, int], None]
) -> Callable[[str, dict[str, int]], None]:
    """A callback for :data:`gc.callbacks` that calls ``record(end, seconds, generation)``
    (monotonic end) for each garbage collection of ``least_s`` seconds or more."""
    began: list[float] = []

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[:] = [time.monotonic()]
        elif began and (took := time.monotonic() - began[0]) >= least_s:
            record(time.monotonic(), took, info["generation"])

    return timed


def log_stops() -> None:
    """Log the event loop's stops and the long garbage collections (see ``STOPS_ENV``): a
    thread asks the loop every 0.1 s to run a callback and times how long it waits."""
    import asyncio
    import gc

    loops: list[asyncio.AbstractEventLoop] = []

    class Recorded(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self) -> asyncio.AbstractEventLoop:
            loop = super().new_event_loop()
            loops.append(loop)
            return loop

    asyncio.set_event_loop_policy(Recorded())

    def logged(end: float, took: float, generation: int) -> None:
        print(f"STOP gc generation {generation} {took:.3f} s at {end:.3f}",
              file=sys.stderr, flush=True)  # fmt: skip

    gc.callbacks.append(collection_timer(0.1, logged))

    def watch() -> None:
        while True:
            time.sleep(0.1)
            if not loops or loops[-1].is_closed():
                continue
            ran = threading.Event()
            asked = time.monotonic()
            try:
                loops[-1].call_soon_threadsafe(ran.set)
            except RuntimeError:  # (closed meanwhile)
                continue
            ran.wait(60)
            if (took := time.monotonic() - asked) >= 0.5:
                print(f"STOP loop {took:.3f} s at {time.monotonic():.3f}",
                      file=sys.stderr, flush=True)  # fmt: skip

    threading.Thread(target=watch, name="stops", daemon=True).start()


def run(argv: list[str]) -> int:
    signal.signal(signal.SIGUSR1, dump_tasks)
    if os.environ.get(STOPS_ENV):
        log_stops()
    port, *rest = argv
    discord.http.Route.BASE = f"http://127.0.0.1:{int(port)}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        f"ws://127.0.0.1:{int(port)}/gateway"
    )
    speed = float(os.environ.get(SPEED_ENV) or 1.0)
    defaults = DiscordAdapter.__init__.__kwdefaults__
    if speed != 1.0 and defaults is not None:
        defaults["board_interval"] = BOARD_INTERVAL / speed
        defaults["ping_grace"] = PING_GRACE / speed
    spacing = os.environ.get(IDENTIFY_ENV)
    handoff = Handoff.__init__.__kwdefaults__
    if spacing and handoff is not None:
        handoff["identify_spacing"] = float(spacing)
    return main(["run", *rest])


def shard_config(store_url: str, shard: int, shard_count: int, lease_s: float = 10.0) -> str:
    """The configuration (YAML) of the process that serves ``shard`` of ``shard_count``
    on the PostgreSQL at ``store_url`` (its password comes from the environment)."""
    return (
        f"store:\n  url: {store_url}\n  lease_s: {lease_s}\n"
        f"discord:\n  shard_count: {shard_count}\n  shard_ids: [{shard}]\n"
        "bots:\n  delay: 0\n"
    )


class BotProcess:
    """``dokobot run`` with the configuration file ``config`` against the fake on ``port``,
    in a process of its own; what it logs goes to ``log``."""

    def __init__(
        self, port: int, config: Path, log: Path, identify_spacing: float | None = None
    ) -> None:
        self.port = port
        self.config = config
        self.log = log
        self.identify_spacing = identify_spacing
        """Seconds a turn to IDENTIFY is held (:data:`IDENTIFY_ENV`); None: Discord's 5."""
        self.proc: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        pid = self.proc.pid if self.proc is not None else None
        return f"<BotProcess {self.config.name} pid={pid}>"

    def start(self) -> None:
        env = dict(os.environ, DOKOBOT_DISCORD_TOKEN=TOKEN)
        if self.identify_spacing is not None:
            env[IDENTIFY_ENV] = str(self.identify_spacing)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, __file__, str(self.port), "--config", str(self.config)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the process (SIGSTOP, SIGCONT, SIGKILL...)."""
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        """kill -9, and wait until it is gone."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> int | None:
        """Stop it as an operator would (SIGTERM; SIGKILL after 10 s); its exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a paused one must see the SIGTERM
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def output(self) -> str:
        """What it logged so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
