"""/review and /hint through the router: who may ask, what they are told, and where a hint
is refused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from dokobot.engine.types import Phase
from dokobot.host.events import Event, Input, Private
from dokobot.host.router import Router

NAMES = ("anna", "ben", "carl", "dora")


def _inp(name: str, text: str, *, admin: bool = False) -> Input:
    return Input("chan", f"u:{name}", name, text, admin=admin)


def _private(events: list[Event], name: str) -> list[str]:
    return [e.text for e in events if isinstance(e, Private) and e.user == f"u:{name}"]


def _table(seed: int = 3) -> Router:
    r = Router(seed=seed)
    r.review_budget = 0.01
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    return r


def _play_on(r: Router, rng: random.Random, until_card_turn: bool = False) -> None:
    """Play the running game with random choices (to its end, or to the first card turn)."""
    t = r.tables["chan"]
    g = t.game
    assert g is not None
    while g.phase is not Phase.FINISHED:
        if until_card_turn and g.phase is Phase.PLAYING:
            return
        name = t.seats[g.turn].name
        choices = [
            c for e in r.handle(_inp(name, "/hand")) if isinstance(e, Private) for c in e.choices
        ]
        r.handle(_inp(name, rng.choice(choices).command))


def test_review_answers_each_player_privately_about_his_own_decisions() -> None:
    r = _table()
    assert _private(r.handle(_inp("anna", "/review")), "anna") == [
        "No game has been played to its end at this table yet."
    ]
    r.handle(_inp("anna", "/start"))
    _play_on(r, random.Random(1))
    for name in NAMES:
        events = r.handle(_inp(name, "/review"))
        [text] = _private(events, name)
        assert text.startswith("Game 1")
        assert "no mistake" in text or "costly: " in text
        assert all(isinstance(e, Private) and e.user == f"u:{name}" for e in events)
    refused = r.handle(Input("chan", "u:eve", "eve", "/review"))
    assert [e.text for e in refused] == ["You did not play in game 1."]
    assert _private(r.handle(_inp("anna", "/review 7")), "anna") == [
        "Only the last game played to its end can be reviewed: game 1."
    ]


def test_random_play_is_reviewed_with_mistakes_named_by_trick() -> None:
    r = _table(seed=5)
    r.handle(_inp("anna", "/start"))
    _play_on(r, random.Random(2))
    texts = [_private(r.handle(_inp(n, "/review")), n)[0] for n in NAMES]
    found = [t for t in texts if "costly: " in t]
    assert found, texts  # four players choosing at random lose points somewhere
    assert any("trick " in t and " instead of " in t for t in found), found


def test_a_game_that_ended_unplayed_is_not_reviewed() -> None:
    r = _table()
    r.handle(_inp("anna", "/start"))
    for name in NAMES[:3]:
        r.handle(_inp(name, "/abort"))
    assert r.tables["chan"].game is not None
    assert r.tables["chan"].game.phase is Phase.FINISHED
    assert _private(r.handle(_inp("anna", "/review")), "anna") == [
        "No game has been played to its end at this table yet."
    ]


def _next_card_turn(r: Router, rng: random.Random, *options: str) -> tuple[str, str]:
    """Finish the running game (if any), set ``options``, deal, and play on to the first
    card turn: (the player to move, another player)."""
    t = r.tables["chan"]
    if t.game is not None:
        _play_on(r, rng)
    for option in options:  # options change between games only
        r.handle(_inp("anna", f"/option {option}"))
    r.handle(_inp("anna", "/start"))
    _play_on(r, rng, until_card_turn=True)
    assert t.game is not None
    mover = t.seats[t.game.turn].name
    return mover, next(n for n in NAMES if n != mover)


def test_hints_only_where_the_table_allows_them() -> None:
    r = _table()
    t = r.tables["chan"]
    rng = random.Random(3)
    mover, _ = _next_card_turn(r, rng)
    assert _private(r.handle(_inp(mover, "/hint")), mover) == [
        "Hints are off at this table (an owner or admin: /option hints on)."
    ]
    mover, _ = _next_card_turn(r, rng, "hints on")
    assert t.options.hints is True
    assert _private(r.handle(_inp(mover, "/hint")), mover) == [
        "No hints in a rated game (/option rated)."
    ]
    mover, other = _next_card_turn(r, rng, "rated off")
    assert t.options.rated == "off"
    [hint] = _private(r.handle(_inp(mover, "/hint")), mover)
    assert hint.startswith(("Hint: ", "You have one card you may play"))
    assert _private(r.handle(_inp(other, "/hint")), other) == [
        "A hint is for your turn: your reservation or your card."
    ]
    # a hint changes nothing: the same player is still to move
    assert t.game is not None and t.seats[t.game.turn].name == mover


def test_hints_cannot_be_switched_on_in_tournament_mode() -> None:
    r = _table()
    r.handle(_inp("anna", "/option tournament on"))
    [answer] = _private(r.handle(_inp("anna", "/option hints on")), "anna")
    assert r.tables["chan"].options.hints is False, answer


def test_no_hint_in_a_game_stored_as_rated_after_a_person_left() -> None:
    """Four people start a rated game; one leaves (a stand-in plays on for him). The game is
    still stored as rated, so the three who stay get no hint in it, at any card turn."""
    from dokobot.host import archive
    from dokobot.host.service import default_bot_factory

    r = _table()
    t = r.tables["chan"]
    t.bot_factory = default_bot_factory()  # the stand-in's
    rng = random.Random(4)
    _next_card_turn(r, rng, "hints on")
    game = t.game
    assert game is not None and archive.is_rated(t)
    leaver = next(n for n in NAMES if n != "anna")
    r.handle(_inp(leaver, "/leave"))
    assert sum(s.is_bot for s in t.seats) == 1  # the stand-in
    refused = 0
    while game.phase is not Phase.FINISHED:
        seat = t.seats[game.turn]
        if seat.is_bot:
            assert r.bot_step("chan") is not None
            continue
        if game.phase is Phase.PLAYING:
            assert _private(r.handle(_inp(seat.name, "/hint")), seat.name) == [
                "No hints in a rated game (/option rated)."
            ]
            refused += 1
        choices = [
            c
            for e in r.handle(_inp(seat.name, "/hand"))
            if isinstance(e, Private)
            for c in e.choices
        ]
        r.handle(_inp(seat.name, rng.choice(choices).command))
    assert refused >= 20
    assert archive.finished_game(t, t.finished[-1]).rated  # as the hints were refused


def test_a_hint_at_the_reservation_names_a_plan_and_changes_nothing() -> None:
    """At his reservation a player is hinted healthy, a wedding or a solo; once he said
    "reservation", healthy is no longer one of them."""
    r = _table()
    rng = random.Random(5)
    _next_card_turn(r, rng, "hints on", "rated off")
    _play_on(r, rng)
    r.handle(_inp("anna", "/start"))
    t = r.tables["chan"]
    g = t.game
    assert g is not None and g.phase is Phase.RESERVATIONS
    mover = t.seats[g.turn].name
    log = list(g.log)
    [hint] = _private(r.handle(_inp(mover, "/hint")), mover)
    assert hint.startswith("Hint: "), hint
    assert g.log == log and t.seats[g.turn].name == mover
    r.handle(_inp(mover, "/reservation"))
    while g.phase is Phase.RESERVATIONS:
        r.handle(_inp(t.seats[g.turn].name, "/healthy"))
    assert g.phase is Phase.DECLARATIONS and t.seats[g.turn].name == mover
    [hint] = _private(r.handle(_inp(mover, "/hint")), mover)
    assert "Healthy" not in hint and hint.startswith(("Hint: ", "The strong computer")), hint


def test_a_hint_on_the_card_turn_adds_a_call_worth_making() -> None:
    """With the top of the trumps the first card's hint also says that a call is worth it
    now, judged as the review judges a missed call (and not for the other players)."""
    from dokobot.host.replay import Replayer

    rep = Replayer()
    rep.run_text(
        "anna: /join\nben: /join\ncarl: /join\ndora: /join\n!admin anna\n"
        "anna: /option hints on\nanna: /option rated off\n!dealer dora\n"
        "!deal anna=H10 H10 CQ SQ SQ HQ HQ DQ DQ CJ CJ CA; ben=CQ SJ HJ DA DK D9 S10 SK S9 HA"
        " DJ C9; carl=DA DJ CA C10 C10 CK HK H9 H9 C9 SJ HA; dora=D9 HJ D10 D10 DK CK HK SA SA"
        " S10 SK S9\nanna: /start\n" + "".join(f"{n}: /healthy\n" for n in NAMES)
    )
    before = len(rep.transcript)
    rep.run_text("anna (dm): /hint")
    said = [e.text for _, e in rep.transcript[before:] if isinstance(e, Private)]
    assert len(said) == 2 and said[0].startswith("Hint: "), said
    assert said[1].startswith("A call is worth it now: "), said


def test_a_prompt_offers_the_hint_only_where_the_table_gives_hints() -> None:
    """The turn prompts (reservation, card) carry ``/hint`` as a choice (a button on
    Discord) exactly where /hint is answered: hints on, no tournament, not a rated game."""

    def offered(r: Router) -> bool:
        t = r.tables["chan"]
        assert t.game is not None
        mover = t.seats[t.game.turn].name
        notes = [e for e in r.handle(_inp(mover, "/hand")) if isinstance(e, Private)]
        return any(c.command == "/hint" for e in notes for c in e.choices)

    r = _table()
    rng = random.Random(7)
    _next_card_turn(r, rng)
    assert not offered(r)  # hints off
    _next_card_turn(r, rng, "hints on")
    assert not offered(r)  # four people: a rated game
    _next_card_turn(r, rng, "rated off")
    assert offered(r)
    _play_on(r, rng)
    r.handle(_inp("anna", "/start"))
    assert offered(r)  # the reservation too


async def test_a_hint_button_reads_a_snapshot_and_never_holds_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Hint button carries its prompt's decision marker. While its (slow) search runs,
    the table answers the others at once: the hint reads a snapshot of the table without
    holding it, as the typed /hint does; a stale press is still refused."""
    import asyncio
    import threading

    from dokobot.host.board import decision_marker
    from dokobot.host.handlers import teaching
    from dokobot.host.service import Service

    gate = threading.Event()
    real = teaching.card_hint

    def slow_hint(*args: Any, **kwargs: Any) -> Any:
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(teaching, "card_hint", slow_hint)
    svc = Service(Router(seed=3))
    svc.router.review_budget = 0.01
    for n in NAMES:
        await svc.handle(_inp(n, "/join"))
    table = svc.router.tables["chan"]
    for option in ("hints on", "rated off"):
        await svc.handle(_inp("anna", f"/option {option}"))
    await svc.handle(_inp("anna", "/start"))
    game = table.game
    assert game is not None
    while game.phase is not Phase.PLAYING:
        await svc.handle(_inp(table.seats[game.turn].name, "/healthy"))
    mover = table.seats[game.turn].name
    other = next(n for n in NAMES if n != mover)
    marker = decision_marker(table)
    press = Input("chan", f"u:{mover}", mover, "/hint", marker=marker)
    try:
        hinting = asyncio.create_task(svc.handle(press))
        await asyncio.sleep(0.1)
        assert not hinting.done()
        answered = await asyncio.wait_for(svc.handle(_inp(other, "/table")), 5)
        assert _private(answered, other), answered
    finally:
        gate.set()
    hint = _private(await hinting, mover)
    assert hint and hint[0].startswith(("Hint: ", "You have one card")), hint
    stale = Input("chan", f"u:{mover}", mover, "/hint", marker=(marker[0], marker[1] - 1))
    [refused] = _private(await svc.handle(stale), mover)
    assert not refused.startswith("Hint"), refused
    await svc.close()
