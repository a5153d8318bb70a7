"""Game actions: reservations, the house rules' declarations and exchange, cards, calls."""

from __future__ import annotations

from typing import Final

from ... import languages
from ...engine.cards import card_ascii
from ...engine.errors import IllegalAction, NotationError
from ...engine.notation import parse_card, parse_kind
from ...engine.types import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_NO30,
    CALL_NO60,
    CALL_NO90,
    CALL_RE,
    DECLARE_POVERTY,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DECLINE,
    HEALTHY,
    RESERVATION,
    TAKE,
    THROW_IN,
    Action,
    Phase,
    Solo,
)
from ..commands import Arg, ArgKind, command
from ..commands import Phase as When
from ..commands import Who as W
from ..context import Context, Host
from ..events import Event
from ..i18n import Cards, SoloWords
from ..notes import Refusal
from ..options import whole_number
from ..permissions import need_game, need_seat
from ..table import Table, illegal_params, sorted_hand


@languages.derived
def solo_names(lang: str) -> dict[str, Solo]:
    """The words that name a solo for a reader of ``lang`` (their own first, then English
    and the other languages', see :func:`dokobot.languages.reading_order`)."""
    out: dict[str, Solo] = {}
    for code in reversed(languages.reading_order(lang)):
        solos = languages.words(code).solos
        out.update({w: kind for kind in Solo for w in solos.get(kind.key, ())})
    out.update({kind.key: kind for kind in Solo})
    return out


SOLO_TYPES: Final[tuple[tuple[str, str], ...]] = (
    ("diamonds", "Diamonds solo"),
    ("clubs", "Clubs solo"),
    ("spades", "Spades solo"),
    ("hearts", "Hearts solo"),
    ("queens", "Queens solo"),
    ("jacks", "Jacks solo"),
    ("fleshless", "Fleshless (aces solo)"),
)
"""The solos as Discord offers them: ``(value, English label)``."""


def act(router: Host, ctx: Context, action: Action, text: str) -> list[Event]:
    """Do ``action`` for the sender (journaled as ``text``)."""
    table, seat = need_seat(ctx)
    need_game(table)
    return router.render_notes(table, table.act(seat, action, text), ctx.inp)


def _simple(
    name: str, action: Action, summary: str, answers_prompt: bool = True, confirm: bool = False
) -> None:
    """Declare ``/name``: the sender does ``action``."""

    def handler(router: Host, ctx: Context, args: list[str]) -> list[Event]:
        return act(router, ctx, action, "/" + name)

    handler.__name__ = handler.__qualname__ = name
    command(name, who=W.SEATED, phase=When.GAME,
            summary=summary, answers_prompt=answers_prompt, confirm=confirm)(handler)  # fmt: skip


_simple("healthy", HEALTHY, "Say you have no reservation")
_simple("reservation", RESERVATION, "Announce a reservation")


@command(
    "solo", who=W.SEATED, phase=When.GAME, summary="Declare a solo",
    answers_prompt=True,
    args=(Arg("type", ArgKind.CHOICE, "Which solo", required=True, choices=SOLO_TYPES),),
)  # fmt: skip
def solo(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    if not args:
        raise Refusal("solo_which", types=SoloWords())
    kind = solo_names(router.lang_of(ctx.inp.user, ctx.table)).get(args[0].lower())
    if kind is None:
        raise Refusal("solo_unknown", word=args[0], types=SoloWords())
    return act(router, ctx, DECLARE_SOLO + kind, f"/solo {kind.key}")


_simple("wedding", DECLARE_WEDDING, "Declare a wedding (both ♣Q)")
_simple("poverty", DECLARE_POVERTY, "Announce a poverty (house rule)")
_simple("throw", THROW_IN, "Throw in five nines or kings")
_simple("take", TAKE, "Take the poverty offered to you")
_simple("decline", DECLINE, "Decline the poverty offered to you")


@command(
    "give", who=W.SEATED, phase=When.GAME, answers_prompt=True, secret=True,
    summary="Give cards in a poverty's exchange",
    args=(Arg("cards", ArgKind.TEXT, "One to three cards, e.g. DA D10 HK",
              required=True),),
)  # fmt: skip
def give(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    """``/give CARD …``: cards passed in a poverty's exchange. All of them are checked
    first (on a copy of the game): a refused card leaves the exchange as it was."""
    table, seat = need_seat(ctx)
    game = table.game
    assert game is not None
    if game.phase is not Phase.EXCHANGE:
        raise Refusal("illegal.give_not_now")
    if not args or len(args) > 3:
        raise Refusal("give_which")
    trial = game.copy()
    cards: list[int] = []
    for token in args:
        try:
            kind = parse_kind(token, languages.notations(router.lang_of(ctx.inp.user, table)))
        except NotationError as exc:
            raise Refusal("notation." + exc.reason, **exc.params) from exc
        card = kind * 2 if trial.hands[seat] >> (kind * 2) & 1 else kind * 2 + 1
        try:
            trial.play(seat, card)
        except IllegalAction as exc:
            raise Refusal("illegal." + exc.reason, **illegal_params(trial, exc)) from exc
        cards.append(card)
    events: list[Event] = []
    for i, card in enumerate(cards, 1):
        notes = table.act(seat, card, f"/give {card_ascii(card)}")
        if i < len(cards):  # one prompt, after the last card given, not one per card
            notes = [n for n in notes if not (n.to == seat and n.kind == "turn")]
        events += router.render_notes(table, notes, ctx.inp)
    return events


def card_of(table: Table, seat: int, token: str, lang: str) -> int:
    """The card of ``seat``'s hand that ``token`` (typed by a reader of ``lang``) names (a
    card or its number)."""
    game = table.game
    if game is None:
        raise Refusal("no_game")
    hand = game.hands[seat]
    n = whole_number(token)
    if n is not None:
        order = sorted_hand(game, hand)
        if not 1 <= n <= len(order):
            raise Refusal("card_number_range", n=n, count=len(order))
        return order[n - 1]
    notations = languages.notations(lang)
    try:
        parse_kind(token, notations)
    except NotationError as exc:
        params = dict(exc.params)
        if isinstance(params.get("candidates"), list):
            # Cards, so that each reader sees them in his notation (German ♣D, not ♣Q).
            kinds = [parse_kind(name) for name in params["candidates"]]
            params["candidates"] = Cards(tuple([k * 2 for k in kinds]), separator=", ")
        raise Refusal("notation." + exc.reason, **params) from exc
    return parse_card(token, hand, notations)


@command(
    "play", who=W.SEATED, phase=When.GAME,
    answers_prompt=True,
    summary="Play a card",
    args=(Arg("card", ArgKind.TEXT,
              "The card, e.g. ♣Q, CQ, KrD or its position in your hand", required=True,
              suggest="card"),),
)  # fmt: skip
def play(router: Host, ctx: Context, args: list[str]) -> list[Event]:
    table, seat = need_seat(ctx)
    if not args:
        raise Refusal("play_which")
    card = card_of(table, seat, " ".join(args), router.lang_of(ctx.inp.user, table))
    return act(router, ctx, card, f"/play {card_ascii(card)}")


def _call(name: str, action: Action, summary: str) -> None:
    """Declare the call ``/name`` (it answers no prompt: the turn goes on; it cannot be
    taken back, so a button for it asks for a second press)."""
    _simple(name, action, summary, answers_prompt=False, confirm=True)


_call("re", CALL_RE, "Announce Re")
_call("kontra", CALL_KONTRA, "Announce Kontra")
_call("no90", CALL_NO90, "Announce no 90")
_call("no60", CALL_NO60, "Announce no 60")
_call("no30", CALL_NO30, "Announce no 30")
_call("black", CALL_BLACK, "Announce black")
