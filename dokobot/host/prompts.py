"""What a player is asked and shown: hands in display order, the chat command of an action,
and the private prompt (with its choices) of the seat that must act."""

from __future__ import annotations

from typing import Final

from ..engine.cards import N_CARDS, Card, card_ascii
from ..engine.game import Game
from ..engine.order import SCHEMES, TRUMP
from ..engine.types import (
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
    call_key,
    is_card,
    is_solo,
)
from .i18n import CallsMade, Cards, CommandWord, SoloWords
from .notes import ALL, Note, Refusal

HOUSE_COMMANDS: Final = {
    DECLARE_POVERTY: "/poverty",
    THROW_IN: "/throw",
    TAKE: "/take",
    DECLINE: "/decline",
}
RESERVE_COMMANDS: Final = {
    DECLARE_WEDDING: CommandWord("wedding"),
    DECLARE_POVERTY: CommandWord("poverty"),
    THROW_IN: CommandWord("throw"),
}
"""The reservations besides a solo, as the declaration prompt names them (the command in
the reader's language)."""
HOUSE_CHOICES: Final = {
    DECLARE_POVERTY: "@choice.poverty",
    THROW_IN: "@choice.throw",
    TAKE: "@choice.take",
    DECLINE: "@choice.decline",
}


def command_for(action: Action, card: Card | None = None, phase: Phase | None = None) -> str:
    """The chat command that performs ``action`` (used for choices and journals); a card in
    a poverty's exchange (``phase``) is given, not played."""
    if is_card(action) and phase is Phase.EXCHANGE:
        return f"/give {card_ascii(action if card is None else card)}"
    if action in HOUSE_COMMANDS:
        return HOUSE_COMMANDS[action]
    if is_card(action):
        return f"/play {card_ascii(action if card is None else card)}"
    if action == HEALTHY:
        return "/healthy"
    if action == RESERVATION:
        return "/reservation"
    if action == DECLARE_WEDDING:
        return "/wedding"
    if is_solo(action):
        return f"/solo {Solo(action - DECLARE_SOLO).key}"
    return "/" + call_key(action)


def _display_order(scheme_index: int) -> tuple[Card, ...]:
    scheme = SCHEMES[scheme_index]
    return tuple(
        sorted(
            range(N_CARDS),
            key=lambda c: (
                0 if scheme.cls[c] == TRUMP else 1 + scheme.cls[c],
                -scheme.key[c],
                c,
            ),
        )
    )


_DISPLAY_ORDER = tuple(_display_order(i) for i in range(len(SCHEMES)))
_CARD_CHOICES = tuple((f"#{c}", f"/play {card_ascii(c)}") for c in range(N_CARDS))


def sorted_hand(game: Game | None, hand: int) -> list[Card]:
    """A hand in display order: trumps high to low, then ♣ ♠ ♥ ♦ high to low."""
    order = _DISPLAY_ORDER[0 if game is None else game.scheme.index]
    return [c for c in order if hand >> c & 1]


def shown_cards(game: Game, cards: list[Card], numbers: tuple[int, ...] = ()) -> Cards:
    """Cards of a hand as every adapter shows them: in display order, grouped (trumps, then
    each plain suit) so that the reader sees a separator between the groups."""
    scheme = game.scheme
    groups = tuple([-1 if scheme.cls[c] == TRUMP else scheme.cls[c] for c in cards])
    return Cards(tuple(cards), numbers, groups)


def hand_note(game: Game | None, seat: int) -> Note:
    """The private note with the hand of ``seat``, numbered in display order."""
    if game is None:
        raise Refusal("no_game")
    cards = sorted_hand(game, game.hands[seat])
    return Note(
        seat,
        "your_hand",
        {"cards": shown_cards(game, cards, tuple(range(1, len(cards) + 1)))},
        kind="hand",
    )


HINT_CHOICE: Final = ("@choice.hint", "/hint")
"""The choice a prompt offers where the table gives hints (a button on Discord)."""


def prompt(
    game: Game | None, names: list[str], bots: list[bool], *, hint: bool = False
) -> list[Note]:
    """Tell the player to move what they may do (a private note with choices); ``bots``
    says which seats computer players hold; ``hint``: the table gives hints (``/hint`` is
    one of the choices of a reservation, a declaration and a card turn)."""
    hinted = (HINT_CHOICE,) if hint else ()
    if game is None or game.phase is Phase.FINISHED:
        return []
    seat = game.turn
    # Who is being waited for is said in the channel, except for computer players,
    # who answer at once.
    waiting = seat >= len(bots) or not bots[seat]
    if game.phase is Phase.RESERVATIONS:
        return [
            *(
                [
                    Note(
                        ALL,
                        "turn_reservation_public",
                        {"player": names[seat]},
                        kind="ask",
                        waits_for=seat,
                    )
                ]
                * waiting
            ),
            Note(
                seat,
                "turn_reservation",
                {},
                kind="reservation",
                choices=(
                    ("@choice.healthy", "/healthy"),
                    ("@choice.reservation", "/reservation"),
                    *hinted,
                ),
            ),
        ]
    if game.phase is Phase.DECLARATIONS:
        actions = game.legal_actions()
        choices = [(f"@solo.{s.key}", f"/solo {s.key}") for s in Solo]
        if DECLARE_WEDDING in actions:
            choices.insert(0, ("@choice.wedding", "/wedding"))
        house = [a for a in actions if a in HOUSE_COMMANDS]
        choices[:0] = [(HOUSE_CHOICES[a], HOUSE_COMMANDS[a]) for a in house]
        # A forced solo has no reservation round: only its type is asked for.
        key = "turn_forced" if game.forced >= 0 else "turn_declaration"
        public = key + "_public"
        # Besides a solo, only what this player may declare, in the reader's words.
        others = [word for a, word in RESERVE_COMMANDS.items() if a in actions]
        if key == "turn_declaration" and not others:
            key = "turn_declaration_solo"
        private = [
            Note(
                seat,
                key,
                {"types": SoloWords(), "others": others},
                kind="reservation",
                choices=(*choices, *hinted),
            )
        ]
        return [
            *[Note(ALL, public, {"player": names[seat]}, waits_for=seat)] * waiting,
            *private,
        ]
    if game.phase is Phase.EXCHANGE:
        return exchange_prompt(game, names, waiting)
    hand = sorted_hand(game, game.hands[seat])
    legal = game.legal_cards(seat)
    numbers = tuple([i + 1 for i, c in enumerate(hand) if legal >> c & 1])
    cards = tuple([c for c in hand if legal >> c & 1])
    choices_c: list[tuple[str, str]] = []
    last_kind = -1
    for c in cards:  # display order keeps the two copies of a card together
        if c >> 1 != last_kind:
            last_kind = c >> 1
            choices_c.append(_CARD_CHOICES[c])
    for a in game.legal_calls(seat):
        choices_c.append((f"@call.{call_key(a)}", f"/{call_key(a)}"))
    return [
        Note(
            seat,
            "your_turn_follow" if game.trick else "your_turn_lead",
            {
                "cards": shown_cards(game, list(cards), numbers),
                "n": len(game.tricks) + 1,
                "trick": trick_so_far(game, names),
                "calls": CallsMade(tuple((names[s], call_key(a)) for s, a in game.calls)),
            },
            kind="turn",
            choices=(*choices_c, *hinted),
        )
    ]


def trick_so_far(game: Game, names: list[str]) -> Cards:
    """The cards on the table with who played them (``anna ♣Q, ben ♣A``): a prompt carries
    them, so the player need not wait for the channel to see the trick."""
    players = tuple(names[(game.leader + i) % 4] for i in range(len(game.trick)))
    return Cards(tuple(game.trick), separator=", ", names=players)


def exchange_prompt(game: Game, names: list[str], waiting: bool) -> list[Note]:
    """Who must act in a poverty's exchange, and what (RULES §12.1)."""
    assert game.exchange is not None
    ex = game.exchange
    seat = game.turn
    if ex.taker < 0 and seat != ex.poor:
        return [
            *(
                [Note(ALL, "poverty_asked_public", {"player": names[seat]}, waits_for=seat)]
                * waiting
            ),
            Note(
                seat,
                "poverty_asked",
                {"poor": names[ex.poor]},
                kind="reservation",
                choices=(
                    (HOUSE_CHOICES[TAKE], "/take"),
                    (HOUSE_CHOICES[DECLINE], "/decline"),
                ),
            ),
        ]
    given = ex.passed if ex.taker < 0 else ex.returned
    left = 3 - given.bit_count()
    hand = sorted_hand(game, game.hands[seat])
    legal = {c >> 1 for c in game.legal_actions()}
    cards = [c for c in hand if c >> 1 in legal]
    choices: list[tuple[str, str]] = []
    for c in cards:
        if not choices or choices[-1][1] != command_for(c, phase=Phase.EXCHANGE):
            choices.append((f"#{c}", command_for(c, phase=Phase.EXCHANGE)))
    key = "poverty_give" if ex.taker < 0 else "poverty_give_back"
    return [
        Note(
            seat,
            key,
            {"left": left, "cards": shown_cards(game, cards)},
            kind="turn",
            choices=tuple(choices),
        )
    ]
