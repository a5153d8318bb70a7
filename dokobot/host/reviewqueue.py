"""The review queue: every finished game with people is reviewed once, in the background,
and its review is stored with the game.

A game played to its end with at least one person is *submitted*: its job
(:func:`~dokobot.host.reviews.job_of`) is stored first, then queued. One worker reviews the
queued games one after the other, in a process of its own at a low priority
(:class:`ProcessReviewer`), so neither the event loop nor a computer player's thinking ever
waits for a review; the review is stored (:meth:`Store.finish_review`, which forgets the
job) and :attr:`ReviewQueue.on_ready` tells whoever is waiting. The queue is bounded
(:data:`MAX_QUEUED` games by default, ``bots.review_queue``): a game that ends while it is
full is not reviewed. After a restart the stored jobs are queued again
(:meth:`ReviewQueue.requeue`).

No wait on the reviewing process is without a deadline: a review that takes longer than
:func:`deadline_s` (its decisions times its budget, with a wide margin), or whose process
is stopped (``SIGSTOP``) or dead for :data:`STALL_S`, ends the process (the next review
starts a new one) and puts the game at the end of the queue again, up to :data:`TRIES`
times; after that its job stays stored and is tried again after the next restart, which is
what the people waiting for it are told.

Its methods may be called from any thread: ``/review`` asks from a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from ..store import Store
from . import reviews

log = logging.getLogger(__name__)

MAX_QUEUED: Final = 100
"""Games waiting for their review or being reviewed, at most (``bots.review_queue``)."""
NICE: Final = 10
"""How much lower the reviewing process's priority is than the bot's."""
STALL_S: Final = 10.0
"""Seconds a reviewing process may be stopped (``SIGSTOP``) or dead before the review is
given up and the process replaced."""
TRIES: Final = 2
"""Times a game is reviewed before its review waits for the next restart."""
DECISIONS_PER_SEAT: Final = 20
"""At most the decisions of one seat a review judges (a reservation, twelve cards,
calls), each at most twice (a found mistake is confirmed)."""
MARGIN: Final = 10
"""How many times its CPU budget a review may take in wall time (a low priority on a busy
machine) before it is given up."""
POLL_S: Final = 0.5
"""How often a wait on the reviewing process looks at its state."""


class ReviewTimeout(Exception):
    """The reviewing process gave no answer in time (stopped, dead or too slow); it was
    ended, and the next review starts a new one."""


def deadline_s(job: str, budget_s: float) -> float:
    """The wall seconds the review of ``job`` may take: every decision of every person's
    seat at ``budget_s`` CPU seconds (twice), :data:`MARGIN` times, and the process's start.

    >>> from dokobot.engine import DEFAULT_RULES, Game
    >>> job = reviews.job_of(1, Game.deal(DEFAULT_RULES, 0, 7), ("u:a", None, None, None), "abcd")
    >>> deadline_s(job, 0.4)
    190.0
    """
    try:
        people = sum(u is not None for u in reviews.job_users(job)[1])
    except (ValueError, KeyError, TypeError):
        people = 4
    return 30.0 + people * DECISIONS_PER_SEAT * 2 * budget_s * MARGIN


Key = tuple[str, int]
"""(channel, game number)."""
Compute = Callable[[str, float], str]
"""A job and the CPU seconds per decision -> the review record (blocking)."""
Ready = Callable[[Key, str | None, dict[str, str]], Awaitable[None]]
"""Called on the event loop when a review is done: its key, its record (None: it failed)
and the people waiting for it, with the language to tell each in."""


class ReviewQueue:
    """The bounded queue of games to review, and its one worker."""

    def __init__(
        self,
        store: Store,
        budget_s: float,
        *,
        limit: int = MAX_QUEUED,
        compute: Compute | None = None,
    ) -> None:
        self.store = store
        self.budget_s = budget_s
        self.limit = limit
        self.compute: Compute = compute if compute is not None else ProcessReviewer()
        self.on_ready: Ready | None = None
        self._lock = threading.Lock()
        self._pending: OrderedDict[Key, str] = OrderedDict()
        """Queued jobs, first first."""
        self._users: dict[Key, tuple[str | None, ...]] = {}
        """The person in each seat of every queued or running game."""
        self._running: Key | None = None
        self._waiting: dict[Key, dict[str, str]] = {}
        """Per game: the people to tell when its review is ready (user -> language)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: asyncio.Task[None] | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dokobot-review")
        self._closed = False
        self._tries: dict[Key, int] = {}
        """Per game: the reviews of it that timed out in this run."""

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the worker runs on (the service's)."""
        self._loop = loop

    # ------------------------------------------------------------ asking
    def place(self, key: Key) -> int | None:
        """0: being reviewed now; N: N-th in the queue; None: not queued."""
        with self._lock:
            return self._place(key)

    def _place(self, key: Key) -> int | None:
        if key == self._running:
            return 0
        for n, queued in enumerate(self._pending, 1):
            if queued == key:
                return n
        return None

    @property
    def busy(self) -> bool:
        """Whether a review is being made now."""
        with self._lock:
            return self._running is not None

    def users(self, key: Key) -> tuple[str | None, ...]:
        with self._lock:
            return self._users.get(key, ())

    def watch(self, key: Key, user: str, lang: str) -> int | None:
        """Tell ``user`` (in ``lang``) when the review of ``key`` is ready; its place (None:
        not queued, nobody will be told)."""
        with self._lock:
            where = self._place(key)
            if where is not None:
                self._waiting.setdefault(key, {})[user] = lang
            return where

    def submit(self, key: Key, job: str) -> int | None:
        """Store the job of ``key`` and queue it (blocking: from a worker thread); its place,
        or None if the queue is full or the game was reviewed (or submitted) before."""
        with self._lock:
            if self._closed or self._full() or self._place(key) is not None:
                return None
        if not self.store.queue_review(key[0], key[1], job):
            return None  # reviewed already, or queued by an earlier start
        return self._queue(key, job)

    def requeue(self, key: Key, job: str) -> int | None:
        """Queue a stored job again (a start); None if the queue is full."""
        with self._lock:
            if self._full() or self._place(key) is not None:
                return None
        return self._queue(key, job)

    def _full(self) -> bool:
        return len(self._pending) + (self._running is not None) >= self.limit

    def _queue(self, key: Key, job: str) -> int | None:
        try:
            _, users, _ = reviews.job_users(job)
        except (ValueError, KeyError, TypeError):
            log.warning("review job of game %d of %s is not readable: not reviewed", key[1],
                        key[0])  # fmt: skip
            return None
        with self._lock:
            self._pending[key] = job
            self._users[key] = users
            where = self._place(key)
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._kick)
        return where

    # ------------------------------------------------------------ the worker
    def _kick(self) -> None:
        if self._closed or (self._worker is not None and not self._worker.done()):
            return
        self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed:
            with self._lock:
                if not self._pending:
                    return
                key, job = self._pending.popitem(last=False)
                self._running = key
            record: str | None = None
            limit = deadline_s(job, self.budget_s)
            try:
                # The process reviewer keeps its own deadline; this one is for any other
                # compute (its thread is then left behind, and a new one takes over).
                record = await asyncio.wait_for(
                    loop.run_in_executor(self._thread, self.compute, job, self.budget_s),
                    limit + STALL_S + 10,
                )
                await asyncio.to_thread(self.store.finish_review, key[0], key[1], record)
            except (ReviewTimeout, TimeoutError) as exc:
                if isinstance(exc, TimeoutError):
                    self._thread.shutdown(wait=False)
                    self._thread = ThreadPoolExecutor(1, thread_name_prefix="dokobot-review")
                if not self._closed and self._again(key, job, exc):
                    continue
            except Exception:
                if not self._closed:
                    log.exception("review of game %d of %s failed (tried again after a "
                                  "restart)", key[1], key[0])  # fmt: skip
            with self._lock:
                self._running = None
                waiting = self._waiting.pop(key, {})
                self._users.pop(key, None)
                self._tries.pop(key, None)
            if self._closed:
                return
            if self.on_ready is not None:
                try:
                    await self.on_ready(key, record, waiting)
                except Exception:
                    log.exception("review of game %d of %s: telling failed", key[1], key[0])

    def _again(self, key: Key, job: str, exc: Exception) -> bool:
        """Queue ``key`` again at the end after its review timed out (the people waiting
        for it stay waiting); False once it has had its :data:`TRIES`."""
        with self._lock:
            tries = self._tries[key] = self._tries.get(key, 0) + 1
            if tries >= TRIES:
                log.warning("review of game %d of %s timed out %d times (%s); tried again "
                            "after a restart", key[1], key[0], tries, exc)  # fmt: skip
                return False
            log.warning("review of game %d of %s timed out (%s): queued again", key[1],
                        key[0], exc)  # fmt: skip
            self._running = None
            self._pending[key] = job
            return True

    async def idle(self) -> None:
        """Wait until the queue is empty (tests)."""
        while True:
            worker = self._worker
            if worker is None or worker.done():
                with self._lock:
                    if not self._pending:
                        return
                await asyncio.sleep(0.01)
                continue
            await asyncio.gather(worker, return_exceptions=True)

    async def close(self) -> None:
        """Stop: the review under way is abandoned (its job stays stored)."""
        self._closed = True
        stop = getattr(self.compute, "close", None)
        if stop is not None:
            await asyncio.to_thread(stop)
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
        self._thread.shutdown(wait=False, cancel_futures=True)


class ProcessReviewer:
    """Reviews in a child process of their own, started at the first review and run at a
    lower priority (:data:`NICE`), so a review never takes the bot's CPU: neither the event
    loop's nor a computer player's (they would share one interpreter lock in a thread)."""

    def __init__(self, *, stall_s: float = STALL_S) -> None:
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Connection | None = None
        self.stall_s = stall_s
        """Seconds the process may be stopped or dead before the review is given up."""

    def __call__(self, job: str, budget_s: float) -> str:
        """The review record of ``job``; :class:`ReviewTimeout` (the process ended) when the
        process is stopped or dead for :attr:`stall_s`, or past :func:`deadline_s`."""
        deadline = time.monotonic() + deadline_s(job, budget_s)
        with self._lock:
            conn = self._connection()
            conn.send((job, budget_s))  # a few KB: the pipe's buffer takes it
            stalled: float | None = None
            while not conn.poll(POLL_S):
                now = time.monotonic()
                stalled = (stalled or now) if self._stalled() else None
                if now >= deadline or (stalled is not None and now - stalled >= self.stall_s):
                    why = "no answer in time" if stalled is None else "stopped or dead"
                    self._end()
                    raise ReviewTimeout(f"the review process gave {why}; it was ended")
            try:
                ok, value = conn.recv()
            except (EOFError, OSError) as exc:  # it died as it answered
                self._end()
                raise ReviewTimeout(f"the review process died: {exc!r}") from exc
        if not ok:
            raise RuntimeError(f"the review process failed: {value}")
        return str(value)

    def _stalled(self) -> bool:
        """Whether the process is stopped (``SIGSTOP``), traced, a zombie, or gone."""
        proc = self._proc
        if proc is None or not proc.is_alive():
            return True
        try:
            stat = Path(f"/proc/{proc.pid}/stat").read_text()
        except OSError:  # no /proc (not Linux): only the deadline applies
            return False
        return stat[stat.rindex(")") + 2 :][:1] in ("T", "t", "Z", "X")

    def _end(self) -> None:
        """Kill the process (a stopped one too) and forget it: the next review starts a
        new one."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is not None:
            proc.kill()
            proc.join(5)
        if conn is not None:
            conn.close()

    def _connection(self) -> Connection:
        if self._proc is None or not self._proc.is_alive() or self._conn is None:
            ctx = multiprocessing.get_context("spawn")
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=serve, args=(theirs,), name="dokobot-review", daemon=True)
            proc.start()
            theirs.close()
            pid = proc.pid
            assert pid is not None  # (started; 0 would lower the bot itself)
            with contextlib.suppress(OSError):  # lower from its start on (its imports too)
                mine_nice = os.getpriority(os.PRIO_PROCESS, 0)
                os.setpriority(os.PRIO_PROCESS, pid, min(19, mine_nice + NICE))
            self._proc, self._conn = proc, mine
        return self._conn

    def close(self) -> None:
        proc, conn = self._proc, self._conn
        if proc is not None and proc.is_alive():
            proc.terminate()
            proc.join(5)
            if proc.is_alive():  # stopped (SIGSTOP keeps SIGTERM waiting): kill it
                proc.kill()
                proc.join(5)
        if conn is not None:
            with contextlib.suppress(OSError):  # a review that failed on it closed it already
                conn.close()


def serve(conn: Connection) -> None:
    """The reviewing process (lowered by :class:`ProcessReviewer` as it starts): jobs in,
    review records out, until the pipe closes."""
    while True:
        try:
            job, budget_s = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, str] = (True, reviews.compute(job, budget_s))
        except Exception as exc:
            answer = (False, repr(exc)[:200])
        try:
            conn.send(answer)
        except OSError:  # the bot is gone (killed): so is the reason to go on
            return
