"""What the table is told about a game as it goes: each action, each trick, the contract,
a poverty's exchange, the result; and refusals of illegal actions in the table's terms.

Every function here reads a game (and the seats' names) and returns notes; none changes
anything."""

from __future__ import annotations

from typing import Any

from ..engine.cards import DIAMOND_ACES, HEART_TENS
from ..engine.errors import IllegalAction
from ..engine.game import Exchange, Game
from ..engine.order import TRUMP
from ..engine.types import (
    DECLINE,
    HEALTHY,
    RESERVATION,
    TAKE,
    Action,
    GameType,
    Phase,
    call_key,
    is_call,
    is_card,
)
from .i18n import Cards, Name, Term
from .notes import ALL, Note
from .prompts import hand_note, shown_cards, sorted_hand
from .series import GameRecord, value_lines


def action_notes(
    game: Game, names: list[str], seat: int, action: Action, phase: Phase
) -> list[Note]:
    """What everybody is told about ``action`` of ``seat``, done in ``phase`` (the trick it
    may have completed is told by :func:`trick_won_note`)."""
    who = names[seat]
    if is_call(action):
        call = Term("call." + call_key(action))
        return [Note(ALL, "called", {"player": who, "call": call}, kind="call")]
    if phase is Phase.RESERVATIONS:
        if action == RESERVATION:
            return [Note(ALL, "said_reservation", {"player": who})]
        return [Note(ALL, "said_healthy", {"player": who}, kind="healthy")]
    if phase is Phase.DECLARATIONS and game.phase is Phase.DECLARATIONS:
        return [Note(ALL, "declared_hidden", {"player": who})]
    if not is_card(action):
        return []
    notes = [Note(ALL, "card_played", {"player": who, "card": Cards((action,))}, kind="card")]
    if (
        seat == game.piglets
        and DIAMOND_ACES >> action & 1
        and ((game.hands[seat] & DIAMOND_ACES).bit_count() == 1)
    ):
        notes.append(Note(ALL, "piglets", {"player": who}))
    pair = game.rules.trump_nines
    if (
        seat == game.superpiglets
        and pair >> action & 1
        and (game.hands[seat] & pair).bit_count() == 1
    ):
        notes.append(Note(ALL, "superpiglets", {"player": who}))
    return notes


def heart10_notes(game: Game, names: list[str]) -> list[Note]:
    """After a trick: the second ♥10 took it from the first (RULES §12.7, ``dullen``)."""
    leader, cards, winner = game.tricks[-1]
    if game.scheme.heart10 < 0 or sum(HEART_TENS >> c & 1 for c in cards) < 2:
        return []
    second = max(i for i, c in enumerate(cards) if HEART_TENS >> c & 1)
    if (leader + second) & 3 != winner:
        return []
    return [Note(ALL, "heart10_second", {"player": names[winner]})]


def trick_won_note(game: Game, names: list[str]) -> Note:
    """The last trick: its four cards with their players, who took it, how many eyes.

    It says all a reader needs of the trick, so an adapter that must spare lines can leave
    out the ``card`` lines before it."""
    leader, cards, winner = game.tricks[-1]
    pts = sum((0, 2, 3, 4, 10, 11)[(c >> 1) % 6] for c in cards)
    players = tuple(names[(leader + i) % 4] for i in range(len(cards)))
    return Note(
        ALL,
        "trick_won",
        {
            "player": names[winner],
            "eyes": pts,
            "n": len(game.tricks),
            "cards": Cards(tuple(cards), separator=", ", names=players),
        },
        kind="trick",
    )


def wedding_clarified_note(game: Game, names: list[str]) -> Note:
    """The wedding was clarified by the last trick: with a partner or alone."""
    if game.wedding_trick:
        partner = next(s for s in range(4) if s != game.declarer and game.re_seats >> s & 1)
        return Note(ALL, "wedding_partner", {"player": names[partner]})
    kind = game.rules.wedding_trick  # which tricks could have found the partner
    key = "wedding_alone" if kind == "first" else "wedding_alone_" + kind
    return Note(ALL, key, {"player": names[game.declarer]})


def contract_notes(game: Game, names: list[str]) -> list[Note]:
    """The contract of the game, once the card play begins (and the hands again after a
    solo changed the trump order), and who leads."""
    if game.game_type is GameType.SOLO:
        assert game.solo is not None
        key = "contract_solo_mandatory" if game.mandatory else "contract_solo"
        if game.forced >= 0:  # a forced solo is owed, not chosen: it says so
            key = "contract_solo_forced"
        notes = [
            Note(
                ALL,
                key,
                {"player": names[game.declarer], "solo": Term("solo." + game.solo.key)},
            )
        ]
    elif game.game_type is GameType.WEDDING:
        kind = game.rules.wedding_trick
        key = "contract_wedding" if kind == "first" else "contract_wedding_" + kind
        notes = [Note(ALL, key, {"player": names[game.declarer]})]
    elif game.game_type is GameType.POVERTY and game.exchange is not None:
        notes = [
            Note(
                ALL,
                "contract_poverty",
                {"player": names[game.declarer], "partner": names[game.exchange.taker]},
            )
        ]
    else:
        notes = [Note(ALL, "contract_normal", kind="contract")]
    # New trump order: everybody gets the hand again, sorted for this game.
    if game.game_type is GameType.SOLO:
        notes += [hand_note(game, s) for s in range(4)]
    notes.append(Note(ALL, "leads", {"player": names[game.leader]}, kind="lead"))
    return notes


def exchange_notes(
    game: Game, names: list[str], seat: int, action: Action, phase: Phase, before: Exchange | None
) -> list[Note]:
    """What the table and the two players of a poverty are told about one step of the
    exchange: the table only who and how many trumps came back, never which cards."""
    ex = game.exchange
    assert ex is not None
    who = names[seat]
    if phase is Phase.DECLARATIONS:  # ``seat`` made the last declaration, not always the poverty
        poor = names[ex.poor]
        notes = [Note(ALL, "poverty_announced", {"player": poor})]
        if ex.passed.bit_count() == 3:
            notes.append(Note(ALL, "poverty_passed", {"player": poor}))
        return notes
    if action == DECLINE:
        return [Note(ALL, "poverty_declined", {"player": who})]
    if action == TAKE:
        got = sorted_hand(game, ex.passed)
        return [
            Note(ALL, "poverty_taken", {"player": who, "poor": names[ex.poor]}),
            Note(seat, "poverty_received", {"cards": shown_cards(game, got)}),
        ]
    if before is not None and before.taker < 0:
        if ex.passed.bit_count() == 3:
            return [Note(ALL, "poverty_passed", {"player": who})]
        return []
    if game.phase is not Phase.PLAYING:
        return []
    back = sorted_hand(game, ex.returned)
    return [
        Note(ALL, "poverty_returned", {"player": who, "trumps": ex.trumps_back}),
        Note(ex.poor, "poverty_got_back", {"cards": shown_cards(game, back)}),
        hand_note(game, ex.poor),
        hand_note(game, seat),
    ]


def result_notes(rec: GameRecord, names: list[str]) -> list[Note]:
    """The result of a scored game: parties, eyes, winner and the lines of its value."""
    notes = [
        Note(
            ALL,
            "game_over",
            {
                "n": rec.number,
                "re": [names[s] for s in rec.re],
                "kontra": [names[s] for s in rec.kontra],
                "eyes_re": rec.eyes[0],
                "eyes_kontra": rec.eyes[1],
                "winner": Term("party." + (rec.winner or "nobody")),
            },
        )
    ]
    return notes + [
        Note(ALL, key, params, kind="detail" if key == "component" else "info")
        for key, params in value_lines(rec)
    ]


def reservation_reason(
    game: Game, seat: int, action: Action, reason: str
) -> tuple[str, dict[str, Any]]:
    """A refusal of the reservation rounds that says what is actually asked now."""
    said = game.reserved[seat] if 0 <= seat < 4 else -1
    if action in (HEALTHY, RESERVATION) and said >= 0 and reason != "game_over":
        if game.phase is Phase.DECLARATIONS and game.turn == seat and game.forced < 0:
            return "name_reservation", {}
        if game.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
            word = "choice.reservation" if said else "choice.healthy"
            return "reservation_stands", {"said": Term(word)}
    if reason == "not_declaration_round" and game.phase is Phase.RESERVATIONS:
        return "declare_after_reservation", {}
    if reason == "not_reservation_round" and game.forced >= 0:
        return "forced_solo_only", {}
    return reason, {}


def illegal_params(game: Game, exc: IllegalAction) -> dict[str, Any]:
    params: dict[str, Any] = dict(exc.params)
    if exc.reason == "call_wrong_party" and isinstance(params.get("party"), str):
        params["party"] = Term("party." + params["party"])
    if "led" in params:
        led = params["led"]
        params["led"] = Term("class.trump" if led == TRUMP else f"class.{led}")
    if "turn" in params and isinstance(params["turn"], int):
        params["turn_seat"] = params.pop("turn")
    if isinstance(params.get("card"), str):  # the engine names it in its own code: ♣Q
        params["card"] = Name("card", params["card"])
    return params
