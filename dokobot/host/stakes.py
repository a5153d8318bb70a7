"""Stakes as chips (never money): settlements per game or per series, and the ledger.

Chips are :class:`~decimal.Decimal` amounts rounded to hundredths; no float arithmetic
touches them. The worked example of the seeds (manual 000/002, RULES §9): stake 1, a solo of
value 4 won, commission 9 %: the soloist wins 3 × 4 = 12 gross, the commission is
9 % × 4 × 4 players = 1.44, he receives 10.56 net.

>>> st = game_settlement((12, -4, -4, -4), 4, stake=1, limit=0, rate=Decimal(9))
>>> [str(x) for x in st.gross], str(st.commission), [str(x) for x in st.net]
(['12.00', '-4.00', '-4.00', '-4.00'], '1.44', ['10.56', '-4.00', '-4.00', '-4.00'])

If the three opponents win, the net win is split equally among them:

>>> st = game_settlement((-12, 4, 4, 4), 4, stake=1, limit=0, rate=Decimal(9))
>>> [str(x) for x in st.net]
['-12.00', '3.52', '3.52', '3.52']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Final, Literal

from .i18n import Number

CENT: Final = Decimal("0.01")
ZERO: Final = Decimal("0.00")

Kind = Literal["game", "series"]


def chips(value: Decimal | int) -> Decimal:
    """``value`` rounded to hundredths (half up)."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def format_chips(value: Decimal, *, signed: bool = True) -> str:
    """``+12`` for whole chips, ``+10.56`` otherwise.

    >>> format_chips(Decimal("12.00")), format_chips(Decimal("-3.5")), format_chips(ZERO)
    ('+12', '-3.50', '0')
    """
    value = chips(value)
    if value == 0:
        return "0"
    if value == value.to_integral_value():
        return f"{int(value):+d}" if signed else str(int(value))
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def format_all(values: Sequence[Decimal], *, signed: bool = True) -> list[str]:
    """Amounts shown together: all with cents if one has cents, else all whole.

    >>> format_all([Decimal("1.07"), Decimal(-5), ZERO])
    ['+1.07', '-5.00', '0.00']
    >>> format_all([Decimal(15), Decimal(-5)])
    ['+15', '-5']
    """
    values = [chips(v) for v in values]
    if all(v == v.to_integral_value() for v in values):
        return [format_chips(v, signed=signed) for v in values]
    return [f"{v:+.2f}" if signed and v else f"{v:.2f}" for v in values]


def chip_numbers(values: Sequence[Decimal], *, signed: bool = True) -> list[Number]:
    """Amounts shown together, as each reader's language writes numbers (``+1,07`` in
    German): all with cents if one has cents, else all whole (as :func:`format_all`)."""
    values = [chips(v) for v in values]
    places = 0 if all(v == v.to_integral_value() for v in values) else 2
    return [Number(v, places=places, signed=signed) for v in values]


def server_of(channel: str) -> str:
    """The server part of a channel id: everything before the last ``:``.

    >>> server_of("irc:libera:#doko"), server_of("discord:123"), server_of("local")
    ('irc:libera', 'discord', 'local')
    """
    head, sep, _ = channel.rpartition(":")
    return head if sep else channel


@dataclass(frozen=True, slots=True)
class Settlement:
    """What the players of one game or one series pay and receive.

    ``gross`` per seat sums to zero; ``net`` is ``gross`` minus the commission, which is
    taken from the winners only (``sum(net) == -commission``). ``unit`` is the chip value
    of the game per player (stake × game value, capped by the limit) or the fixed stake.
    """

    kind: Kind
    series: int
    game: int | None
    unit: Decimal
    gross: tuple[Decimal, ...]
    commission: Decimal
    net: tuple[Decimal, ...]

    @property
    def empty(self) -> bool:
        return all(x == 0 for x in self.net) and self.commission == 0


def _split(total: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """``total`` (whole cents) split in cents proportionally to ``weights`` (> 0).

    Largest remainders get the odd cents; equal remainders go by position.

    >>> [str(x) for x in _split(Decimal("1.00"), [Decimal(1)] * 3)]
    ['0.34', '0.33', '0.33']
    """
    cents = int((total / CENT).to_integral_value())
    wsum = sum(weights, Decimal(0))
    exact = [Decimal(cents) * w / wsum for w in weights]
    base = [int(x) for x in exact]  # exact >= 0, so int() floors
    rest = cents - sum(base)
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - base[i]), i))
    for i in order[:rest]:
        base[i] += 1
    return [chips(Decimal(b) * CENT) for b in base]


def _with_commission(
    gross: Sequence[Decimal], unit: Decimal, rate: Decimal, players: int
) -> tuple[Decimal, tuple[Decimal, ...]]:
    """The commission (rate % × unit × players, at most what the winners get) and the net."""
    winners = [i for i, g in enumerate(gross) if g > 0]
    won = sum((gross[i] for i in winners), ZERO)
    commission = chips(rate / 100 * unit * players) if rate > 0 else ZERO
    commission = min(commission, won)
    net = list(gross)
    if commission > 0:
        shares = _split(won - commission, [gross[i] for i in winners])
        for i, share in zip(winners, shares, strict=True):
            net[i] = share
    return commission, tuple(chips(x) for x in net)


def game_settlement(
    scores: Sequence[int],
    value: int,
    *,
    stake: int,
    limit: int,
    rate: Decimal,
    series: int = 1,
    game: int | None = None,
) -> Settlement:
    """Settlement of one game (mode ``single``): stake × game value per player.

    ``scores`` are the game's per-seat points (±value, or ±3 × value for a soloist);
    ``limit`` > 0 caps the chip value of the game per player before the soloist's triple.
    ``rate`` is the commission in percent.

    >>> st = game_settlement((2, -2, 2, -2), 2, stake=5, limit=0, rate=Decimal(0))
    >>> [format_chips(x) for x in st.net]
    ['+10', '-10', '+10', '-10']
    >>> st = game_settlement((-21, 7, 7, 7), 7, stake=2, limit=10, rate=Decimal(0))
    >>> [format_chips(x) for x in st.net]
    ['-30', '+10', '+10', '+10']
    """
    unit = Decimal(stake * value)
    if limit > 0:
        unit = min(unit, Decimal(limit))
    if value <= 0:
        zero = tuple(ZERO for _ in scores)
        return Settlement("game", series, game, chips(0), zero, ZERO, zero)
    gross = []
    for s in scores:
        if s % value:
            raise ValueError(f"score {s} is not a multiple of the game value {value}")
        gross.append(chips(unit * (s // value)))
    commission, net = _with_commission(gross, unit, rate, len(scores))
    return Settlement("game", series, game, chips(unit), tuple(gross), commission, net)


def series_settlement(
    totals: Sequence[int],
    participants: Iterable[int],
    *,
    stake: int,
    rate: Decimal,
    series: int = 1,
) -> Settlement:
    """Settlement of a series with a fixed stake (modes ``fixed4`` and ``duel``).

    Every losing participant pays the stake; the series winners (the best total; several
    on a tie) share what the losers pay. Seats that are not participants (the computer
    players of a duel) neither pay nor receive. The stake is not multiplied by points.

    >>> st = series_settlement((5, -3, 1, -3), range(4), stake=10, rate=Decimal(0))
    >>> [format_chips(x) for x in st.net]
    ['+30', '-10', '-10', '-10']
    >>> st = series_settlement((4, 4, -4, -4), range(4), stake=10, rate=Decimal(0))
    >>> [format_chips(x) for x in st.net]
    ['+10', '+10', '-10', '-10']
    >>> st = series_settlement((7, 9, -2, -14), (0, 2), stake=10, rate=Decimal(0))
    >>> [format_chips(x) for x in st.net]
    ['+10', '0', '-10', '0']
    """
    seats = sorted(set(participants))
    n = len(totals)
    unit = chips(stake)
    zero = tuple(ZERO for _ in range(n))
    if not seats or stake <= 0:
        return Settlement("series", series, None, unit, zero, ZERO, zero)
    best = max(totals[s] for s in seats)
    winners = [s for s in seats if totals[s] == best]
    losers = [s for s in seats if totals[s] != best]
    if not losers:
        return Settlement("series", series, None, unit, zero, ZERO, zero)
    gross = [ZERO] * n
    for s in losers:
        gross[s] = -unit
    shares = _split(unit * len(losers), [Decimal(1)] * len(winners))
    for s, share in zip(winners, shares, strict=True):
        gross[s] = share
    commission, net = _with_commission(gross, unit, rate, len(seats))
    return Settlement("series", series, None, unit, tuple(gross), commission, net)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One settlement booked on the ledger."""

    channel: str
    accounts: tuple[str | None, ...]
    """Per seat: the account charged, or None (a seat outside the settlement)."""
    names: tuple[str, ...]
    settlement: Settlement

    @property
    def key(self) -> tuple[str, int, int | None]:
        """Which settlement this is at its table: (kind, series, game)."""
        return self.settlement.kind, self.settlement.series, self.settlement.game

    @property
    def is_carry(self) -> bool:
        """Whether this is a table's carry: its older settlements folded into one
        (:func:`dokobot.host.archive.carry`)."""
        return self.settlement.kind == "game" and self.settlement.game == 0


@dataclass(slots=True)
class Ledger:
    """Chip balances of one server, by account (a stable user id).

    The ledger is rebuilt by replaying the tables' journals, so it needs no storage of its
    own. ``house`` collects the commission; ``sum(balances) + house == 0`` always.
    """

    server: str = ""
    balances: dict[str, Decimal] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    house: Decimal = ZERO
    entries: list[LedgerEntry] = field(default_factory=list)

    def balance(self, account: str) -> Decimal:
        return self.balances.get(account, ZERO)

    def book(
        self,
        channel: str,
        accounts: Sequence[str | None],
        names: Sequence[str],
        settlement: Settlement,
    ) -> Settlement:
        """Book ``settlement`` (per seat) on the seats' ``accounts``."""
        if len(accounts) != len(settlement.net):
            raise ValueError("one account per seat")
        if any(a is None and x != 0 for a, x in zip(accounts, settlement.net, strict=True)):
            raise ValueError("a seat without account cannot pay or receive")
        for account, name, amount in zip(accounts, names, settlement.net, strict=True):
            if account is None:
                continue
            self.balances[account] = self.balance(account) + amount
            self.names[account] = name
        self.house += settlement.commission
        self.entries.append(LedgerEntry(channel, tuple(accounts), tuple(names), settlement))
        return settlement

    def settle_game(
        self,
        channel: str,
        accounts: Sequence[str | None],
        names: Sequence[str],
        scores: Sequence[int],
        value: int,
        *,
        stake: int,
        limit: int,
        rate: Decimal,
        series: int = 1,
        game: int | None = None,
    ) -> Settlement:
        """Settle one game (stake × value per player, limit, commission) and book it."""
        st = game_settlement(
            scores, value, stake=stake, limit=limit, rate=rate, series=series, game=game
        )
        return self.book(channel, accounts, names, st)

    def settle_series(
        self,
        channel: str,
        accounts: Sequence[str | None],
        names: Sequence[str],
        totals: Sequence[int],
        *,
        stake: int,
        rate: Decimal,
        series: int = 1,
    ) -> Settlement:
        """Settle a fixed-stake series among the seats that have an account, and book it."""
        participants = [i for i, a in enumerate(accounts) if a is not None]
        st = series_settlement(totals, participants, stake=stake, rate=rate, series=series)
        return self.book(channel, accounts, names, st)

    def channel_totals(self, channel: str) -> dict[str, Decimal]:
        """What each account won or lost at ``channel`` (net, all settlements)."""
        out: dict[str, Decimal] = {}
        for entry in self.entries:
            if entry.channel != channel:
                continue
            for account, amount in zip(entry.accounts, entry.settlement.net, strict=True):
                if account is not None:
                    out[account] = out.get(account, ZERO) + amount
        return out

    def standings(self) -> list[tuple[str, str, Decimal]]:
        """(account, name, balance), best first (ties by name)."""
        rows = [(a, self.names.get(a, a), b) for a, b in self.balances.items()]
        return sorted(rows, key=lambda r: (-r[2], r[1].lower(), r[0]))
