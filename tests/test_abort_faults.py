"""Aborts, leaves and disconnects at random moments of random house-rule games (issue 36,
item 8): never an internal error, and a refused command changes nothing.

An abort vote in a poverty game used to fail at random ("Sorry, something went wrong")
after the vote was stored and the game listed as aborted: the cover deal of the aborted
game (what exports show instead of the hidden hands) was dealt by a greedy random deal
that ran into dead ends, and the table changed its state before building it.
``--slow`` runs 1,000 random games instead of 150.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dokobot.engine import Phase
from dokobot.engine.cover import cover
from dokobot.engine.notation import parse_cards
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.i18n import render
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import default_bot_factory
from dokobot.host.table import Table

POVERTY = Path(__file__).parent / "data" / "house" / "poverty.doko"
NAMES = ("anna", "ben", "carl", "dora", "emil")
INTERNAL = render("en", "internal_error", {})
ABORTED = render("en", "aborted", {})
HOUSE_OPTIONS = (
    "poverty on",
    "throw_in on",
    "piglets on",
    "bock on",
    "nines off",
    "wedding_trick trump",
    "standin off",
)


def _first_commands(path: Path, n: int) -> str:
    """The lines of a replay up to its ``n``-th command (directives and comments kept)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if n == 0:
            break
        out.append(line)
        if line and not line.startswith(("#", "!")):
            n -= 1
    return "\n".join(out)


def test_three_aborts_in_a_poverty_game_abort_it() -> None:
    """The issue's reproduction: 40 commands of poverty.doko, then three votes, 25 times
    (each cover is dealt from a new random seed)."""
    for _ in range(25):
        rep = Replayer()
        text = _first_commands(POVERTY, 40)
        rep.run_text(text + "\nanna: /abort\nben: /abort\ncarl: /abort")
        assert not rep.failures, rep.failures
        texts = [e.text for _, e in rep.transcript[-6:]]
        assert INTERNAL not in texts, texts
        [table] = rep.router.tables.values()
        assert table.game is not None and table.game.phase is Phase.FINISHED
        assert table.journal[-1].kind == "cover"


def test_poverty_covers_are_found_every_time() -> None:
    """The same game's cover from 300 random seeds: none fails (5 % did)."""
    rep = Replayer()
    rep.run_text(_first_commands(POVERTY, 40))
    [table] = rep.router.tables.values()
    game = table.game
    assert game is not None and game.exchange is not None and len(game.tricks) == 5
    for seed in range(300):
        hands, _ = cover(game, random.Random(seed))
        assert sum(h.bit_count() for h in hands) == 48


def _state(table: Table) -> tuple[object, ...]:
    game = table.game
    return (
        len(table.journal),
        table.journal[-1] if table.journal else None,
        None if game is None else (tuple(game.log), game.phase, game.cancelled),
        tuple((s.user, s.bot, s.standin_for) for s in table.seats),
        frozenset(table.abort_votes),
        frozenset(table.away),
        len(table.finished),
        tuple(table.waiting),
        table.options,
    )


def _poverty_hands(rng: random.Random) -> list[int]:
    """A deal with a poverty (poverty.doko's), the hands in a random seat order."""
    text = POVERTY.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("!deal "))
    hands = []
    for part in line[len("!deal ") :].split(";"):
        cards = parse_cards(part.split("=", 1)[1])
        mask = 0
        for kind in cards:
            mask |= 1 << (2 * kind) if not mask >> (2 * kind) & 1 else 1 << (2 * kind + 1)
        hands.append(mask)
    rng.shuffle(hands)
    return hands


def _one_game(case: int) -> tuple[int, int]:
    """Random commands at one table: (refusals, aborted games)."""
    rng = random.Random(case)
    r = Router(seed=case, bot_factory=default_bot_factory())

    def say(name: str, text: str) -> list[Event]:
        return r.handle(Input("chan", f"u:{name}", name, text))

    for name in NAMES[:4]:
        say(name, "/join")
    table = r.tables["chan"]
    for option in rng.sample(HOUSE_OPTIONS, rng.randrange(len(HOUSE_OPTIONS) + 1)):
        say("anna", "/option " + option)
    refusals = aborted = 0
    for _ in range(rng.randrange(30, 120)):
        game = table.game
        if game is None or game.phase is Phase.FINISHED:
            if table.options.poverty and table.options.nines and rng.random() < 0.5:
                table.set_next_deal(_poverty_hands(rng))
            who = rng.choice(NAMES)
            events = say(who, rng.choice(("/start", "/start", "/join", "/leave")))
        elif r.bot_step("chan") is not None:
            continue
        else:
            roll = rng.random()
            seated = [s.name for s in table.seats if not s.is_bot]
            mover = table.seats[game.turn]
            if roll < 0.12:
                who, text = rng.choice(NAMES), "/abort"
            elif roll < 0.17:
                who, text = rng.choice(NAMES), "/leave"
            elif roll < 0.20:
                who, text = rng.choice(NAMES), "/join"
            elif roll < 0.24 and not mover.is_bot and game.turn not in table.away:
                table.mark_away(game.turn)  # a disconnect: the turn clock's stand-in
                continue
            elif seated:
                who = mover.name if mover.name in seated else rng.choice(seated)
                choices = [c for e in say(who, "/hand") if isinstance(e, Private)
                           for c in e.choices]  # fmt: skip
                if not choices:
                    continue
                text = rng.choice(choices).command
            else:
                continue
            seat = table.seat_of(f"u:{who}")
            if seat is not None:
                table.away.discard(seat)  # any word of his brings him back (not a change)
            before = _state(table)
            events = say(who, text)
            errors = [e for e in events if isinstance(e, Private) and e.kind == "error"]
            if errors:
                refusals += 1
                assert _state(table) == before, (case, who, text, [e.text for e in errors])
        texts = [e.text for e in events if isinstance(e, Private)]
        assert INTERNAL not in texts, (case, texts)
        aborted += any(e.text == ABORTED for e in events if isinstance(e, Public))
    return refusals, aborted


def _many(n: int) -> None:
    refusals = aborted = 0
    for case in range(n):
        got = _one_game(case)
        refusals += got[0]
        aborted += got[1]
    assert refusals > n and aborted > n // 10, (refusals, aborted)


def test_random_aborts_leaves_and_disconnects(request: pytest.FixtureRequest) -> None:
    _many(1000 if request.config.getoption("--slow") else 150)


def test_an_abort_whose_cover_cannot_be_built_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Everything that may fail is built before the table changes: if the cover deal
    cannot be made, the deciding vote is not counted (and "nothing was changed" is true)."""
    from dokobot.host import table as table_module

    rep = Replayer()
    rep.run_text(_first_commands(POVERTY, 40) + "\nanna: /abort\nben: /abort")
    [table] = rep.router.tables.values()

    def broken(*_: object) -> object:
        raise ValueError("no deal agrees with this game's public facts")

    monkeypatch.setattr(table_module, "cover", broken)
    before = _state(table)
    events = rep.router.handle(Input(table.channel, "replay:carl", "carl", "/abort"))
    assert [e.text for e in events] == [INTERNAL]
    assert _state(table) == before
    monkeypatch.undo()
    events = rep.router.handle(Input(table.channel, "replay:carl", "carl", "/abort"))
    assert ABORTED in [e.text for e in events]
