"""One table per channel: seats, options, the series, the running game, computer players.

A table speaks in :class:`~dokobot.host.notes.Note` objects and refuses with
:class:`~dokobot.host.notes.Refusal`; it never formats chat text. Every state change it
accepts is also written to :attr:`Table.journal` as a line of the replay format, so that the
journal alone rebuilds the table (see :mod:`dokobot.host.replay`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..engine.cards import CLUB_QUEENS, Card, card_ascii, cards_of
from ..engine.errors import IllegalAction
from ..engine.game import Game, hands_from_kinds
from ..engine.observation import Observation, observe
from ..engine.order import SCHEMES, TRUMP
from ..engine.scoring import score
from ..engine.types import (
    CALL_BLACK,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    GameType,
    Party,
    Phase,
    Solo,
    call_key,
    is_call,
)
from .i18n import Cards, Term
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .series import GameRecord, Series


class Bot(Protocol):
    """What the table needs of a computer player (see :mod:`dokobot.ai`)."""

    name: str

    def decide(self, obs: Observation) -> Action: ...

    def announce(self, obs: Observation) -> Action | None: ...


BotFactory = Callable[[str, int, bool], Bot]
"""(level, seed, duel restrictions) -> a computer player."""


@dataclass(slots=True)
class SeatInfo:
    user: str
    """Stable user id; computer players have ``bot:NAME``."""
    name: str
    bot: str | None = None
    """Computer level if a computer plays this seat (also a stand-in)."""
    standin_for: str | None = None
    """User id of the person a stand-in computer player replaces."""

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


def seed_for(base: int, n: int) -> int:
    """The seed of the ``n``-th deal of a table with seed ``base`` (platform independent)."""
    return (base * 1_000_003 + n * 7_919 + 12_345) % (1 << 62)


def command_for(action: Action, card: Card | None = None) -> str:
    """The chat command that performs ``action`` (used for choices and journals)."""
    if action < 48:
        return f"/play {card_ascii(action if card is None else card)}"
    if action == HEALTHY:
        return "/healthy"
    if action == RESERVATION:
        return "/reservation"
    if action == DECLARE_WEDDING:
        return "/wedding"
    if DECLARE_SOLO <= action < DECLARE_SOLO + 7:
        return f"/solo {Solo(action - DECLARE_SOLO).key}"
    return "/" + call_key(action)


def sorted_hand(game: Game | None, hand: int) -> list[Card]:
    """A hand in display order: trumps high to low, then ♣ ♠ ♥ ♦ high to low."""
    scheme = SCHEMES[0] if game is None else game.scheme
    cards = [c for c in range(48) if hand >> c & 1]
    return sorted(
        cards,
        key=lambda c: (
            0 if scheme.cls[c] == TRUMP else 1 + scheme.cls[c],
            -scheme.key[c],
            c,
        ),
    )


@dataclass(slots=True)
class Table:
    """The state of one channel's table."""

    channel: str
    seed: int = 0
    options: TableOptions = field(default_factory=TableOptions)
    seats: list[SeatInfo] = field(default_factory=list)
    owner: str | None = None
    series: Series = field(default_factory=Series)
    game: Game | None = None
    game_number: int = 0
    deal_count: int = 0
    dealer: int | None = None
    next_deal: list[int] | None = None
    next_dealer: int | None = None
    abort_votes: set[int] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict)
    bot_factory: BotFactory | None = None
    scripted_bots: bool = False
    """Computer players wait for their moves from a journal instead of deciding."""
    journal: list[str] = field(default_factory=list)
    finished: list[GameRecord] = field(default_factory=list)
    last_trick: tuple[int, tuple[int, ...], int] | None = None
    waiting: list[tuple[str, str]] = field(default_factory=list)
    """People waiting for a seat (user id, name), for /replace."""
    bot_counter: int = 0

    # ---------------------------------------------------------------- seats
    def seat_of(self, user: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s.user == user:
                return i
        return None

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if not s.is_bot]

    @property
    def running(self) -> bool:
        return self.game is not None and self.game.phase is not Phase.FINISHED

    def _log(self, line: str) -> None:
        self.journal.append(line)

    def join(self, user: str, name: str) -> list[Note]:
        if self.seat_of(user) is not None:
            raise Refusal("already_seated")
        if len(self.seats) >= 4:
            if self.running and (user, name) not in self.waiting:
                self.waiting.append((user, name))
                self._log(f"{name}: /join")
                return [Note(ALL, "waiting_for_seat", {"player": name})]
            raise Refusal("table_full")
        if any(s.name.lower() == name.lower() for s in self.seats):
            raise Refusal("name_taken", name=name)
        self.seats.append(SeatInfo(user, name))
        if self.owner is None:
            self.owner = user
        self._log(f"{name}: /join")
        notes = [Note(ALL, "joined", {"player": name, "n": len(self.seats)})]
        if len(self.seats) == 4:
            notes.append(Note(ALL, "table_complete"))
        return notes

    def join_bot(self, by: str, level: str | None) -> list[Note]:
        if len(self.seats) >= 4:
            raise Refusal("table_full")
        level = level or self.options.bot_level
        self.bot_counter += 1
        taken = {s.name.lower() for s in self.seats}
        n = self.bot_counter
        while f"bot{n}" in taken:
            n += 1
        name = f"Bot{n}"
        self.seats.append(SeatInfo(f"bot:{name}", name, bot=level))
        self._log(f"{by}: /join bot {level}")
        notes = [Note(ALL, "bot_joined", {"player": name, "level": level, "n": len(self.seats)})]
        if len(self.seats) == 4:
            notes.append(Note(ALL, "table_complete"))
        return notes

    def leave(self, user: str) -> list[Note]:
        seat = self.seat_of(user)
        waiting = [w for w in self.waiting if w[0] == user]
        if seat is None:
            if waiting:
                self.waiting.remove(waiting[0])
                self._log(f"{waiting[0][1]}: /leave")
                return [Note(ALL, "left", {"player": waiting[0][1]})]
            raise Refusal("not_seated")
        info = self.seats[seat]
        self._log(f"{info.name}: /leave")
        if self.running:
            if not self.options.standin:
                raise Refusal("leave_during_game")
            info.standin_for = info.user
            info.bot = self.options.bot_level
            info.user = f"bot:{info.name}"
            self.bots.pop(seat, None)
            return [Note(ALL, "left_standin", {"player": info.name})]
        del self.seats[seat]
        if self.owner == user:
            humans = [s.user for s in self.seats if not s.is_bot]
            self.owner = humans[0] if humans else None
        return [Note(ALL, "left", {"player": info.name})]

    def replace(self, user: str, name: str, target: str | None) -> list[Note]:
        """A waiting person takes a computer player's seat, between games."""
        if self.running:
            raise Refusal("only_between_games")
        if self.seat_of(user) is not None:
            raise Refusal("already_seated")
        bots = [i for i, s in enumerate(self.seats) if s.is_bot]
        if target:
            bots = [i for i in bots if self.seats[i].name.lower() == target.lower()]
        if not bots:
            raise Refusal("no_bot_to_replace")
        seat = bots[0]
        old = self.seats[seat].name
        self.seats[seat] = SeatInfo(user, name)
        self.bots.pop(seat, None)
        self.waiting = [w for w in self.waiting if w[0] != user]
        self._log(f"{name}: /replace {old}")
        return [Note(ALL, "replaced", {"player": name, "old": old})]

    # ---------------------------------------------------------------- options
    def set_option(self, name: str, raw: str, by: str) -> list[Note]:
        if self.running:
            raise Refusal("only_between_games")
        self.options = self.options.set(name, raw)
        clean = name.strip().lower().replace("-", "_")
        if clean == "tournament":
            self.series = Series(number=self.series.number)
        self._log(f"{by}: /option {clean} {raw.strip()}")
        return [Note(ALL, "option_set", {"name": clean, "value": self.options.show(clean)})]

    # ---------------------------------------------------------------- game flow
    def start(self, by: str) -> list[Note]:
        if self.running:
            raise Refusal("game_running")
        if len(self.seats) < 4:
            raise Refusal("need_four", n=len(self.seats))
        opts = self.options
        notes: list[Note] = []
        if self.series.finished(opts.tournament, opts.series_length) or (
            opts.mode in ("fixed4", "duel") and self.series.counted >= 4
        ):
            self.series = Series(number=self.series.number + 1)
            notes.append(Note(ALL, "series_new", {"n": self.series.number}))
        if self.next_dealer is not None:
            dealer = self.next_dealer
            self.next_dealer = None
        elif self.dealer is None:
            dealer = 3
        else:
            dealer = self.dealer
        self.dealer = dealer
        forced = self.series.forced_soloist(dealer, opts.tournament, opts.series_length)
        owed = self.series.owed if opts.tournament else [False] * 4
        if self.next_deal is None:
            dealt = Game.deal(opts.rules, dealer, seed_for(self.seed, self.deal_count))
            self.set_next_deal(list(dealt.start_hands))
        assert self.next_deal is not None
        hands = self.next_deal
        self.next_deal = None
        self.game = Game.from_hands(
            opts.rules, dealer, hands, mandatory_owed=owed, forced_soloist=forced
        )
        self.deal_count += 1
        self.game_number += 1
        self.abort_votes = set()
        self.last_trick = None
        game = self.game
        self._log(f"{by}: /start")
        names = self.names()
        notes.append(
            Note(
                ALL,
                "game_started",
                {
                    "n": self.game_number,
                    "dealer": names[dealer],
                    "first": names[game.first_hand],
                },
            )
        )
        for seat in range(4):
            notes.append(self.hand_note(seat))
        if forced is not None:
            notes.append(Note(ALL, "forced_solo", {"player": names[forced]}))
        notes += self.prompt()
        return notes

    def set_next_deal(self, hands: list[int]) -> None:
        """Fix the hands of the next deal (seat order); journaled as a ``!deal`` line.

        The two copies of a card are numbered in seat order, so that the journal line
        gives back exactly these hands.
        """
        hands = hands_from_kinds([[c >> 1 for c in cards_of(h)] for h in hands])
        self.next_deal = hands
        self._log(
            "!deal "
            + "; ".join(
                f"{self.seats[i].name}=" + " ".join(card_ascii(c) for c in sorted_hand(None, h))
                for i, h in enumerate(hands)
            )
        )

    def set_next_dealer(self, seat: int) -> None:
        """Fix the dealer of the next game; journaled as a ``!dealer`` line."""
        self.next_dealer = seat
        self._log(f"!dealer {self.seats[seat].name}")

    def hand_note(self, seat: int) -> Note:
        game = self.game
        if game is None:
            raise Refusal("no_game")
        cards = sorted_hand(game, game.hands[seat])
        return Note(
            seat,
            "your_hand",
            {"cards": Cards(tuple(cards), tuple(range(1, len(cards) + 1)))},
            kind="hand",
        )

    def prompt(self) -> list[Note]:
        """Tell the player to move what they may do (a private note with choices)."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED:
            return []
        seat = game.turn
        names = self.names()
        if game.phase is Phase.RESERVATIONS:
            return [
                Note(ALL, "turn_reservation_public", {"player": names[seat]}),
                Note(
                    seat,
                    "turn_reservation",
                    {},
                    kind="reservation",
                    choices=(("@choice.healthy", "/healthy"), ("@choice.reservation", "/reservation")),
                ),
            ]
        if game.phase is Phase.DECLARATIONS:
            choices = [(f"@solo.{s.key}", f"/solo {s.key}") for s in Solo]
            if game.forced < 0 and game.hands[seat] & CLUB_QUEENS == CLUB_QUEENS:
                choices.insert(0, ("@choice.wedding", "/wedding"))
            return [
                Note(ALL, "turn_declaration_public", {"player": names[seat]}),
                Note(seat, "turn_declaration", {}, kind="reservation", choices=tuple(choices)),
            ]
        hand = sorted_hand(game, game.hands[seat])
        legal = game.legal_cards(seat)
        numbers = tuple(i + 1 for i, c in enumerate(hand) if legal >> c & 1)
        cards = tuple(c for c in hand if legal >> c & 1)
        seen: set[int] = set()
        choices_c: list[tuple[str, str]] = []
        for c in cards:
            if c >> 1 in seen:
                continue
            seen.add(c >> 1)
            choices_c.append((f"#{c}", f"/play {card_ascii(c)}"))
        for a in game.legal_calls(seat):
            choices_c.append((f"@call.{call_key(a)}", f"/{call_key(a)}"))
        return [
            Note(
                seat,
                "your_turn",
                {"cards": Cards(cards, numbers)},
                kind="turn",
                choices=tuple(choices_c),
            )
        ]

    def act(self, seat: int, action: Action, text: str) -> list[Note]:
        """A seated player does ``action`` (typed as ``text``)."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED:
            raise Refusal("no_game")
        before_phase = game.phase
        before_tricks = len(game.tricks)
        before_open = game.wedding_open
        try:
            game.play(seat, action)
        except IllegalAction as exc:
            raise Refusal("illegal." + exc.reason, **_illegal_params(game, exc)) from exc
        self._log(f"{self.seats[seat].name}: {text}")
        return self._after(seat, action, before_phase, before_tricks, before_open)

    def _after(
        self, seat: int, action: Action, phase: Phase, tricks: int, wedding_open: bool
    ) -> list[Note]:
        game = self.game
        assert game is not None
        names = self.names()
        who = names[seat]
        notes: list[Note] = []
        if is_call(action):
            notes.append(Note(ALL, "called", {"player": who, "call": Term("call." + call_key(action))}))
            return notes
        if phase is Phase.RESERVATIONS:
            key = "said_reservation" if action == RESERVATION else "said_healthy"
            notes.append(Note(ALL, key, {"player": who}))
        elif phase is Phase.DECLARATIONS and game.phase is Phase.DECLARATIONS:
            notes.append(Note(ALL, "declared_hidden", {"player": who}))
        elif action < 48:
            notes.append(Note(ALL, "card_played", {"player": who, "card": Cards((action,))}))
            if len(game.tricks) > tricks:
                leader, cards, winner = game.tricks[-1]
                self.last_trick = game.tricks[-1]
                pts = sum((0, 2, 3, 4, 10, 11)[(c >> 1) % 6] for c in cards)
                notes.append(
                    Note(ALL, "trick_won", {"player": names[winner], "eyes": pts, "n": len(game.tricks)})
                )
                if wedding_open and not game.wedding_open:
                    if game.wedding_trick:
                        notes.append(Note(ALL, "wedding_partner", {"player": names[winner]}))
                    else:
                        notes.append(Note(ALL, "wedding_alone", {"player": names[game.declarer]}))
        if phase in (Phase.RESERVATIONS, Phase.DECLARATIONS) and game.phase is Phase.PLAYING:
            notes += self._announce_contract()
        if game.phase is Phase.FINISHED:
            notes += self._finish()
            return notes
        notes += self.prompt()
        return notes

    def _announce_contract(self) -> list[Note]:
        game = self.game
        assert game is not None
        names = self.names()
        if game.game_type is GameType.SOLO:
            assert game.solo is not None
            key = "contract_solo_mandatory" if game.mandatory else "contract_solo"
            notes = [
                Note(
                    ALL,
                    key,
                    {"player": names[game.declarer], "solo": Term("solo." + game.solo.key)},
                )
            ]
        elif game.game_type is GameType.WEDDING:
            notes = [Note(ALL, "contract_wedding", {"player": names[game.declarer]})]
        else:
            notes = [Note(ALL, "contract_normal")]
        # New trump order: everybody gets the hand again, sorted for this game.
        if game.game_type is GameType.SOLO:
            notes += [self.hand_note(s) for s in range(4)]
        notes.append(Note(ALL, "leads", {"player": names[game.leader]}))
        return notes

    def _finish(self) -> list[Note]:
        game = self.game
        assert game is not None
        result = score(game)
        rec = self.series.record(game, result, self.game_number, self.names())
        self.finished.append(rec)
        if not (game.mandatory and game.forced < 0 and game.rules.tournament):
            self.dealer = (game.dealer + 1) % 4
        names = self.names()
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
        for party, item, pts in rec.components:
            notes.append(
                Note(
                    ALL,
                    "component",
                    {"party": Term("party." + party), "item": Term("item." + item), "points": pts},
                )
            )
        notes.append(
            Note(
                ALL,
                "game_scores",
                {"scores": [f"{names[s]} {rec.scores[s]:+d}" for s in range(4)]},
            )
        )
        notes.append(self.score_note())
        opts = self.options
        if self.series.finished(opts.tournament, opts.series_length):
            ranking = self.series.ranking()
            notes.append(
                Note(
                    ALL,
                    "series_over",
                    {
                        "ranking": [
                            f"{i + 1}. {names[s]} {self.series.totals[s]:+d}"
                            for i, s in enumerate(ranking)
                        ]
                    },
                )
            )
        notes.append(Note(ALL, "next_game_hint"))
        return notes

    def score_note(self) -> Note:
        names = self.names()
        rows = []
        for rec in self.series.records[-12:]:
            kind = rec.solo or rec.type
            mark = "*" if rec.mandatory else ""
            cells = " ".join(f"{rec.scores[s]:+4d}" for s in range(4))
            tots = " ".join(f"{rec.totals[s]:+5d}" for s in range(4))
            rows.append(f"{rec.number:>3} {names[rec.dealer][:6]:<6} {kind + mark:<14} {cells} |{tots}")
        header = f"{'#':>3} {'dealer':<6} {'game':<14} " + " ".join(f"{n[:4]:>4}" for n in names)
        totals = " ".join(f"{n}: {self.series.totals[i]:+d}" for i, n in enumerate(names))
        extra = ""
        if self.options.tournament:
            extra = f"{self.series.counted}/{self.options.series_length}"
        return Note(
            ALL,
            "score_list",
            {"table": "\n".join([header, *rows]) if rows else "-", "totals": totals, "progress": extra},
        )

    def abort(self, seat: int) -> list[Note]:
        game = self.game
        if game is None or not self.running:
            raise Refusal("no_game")
        self.abort_votes.add(seat)
        self._log(f"{self.seats[seat].name}: /abort")
        humans = self.humans()
        need = len(humans) // 2 + 1
        votes = len([s for s in self.abort_votes if s in humans])
        if votes < need:
            return [Note(ALL, "abort_vote", {"player": self.seats[seat].name, "votes": votes, "need": need})]
        rec = self.series.record_cancelled(game, self.game_number, self.names())
        self.finished.append(rec)
        game.phase = Phase.FINISHED
        return [Note(ALL, "aborted"), Note(ALL, "next_game_hint")]

    # ---------------------------------------------------------------- computer players
    def bot_to_move(self) -> int | None:
        """The seat of a computer player that must act now, if any."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED or self.scripted_bots:
            return None
        seat = game.turn
        if seat < len(self.seats) and self.seats[seat].is_bot:
            return seat
        return None

    def bot(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            if self.bot_factory is None:
                raise Refusal("no_bots")
            level = self.seats[seat].bot or "normal"
            bot = self.bot_factory(level, seed_for(self.seed, 10_000 + seat), self.options.mode == "duel")
            self.bots[seat] = bot
        return bot

    def bot_decision(self, seat: int) -> tuple[Action | None, Action]:
        """What the computer player in ``seat`` does now: (call or None, turn action)."""
        game = self.game
        assert game is not None
        bot = self.bot(seat)
        obs = observe(game, seat)
        call = bot.announce(obs)
        if call is not None and game.call_problem(seat, call) is not None:
            call = None
        action = bot.decide(obs)
        return call, action

    def apply_bot(self, seat: int, call: Action | None, action: Action) -> list[Note]:
        notes: list[Note] = []
        game = self.game
        assert game is not None
        if call is not None and game.call_problem(seat, call) is None:
            notes += self.act(seat, call, command_for(call))
        if game.turn == seat and game.phase is not Phase.FINISHED:
            if game.problem(seat, action) is not None:
                action = game.legal_actions()[0]
            notes += self.act(seat, action, command_for(action))
        return notes


def _illegal_params(game: Game, exc: IllegalAction) -> dict[str, Any]:
    params: dict[str, Any] = dict(exc.params)
    if "led" in params:
        led = params["led"]
        params["led"] = Term("class.trump" if led == TRUMP else f"class.{led}")
    if "turn" in params and isinstance(params["turn"], int):
        params["turn_seat"] = params.pop("turn")
    return params


def party_term(party: Party) -> Term:
    return Term("party." + party.key)


_ = (CALL_BLACK, CALL_RE, random)  # names kept for callers
