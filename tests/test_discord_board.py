"""The host's board view (dokobot.host.board) and the decision markers the Discord buttons
carry: only public facts, decisions that calls do not end, stale presses refused."""

from __future__ import annotations

import sys
from pathlib import Path

from dokobot.engine.cards import card_ascii
from dokobot.host.board import board_view, decision_marker
from dokobot.host.events import Input, Private
from dokobot.host.router import Router
from dokobot.host.table import sorted_hand

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))


def seated(seed: int = 3) -> Router:
    router = Router(seed=seed)
    for name in ("anna", "ben", "carl", "dora"):
        router.handle(Input("c", name, name, "/join"))
    router.handle(Input("c", "anna", "anna", "/start"))
    return router


def move(router: Router) -> None:
    table = router.tables["c"]
    game = table.game
    assert game is not None
    user = table.seats[game.turn].user
    if game.phase.name == "RESERVATIONS":
        text = "/healthy"
    else:
        text = "/play " + card_ascii(sorted_hand(game, game.legal_cards(game.turn))[0])
    events = router.handle(Input("c", user, user, text))
    assert not any(isinstance(e, Private) and e.kind == "error" for e in events), events


def test_decisions_count_moves_but_not_calls() -> None:
    router = seated()
    table = router.tables["c"]
    assert decision_marker(table) == (1, 0)
    for _ in range(5):  # four reservations and a card
        move(router)
    assert decision_marker(table) == (1, 5)
    game = table.game
    assert game is not None
    caller = next(s for s in range(4) if game.legal_calls(s))
    call = "/" + game.party_of(caller).key
    events = router.handle(Input("c", table.seats[caller].user, "x", call))
    assert not any(isinstance(e, Private) and e.kind == "error" for e in events)
    assert len(game.calls) == 1 and decision_marker(table) == (1, 5)


def test_the_host_refuses_a_press_of_a_past_decision() -> None:
    router = seated()
    table = router.tables["c"]
    game = table.game
    assert game is not None
    first = table.seats[game.turn].user
    stale = Input("c", first, first, "/healthy", marker=(1, 1))
    [refusal] = router.handle(stale)
    assert isinstance(refusal, Private) and refusal.kind == "error"
    assert "no longer current" in refusal.text and game.log == []
    current = Input("c", first, first, "/healthy", marker=decision_marker(table))
    router.handle(current)
    assert len(game.log) == 1
    old_game = Input("c", first, first, "/healthy", marker=(0, 1))
    assert "no longer current" in router.handle(old_game)[0].text


def test_the_board_shows_only_what_everybody_knows() -> None:
    router = seated()
    table = router.tables["c"]
    game = table.game
    assert game is not None
    for _ in range(4 + 4 + 2):  # reservations, one trick, two cards
        move(router)
    view = board_view(table)
    assert view is not None
    assert view.phase == "playing" and view.trick_number == 2 and view.contract == "normal"
    assert [c for _, c in view.trick] == list(game.trick)
    assert [c for _, c in view.last_trick] == list(game.tricks[0][1])
    assert sum(view.tricks_won) == 1 and view.turn == game.turn
    played = {c for _, cards, _ in game.tricks for c in cards} | set(game.trick)
    shown = {c for _, c in (*view.trick, *view.last_trick)}
    assert shown <= played  # no card from anybody's hand
    for seat, party in view.parties:  # only parties that were revealed
        assert party == game.party_of(seat).key
    # a prompt carries the reader's hand, for pictures; only to that reader
    table_events = router.handle(Input("c", "ben", "ben", "/hand"))
    [hand] = [e for e in table_events if isinstance(e, Private) and e.kind == "hand"]
    assert hand.user == "ben" and hand.hand == tuple(sorted_hand(game, game.hands[1]))


def test_the_embed_has_the_whole_public_state_within_discords_limits() -> None:
    import dataclasses

    from discord_fake import message_problems

    from dokobot.adapters.discord.board import board_embed, embed_text

    router = seated()
    for _ in range(4 + 5):
        move(router)
    view = board_view(router.tables["c"])
    assert view is not None
    view = dataclasses.replace(view, marks=("bock",), away=(2,))
    news = ["x" * 500] * 5
    for lang in ("en", "de"):
        embed = board_embed(view, news, lang, picture=True)
        shown = embed_text(embed)
        assert f"{view.game_number}" in shown and view.seats[view.turn or 0] in shown
        assert message_problems({"embeds": [embed.to_dict()]}, [("table.png", b"png")]) == []
        assert embed.image.url == "attachment://table.png"
    assert "Marks" in embed_text(board_embed(view, [], "en"))
