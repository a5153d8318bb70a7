"""The review queue (dokobot.host.reviewqueue): every finished game with people is reviewed
once in the background and stored; /review N answers from the store or tells the place in
the queue; play never waits for a review; a restart queues the unfinished ones again."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from dokobot.host import reviews
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.reviewqueue import NICE, TRIES, Compute, ProcessReviewer, ReviewQueue
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore, SqliteStore, Store, StoreError

BUDGET = 0.01


class Counting:
    """The real review (fixed, small work) that counts its calls; ``gate``: each review
    waits until it is set (a slow reviewer)."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.calls: list[tuple[str, int]] = []
        self.gate = gate

    def __call__(self, job: str, budget_s: float) -> str:
        number, _, _ = reviews.job_users(job)
        self.calls.append(("job", number))
        if self.gate is not None:
            assert self.gate.wait(60), "the test never opened the gate"
        return reviews.compute(job, BUDGET, fixed=True)


def _inp(name: str, text: str) -> Input:
    return Input("c", f"u:{name}", name, text)


async def _service(store: Store, compute: Compute, *, limit: int = 100) -> Service:
    router = Router(seed=0, table_seed=lambda _: 0, bot_factory=default_bot_factory())
    queue = ReviewQueue(store, BUDGET, limit=limit, compute=compute)
    svc = Service(router, store, reviews=queue)
    await svc.start()
    return svc


def _heard(svc: Service) -> list[Event]:
    heard: list[Event] = []

    async def listener(events: list[Event]) -> None:
        heard.extend(events)

    svc.listener = listener
    return heard


async def _play(svc: Service, moves: int = 1000) -> int:
    """anna (the one person, three random computer players) plays on: up to ``moves`` of
    her moves or to the game's end; the moves she made."""
    table = svc.router.tables["c"]
    made = 0
    while made < moves:
        await svc.idle()
        if not table.running:
            break
        choices = [
            c
            for e in await svc.handle(_inp("anna", "/hand"))
            if isinstance(e, Private)
            for c in e.choices
        ]
        await svc.handle(_inp("anna", choices[0].command))
        made += 1
    return made


async def _seat(svc: Service) -> None:
    await svc.handle(_inp("anna", "/join"))
    for _ in range(3):
        await svc.handle(_inp("anna", "/join bot random"))


async def _ask(svc: Service, text: str, name: str = "anna") -> str:
    [answer] = [e.text for e in await svc.handle(_inp(name, text)) if isinstance(e, Private)]
    return answer


async def test_each_game_is_reviewed_once_and_answered_from_the_store() -> None:
    store = MemoryStore()
    compute = Counting()
    svc = await _service(store, compute)
    heard = _heard(svc)
    await _seat(svc)
    for _ in range(2):
        await svc.handle(_inp("anna", "/start"))
        await _play(svc)
    assert svc.reviews is not None
    await svc.reviews_idle()
    # both games reviewed in the background, once each, without anybody asking
    assert compute.calls == [("job", 1), ("job", 2)]
    assert store.queued_reviews() == []  # the jobs (with the hands) are forgotten
    for n in (1, 2):
        found = reviews.GameReview.from_json(store.review("c", n) or "")
        assert found is not None and list(found.decisions) == [0]  # anna's seat only
    # the channel heard a short summary of each
    summaries = [e.text for e in heard if isinstance(e, Public) and "Review of game" in e.text]
    assert [s.split(":")[0] for s in summaries] == ["Review of game 1", "Review of game 2"]
    assert all(
        s.startswith(("Review of game 1: anna", "Review of game 2: anna")) for s in summaries
    )
    # any stored game of the table, not only the last; asked twice, computed once
    first = await _ask(svc, "/review 1")
    assert first.startswith("Game 1: ") and first == await _ask(svc, "/review 1")
    assert (await _ask(svc, "/review")).startswith("Game 2: ")
    assert compute.calls == [("job", 1), ("job", 2)]
    # who did not play is told so; a game without a review says so
    assert await _ask(svc, "/review 1", "eve") == "You did not play in game 1."
    assert (await _ask(svc, "/review 9")).startswith("Game 9 has no review")
    await svc.close()


async def test_play_goes_on_while_a_review_is_computed_and_the_asker_is_told() -> None:
    gate = threading.Event()
    compute = Counting(gate)
    svc = await _service(MemoryStore(), compute)
    heard = _heard(svc)
    await _seat(svc)
    await svc.handle(_inp("anna", "/start"))
    await _play(svc)
    queue = svc.reviews
    assert queue is not None
    for _ in range(500):  # the worker picks game 1 up
        if queue.place(("c", 1)) == 0:
            break
        await asyncio.sleep(0.01)
    assert queue.place(("c", 1)) == 0
    assert await _ask(svc, "/review") == (
        "Game 1 is being reviewed right now; I will tell you when it is ready."
    )
    # the next game is played while the review of game 1 waits in its worker
    await svc.handle(_inp("anna", "/start"))
    assert await _play(svc, moves=5) == 5
    assert queue.place(("c", 1)) == 0 and not gate.is_set()
    gate.set()
    await queue.idle()
    told = [e for e in heard if isinstance(e, Private) and e.text.startswith("Game 1")]
    assert [(e.user, e.reply) for e in told] == [("u:anna", False)]  # pushed to her
    assert told[0].text == await _ask(svc, "/review 1")
    assert compute.calls == [("job", 1)]
    await svc.close()


async def test_the_queue_tells_places_and_is_bounded() -> None:
    gate = threading.Event()
    store = MemoryStore()
    queue = ReviewQueue(store, BUDGET, limit=2, compute=Counting(gate))
    queue.attach(asyncio.get_running_loop())
    jobs = []
    for n in (1, 2, 3):
        svc_job = _job(n)
        jobs.append(svc_job)
    assert await asyncio.to_thread(queue.submit, ("a", 1), jobs[0]) == 1
    for _ in range(500):
        if queue.place(("a", 1)) == 0:
            break
        await asyncio.sleep(0.01)
    assert await asyncio.to_thread(queue.submit, ("a", 2), jobs[1]) == 1
    assert await asyncio.to_thread(queue.submit, ("a", 3), jobs[2]) is None  # full
    assert [k for k, *_ in [(c, g) for c, g, _ in store.queued_reviews()]] == ["a", "a"]
    assert queue.place(("a", 2)) == 1 and queue.place(("a", 3)) is None
    gate.set()
    await queue.idle()
    # a game reviewed once is never queued again
    assert await asyncio.to_thread(queue.submit, ("a", 1), jobs[0]) is None
    await queue.close()


def _job(number: int) -> str:
    from dokobot.ai.arena import play_game
    from dokobot.ai.levels import make_player

    game = play_game([make_player("random", seed=s) for s in range(4)], seed=number).game
    return reviews.job_of(number, game, ("u:anna", None, None, None), ("anna", "b", "c", "d"))


async def test_a_restart_queues_the_unfinished_reviews_again(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SqliteStore(db)
    gate = threading.Event()  # never set: the first process stops during the review
    svc = await _service(store, Counting(gate))
    await _seat(svc)
    await svc.handle(_inp("anna", "/start"))
    await _play(svc)
    assert svc.reviews is not None
    for _ in range(500):
        if svc.reviews.place(("c", 1)) == 0:
            break
        await asyncio.sleep(0.01)
    await svc.close()
    gate.set()  # (lets the abandoned worker thread end)
    store = SqliteStore(db)
    assert [(c, n) for c, n, _ in store.queued_reviews()] == [("c", 1)]
    compute = Counting()
    svc = await _service(store, compute)
    assert svc.reviews is not None
    await svc.reviews_idle()
    assert compute.calls == [("job", 1)]
    assert store.queued_reviews() == [] and store.review("c", 1) is not None
    assert (await _ask(svc, "/review 1")).startswith("Game 1: ")
    await svc.close()


def test_the_review_process_reviews_a_job_and_stops() -> None:
    reviewer = ProcessReviewer()
    try:
        found = reviews.GameReview.from_json(reviewer(_job(5), 0.05))
        ours = os.getpriority(os.PRIO_PROCESS, 0)  # the review runs at a lower priority
        assert os.getpriority(os.PRIO_PROCESS, reviewer._proc.pid) == min(19, ours + NICE)
        assert found is not None and found.game == 5 and list(found.decisions) == [0]
        assert found.decisions[0] > 0 and found.seconds > 0
    finally:
        reviewer.close()
    assert reviewer._proc is not None and not reviewer._proc.is_alive()


class Unreadable(MemoryStore):
    """A store whose reviews cannot be read (the database does not answer)."""

    def review(self, channel: str, game: int) -> str | None:
        raise StoreError("the database cannot be reached")


async def test_a_store_that_cannot_be_read_is_a_clear_answer() -> None:
    svc = await _service(Unreadable(), Counting())
    await _seat(svc)
    await svc.handle(_inp("anna", "/start"))
    await _play(svc)
    assert svc.reviews is not None
    await svc.reviews_idle()
    assert await _ask(svc, "/review 1") == (
        "The reviews cannot be read now (the store does not answer); try again in a moment."
    )
    await svc.close()


async def test_a_game_that_found_the_queue_full_is_queued_when_asked_for() -> None:
    gate = threading.Event()
    compute = Counting(gate)
    store = MemoryStore()
    svc = await _service(store, compute, limit=1)
    heard = _heard(svc)
    await _seat(svc)
    for _ in range(2):  # game 1 is being reviewed when game 2 ends: no room for game 2
        await svc.handle(_inp("anna", "/start"))
        await _play(svc)
    queue = svc.reviews
    assert queue is not None
    for _ in range(500):
        if queue.place(("c", 1)) == 0 and not svc.review_link.submitting:
            break
        await asyncio.sleep(0.01)
    assert queue.place(("c", 2)) is None and [n for _, n, _ in store.queued_reviews()] == [1]
    assert await _ask(svc, "/review 2") == (
        "The review queue is full: game 2 cannot be reviewed now; try again later."
    )
    gate.set()
    await queue.idle()
    assert store.review("c", 2) is None
    # room again: asked for, the last game is queued (with the names of its seats) and told
    assert (await _ask(svc, "/review")).startswith(("Game 2 waits", "Game 2 is being reviewed"))
    await queue.idle()
    assert compute.calls == [("job", 1), ("job", 2)]
    told = [e.text for e in heard if isinstance(e, Private) and e.text.startswith("Game 2: ")]
    assert told == [await _ask(svc, "/review 2")]
    summaries = [e.text for e in heard if isinstance(e, Public) and "Review of game 2" in e.text]
    assert len(summaries) == 1 and summaries[0].startswith("Review of game 2: anna")
    await svc.close()


async def _stop_reviewers(reviewer: ProcessReviewer, times: int) -> list[object]:
    """SIGSTOP the next ``times`` review processes as soon as each starts; the processes."""
    stopped: list[object] = []
    for _ in range(6000):
        proc = reviewer._proc
        if proc is not None and proc not in stopped and proc.is_alive():
            os.kill(proc.pid, signal.SIGSTOP)
            stopped.append(proc)
            if len(stopped) == times:
                return stopped
        await asyncio.sleep(0.005)
    raise AssertionError("no review process started")


async def _until(check: Callable[[], bool], seconds: float = 90) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not in time")


async def test_a_stopped_review_process_is_replaced_and_the_game_reviewed() -> None:
    """A real SIGSTOP of the reviewing process: within its stall limit the process is
    killed, the game queued again and reviewed by a new process; the person who asked is
    told the truth (being reviewed, then the review), and the next game is reviewed too."""
    store = MemoryStore()
    reviewer = ProcessReviewer(stall_s=1.0)
    svc = await _service(store, reviewer)
    heard = _heard(svc)
    stopped: list[object] = []
    try:
        await _seat(svc)
        await svc.handle(_inp("anna", "/start"))
        watch = asyncio.get_running_loop().create_task(_stop_reviewers(reviewer, 1))
        await _play(svc)
        stopped = await watch
        assert await _ask(svc, "/review") == (
            "Game 1 is being reviewed right now; I will tell you when it is ready."
        )
        await _until(
            lambda: any(isinstance(e, Private) and e.text.startswith("Game 1: ") for e in heard)
        )
        [first] = stopped
        assert first.exitcode == -signal.SIGKILL  # type: ignore[attr-defined]
        assert reviewer._proc is not None and reviewer._proc is not first
        told = [e.text for e in heard if isinstance(e, Private) and e.user == "u:anna"]
        assert told and told[-1].startswith("Game 1: ") and told[-1] == await _ask(svc, "/review 1")
        await svc.handle(_inp("anna", "/start"))
        await _play(svc)
        await _until(lambda: store.review("c", 2) is not None)
    finally:
        for proc in stopped:
            if proc.is_alive():  # type: ignore[attr-defined]
                proc.kill()  # type: ignore[attr-defined]
        await svc.close()


async def test_a_review_that_stalls_every_time_waits_for_the_restart_and_says_so() -> None:
    """Every review process is stopped: after its tries the game's review is given up for
    this run, its job stays stored (a restart reviews it), and the asker is told so."""
    store = MemoryStore()
    reviewer = ProcessReviewer(stall_s=0.5)
    svc = await _service(store, reviewer)
    heard = _heard(svc)
    stopped: list[object] = []
    try:
        await _seat(svc)
        await svc.handle(_inp("anna", "/start"))
        watch = asyncio.get_running_loop().create_task(_stop_reviewers(reviewer, TRIES))
        await _play(svc)
        await _ask(svc, "/review")  # she waits for it
        stopped = await watch
        failed = "The review of game 1 failed; it is made again after the bot's next restart."
        await _until(lambda: any(e.text == failed for e in heard if isinstance(e, Private)))
        assert all(p.exitcode == -signal.SIGKILL for p in stopped)  # type: ignore[attr-defined]
        assert [(c, n) for c, n, _ in store.queued_reviews()] == [("c", 1)]
        assert store.review("c", 1) is None
    finally:
        for proc in stopped:
            if proc.is_alive():  # type: ignore[attr-defined]
                proc.kill()  # type: ignore[attr-defined]
        await svc.close()
