"""The text-chat layer's parts (:mod:`dokobot.adapters.textchat`): the token bucket, the
outbox's lanes, reconnect backoff, the choices as commands to type, the line budget."""

from __future__ import annotations

import random

import pytest

from dokobot.adapters.textchat.backoff import backoff_delay
from dokobot.adapters.textchat.lines import split_text
from dokobot.adapters.textchat.outbox import ANSWER, BULK, GAME, Outbox, TokenBucket, Unit
from dokobot.adapters.textchat.typed import as_typed, render_choices, with_choices
from dokobot.host.events import Choice


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


async def test_token_bucket_bursts_then_keeps_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(3, 2.0, clock=clock, sleep=clock.sleep)
    stamps = []
    for _ in range(9):
        await bucket.acquire()
        stamps.append(clock.now - 100.0)
    assert stamps[:3] == [0.0, 0.0, 0.0]
    assert stamps[3:] == pytest.approx([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    # after a pause the bucket is full again, but never fuller than the burst
    clock.now += 60
    start = clock.now
    for _ in range(4):
        await bucket.acquire()
    assert clock.now - start == pytest.approx(0.5)


def test_token_bucket_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        TokenBucket(0, 1.0)
    with pytest.raises(ValueError):
        TokenBucket(1, 0.0)


def line(target: str, text: str, lane: int = GAME, **kw: object) -> Unit:
    private = not target.startswith("#")
    return Unit(target, [text], private, lane, **kw)  # type: ignore[arg-type]


async def texts(box: Outbox, n: int | None = None) -> list[str]:
    out = []
    while len(box) or box._current is not None:
        out.append((await box.get()).text)
        if n is not None and len(out) == n:
            break
    return out


async def test_outbox_takes_turns_and_a_persons_answer_takes_the_next_slot() -> None:
    box = Outbox()
    for n in range(3):  # three busy tables
        for table in ("#a", "#b", "#c"):
            box.put(line(table, f"{table}{n}"))
    box.put(line("u:eve", "export", BULK, answer=True))
    box.put(line("u:ben", "refused", ANSWER, answer=True))
    got = await texts(box)
    assert got[0] == "refused"  # queued last, sent first
    assert got[1:4] == ["#a0", "#b0", "#c0"]  # the tables take turns
    assert got[-1] == "export"  # the long answer when nothing else waits


async def test_units_are_never_split_and_keep_their_order() -> None:
    box = Outbox()
    box.put(Unit("u:anna", ["one", "two", "three"], True, ANSWER, True))
    box.put(line("#a", "table"))
    box.put(line("u:anna", "four", ANSWER, answer=True))  # a second answer waits its turn
    assert await texts(box) == ["one", "two", "three", "table", "four"]


async def test_a_person_who_sends_many_commands_costs_the_others_nothing() -> None:
    box = Outbox(per_target=4)
    for n in range(10):
        box.put(line("u:eve", f"help {n}", ANSWER, answer=True))
    box.put(line("#a", "trick"))
    box.put(line("u:ben", "refused", ANSWER, answer=True))
    assert box.waiting("u:eve") == 4 and box.dropped == 6
    got = await texts(box)
    # ben's one answer goes first; eve's newest answers take turns with the table
    assert got[0] == "refused"
    assert [t for t in got if t.startswith("help")] == [f"help {n}" for n in range(6, 10)]
    assert got.index("trick") < got.index("help 8")


async def test_stale_units_are_dropped_and_a_prompt_waits_for_the_channel_line() -> None:
    box = Outbox()
    answered = [False]
    dropped: list[str] = []
    channel = line("#a", "dora takes trick 3")
    box.put(line("u:cara", "old prompt", valid=lambda: not answered[0],
                 on_drop=lambda: dropped.append("old")))  # fmt: skip
    box.put(channel)
    prompt = line("u:ben", "Your turn", after=channel)
    box.put(prompt)
    answered[0] = True
    got = await texts(box)
    assert got == ["dora takes trick 3", "Your turn"]  # never before the channel line
    assert dropped == ["old"] and box.dropped == 1


def test_backoff_grows_is_capped_and_jittered() -> None:
    rng = random.Random(0)
    delays = [backoff_delay(n, initial=1.0, cap=30.0, rng=rng) for n in range(12)]
    for n, delay in enumerate(delays):
        ceiling = min(30.0, 2.0**n)
        assert ceiling / 2 <= delay <= ceiling
    assert len({round(d, 6) for d in delays[6:]}) > 1  # jitter, even at the cap
    assert backoff_delay(10_000, initial=1.0, cap=5.0) <= 5.0


def test_choices_not_shown_in_the_text_are_listed_as_commands() -> None:
    cards = [Choice("♣Q", "/play CQ"), Choice("♠10", "/play S10"), Choice("re", "/re")]
    assert render_choices("Your turn: 1:♣Q  4:♠10", cards) == "!re"
    assert render_choices("Your turn: 1:♣q", cards) == "!play S10 | !re"  # case-insensitive
    assert render_choices("", cards) == "!play CQ | !play S10 | !re"
    # a label inside another word does not count as shown
    assert render_choices("Healthy or reservation?", [Choice("re", "/re")]) == "!re"
    assert with_choices("Your turn:\n", cards) == "Your turn:  [!play CQ | !play S10 | !re]"
    assert with_choices("text", []) == "text"
    assert with_choices("1:♣Q", cards[:1]) == "1:♣Q"
    assert as_typed("/solo clubs") == "!solo clubs"
    assert as_typed("plain") == "plain"


@pytest.mark.parametrize("limit", [4, 5, 7, 16, 100, 400])
def test_split_text_respects_the_byte_limit(limit: int) -> None:
    rng = random.Random(limit)
    alphabet = ["a", "b", " ", "♣", "Q", "1", "0", "ü", "\n", "𝄞"]
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        lines = split_text(text, limit)
        assert all(0 < len(line.encode()) <= limit for line in lines)
        assert all("\n" not in line and "\r" not in line for line in lines)
        # nothing but whitespace is lost
        assert "".join("".join(lines).split()) == "".join(text.split())


def test_split_text_prefers_spaces_and_strips_protocol_breakers() -> None:
    assert split_text("alpha beta gamma", 11) == ["alpha beta", "gamma"]
    assert split_text("a\r\nb\rc\0d") == ["a", "b", "cd"]
    with pytest.raises(ValueError):
        split_text("x", 3)
