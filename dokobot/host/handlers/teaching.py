"""The computer players as teachers: /review (where you lost points in the last game) and
/hint (the strong level's card on your turn, where the table allows it).

Both run the strong search from the player's own observation (never another hand), in the
table's slow lane: a worker thread on a snapshot, so the table plays on meanwhile.
"""

from __future__ import annotations

from typing import Any

from ...ai.base import NO_RESTRICTIONS
from ...ai.review import Mistake, review_game
from ...ai.search import SearchPlayer
from ...engine import Phase, observe
from ...engine.types import DECLARE_SOLO, DECLARE_WEDDING, Solo, call_key, is_call, is_card, is_solo
from ..commands import Arg, ArgKind, Who, command
from ..commands import Phase as CommandPhase
from ..context import Context, Host
from ..events import Event
from ..i18n import Cards, Term, render
from ..notes import Refusal
from ..permissions import need_seat, need_table


def _choice(action: int | None, kind: str) -> Any:
    """How a reviewed choice is named: a card, a call, healthy, a wedding, a solo."""
    if action is None:
        return Term("review.no_call" if kind == "call" else "choice.healthy")
    if is_card(action):
        return Cards((action,))
    if is_call(action):
        return Term("call." + call_key(action))
    if action == DECLARE_WEDDING:
        return Term("choice.wedding")
    if is_solo(action):
        return Term("solo." + Solo(action - DECLARE_SOLO).key)
    return Term("choice.reservation")


def _item(lang: str, m: Mistake) -> str:
    params = {
        "trick": m.trick,
        "played": _choice(m.played, m.kind),
        "better": _choice(m.better, m.kind),
        "loss": f"{m.loss:.1f}",
    }
    text = render(lang, "review.item_" + m.kind, params)
    return render(lang, "review.serious", {"item": text}) if m.serious else text


@command(
    "review", slow=True,
    discord="Where you lost points in the last game (only you see it)",
    args=(Arg("game", ArgKind.NUMBER, "The game (the last one played to its end)"),),
)  # fmt: skip
def review(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    last = t.reviewable
    if last is None:
        raise Refusal("review.none")
    if args and args[0] != str(last.number):
        raise Refusal("review.only_last", game=last.number)
    seats = [s for s, user in enumerate(last.users) if user == ctx.inp.user]
    if not seats:
        raise Refusal("review.not_yours", game=last.number)
    found = review_game(last.game, seats, budget_s=router.review_budget, seed=last.number)
    lang = router.lang_of(ctx.inp.user, t)
    if not found.mistakes:
        return router._reply(
            ctx, "review.clean", {"game": last.number, "decisions": found.decisions}
        )
    return router._reply(
        ctx,
        "review.found",
        {
            "game": last.number,
            "decisions": found.decisions,
            "count": len(found.mistakes),
            "lost": f"{sum(m.loss for m in found.mistakes):.1f}",
            "items": "; ".join(_item(lang, m) for m in found.mistakes),
        },
    )


@command(
    "hint", who=Who.SEATED, phase=CommandPhase.GAME, slow=True,
    discord="The strong computer player's card for your turn (if the table allows hints)",
)  # fmt: skip
def hint(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, seat = need_seat(ctx)
    game = table.game
    assert game is not None
    if table.options.tournament:
        raise Refusal("hint.tournament")
    if not table.options.hints:
        raise Refusal("hint.disabled")
    people = sum(not s.is_bot for s in table.seats)
    if table.options.is_rated(people):
        raise Refusal("hint.rated")
    if game.phase is not Phase.PLAYING or game.turn != seat:
        raise Refusal("hint.not_your_card")
    obs = observe(game, seat)
    values = SearchPlayer(table.game_number, NO_RESTRICTIONS, router.review_budget / 2).card_values(
        obs, "hint"
    )
    if len(values) < 2:
        only = next(iter(values)) if values else None
        if only is None:
            raise Refusal("hint.not_your_card")
        return router._reply(ctx, "hint.only", {"card": Cards((only,))})
    ranked = sorted(values, key=lambda a: values[a], reverse=True)
    return router._reply(
        ctx,
        "hint.card",
        {
            "card": Cards((ranked[0],)),
            "next": Cards((ranked[1],)),
            "margin": f"{values[ranked[0]] - values[ranked[1]]:.1f}",
        },
    )
