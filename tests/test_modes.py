"""Table modes (RULES §9): single, fixed4, duel (seating, deal, weddings), option conflicts."""

from __future__ import annotations

import csv
import io
from collections import Counter
from decimal import Decimal

import pytest

from dokobot.engine.cards import CLUB_QUEENS, card_ascii
from dokobot.engine.rules import DEFAULT_RULES
from dokobot.engine.types import DECLARE_SOLO, GameType, Phase, is_call
from dokobot.host.events import Event
from dokobot.host.i18n import number_text, render
from dokobot.host.modes import derive_seed, duel_deal, duel_deal_ok
from dokobot.host.replay import Replayer, export_table
from dokobot.host.series import series_csv
from dokobot.host.stakes import game_settlement

NAMES = ("anna", "ben", "carl", "dora")
HIGH = ("H10", "H10", "SQ")
"""The winning card of each of the first three tricks."""
LOW = ("D9", "D9", "DK", "DK", "D10", "D10", "DA", "DA", "DJ")
DECK = [s + r for s in "CSHD" for r in ("9", "J", "Q", "K", "10", "A") for _ in range(2)]


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events]


def play(rep: Replayer, plan: list[list[str]] | None = None, wedding: str | None = None,
         solos: dict[str, str] | None = None) -> list[Event]:  # fmt: skip
    """Play the running game to its end (or its cancellation). ``plan[seat]`` are the cards
    of the first tricks; then the first legal card. ``wedding``/``solos`` name reservations."""
    solos = solos or {}
    table = rep.table
    events: list[Event] = []
    while table.running:
        game = table.game
        assert game is not None
        seat = game.turn
        name = table.seats[seat].name
        if game.phase is Phase.RESERVATIONS:
            text = "/reservation" if name == wedding or name in solos else "/healthy"
        elif game.phase is Phase.DECLARATIONS:
            text = "/wedding" if name == wedding else "/solo " + solos.get(name, "diamonds")
        elif plan is not None and len(game.tricks) < len(plan[seat]):
            text = "/play " + plan[seat][len(game.tricks)]
        else:
            text = f"/play {card_ascii(game.legal_actions()[0])}"
        before = len(game.log)
        events += rep.feed(0, name, text)
        assert len(game.log) > before or not table.running, (name, text, texts(events[-2:]))
    return events


# ---------------------------------------------------------------------- duel tables
def duel_table(
    *, scripted: bool = True, order: str = "anna bot ben bot", **options: str
) -> Replayer:
    rep = Replayer()
    if scripted:
        rep.run_text("!bots scripted")
    for who in order.split():
        rep.run_text("anna: /join bot" if who == "bot" else f"{who}: /join")
    rep.run_text("anna: /option mode duel")
    for name, value in options.items():
        rep.run_text(f"anna: /option {name} {value}")
    return rep


def wedding_deal(declarer: int, winners: tuple[int, int, int]) -> tuple[str, list[list[str]]]:
    """A deal line in which ``declarer`` holds both ♣Q and the first three tricks go to
    ``winners`` (everybody plays a trump; the winner the highest), and the plan for them."""
    hands: list[list[str]] = [[], [], [], []]
    lows = list(LOW)
    for k, w in enumerate(winners):
        for s in range(4):
            hands[s].append(HIGH[k] if s == w else lows.pop(0))
    plan = [list(h) for h in hands]
    hands[declarer] += ["CQ", "CQ"]
    rest = Counter(DECK)
    rest.subtract(c for h in hands for c in h)
    pool = [c for c, n in sorted(rest.items()) for _ in range(n)]
    for h in hands:
        while len(h) < 12:
            h.append(pool.pop())
    assert not pool
    names = ("anna", "Bot1", "ben", "Bot2")
    line = "!deal " + "; ".join(f"{n}=" + " ".join(h) for n, h in zip(names, hands, strict=True))
    return line, plan


ANNA, BOT1, BEN, BOT2 = 0, 1, 2, 3


def run_wedding(declarer: int, winners: tuple[int, int, int]) -> tuple[Replayer, list[Event]]:
    rep = duel_table(stake="10")
    line, plan = wedding_deal(declarer, winners)
    rep.run_text(line)
    events = rep.feed(0, "anna", "/start")
    events += play(rep, plan, wedding=("anna", "Bot1", "ben", "Bot2")[declarer])
    return rep, events


def test_person_wedding_clarified_by_a_computer() -> None:
    rep, _ = run_wedding(ANNA, (BOT1, ANNA, BEN))
    rec = rep.table.finished[-1]
    assert not rec.cancelled and rec.type == "wedding"
    assert rec.re == [ANNA, BOT1] and rec.counted


def test_person_wedding_trick_of_the_other_person_does_not_count() -> None:
    rep, events = run_wedding(ANNA, (BEN, BOT2, ANNA))
    assert "ben's trick does not clarify the wedding in a duel." in texts(events)
    assert "Bot2 is the wedding partner." in texts(events)
    rec = rep.table.finished[-1]
    assert rec.re == [ANNA, BOT2] and rec.kontra == [BOT1, BEN]
    assert not rec.cancelled and sum(rec.scores) == 0


def test_person_wedding_all_three_tricks_plays_on_as_solo() -> None:
    rep, events = run_wedding(ANNA, (ANNA, ANNA, ANNA))
    assert any("anna plays alone" in t for t in texts(events))
    rec = rep.table.finished[-1]
    assert rec.re == [ANNA] and not rec.cancelled
    assert rec.scores[ANNA] == -3 * rec.scores[BEN]


@pytest.mark.parametrize("winners", [(ANNA, BEN, ANNA), (BEN, BEN, BEN), (BEN, ANNA, ANNA)])
def test_person_wedding_cancelled_when_the_other_person_took_a_trick(
    winners: tuple[int, int, int],
) -> None:
    rep, events = run_wedding(ANNA, winners)
    table = rep.table
    rec = table.finished[-1]
    assert rec.cancelled and not rec.counted and rec.scores == (0, 0, 0, 0)
    assert len(table.game.tricks if table.game else []) == 3
    assert any("the game is cancelled (no score)" in t for t in texts(events))
    assert table.series.counted == 0 and table.series.totals == [0, 0, 0, 0]
    # The same dealer deals again.
    rep.feed(0, "anna", "/start")
    assert table.game is not None and table.game.dealer == rec.dealer


@pytest.mark.parametrize("winners", [(BOT1, BOT1, BOT1), (BOT2, BOT2, BOT1), (BOT2, BOT1, BOT2)])
def test_computer_wedding_cancelled_without_a_person_clarifying(
    winners: tuple[int, int, int],
) -> None:
    rep, events = run_wedding(BOT1, winners)
    rec = rep.table.finished[-1]
    assert rec.cancelled and not rec.counted
    assert any("Neither person took one of the first three tricks" in t for t in texts(events))


def test_computer_wedding_trick_of_the_other_computer_does_not_count() -> None:
    rep, events = run_wedding(BOT1, (BOT2, BEN, BOT1))
    assert "Bot2's trick does not clarify the wedding in a duel." in texts(events)
    rec = rep.table.finished[-1]
    assert rec.re == [BOT1, BEN] and not rec.cancelled
    game = rep.table.game
    assert game is not None and game.wedding_trick == 2 and game.shift == 1


def test_computer_wedding_clarified_by_a_person() -> None:
    rep, _ = run_wedding(BOT1, (ANNA, BOT2, BEN))
    rec = rep.table.finished[-1]
    assert rec.re == [ANNA, BOT1] and not rec.cancelled


def test_duel_wedding_journal_replays_the_same() -> None:
    rep, _ = run_wedding(ANNA, (BEN, BOT2, ANNA))
    again = Replayer()
    again.run_text(export_table(rep.table))
    assert series_csv(again.table) == series_csv(rep.table)
    rep2, _ = run_wedding(ANNA, (ANNA, BEN, ANNA))
    again2 = Replayer()
    again2.run_text(export_table(rep2.table))
    assert again2.table.finished[-1].cancelled


# ---------------------------------------------------------------------- duel seating and deal
def test_duel_needs_two_people_and_two_computers() -> None:
    rep = Replayer()
    rep.run_text("anna: /join\nben: /join\ncarl: /join\nanna: /join bot\nanna: /option mode duel")
    events = rep.feed(0, "anna", "/start")
    assert texts(events) == [
        "Duel mode needs exactly two people and two computer players; "
        "seated: people 3, computer players 1."
    ]
    assert rep.table.game is None


def test_duel_seats_the_people_opposite_and_logs_it() -> None:
    rep = duel_table(order="anna ben bot bot")
    assert rep.table.names() == ["anna", "ben", "Bot1", "Bot2"]
    events = rep.feed(0, "anna", "/start")
    assert "Duel seating (the two people opposite each other): anna, Bot1, ben, Bot2." in texts(
        events
    )
    assert rep.table.names() == ["anna", "Bot1", "ben", "Bot2"]
    assert "# duel seating: anna, Bot1, ben, Bot2" in [r.line() for r in rep.table.journal]
    play(rep)
    again = Replayer()
    again.run_text(export_table(rep.table))
    assert again.table.names() == ["anna", "Bot1", "ben", "Bot2"]
    assert series_csv(again.table) == series_csv(rep.table)


def test_duel_seating_moves_a_scripted_deal_with_its_players() -> None:
    rep = duel_table(order="anna ben bot bot")
    line, _ = wedding_deal(ANNA, (BOT1, ANNA, BEN))  # names the players, not the seats
    rep.run_text(line)
    rep.run_text("!dealer Bot1")
    rep.feed(0, "anna", "/start")
    game = rep.table.game
    assert game is not None
    assert game.start_hands[0] & CLUB_QUEENS == CLUB_QUEENS  # anna's hand went with her
    assert rep.table.names()[game.dealer] == "Bot1"


def test_duel_deal_puts_the_people_into_different_parties() -> None:
    weddings = 0
    for seed in range(300):
        game = duel_deal(DEFAULT_RULES, 3, seed, (0, 2))
        counts = [(h & CLUB_QUEENS).bit_count() for h in game.start_hands]
        if 2 in counts:
            weddings += 1
            continue
        for _ in range(4):
            game.play(game.turn, 48)  # healthy
        assert game.game_type is GameType.NORMAL
        assert game.party_of(0) is not game.party_of(2)
    assert 0 < weddings < 150
    assert (
        duel_deal(DEFAULT_RULES, 3, 7, (0, 2)).start_hands
        == duel_deal(DEFAULT_RULES, 3, 7, (0, 2)).start_hands
    )
    assert derive_seed(7, 0) == 7 and derive_seed(7, 1) != derive_seed(7, 2)


def test_duel_deal_ok_rules() -> None:
    q1, q2 = 1 << 4, 1 << 5  # the two ♣Q
    assert (q1 | q2) == CLUB_QUEENS
    assert duel_deal_ok([q1, q2, 0, 0], (0, 2))  # anna Re with Bot1, ben Kontra
    assert not duel_deal_ok([q1, 0, q2, 0], (0, 2))  # both people Re
    assert not duel_deal_ok([0, q1, 0, q2], (0, 2))  # both people Kontra
    assert duel_deal_ok([0, 0, q1 | q2, 0], (0, 2))  # a wedding hand


def test_duel_series_with_computer_players() -> None:
    from dokobot.host.service import default_bot_factory

    factory = default_bot_factory()
    assert factory is not None
    rep = Replayer(bot_factory=factory)
    rep.run_text("anna: /join\nanna: /join bot normal\nben: /join\nanna: /join bot normal")
    rep.run_text("anna: /option mode duel\nanna: /option stake 10")
    events: list[Event] = []
    while rep.table.series.counted < 4:
        events += rep.feed(0, "anna", "/start")
        events += play(rep)
    table = rep.table
    for rec in table.finished:
        for seat, _call in rec.calls:
            assert seat in (0, 2), "computer players make no calls in a duel"
        if rec.type == "solo":
            assert rec.declarer in (0, 2), "computer players play no solo in a duel"
        if rec.type == "normal":
            assert (0 in rec.re) != (2 in rec.re)
    over = [t for t in texts(events) if t.startswith("Series settlement")]
    assert len(over) == 1
    anna, ben = table.series.totals[0], table.series.totals[2]
    balances = {n: table.ledger.balance(f"replay:{n}") for n in ("anna", "ben")}
    if anna == ben:
        assert balances == {"anna": 0, "ben": 0}
    else:
        winner, loser = ("anna", "ben") if anna > ben else ("ben", "anna")
        assert balances == {winner: Decimal(10), loser: Decimal(-10)}
        assert f"{winner} +10" in over[0] and f"{loser} -10" in over[0]
    assert not any(a.startswith("bot:") for a in table.ledger.balances)


def test_duel_computer_players_are_restricted() -> None:
    from dokobot.host.service import default_bot_factory

    factory = default_bot_factory()
    assert factory is not None
    rep = Replayer(bot_factory=factory)
    rep.run_text("anna: /join\nanna: /join bot\nben: /join\nanna: /join bot")
    rep.run_text("anna: /option mode duel")
    for seed in range(6):
        rep.table.seed = seed
        rep.feed(0, "anna", "/start")
        game = rep.table.game
        assert game is not None
        play(rep)
        assert not any(is_call(a) and s in (1, 3) for s, a in game.log)
        assert not any(
            a >= DECLARE_SOLO and a < DECLARE_SOLO + 7 and s in (1, 3) for s, a in game.log
        )


# ---------------------------------------------------------------------- fixed4 and single
def four(*options: str) -> Replayer:
    rep = Replayer()
    rep.run_text("\n".join(f"{n}: /join" for n in NAMES))
    for opt in options:
        rep.run_text(f"anna: /option {opt}")
    return rep


def test_fixed4_series_settles_the_fixed_stake() -> None:
    rep = four("mode fixed4", "stake 5")
    events: list[Event] = []
    for _ in range(4):
        events += rep.feed(0, "anna", "/start")
        events += play(rep)
    table = rep.table
    assert table.series.counted == 4
    assert any(t.startswith("The series is over") for t in texts(events))
    settlement = [t for t in texts(events) if t.startswith("Series settlement")]
    assert len(settlement) == 1 and "fixed stake 5" in settlement[0]
    best = max(table.series.totals)
    winners = [s for s in range(4) if table.series.totals[s] == best]
    losers = [s for s in range(4) if s not in winners]
    for s in losers:
        assert table.ledger.balance(f"replay:{NAMES[s]}") == -5
    got = sum(table.ledger.balance(f"replay:{NAMES[s]}") for s in winners)
    assert got == 5 * len(losers)
    rows = list(csv.DictReader(io.StringIO(series_csv(table))))
    assert [r["row"] for r in rows] == ["game"] * 4 + ["settlement"]
    assert sum(Decimal(rows[-1][f"chips{i}"]) for i in range(1, 5)) == 0
    sheet = render("en", "score_sheet", table.score_note("en").params)
    assert "Score list, series 1: 4 of 4 games" in sheet
    assert "Chips at this table: " in sheet
    # The next game begins series 2.
    events = rep.feed(0, "anna", "/start")
    assert "A new series begins (series 2)." in texts(events)


def test_single_settles_every_game_with_limit_and_commission() -> None:
    rep = four("mode single", "stake 2", "limit 6", "commission 9")
    events: list[Event] = []
    for _ in range(3):
        events += rep.feed(0, "anna", "/start")
        events += play(rep)
    table = rep.table
    assert len(table.settlements) == 3
    assert not any(t.startswith("The series is over") for t in texts(events))
    balances = [Decimal(0)] * 4
    house = Decimal(0)
    for entry, rec in zip(table.settlements, table.finished, strict=True):
        expect = game_settlement(rec.scores, rec.value, stake=2, limit=6, rate=Decimal(9))
        assert entry.settlement.net == expect.net
        assert entry.settlement.unit == min(Decimal(2 * rec.value), Decimal(6))
        balances = [b + x for b, x in zip(balances, expect.net, strict=True)]
        house += expect.commission
    assert [table.ledger.balance(f"replay:{n}") for n in NAMES] == balances
    assert table.ledger.house == house
    chip_notes = [t for t in texts(events) if t.startswith("Chips (stake × value")]
    assert len(chip_notes) == 3


def test_free_mode_settles_nothing() -> None:
    rep = four()
    rep.feed(0, "anna", "/start")
    play(rep)
    assert rep.table.settlements == [] and rep.table.ledger.balances == {}


def test_a_standin_pays_for_the_person_who_left() -> None:
    rep = four("mode single", "stake 1")
    rep.feed(0, "anna", "/start")
    rep.feed(0, "dora", "/leave")
    rep.run_text("!bots scripted")
    play(rep)
    entry = rep.table.settlements[-1]
    assert entry.accounts[3] == "replay:dora"


# ---------------------------------------------------------------------- options
def test_tournament_and_table_modes_do_not_mix() -> None:
    rep = four("tournament on")
    events = rep.feed(0, "anna", "/option mode fixed4")
    assert texts(events) == [
        "Table mode fixed4 cannot be played in tournament mode. First /option tournament off."
    ]
    assert rep.table.options.mode == "free"


def test_changing_the_mode_closes_the_series_and_resets_computer_players() -> None:
    rep = four()
    rep.feed(0, "anna", "/start")
    play(rep)
    events = rep.feed(0, "anna", "/option mode fixed4")
    assert "A new series begins (series 2)." in texts(events)
    assert rep.table.series.counted == 0


def test_score_list_and_ledger_show_the_chips() -> None:
    rep = four("mode single", "stake 1", "commission 9")
    rep.feed(0, "anna", "/start")
    play(rep)
    table = rep.table
    net = table.settlements[-1].settlement.net
    sheet = render("en", "score_sheet", table.score_note("en").params)
    chips_line = next(x for x in sheet.splitlines() if x.startswith("Chip balances: "))
    for name, amount in zip(NAMES, net, strict=True):
        assert f"{name} {amount:+.2f}" in chips_line or f"{name} {int(amount):+d}" in chips_line
    note = table.ledger_note("en")
    text = render("en", note.key, note.params)
    assert text.startswith("Chip balances on this server:")
    assert f"Commission collected: {table.ledger.house:.2f}" in text or table.ledger.house == 0
    german = render("de", "score_sheet", table.score_note("de").params)
    assert "Chipstand: " in german and "Spielliste, Serie 1, gespielt: 1" in german
    # /ledger writes each amount as the reader's language does (1,07 in German).
    cents = [b for _, _, b in table.ledger.standings()] + [table.ledger.house]
    assert any(b != b.to_integral_value() for b in cents), cents  # the commission has cents
    ledger_de = render("de", note.key, note.params)
    for _, name, balance in table.ledger.standings():
        row = next(line for line in ledger_de.splitlines() if name in line)
        assert number_text(balance, "de", 2, signed=True) in row, row
    assert f"Einbehaltene Provision: {number_text(table.ledger.house, 'de', 2)}" in ledger_de


def test_ledger_empty_and_unknown_game() -> None:
    rep = four()
    note = rep.table.ledger_note("en")
    assert note.key == "ledger_empty"
    with pytest.raises(Exception) as exc:
        rep.table.game_note(5)
    assert getattr(exc.value, "key", None) == "score_no_such_game"
