"""The computer players as teachers: /review (where you lost points in a game) and /hint
(the strong level's card on your turn, where the table allows it).

``/review N`` answers from the stored review of game N (:mod:`dokobot.host.reviews`), or
says where that game is in the review queue (:mod:`dokobot.host.reviewqueue`) and tells the
player when it is ready. /hint runs the strong search from the player's own observation
(never another hand), in the table's slow lane: a worker thread on a snapshot, so the table
plays on meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ...ai.review import Hint, call_hint, card_hint, plan_hint, review_game
from ...ai.search import HEALTHY_PLAN
from ...engine import Phase, observe
from ...store import StoreError
from ..archive import is_rated
from ..commands import Arg, ArgKind, Who, command
from ..commands import Phase as CommandPhase
from ..context import Context, Host
from ..events import Event, Private
from ..i18n import Cards, Number
from ..notes import Refusal
from ..options import whole_number
from ..permissions import need_seat, need_table
from ..reviewqueue import ReviewQueue
from ..reviews import GameReview, answer, choice, job_of, own_answer
from ..table import Table


def _text_reply(router: Host, ctx: Context, text: str) -> list[Event]:
    channel = ctx.inp.channel or (ctx.table.channel if ctx.table else "")
    lang = router.lang_of(ctx.inp.user, ctx.table)
    return [Private(channel, ctx.inp.user, text, reply=True, kind="info", lang=lang)]


def _default_game(t: Table) -> int:
    """The number of the table's last game played to its end."""
    if t.reviewable is not None:
        return t.reviewable.number
    played = [rec.number for rec in t.finished if not rec.cancelled]
    if not played:
        raise Refusal("review.none")
    return played[-1]


@command(
    "review", slow=True,
    summary="Where you lost points in the last game (only you see it)",
    args=(Arg("game", ArgKind.NUMBER, "The game (the last one played to its end)"),),
)  # fmt: skip
def review(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    t = need_table(ctx)
    number = whole_number(args[0]) if args else _default_game(t)
    if number is None:
        raise Refusal("review.unknown", game=args[0])
    user = ctx.inp.user
    lang = router.lang_of(user, t)
    queue = router.reviews
    if queue is None:  # no review queue (a bare router): the last game, reviewed now
        return _review_now(router, ctx, t, number)
    key = (t.channel, number)
    if queue.place(key) is None:
        # (asked before the store: a review that is done is stored before it leaves the queue)
        found = _stored(queue, t.channel, number)
        if found is not None:
            text = own_answer(lang, found, user)
            if text is None:
                raise Refusal("review.not_yours", game=number)
            return _text_reply(router, ctx, text)
        last = t.reviewable
        if last is None or last.number != number:
            raise Refusal("review.unknown", game=number)
        if user not in last.users:
            raise Refusal("review.not_yours", game=number)
        # the names of that game's seats (somebody may have left since)
        names = next((r.names for r in t.finished if r.number == number and r.names),
                     [s.name for s in t.seats])  # fmt: skip
        try:
            placed = queue.submit(key, job_of(number, last.game, last.users, names))
        except StoreError as exc:
            raise Refusal("review.store") from exc
        if placed is None:
            raise Refusal("review.full", game=number)
    if user not in queue.users(key):
        raise Refusal("review.not_yours", game=number)
    where = queue.watch(key, user, lang)
    if where is None:  # done meanwhile
        found = _stored(queue, t.channel, number)
        text = None if found is None else own_answer(lang, found, user)
        if text is None:
            raise Refusal("review.unknown", game=number)
        return _text_reply(router, ctx, text)
    if where == 0:
        return router._reply(ctx, "review.running", {"game": number})
    return router._reply(ctx, "review.queued", {"game": number, "place": where})


def _stored(queue: ReviewQueue, channel: str, number: int) -> GameReview | None:
    """The stored review of game ``number`` (None: none, or of another version)."""
    try:
        stored = queue.store.review(channel, number)
    except StoreError as exc:
        raise Refusal("review.store") from exc
    return None if stored is None else GameReview.from_json(stored)


def _review_now(router: Host, ctx: Context, t: Table, number: int) -> list[Event]:
    """``/review`` without a review queue: the last game played to its end, reviewed now."""
    last = t.reviewable
    if last is None:
        raise Refusal("review.none")
    if number != last.number:
        raise Refusal("review.only_last", game=last.number)
    seats = [s for s, user in enumerate(last.users) if user == ctx.inp.user]
    if not seats:
        raise Refusal("review.not_yours", game=last.number)
    found = review_game(last.game, seats, budget_s=router.review_budget, seed=last.number)
    lang = router.lang_of(ctx.inp.user, t)
    return _text_reply(router, ctx, answer(lang, last.number, found.decisions, found.mistakes))


@command(
    "hint", who=Who.SEATED, phase=CommandPhase.GAME, slow=True,
    summary="The strong computer player's reservation or card for your turn (if the table allows hints)",
)  # fmt: skip
def hint(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, seat = need_seat(ctx)
    game = table.game
    assert game is not None
    if table.options.tournament:
        raise Refusal("hint.tournament")
    if not table.options.hints:
        raise Refusal("hint.disabled")
    if is_rated(table):  # as the game will be stored: a person who left still counts
        raise Refusal("hint.rated")
    if game.turn != seat or game.phase not in _HINTED:
        raise Refusal("hint.not_your_card")
    obs, budget = observe(game, seat), router.review_budget
    if game.phase is Phase.PLAYING:
        found = card_hint(obs, seed=table.game_number, budget_s=budget)
        if found is None:
            raise Refusal("hint.not_your_card")
        card = _hinted(router, ctx, found, "card", lambda c: Cards((c,)))
        call = call_hint(obs, seed=table.game_number, budget_s=budget)
        if call is None:
            return card
        said = {"call": choice(call[0], "call"), "gain": Number(call[1], places=1)}
        return card + router._reply(ctx, "hint.call", said)
    found = plan_hint(obs, seed=table.game_number, budget_s=budget)
    if found is None:
        raise Refusal("hint.no_plan")
    return _hinted(router, ctx, found, "plan", _plan_name)


_HINTED: Final = (Phase.RESERVATIONS, Phase.DECLARATIONS, Phase.PLAYING)
"""The turns a hint is for: the reservation (healthy or reservation, then the declaration)
and the card play."""


def _plan_name(plan: int) -> Any:
    return choice(None if plan == HEALTHY_PLAN else plan, "reservation")


def _hinted(
    router: Host, ctx: Context, found: Hint, what: str, name: Callable[[int], Any]
) -> list[Event]:
    """The hint in words: ``what`` is "card" (``hint.card``, ``hint.close``, ``hint.only``)
    or "plan" (``hint.plan``, ``hint.plan_close``, ``hint.plan_only``)."""
    prefix = "" if what == "card" else what + "_"
    if found.runner_up is None:
        return router._reply(ctx, f"hint.{prefix}only", {what: name(found.choice)})
    return router._reply(
        ctx,
        f"hint.{prefix}close" if found.close else f"hint.{what}",
        {
            what: name(found.choice),
            "next": name(found.runner_up),
            "margin": Number(found.margin, places=1),
        },
    )
