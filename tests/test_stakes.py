"""Chips: per-game and per-series settlements, commission, the ledger (RULES §9)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dokobot.host.options import TableOptions
from dokobot.host.stakes import (
    CENT,
    ZERO,
    Ledger,
    format_chips,
    game_settlement,
    series_settlement,
    server_of,
)

D = Decimal


def test_worked_example_of_the_seeds() -> None:
    """Stake 1, value 4, solo won: 12 gross, 9 % × 4 × 4 players = 1.44, 10.56 net."""
    st_ = game_settlement((12, -4, -4, -4), 4, stake=1, limit=0, rate=D(9))
    assert st_.unit == D("4.00")
    assert st_.gross == (D(12), D(-4), D(-4), D(-4))
    assert st_.commission == D("1.44")
    assert st_.net == (D("10.56"), D(-4), D(-4), D(-4))
    assert sum(st_.net) == -st_.commission


def test_worked_example_from_the_option_value() -> None:
    """The option is typed as text; the rate reaches the settlement exactly."""
    opts = TableOptions().set("commission", "9%")
    st_ = game_settlement((-4, 12, -4, -4), 4, stake=1, limit=0, rate=opts.commission_rate)
    assert st_.commission == D("1.44")
    assert st_.net[1] == D("10.56")


def test_soloist_loses_winners_share_equally() -> None:
    st_ = game_settlement((-12, 4, 4, 4), 4, stake=1, limit=0, rate=D(9))
    assert st_.net == (D(-12), D("3.52"), D("3.52"), D("3.52"))
    assert st_.commission == D("1.44")


def test_two_against_two_commission_from_the_winners() -> None:
    st_ = game_settlement((4, -4, -4, 4), 4, stake=1, limit=0, rate=D(9))
    assert st_.net == (D("3.28"), D(-4), D(-4), D("3.28"))


def test_stake_times_value_and_limit() -> None:
    st_ = game_settlement((3, -3, 3, -3), 3, stake=5, limit=0, rate=D(0))
    assert st_.net == (D(15), D(-15), D(15), D(-15))
    capped = game_settlement((3, -3, 3, -3), 3, stake=5, limit=10, rate=D(0))
    assert capped.net == (D(10), D(-10), D(10), D(-10))
    solo = game_settlement((-9, 3, 3, 3), 3, stake=5, limit=10, rate=D(0))
    assert solo.net == (D(-30), D(10), D(10), D(10))


def test_nothing_to_settle() -> None:
    st_ = game_settlement((0, 0, 0, 0), 0, stake=5, limit=0, rate=D(9))
    assert st_.empty


def test_scores_must_fit_the_value() -> None:
    with pytest.raises(ValueError):
        game_settlement((5, -5, 5, -5), 2, stake=1, limit=0, rate=D(0))


def test_series_fixed_stake_to_the_winner() -> None:
    st_ = series_settlement((12, -4, -4, -4), range(4), stake=5, rate=D(0))
    assert st_.net == (D(15), D(-5), D(-5), D(-5))
    tie = series_settlement((6, 6, -6, -6), range(4), stake=5, rate=D(0))
    assert tie.net == (D(5), D(5), D(-5), D(-5))
    three = series_settlement((2, 2, 2, -6), range(4), stake=1, rate=D(0))
    assert three.net == (D("0.34"), D("0.33"), D("0.33"), D(-1))
    even = series_settlement((0, 0, 0, 0), range(4), stake=5, rate=D(0))
    assert even.empty


def test_series_commission() -> None:
    st_ = series_settlement((12, -4, -4, -4), range(4), stake=10, rate=D(9))
    # 9 % of the stake per player, four players: 3.60, taken from the winner's 30.
    assert st_.commission == D("3.60")
    assert st_.net == (D("26.40"), D(-10), D(-10), D(-10))


def test_duel_settles_between_the_people_only() -> None:
    st_ = series_settlement((-10, 30, 4, -24), (0, 2), stake=10, rate=D(0))
    assert st_.net == (D(-10), ZERO, D(10), ZERO)


def test_ledger_books_and_balances() -> None:
    ledger = Ledger(server="irc:net")
    accounts = ["u:a", "u:b", "u:c", "u:d"]
    names = ["anna", "ben", "carl", "dora"]
    ledger.settle_game(
        "irc:net:#x", accounts, names, (12, -4, -4, -4), 4, stake=1, limit=0, rate=D(9)
    )
    ledger.settle_series("irc:net:#y", [None, "u:b", None, "u:d"], names, (0, 5, 0, -5),
                         stake=2, rate=D(0))  # fmt: skip
    assert ledger.balance("u:a") == D("10.56")
    assert ledger.balance("u:b") == D(-2)
    assert ledger.balance("u:d") == D(-6)
    assert ledger.house == D("1.44")
    assert sum(ledger.balances.values()) + ledger.house == 0
    assert ledger.channel_totals("irc:net:#y") == {"u:b": D(2), "u:d": D(-2)}
    assert [r[1] for r in ledger.standings()] == ["anna", "ben", "carl", "dora"]


def test_ledger_refuses_chips_for_a_seat_without_account() -> None:
    ledger = Ledger()
    with pytest.raises(ValueError):
        ledger.settle_game("c", [None, "b", "c", "d"], list("abcd"), (2, -2, 2, -2), 2,
                           stake=1, limit=0, rate=D(0))  # fmt: skip
    assert ledger.balances == {}


def test_format_and_server() -> None:
    assert format_chips(D("10.56")) == "+10.56"
    assert format_chips(D(-4)) == "-4"
    assert format_chips(D("1.44"), signed=False) == "1.44"
    assert server_of("irc:libera:#doko") == "irc:libera"


@st.composite
def games(draw: st.DrawFn) -> tuple[tuple[int, ...], int]:
    value = draw(st.integers(1, 30))
    solo = draw(st.booleans())
    sign = draw(st.sampled_from((1, -1)))
    if solo:
        soloist = draw(st.integers(0, 3))
        scores = tuple(3 * sign * value if s == soloist else -sign * value for s in range(4))
    else:
        re = draw(st.sampled_from(((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))))
        scores = tuple(sign * value if s in re else -sign * value for s in range(4))
    return scores, value


@given(
    games(),
    st.integers(0, 1000),
    st.integers(0, 500),
    st.decimals(min_value=0, max_value=50, places=2),
)
def test_game_settlement_properties(
    game: tuple[tuple[int, ...], int], stake: int, limit: int, rate: Decimal
) -> None:
    scores, value = game
    st_ = game_settlement(scores, value, stake=stake, limit=limit, rate=rate)
    assert sum(st_.gross) == 0
    assert sum(st_.net) == -st_.commission
    assert all(x == x.quantize(CENT) for x in (*st_.net, st_.commission))
    assert st_.commission >= 0
    for s in range(4):
        assert (st_.gross[s] > 0) == (scores[s] > 0) or stake == 0
        if st_.gross[s] <= 0:
            assert st_.net[s] == st_.gross[s]  # losers pay no commission
        else:
            assert 0 <= st_.net[s] <= st_.gross[s]
    if limit:
        assert st_.unit <= limit
    expect = min(D(stake * value), D(limit) if limit else D(stake * value))
    assert st_.unit == expect
    full = (rate * expect * 4 / 100).quantize(CENT)
    assert st_.commission == min(full, sum(x for x in st_.gross if x > 0))


@given(
    st.lists(st.integers(-50, 50), min_size=4, max_size=4),
    st.sets(st.integers(0, 3), min_size=2, max_size=4),
    st.integers(0, 100),
    st.decimals(min_value=0, max_value=50, places=1),
)
def test_series_settlement_properties(
    totals: list[int], people: set[int], stake: int, rate: Decimal
) -> None:
    st_ = series_settlement(totals, people, stake=stake, rate=rate)
    assert sum(st_.gross) == 0
    assert sum(st_.net) == -st_.commission
    best = max(totals[p] for p in people)
    for s in range(4):
        if s not in people:
            assert st_.net[s] == 0
        elif totals[s] < best:
            assert st_.net[s] == -stake
        else:
            assert st_.net[s] >= 0


async def test_a_stand_in_that_plays_a_whole_game_books_it_to_nobody() -> None:
    """dora leaves during game 1 (she is billed and rated for it: she played part of it);
    the stand-in plays game 2 from its deal on: no person is billed or rated for that seat
    (the computer player's account is), and the record says three people, not rated."""
    from dokobot.host.events import Input
    from dokobot.host.router import Router
    from dokobot.host.service import Service, default_bot_factory
    from dokobot.host.table import command_for
    from dokobot.store import MemoryStore

    store = MemoryStore()
    svc = Service(Router(seed=4, bot_factory=default_bot_factory()), store)
    names = ("anna", "ben", "carl", "dora")
    for i, n in enumerate(names):
        await svc.handle(Input("c", f"u{i}", n, "/join"))
    await svc.handle(Input("c", "u0", "anna", "/option mode single"))
    await svc.handle(Input("c", "u0", "anna", "/option stake 2"))
    table = svc.router.tables["c"]
    for number in (1, 2):
        started = await svc.handle(Input("c", "u0", "anna", "/start"))
        assert table.running, [e.text for e in started]
        game = table.game
        assert game is not None
        while table.running:
            if number == 1 and len(game.log) == 10 and table.seats[3].standin_for is None:
                await svc.handle(Input("c", "u3", "dora", "/leave"))
            info = table.seats[game.turn]
            if info.is_bot:  # the stand-in moves by itself
                await asyncio.sleep(0.01)
                continue
            await svc.handle(Input("c", info.user, info.name, command_for(game.legal_actions()[0])))
        if number == 1:
            after_first = table.ledger.balance("u3")
    assert table.ledger.balance("u3") == after_first
    for _ in range(500):  # the last move was the stand-in's: its result is stored after it
        stored = {g.game: g for g in store.results(table.ledger.server)}
        if len(stored) == 2:
            break
        await asyncio.sleep(0.01)
    assert [s.user for s in stored[1].seats][3] == "u3" and stored[1].rated
    chips = [(g.row or {})["chips"][0] for g in (stored[1], stored[2])]
    assert chips[0]["accounts"][3] == "u3" and chips[0]["net"][3] != "0.00"
    assert chips[1]["accounts"][3] == "bot:dora"  # the computer player's, as any computer's
    assert stored[2].seats[3].computer and "u3" not in [s.user for s in stored[2].seats]
    assert not stored[2].rated
