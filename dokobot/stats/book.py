"""Statistics of one server, folded from its finished-game records in store order.

Every figure is computed from the stored records (:class:`~.record.FinishedGame`); a
:class:`StatsBook` only remembers how far it has read, so that a new game costs one fold
step, not a pass over the whole history.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Final

from ..names import name_key
from .rating import Ratings
from .record import FinishedGame

SOLO_TYPES: Final = ("solo", "silent_wedding")
"""Game types in which one player plays against three (a silent wedding counts as a solo)."""
LOWER_CALLS: Final = {"no90": 90, "no60": 60, "no30": 30, "black": 0}
"""Lower calls and the eyes the other party must stay under (black: no trick)."""
BOARDS: Final = ("points", "rating", "games", "solo")
"""The leaderboards of ``/top``."""
RECENT: Final = 20
"""How many of the last games a book keeps at hand (web pages)."""


@dataclass(slots=True)
class PlayerStats:
    """The figures of one person on one server."""

    user: str
    name: str
    games: int = 0
    wins: int = 0
    points: int = 0
    re_games: int = 0
    kontra_games: int = 0
    cancelled: int = 0
    solos: dict[str, list[int]] = field(default_factory=dict)
    """Solo kind -> [played, won]."""
    weddings: list[int] = field(default_factory=lambda: [0, 0])
    """[played, won] of the weddings this person declared."""
    poverties: list[int] = field(default_factory=lambda: [0, 0])
    """[played, won] of the poverties this person announced and somebody took (house rule)."""
    calls: dict[str, list[int]] = field(default_factory=dict)
    """Call -> [made, made good] (re/kontra: the party won; lower calls: the other party
    stayed under the mark)."""
    best: tuple[int, int] | None = None
    """(points, record id) of the best game."""
    worst: tuple[int, int] | None = None
    mu: float = 0.0
    sigma: float = 0.0
    rated_games: int = 0
    history: list[tuple[float, float, float]] = field(default_factory=list, repr=False)
    """(finished at, mu, sigma) after each rated game."""
    recent: deque[FinishedGame] = field(default_factory=lambda: deque(maxlen=RECENT), repr=False)
    """The last games (newest last)."""
    turns: int = 0
    """The turns this person had to play (in games whose records count them)."""
    stood_in: int = 0
    """Of them, the turns a computer player made for this person (they timed out or left)."""

    @property
    def stood_in_share(self) -> float:
        """The share of this person's turns a computer player had to make (0 to 1)."""
        return self.stood_in / self.turns if self.turns else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def per_game(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def solos_played(self) -> int:
        return sum(p for p, _ in self.solos.values())

    @property
    def solos_won(self) -> int:
        return sum(w for _, w in self.solos.values())

    @property
    def rating(self) -> float:
        """The shown rating: mu minus three sigma (the conservative estimate)."""
        return self.mu - 3 * self.sigma

    def as_json(self) -> dict[str, object]:
        return {
            "player": self.name,
            "user": self.user,
            "games": self.games,
            "points": self.points,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "points_per_game": round(self.per_game, 4),
            "re_games": self.re_games,
            "kontra_games": self.kontra_games,
            "solos": self.solos_played,
            "solos_won": self.solos_won,
            "solos_by_kind": {
                k: {"played": p, "won": w} for k, (p, w) in sorted(self.solos.items())
            },
            "weddings": self.weddings[0],
            "weddings_won": self.weddings[1],
            "poverties": self.poverties[0],
            "poverties_won": self.poverties[1],
            "calls": {k: {"made": m, "good": g} for k, (m, g) in sorted(self.calls.items())},
            "best_game": None
            if self.best is None
            else {"points": self.best[0], "id": self.best[1]},
            "worst_game": None
            if self.worst is None
            else {"points": self.worst[0], "id": self.worst[1]},
            "rating": round(self.rating, 2),
            "rating_mu": round(self.mu, 2),
            "rating_sigma": round(self.sigma, 2),
            "rated_games": self.rated_games,
            "cancelled": self.cancelled,
            "turns": self.turns,
            "stood_in_turns": self.stood_in,
            "stood_in_share": round(self.stood_in_share, 4),
        }


@dataclass(slots=True)
class StatsBook:
    """The figures of every person of one server."""

    server: str
    last_id: int = 0
    games: int = 0
    """Finished (not cancelled) games folded in."""
    players: dict[str, PlayerStats] = field(default_factory=dict)
    ratings: Ratings = field(default_factory=Ratings)
    recent: deque[FinishedGame] = field(default_factory=lambda: deque(maxlen=RECENT), repr=False)
    """The server's last games (newest last), cancelled ones included."""
    _names: dict[str, str] = field(default_factory=dict)
    _boards: dict[str, list[PlayerStats]] = field(default_factory=dict)

    def add(self, game: FinishedGame) -> None:
        """Fold one record in (records come in store order)."""
        if game.id <= self.last_id and game.id:
            return
        self.last_id = max(self.last_id, game.id)
        self._boards.clear()
        self.recent.append(game)
        people = [i for i, s in enumerate(game.seats) if not s.computer]
        for i in people:
            seat = game.seats[i]
            ps = self.players.get(seat.user)
            if ps is None:
                ps = self.players[seat.user] = PlayerStats(seat.user, seat.name)
                ps.mu, ps.sigma = self.ratings.initial()
                self._names[name_key(seat.name)] = seat.user
            elif ps.name != seat.name:
                self._names.pop(name_key(ps.name), None)
                ps.name = seat.name
                self._names[name_key(seat.name)] = seat.user
            ps.recent.append(game)
            if game.turns:
                ps.turns += game.turns[i][0]
                ps.stood_in += game.turns[i][1]
        if game.cancelled:
            for i in people:
                self.players[game.seats[i].user].cancelled += 1
            return
        self.games += 1
        result = game.result
        scores = game.scores()
        parties = game.parties()
        winner = result.get("winner")
        eyes = result["eyes"]
        tricks = result["tricks"]
        solo_seat: int | None = None
        if result["type"] in SOLO_TYPES and len(result["re"]) == 1:
            solo_seat = parties.index("re")
        kind = result["solo"] if result["type"] == "solo" else result["type"]
        for i in people:
            ps = self.players[game.seats[i].user]
            pts = scores[i]
            won = parties[i] == winner
            ps.games += 1
            ps.points += pts
            ps.wins += won
            if parties[i] == "re":
                ps.re_games += 1
            else:
                ps.kontra_games += 1
            if solo_seat == i:
                pw = ps.solos.setdefault(str(kind), [0, 0])
                pw[0] += 1
                pw[1] += won
            if result["type"] == "wedding" and game.declarer() == i:
                ps.weddings[0] += 1
                ps.weddings[1] += won
            if result["type"] == "poverty" and game.declarer() == i:
                ps.poverties[0] += 1
                ps.poverties[1] += won
            if ps.best is None or pts > ps.best[0]:
                ps.best = (pts, game.id)
            if ps.worst is None or pts < ps.worst[0]:
                ps.worst = (pts, game.id)
        by_name = {s.name: i for i, s in enumerate(game.seats)}
        for call in result["calls"]:
            i = by_name.get(call["player"], -1)
            if i < 0 or game.seats[i].computer:
                continue
            key = str(call["call"])
            party = parties[i]
            other = "kontra" if party == "re" else "re"
            if key in LOWER_CALLS:
                mark = LOWER_CALLS[key]
                good = tricks[other] == 0 if mark == 0 else eyes[other] < mark
            else:
                good = party == winner
            mg = self.players[game.seats[i].user].calls.setdefault(key, [0, 0])
            mg[0] += 1
            mg[1] += good
        if game.rated:
            self._rate(game, parties, winner)

    def _rate(self, game: FinishedGame, parties: list[str], winner: object) -> None:
        ids = [None if s.computer else s.user for s in game.seats]
        re = [ids[i] for i in range(len(ids)) if parties[i] == "re"]
        kontra = [ids[i] for i in range(len(ids)) if parties[i] == "kontra"]
        if not re or not kontra:
            return
        self.ratings.rate(re, kontra, winner)
        for seat in game.seats:
            if seat.computer:
                continue
            ps = self.players[seat.user]
            ps.mu, ps.sigma = self.ratings.get(seat.user)
            ps.rated_games += 1
            ps.history.append((game.finished_at, ps.mu, ps.sigma))

    # ------------------------------------------------------------ queries
    def find(self, who: str) -> PlayerStats | None:
        """A person by user id or by (the last) display name."""
        ps = self.players.get(who)
        if ps is not None:
            return ps
        user = self._names.get(name_key(who.lstrip("@")))
        return None if user is None else self.players.get(user)

    def board(self, by: str) -> list[PlayerStats]:
        """The people with finished games, best first by ``by`` (one of :data:`BOARDS`)."""
        cached = self._boards.get(by)
        if cached is not None:
            return cached
        people = [p for p in self.players.values() if p.games]
        if by == "rating":
            people = [p for p in people if p.rated_games]
            people.sort(key=lambda p: (-p.rating, -p.games, p.name))
        elif by == "games":
            people.sort(key=lambda p: (-p.games, -p.points, p.name))
        elif by == "solo":
            people = [p for p in people if p.solos_played]
            people.sort(key=lambda p: (-p.solos_won, -p.solos_played, p.name))
        else:
            people.sort(key=lambda p: (-p.points, -p.games, p.name))
        self._boards[by] = people
        return people

    def rank(self, by: str, user: str) -> int | None:
        """1-based place of ``user`` on the board ``by``."""
        for i, p in enumerate(self.board(by)):
            if p.user == user:
                return i + 1
        return None
