"""The stored review of a game: what the review queue computes once per finished game with
people (:mod:`dokobot.host.reviewqueue`), and how players read it.

Two records, both JSON text that the store keeps without reading it (``VERSION`` in each):

- the *job* of a game (:func:`job_of`): its rules, deal and log, so that the review can be
  made later, in another process or after a restart. It holds the hands: only the store
  sees it, and it is forgotten once the review is done;
- the *review* (:func:`compute`): per seat of a person the decisions reviewed and the
  mistakes (:class:`~dokobot.ai.review.Mistake`), each marked *public* or not.

A mistake is public when everybody may read it after the game: every card and call is (all
cards are played by then), a reservation only where it tells nothing hidden: said healthy,
or the declaration that became the game, and never of the two seats of a poverty's
exchange, whose start hands stay secret (RULES §12.1). The web page and the channel's
summary show only public mistakes; a player's own ``/review`` shows him all of his.

>>> from dokobot.engine import DEFAULT_RULES, Game
>>> g = Game.deal(DEFAULT_RULES, 0, 7)
>>> back, seats = game_of(job_of(3, g, ("u:a", None, None, None), "abcd"))
>>> back.start_hands == g.start_hands, seats
(True, (0,))
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..ai.review import REASONS, Mistake, Reason, review_game
from ..engine import Game
from ..engine.rules import Rules
from ..engine.types import (
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Solo,
    call_key,
    is_call,
    is_card,
    is_solo,
)
from .i18n import Cards, Number, Term, render

__all__ = [
    "VERSION",
    "GameReview",
    "answer",
    "compute",
    "game_of",
    "job_of",
    "summary",
]

VERSION: Final = 1
"""The version of both records; a record of another version is not read (its review is
made again, or the game shows none)."""
SHOWN: Final = 2
"""Mistakes per player the channel's summary names (the biggest first); the web page and
``/review`` name them all."""


@dataclass(slots=True)
class GameReview:
    """The review of one game, as stored."""

    game: int
    users: tuple[str | None, ...]
    """The person in each seat (None: a computer player, not reviewed)."""
    names: tuple[str, ...]
    """The name of each seat in that game."""
    decisions: dict[int, int] = field(default_factory=dict)
    """Per reviewed seat: the decisions with a choice."""
    mistakes: list[Mistake] = field(default_factory=list)
    hidden: frozenset[int] = frozenset()
    """The log positions (``Mistake.index``) of the mistakes that are not public."""
    seconds: float = 0.0
    """CPU seconds the review took."""

    def of(self, seat: int, *, public: bool = False) -> list[Mistake]:
        """The mistakes of ``seat`` (``public``: only those everybody may read)."""
        return [
            m for m in self.mistakes if m.seat == seat and not (public and m.index in self.hidden)
        ]

    def seats_of(self, user: str) -> list[int]:
        return [s for s, u in enumerate(self.users) if u == user and s in self.decisions]

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": VERSION,
                "game": self.game,
                "users": list(self.users),
                "names": list(self.names),
                "decisions": {str(s): n for s, n in self.decisions.items()},
                "mistakes": [self._mistake(m) for m in self.mistakes],
                "seconds": round(self.seconds, 3),
            },
            separators=(",", ":"),
        )

    def _mistake(self, m: Mistake) -> list[Any]:
        loss = round(m.loss, 3)
        return [
            m.index,
            m.seat,
            m.trick,
            m.kind,
            m.played,
            m.better,
            loss,
            m.index not in self.hidden,
            m.reason,
        ]

    @classmethod
    def from_json(cls, text: str) -> GameReview | None:
        """The review of a stored record (None: another version, or not a review)."""
        try:
            d = json.loads(text)
            if d.get("v") != VERSION:
                return None
            mistakes = [
                Mistake(int(i), int(s), int(t), k, p, b, float(loss), *_reason(rest))
                for i, s, t, k, p, b, loss, _, *rest in d["mistakes"]
            ]
            return cls(
                game=int(d["game"]),
                users=tuple(d["users"]),
                names=tuple(str(n) for n in d["names"]),
                decisions={int(s): int(n) for s, n in d["decisions"].items()},
                mistakes=mistakes,
                hidden=frozenset(int(m[0]) for m in d["mistakes"] if not m[7]),
                seconds=float(d["seconds"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def _reason(rest: list[Any]) -> tuple[Reason, ...]:
    """The stored reason of a mistake (records from before reasons have none: "other")."""
    return tuple(r for r in rest[:1] if r in REASONS)


# ---------------------------------------------------------------- the job
def job_of(number: int, game: Game, users: Sequence[str | None], names: Sequence[str]) -> str:
    """The job of game ``number`` (played to its end): its rules, deal and log, and who sat
    where (only the seats of people are reviewed)."""
    rules = {f.name: getattr(game.rules, f.name) for f in dataclasses.fields(Rules) if f.init}
    return json.dumps(
        {
            "v": VERSION,
            "game": number,
            "rules": rules,
            "dealer": game.dealer,
            "hands": list(game.start_hands),
            "owed": list(game.mandatory_owed),
            "forced": game.forced,
            "log": [[s, a] for s, a in game.log],
            "users": list(users),
            "names": list(names),
        },
        separators=(",", ":"),
    )


def _job(text: str) -> dict[str, Any]:
    d: dict[str, Any] = json.loads(text)
    if d.get("v") != VERSION:
        raise ValueError(f"a review job of version {d.get('v')!r}, not {VERSION}")
    return d


def job_users(text: str) -> tuple[int, tuple[str | None, ...], tuple[str, ...]]:
    """(game number, the person in each seat, the names of the seats) of a job."""
    d = _job(text)
    return int(d["game"]), tuple(d["users"]), tuple(str(n) for n in d["names"])


def game_of(text: str) -> tuple[Game, tuple[int, ...]]:
    """The game of a job, replayed to its end, and the seats of people in it."""
    d = _job(text)
    forced = int(d["forced"])
    g = Game.from_hands(
        Rules(**d["rules"]),
        int(d["dealer"]),
        [int(h) for h in d["hands"]],
        mandatory_owed=[bool(x) for x in d["owed"]],
        forced_soloist=forced if forced >= 0 else None,
    )
    for seat, action in d["log"]:
        g.play(int(seat), int(action))
    return g, tuple(s for s, u in enumerate(d["users"]) if u is not None)


def is_public(game: Game, m: Mistake) -> bool:
    """Whether everybody may read ``m`` after ``game`` (see the module text): a reservation
    only as the table heard it, "healthy" said, or the declaration that became the game
    (never a reservation that lost to a better one before it was declared)."""
    if m.kind != "reservation":
        return True
    ex = game.exchange
    if ex is not None and m.seat in (ex.poor, ex.taker):
        return False
    said = game.log[m.index] if 0 <= m.index < len(game.log) else None
    if said == (m.seat, HEALTHY):
        return m.played is None
    return (
        said == (m.seat, RESERVATION)
        and m.seat == game.declarer
        and m.played is not None
        and m.played == game.declarations[m.seat]
    )


def compute(job: str, budget_s: float, *, fixed: bool = False) -> str:
    """The review record of ``job``: every decision of each person's seat, judged from that
    seat (``budget_s``: CPU seconds per decision). Blocking: the review queue runs it in
    its own process."""
    game, seats = game_of(job)
    number, users, names = job_users(job)
    out = GameReview(number, users, names)
    hidden = set()
    for seat in seats:
        found = review_game(game, (seat,), budget_s=budget_s, fixed=fixed, seed=number)
        out.decisions[seat] = found.decisions
        out.mistakes += found.mistakes
        out.seconds += found.seconds
        hidden |= {m.index for m in found.mistakes if not is_public(game, m)}
    out.mistakes.sort(key=lambda m: m.index)
    out.hidden = frozenset(hidden)
    return out.to_json()


# ---------------------------------------------------------------- words
def choice(action: int | None, kind: str) -> Any:
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


def reason(m: Mistake) -> Term:
    """Why ``m`` lost points, in words."""
    return Term("review.reason." + m.reason)


def item(lang: str, m: Mistake) -> str:
    """One mistake in words: ``trick 3: ♠A instead of ♥10 (−0.8)``."""
    params = {
        "trick": m.trick,
        "played": choice(m.played, m.kind),
        "better": choice(m.better, m.kind),
        "loss": Number(m.loss, places=1),
    }
    text = render(lang, "review.item_" + m.kind, params)
    if m.reason != "other":
        text = render(lang, "review.because", {"item": text, "reason": reason(m)})
    return render(lang, "review.serious", {"item": text}) if m.serious else text


def answer(lang: str, number: int, decisions: int, mistakes: list[Mistake]) -> str:
    """A player's own review of game ``number``: all his mistakes."""
    if not mistakes:
        return render(lang, "review.clean", {"game": number, "decisions": decisions})
    return render(
        lang,
        "review.found",
        {
            "game": number,
            "decisions": decisions,
            "count": len(mistakes),
            "lost": Number(sum(m.loss for m in mistakes), places=1),
            "items": "; ".join(item(lang, m) for m in mistakes),
        },
    )


def own_answer(lang: str, review: GameReview, user: str) -> str | None:
    """``user``'s review of that game (None: he did not play in it)."""
    seats = review.seats_of(user)
    if not seats:
        return None
    mistakes = [m for s in seats for m in review.of(s)]
    return answer(lang, review.game, sum(review.decisions[s] for s in seats), mistakes)


def summary(lang: str, review: GameReview, url: str | None) -> str:
    """The channel's short summary of a review: per person the count of public mistakes,
    the points they lost and the :data:`SHOWN` biggest; the web page's link, if any, on a
    line of its own."""
    parts = []
    for seat in sorted(review.decisions):
        mine = review.of(seat, public=True)
        if not mine:
            parts.append(render(lang, "review.summary_clean", {"player": review.names[seat]}))
            continue
        biggest = sorted(mine, key=lambda m: -m.loss)[:SHOWN]
        items = "; ".join(item(lang, m) for m in sorted(biggest, key=lambda m: m.index))
        more = len(mine) - len(biggest)
        parts.append(
            render(
                lang,
                "review.summary_player",
                {
                    "player": review.names[seat],
                    "count": len(mine),
                    "lost": Number(sum(m.loss for m in mine), places=1),
                    "items": items + (render(lang, "review.more", {"n": more}) if more else ""),
                },
            )
        )
    line = render(lang, "review.summary", {"game": review.game, "players": " · ".join(parts)})
    if url is None:
        return line
    return line + "\n" + render(lang, "review.link", {"url": url})
