"""The command router: permissions, refusals, languages, privacy, and a fuzz test."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from dokobot.engine.cards import FULL_DECK, card_ascii
from dokobot.engine.types import Phase, call_key
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.i18n import card_text
from dokobot.host.router import Router

NAMES = ("anna", "ben", "carl", "dora")


def _inp(name: str, text: str, *, admin: bool = False, dm: bool = False) -> Input:
    return Input("" if dm else "chan", f"u:{name}", name, text, dm=dm, admin=admin)


def _seated(seed: int = 1) -> Router:
    r = Router(seed=seed)
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    return r


def _healthy_all(r: Router) -> None:
    t = r.tables["chan"]
    assert t.game is not None
    while t.game.phase is Phase.RESERVATIONS:
        seat = t.game.turn
        r.handle(_inp(t.seats[seat].name, "/healthy"))


def _texts(events: list[Event], cls: type = Public) -> list[str]:
    return [e.text for e in events if isinstance(e, cls)]


def test_full_game_privacy_and_prompts() -> None:
    r = _seated()
    events = r.handle(_inp("anna", "/start"))
    hands = {e.user: e.text for e in events if isinstance(e, Private) and e.kind == "hand"}
    assert len(hands) == 4
    assert not any("Your hand" in t for t in _texts(events))
    _healthy_all(r)
    t = r.tables["chan"]
    game = t.game
    assert game is not None
    all_events: list[Event] = []
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        card = game.legal_actions()[0]
        ev = r.handle(_inp(t.seats[seat].name, f"/play {card_ascii(card)}"))
        assert any(card_text(card, "en") in x for x in _texts(ev)), "the play is public"
        all_events += ev
    # Turn prompts go privately to the player to move and carry the legal cards.
    turns = [e for e in all_events if isinstance(e, Private) and e.kind == "turn"]
    assert turns and all(e.choices for e in turns)
    assert all(
        c.command.startswith(("/play", "/re", "/kontra", "/no", "/black"))
        for e in turns
        for c in e.choices
    )
    publics = _texts(all_events)
    assert any("Game 1 is over" in x for x in publics)
    assert any("Totals" in x for x in publics)
    for text in hands.values():
        hand_part = text.split(": ", 1)[1]
        assert all(hand_part not in p for p in publics)


def test_wrong_turn_and_illegal_card_change_nothing() -> None:
    r = _seated()
    r.handle(_inp("anna", "/start"))
    _healthy_all(r)
    t = r.tables["chan"]
    game = t.game
    assert game is not None
    journal = list(t.journal)
    wrong = t.seats[(game.turn + 1) % 4].name
    ev = r.handle(_inp(wrong, "/play 1"))
    assert len(ev) == 1 and isinstance(ev[0], Private) and ev[0].kind == "error"
    assert "not your turn" in ev[0].text and t.seats[game.turn].name in ev[0].text
    assert t.journal == journal
    # Lead something, then try a card that does not follow suit.
    leader = t.seats[game.turn].name
    r.handle(_inp(leader, "/play 1"))
    seat = game.turn
    legal = game.legal_cards(seat)
    illegal = [c for c in range(48) if game.hands[seat] >> c & 1 and not legal >> c & 1]
    if illegal:
        before = (game.hands[:], game.trick[:])
        ev = r.handle(_inp(t.seats[seat].name, f"/play {card_ascii(illegal[0])}"))
        assert "must follow suit" in ev[0].text
        assert (game.hands, game.trick) == before


def test_unknown_command_suggests() -> None:
    r = _seated()
    ev = r.handle(_inp("anna", "/joim"))
    assert ev[0].text == "Unknown command /joim. Did you mean /join?"
    ev = r.handle(_inp("anna", "/xyzzy"))
    assert "Unknown command" in ev[0].text


def test_german_aliases_and_messages() -> None:
    r = _seated()
    r.handle(_inp("anna", "/lang de"))
    ev = r.handle(_inp("anna", "/hilfe"))
    assert "Befehle" in ev[0].text
    r.handle(_inp("anna", "/start"))
    t = r.tables["chan"]
    assert t.game is not None
    first = t.seats[t.game.turn].name
    assert first == "anna"
    ev = r.handle(_inp("anna", "/gesund"))
    assert any("anna: healthy." in x for x in _texts(ev))  # the channel stays English
    ev = r.handle(_inp("anna", "/keine90"))
    assert isinstance(ev[0], Private) and ev[0].kind == "error"
    assert "Kartenspiel" in ev[0].text or "Ansage" in ev[0].text


def test_options_owner_admin_between_games() -> None:
    r = _seated()
    ev = r.handle(_inp("ben", "/option tournament on"))
    assert "Only the table owner (anna)" in ev[0].text
    assert not r.tables["chan"].options.tournament
    ev = r.handle(_inp("ben", "/option tournament on", admin=True))
    assert r.tables["chan"].options.tournament
    ev = r.handle(_inp("anna", "/option series_length 7"))
    assert "multiple of 4" in ev[0].text
    r.handle(_inp("anna", "/start"))
    ev = r.handle(_inp("anna", "/option tournament off"))
    assert "between games" in ev[0].text
    assert r.tables["chan"].options.tournament


def test_card_by_number_and_bare_card_and_ambiguity() -> None:
    r = _seated(seed=3)
    r.handle(_inp("anna", "/start"))
    _healthy_all(r)
    t = r.tables["chan"]
    game = t.game
    assert game is not None
    name = t.seats[game.turn].name
    ev = r.handle(_inp(name, "/play Dame"))
    assert "ambiguous" in ev[0].text
    ev = r.handle(_inp(name, "/play 13"))
    assert "no card number 13" in ev[0].text
    seat = game.turn
    r.handle(_inp(name, "1"))
    assert game.turn != seat
    # A bare card text from a player who is not on turn is ignored quietly.
    other = t.seats[(game.turn + 1) % 4].name
    assert r.handle(_inp(other, "CQ")) == []


def test_only_seated_players_act() -> None:
    r = _seated()
    r.handle(_inp("anna", "/start"))
    ev = r.handle(_inp("eve", "/healthy"))
    assert "not seated" in ev[0].text
    ev = r.handle(_inp("eve", "/join"))
    assert "waiting" in ev[0].text


WORDS = [
    "/join",
    "/leave",
    "/start",
    "/healthy",
    "/reservation",
    "/solo clubs",
    "/solo x",
    "/wedding",
    "/play",
    "/play 1",
    "/play 12",
    "/play CQ",
    "/re",
    "/kontra",
    "/no90",
    "/black",
    "/hand",
    "/table",
    "/last",
    "/score",
    "/option tournament on",
    "/option mode duel",
    "/options",
    "/lang de",
    "/abort",
    "/help",
    "/help play",
    "/replace",
    "/join bot",
    "!start",
    "CQ",
    "3",
    "/gesund",
    "/vorbehalt",
    "/export",
]


def _check_invariants(r: Router, events: list[Event]) -> None:
    for t in r.tables.values():
        users = [s.user for s in t.seats]
        assert len(users) <= 4 and len(set(users)) == len(users)
        g = t.game
        if g is not None:
            played = 0
            for _, cards, _ in g.tricks:
                for c in cards:
                    played |= 1 << c
            for c in g.trick:
                played |= 1 << c
            held = 0
            for h in g.hands:
                assert held & h == 0
                held |= h
            assert held | played == FULL_DECK and held & played == 0
    for e in events:
        assert isinstance(e, Public | Private)
        if isinstance(e, Public):
            assert "Your hand" not in e.text and "Your turn" not in e.text


@given(
    st.lists(
        st.tuples(
            st.sampled_from((*NAMES, "eve")),
            st.one_of(
                st.sampled_from(WORDS),
                st.text(max_size=40),
                st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
                st.just("/play " + "x" * 5000),
            ),
            st.booleans(),
        ),
        max_size=60,
    )
)
def test_fuzz_never_raises(script: list[tuple[str, str, bool]]) -> None:
    r = _seated(seed=7)
    for name, text, dm in script:
        events = r.handle(_inp(name, text, dm=dm))
        _check_invariants(r, events)


def test_random_games_through_router_finish() -> None:
    rng = random.Random(5)
    r = _seated(seed=11)
    t = r.tables["chan"]
    for _ in range(6):
        r.handle(_inp("anna", "/start"))
        g = t.game
        assert g is not None
        while g.phase is not Phase.FINISHED:
            seat = g.turn
            name = t.seats[seat].name
            if g.phase is Phase.PLAYING and rng.random() < 0.1:
                for who in NAMES:
                    r.handle(_inp(who, rng.choice(["/re", "/kontra", "/no90"])))
                if g.turn != seat:
                    continue
            choices = [
                c
                for e in r.handle(_inp(name, "/hand"))
                if isinstance(e, Private)
                for c in e.choices
            ]
            assert choices, "the player to move always has something to do"
            r.handle(_inp(name, rng.choice(choices).command))
    assert len(t.finished) == 6
    assert sum(t.series.totals) == 0


def test_score_views_and_ledger() -> None:
    r = _seated(seed=2)
    r.handle(_inp("anna", "/option mode single"))
    r.handle(_inp("anna", "/start"))
    _healthy_all(r)
    t = r.tables["chan"]
    g = t.game
    assert g is not None
    while g.phase is not Phase.FINISHED:
        r.handle(_inp(t.seats[g.turn].name, f"/play {card_ascii(g.legal_actions()[0])}"))
    one = r.handle(_inp("ben", "/score 1"))[0].text
    assert "won" in one
    csv = r.handle(_inp("ben", "/export csv"))[0]
    assert isinstance(csv, Private) and csv.kind == "export" and "anna" in csv.text
    assert csv.text.splitlines()[0].count(",") >= 5
    ledger = r.handle(_inp("ben", "/ledger"))[0].text
    assert "anna" in ledger
    replay = r.handle(_inp("ben", "/export"))[0].text
    assert "!deal anna=" in replay and "!bots scripted" in replay


def test_leave_during_game_standin_then_replace_between_games() -> None:
    from dokobot.host.service import default_bot_factory

    r = Router(seed=4, bot_factory=default_bot_factory())
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    r.handle(_inp("anna", "/start"))
    t = r.tables["chan"]
    ev = r.handle(_inp("dora", "/leave"))
    assert "computer player plays the seat" in ev[0].text
    assert t.seats[3].is_bot and t.seats[3].standin_for == "u:dora"
    assert "waiting" in r.handle(_inp("eve", "/join"))[0].text
    ev = r.handle(_inp("eve", "/replace"))
    assert "between games" in ev[0].text
    g = t.game
    assert g is not None
    while g.phase is not Phase.FINISHED:
        if r.bot_step("chan") is not None:
            continue  # the stand-in moved for dora
        name = t.seats[g.turn].name
        acts = g.legal_actions()
        cmd = "/healthy" if g.phase is Phase.RESERVATIONS else f"/play {card_ascii(acts[0])}"
        r.handle(_inp(name, cmd))
    ev = r.handle(_inp("eve", "/replace"))
    assert "eve takes the seat of dora" in ev[0].text
    assert t.seats[3].user == "u:eve" and not t.seats[3].is_bot
    assert "waiting" not in str(t.waiting)


def test_a_turn_prompt_carries_the_trick_and_the_calls_so_far() -> None:
    r = _seated()
    r.handle(_inp("anna", "/start"))
    _healthy_all(r)
    t = r.tables["chan"]
    assert t.game is not None
    first = t.seats[t.game.turn].name
    caller = next(n for n in NAMES if n != first)
    r.handle(_inp(caller, "/kontra"))  # a call out of turn (kontra fails if he is Re)
    r.handle(_inp(caller, "/re"))
    words = {"re": "Re", "kontra": "Kontra"}
    calls = [f"{t.seats[s].name} {words[call_key(a)]}" for s, a in t.game.calls]
    assert calls, "one of the two calls was legal"
    choices = [
        c for e in r.handle(_inp(first, "/hand")) if isinstance(e, Private) for c in e.choices
    ]
    events = r.handle(_inp(first, choices[0].command))
    mover = t.seats[t.game.turn].name
    [prompt] = [e.text for e in events if isinstance(e, Private) and e.user == f"u:{mover}"
                and e.text.startswith("Your turn")]  # fmt: skip
    assert f"trick 1: {first} " in prompt
    assert prompt.endswith("; calls: " + ", ".join(calls)), prompt
