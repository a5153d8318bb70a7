"""Watching (RULES §13, option ``kibitz``): /watch NAME, its refusals, and what a watcher
sees (the watched person's hand, nothing else that is hidden)."""

from __future__ import annotations

import random

from dokobot.engine import Phase, Rules
from dokobot.engine.cards import card_ascii, card_str, cards_of
from dokobot.engine.types import DECLARE_POVERTY
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.router import Router
from tests.test_house_engine import POOR, deal

NAMES = ["anna", "ben", "carl", "dora"]


def _inp(name: str, text: str) -> Input:
    return Input("chan", f"u:{name}", name, text)


def _table(*options: str) -> Router:
    r = Router(seed=5)
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    for o in options:
        r.handle(_inp("anna", f"/option {o}"))
    return r


def _private(events: list[Event], name: str) -> list[Private]:
    return [e for e in events if isinstance(e, Private) and e.user == f"u:{name}"]


def _said(events: list[Event], name: str) -> str:
    return " | ".join(e.text for e in _private(events, name))


def test_watching_is_refused_with_the_reason() -> None:
    # "refused with tournament and at rated tables"; seated players play, not watch
    r = _table()
    assert "Watching is off" in _said(r.handle(_inp("wendy", "/watch anna")), "wendy")
    r.handle(_inp("anna", "/option tournament on"))
    assert "tournament" in _said(r.handle(_inp("wendy", "/watch anna")), "wendy")
    refused = r.handle(_inp("anna", "/option kibitz on"))  # not in tournament mode
    assert r.tables["chan"].options.kibitz is False and _private(refused, "anna")
    r.handle(_inp("anna", "/option tournament off"))
    r.handle(_inp("anna", "/option kibitz on"))
    # four people at rated auto: a rated table
    assert "rated" in _said(r.handle(_inp("wendy", "/watch anna")), "wendy")
    r.handle(_inp("anna", "/option rated off"))
    assert "You play" in _said(r.handle(_inp("ben", "/watch anna")), "ben")
    assert "Nobody of that name" in _said(r.handle(_inp("wendy", "/watch zoe")), "wendy")
    assert "Whom?" in _said(r.handle(_inp("wendy", "/watch")), "wendy")
    assert r.tables["chan"].watches == []


def test_a_watcher_gets_the_hand_and_cannot_sit_down_until_the_game_ends() -> None:
    r = _table("rated off", "kibitz on")
    t = r.tables["chan"]
    r.handle(_inp("anna", "/start"))
    out = r.handle(_inp("wendy", "/watch Ben"))
    assert "ben watches" not in _said(out, "ben") and "wendy watches your hand" in _said(out, "ben")
    said = _said(out, "wendy")
    game = t.game
    assert game is not None
    for c in cards_of(game.hands[1]):
        assert card_str(c) in said
    # "cannot take a seat at that table until the game ends" (a full table would queue him)
    assert "when the game is over" in _said(r.handle(_inp("wendy", "/join")), "wendy")
    assert t.waiting == []
    assert "no longer watch" in _said(r.handle(_inp("wendy", "/watch")), "wendy")
    assert t.watches == []


def _shown(text: str) -> list[str]:
    """The cards of a hand line (``dora's hand: 1:♣Q  2:♥Q  |  3:♣A``)."""
    words = text.split(": ", 1)[1].split()
    return [w.split(":", 1)[1] for w in words if w != "|"]


def _play(r: Router, rng: random.Random) -> list[Event]:
    """Play the running game at random through the router (anna announces her poverty);
    every event sent."""
    t = r.tables["chan"]
    g = t.game
    assert g is not None
    seen: list[Event] = []
    while g.phase is not Phase.FINISHED:
        name = t.seats[g.turn].name
        if g.phase is Phase.RESERVATIONS:
            cmd = "/reservation" if g.turn == 0 else "/healthy"
        elif g.phase is Phase.DECLARATIONS and DECLARE_POVERTY in g.legal_actions():
            cmd = "/poverty"
        elif g.phase is Phase.PLAYING and name == "dora":  # no /hand: her turns show it
            cmd = "/play " + card_ascii(rng.choice(g.legal_actions()))
        else:
            asked = r.handle(_inp(name, "/hand"))
            seen += asked
            choices = [c.command for e in asked if isinstance(e, Private) for c in e.choices]
            cmd = rng.choice([c for c in choices if c != "/decline"] or choices)
        seen += r.handle(_inp(name, cmd))
    return seen


def test_a_watcher_sees_only_the_watched_hand() -> None:
    # "he then receives that person's hand privately ... Everybody may always follow the
    # public board"; nothing else hidden: other hands, passed cards, reservations, seeds
    for seed in range(3):
        r = _table("rated off", "kibitz on", "poverty on")
        t = r.tables["chan"]
        rules = Rules(poverty=True)
        t.set_next_deal(deal(rules, {0: POOR}, seed))
        r.handle(_inp("wendy", "/watch dora"))  # between games: from the deal on
        r.handle(_inp("walt", "/watch anna"))
        events = r.handle(_inp("anna", "/start"))
        game = t.game
        assert game is not None
        dora, anna = game.start_hands[3], game.start_hands[0]
        events += _play(r, random.Random(seed))
        assert game.phase is Phase.FINISHED and game.exchange is not None
        wendy = [e for e in events if isinstance(e, Private) and e.user == "u:wendy"]
        walt = [e for e in events if isinstance(e, Private) and e.user == "u:walt"]
        assert wendy and walt
        # the hand as it is at each of dora's turns, not only the deal's
        assert min(len(_shown(e.text)) for e in wendy) < rules.hand_size
        for e in wendy:
            assert e.text.startswith("dora's hand: ")
            shown = {c >> 1 for c in cards_of(dora)}
            for word in _shown(e.text):
                assert any(card_str(k << 1) == word for k in shown), (word, e.text)
        ex = game.exchange
        anna_cards = anna | (ex.returned if ex is not None else 0)
        for e in walt:
            assert e.text.startswith("anna's hand: ")
            for word in _shown(e.text):
                assert any(card_str(c) == word for c in cards_of(anna_cards)), (word, e.text)
        # the channel says who watches nobody; the watchers were told nothing else
        assert not any(isinstance(e, Public) and "wendy" in e.text for e in events)
