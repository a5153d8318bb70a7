"""Scripted command logs: replay them, check expected outputs, export tables as such logs.

Format (one item a line): ``#`` comments and blank lines are skipped;
a NAME is a plain word or any text in double quotes with JSON string escapes
(``"Dr: Who": /join``, ``!dealer "max (dm)"``); ``!seed N`` seeds every following deal; ``!deal NAME=CARDS; NAME=CARDS; …`` fixes the next
deal; ``!dealer NAME`` sets the next dealer; ``!admin NAME`` makes NAME a server admin;
``!user NAME=ID`` gives NAME a platform user id; ``!server ID`` names the server whose
chip ledger the table uses; ``!away NAME`` lets a computer player move for NAME until NAME acts again (with ``!bots
scripted``, NAME's lines on NAME's turn are then the stand-in's moves; ``!back NAME`` first
makes them NAME's own);
``!back NAME``: NAME acted again (a vote on NAME's seat ends); ``!waiting NAME=ID``: the
person ID waits for a seat as NAME (a vote named them); ``!heirs``: the waiting people a vote
gave a seat take it (before a deal);
``!rename OLD=NEW`` gives the seat of OLD the name NEW (a nick change);
``!table JSON`` sets the seats, owner and options between games (what many seat and option
changes led to: :mod:`dokobot.host.fold`);
``!bots scripted`` makes computer players
wait for their moves from the file; ``NAME: TEXT`` is a line typed in the channel and
``NAME (dm): TEXT`` a private message to the bot; ``> TEXT`` after an input line expects
that some message answering that input contains TEXT.

>>> rep = Replayer()
>>> rep.run_text("anna: /join\\nben: /join\\n> ben joined")
>>> rep.failures
[]
>>> Replayer.parse_input(1, '"Dr: Who" (dm): /hand')
('Dr: Who', '/hand', True)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import languages
from ..engine.errors import NotationError
from ..engine.game import hands_from_kinds
from ..engine.notation import parse_cards
from .events import Event, Input, Private, Public
from .export import _is  # the shared record test
from .export import export_lines as export_lines
from .export import export_table as export_table
from .export import running_game_start as running_game_start
from .fold import apply_state
from .journal import Record, quote_name
from .notes import Refusal
from .options import OptionError
from .prompts import command_for
from .router import Router
from .table import BotFactory, Table

CHANNEL = "replay"

_TRAILING_COMMENT = re.compile(r"\s#")
SEED_DIGITS = 40
"""The most digits a ``!seed`` may have (any seed of a deal fits in far fewer)."""
_SEED = re.compile(rf"-?[0-9]{{1,{SEED_DIGITS}}}")
_LINE = re.compile(r"^(?P<name>[^:!#>\"][^:]*?)(?P<dm>\s*\(dm\))?:\s?(?P<text>.*)$")
_AFTER_QUOTED = re.compile(r"^(?P<dm>\s*\(dm\))?:\s?(?P<text>.*)$")
_DECODER = json.JSONDecoder()


def take_name(lineno: int, text: str, stop: str = "") -> tuple[str, str]:
    """(name, rest) of ``text`` that starts with a name: quoted (JSON string) or plain up to
    the first character of ``stop`` (the whole text if ``stop`` is empty).

    >>> take_name(1, '"x;y=z"=CQ CA; ben=DA', "=")
    ('x;y=z', '=CQ CA; ben=DA')
    >>> take_name(1, 'max=CQ', "=")
    ('max', '=CQ')
    """
    text = text.lstrip()
    if text.startswith('"'):
        try:
            name, end = _DECODER.raw_decode(text)
        except ValueError as exc:
            raise ReplayError(lineno, f"bad quoted name {text[:40]!r}") from exc
        return str(name), text[end:]
    cut = min((i for i in (text.find(c) for c in stop) if i >= 0), default=len(text))
    return text[:cut].strip(), text[cut:]


class ReplayError(ValueError):
    """A malformed line of a replay file."""

    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


@dataclass(slots=True)
class Failure:
    lineno: int
    expected: str
    got: list[str]

    def __str__(self) -> str:
        got = "\n    ".join(self.got) or "(no output)"
        return (
            f"line {self.lineno}: expected a message containing {self.expected!r}; got:\n    {got}"
        )


@dataclass(slots=True)
class Replayer:
    """Feeds a replay file through a :class:`Router`, one channel."""

    bot_factory: BotFactory | None = None
    channel: str = CHANNEL
    router: Router | None = None
    admins: set[str] = field(default_factory=set)
    users: dict[str, str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    transcript: list[tuple[int, Event]] = field(default_factory=list)
    trusted: bool = False
    """Every line is accepted as if by an admin (restoring a journal)."""

    def __post_init__(self) -> None:
        if self.router is None:
            self.router = Router(seed=0, bot_factory=self.bot_factory, table_seed=lambda _: 0)

    @property
    def _router(self) -> Router:
        assert self.router is not None
        return self.router

    @property
    def table(self) -> Table:
        return self._router.table(self.channel)

    def _seat(self, lineno: int, name: str) -> int:
        name, rest = take_name(lineno, name)
        if rest.strip():
            raise ReplayError(lineno, f"unexpected {rest.strip()[:40]!r} after the name")
        for i, s in enumerate(self.table.seats):
            if s.name == name:
                return i
        raise ReplayError(lineno, f"{name!r} is not seated")

    def directive(self, lineno: int, line: str) -> None:
        word, _, rest = line[1:].partition(" ")
        rest = rest.strip()
        table = self.table
        if word in ("seed", "admin") and _TRAILING_COMMENT.search(rest):
            # `!admin anna  # …` would silently make "anna  # …" an admin.
            raise ReplayError(lineno, f"!{word}: a comment goes on a line of its own")
        if word == "seed":
            if not _SEED.fullmatch(rest):
                raise ReplayError(lineno, f"!seed needs a number of at most {SEED_DIGITS} digits")
            table.seed = int(rest)
            table.deal_count = 0
            table.journal.append(Record("seed", text=str(table.seed)))
        elif word == "deal":
            given: dict[str, list[int]] = {}
            todo = rest
            while todo.strip(" ;"):
                name, todo = take_name(lineno, todo.lstrip(" ;"), "=;")
                if not todo.startswith("="):
                    raise ReplayError(lineno, f"expected NAME=CARDS after {quote_name(name)}")
                cards, _, todo = todo[1:].partition(";")
                try:
                    given[name] = parse_cards(cards, languages.notations(languages.DEFAULT))
                except NotationError as exc:
                    raise ReplayError(lineno, str(exc)) from exc
            names = table.next_players()
            if sorted(given) != sorted(names) or len(names) != 4:
                raise ReplayError(lineno, f"!deal must name the four who play next {names}")
            kinds = [given[n] for n in names]
            n = table.options.rules.hand_size
            if any(len(k) != n for k in kinds):
                raise ReplayError(lineno, f"every player needs {n} cards")
            try:
                table.set_next_deal(hands_from_kinds(kinds))
            except ValueError as exc:
                raise ReplayError(lineno, str(exc)) from exc
        elif word == "dealer":
            table.set_next_dealer(self._seat(lineno, rest))
        elif word == "admin":
            name, after = take_name(lineno, rest)
            if after.strip():
                raise ReplayError(lineno, "!admin needs one NAME")
            self.admins.add(name)
        elif word == "user":
            name, after = take_name(lineno, rest, "=")
            if not after.startswith("=") or not after[1:].strip():
                raise ReplayError(lineno, "!user needs NAME=ID")
            self.users[name] = after[1:].strip()
        elif word == "rename":
            old, after = take_name(lineno, rest, "=")
            if not after.startswith("="):
                raise ReplayError(lineno, "!rename needs OLD=NEW")
            new, tail = take_name(lineno, after[1:])
            if tail.strip():
                raise ReplayError(lineno, "!rename needs OLD=NEW")
            seat = self._seat(lineno, old)
            try:
                table.rename(seat, new)
            except Refusal as exc:
                raise ReplayError(lineno, f"cannot rename {old!r}") from exc
            if old in self.users:
                self.users[new] = self.users[old]
        elif word == "away":
            table.mark_away(self._seat(lineno, rest))
        elif word == "back":
            table.back(self._seat(lineno, rest))
        elif word == "heirs":
            table.seat_heirs()
        elif word == "waiting":
            name, after = take_name(lineno, rest, "=")
            if not after.startswith("=") or not after[1:].strip():
                raise ReplayError(lineno, "!waiting needs NAME=ID")
            self.users[name] = after[1:].strip()
            table.wait(self.users[name], name)
        elif word == "table":
            try:
                gone = apply_state(table, rest)
            except ValueError as exc:
                raise ReplayError(lineno, str(exc)) from exc
            self._seated(table, gone)
        elif word == "server":
            self._router.bind_server(table, rest)
        elif word == "bots":
            table.scripted_bots = rest == "scripted"
        else:
            raise ReplayError(lineno, f"unknown directive !{word}")

    def _seated(self, table: Table, gone: list[str]) -> None:
        """After a ``!table`` line: the people there are known by their ids."""
        users = self._router.user_table
        for user in gone:
            if users.get(user) == self.channel:
                del users[user]
        for user, name in [*((s.user, s.name) for s in table.seats if not s.is_bot),
                           *table.waiting]:  # fmt: skip
            self.users[name] = user
            users[user] = self.channel

    def input_for(self, name: str, text: str, dm: bool = False) -> Input:
        """The :class:`Input` of a line ``NAME: TEXT``."""
        # A computer player's seat (also a stand-in for a person who left) moves as itself
        # on its turn; otherwise a name is the person's (who may come back to the seat).
        table = self.table
        game = table.game
        bot = next((s.user for i, s in enumerate(table.seats) if s.name == name and s.is_bot
                    and (name not in self.users or (table.running and game is not None
                                                    and game.turn == i))), None)  # fmt: skip
        uid = bot or self.users.get(name) or f"replay:{name}"
        return Input(
            "" if dm else self.channel,
            uid,
            name,
            text,
            dm=dm,
            admin=self.trusted or name in self.admins,
        )

    def feed(self, lineno: int, name: str, text: str, dm: bool = False) -> list[Event]:
        events = self._standin_move(name, text, dm)
        if events is None:
            events = self._router.handle(self.input_for(name, text, dm))
        events += self.run_bots()
        for e in events:
            self.transcript.append((lineno, e))
        return events

    def _standin_move(self, name: str, text: str, dm: bool) -> list[Event] | None:
        """With scripted computer players, a line of a seat a stand-in moves for (``!away``,
        or a computer player in a person's kept seat) on its turn is the stand-in's move, as
        an export writes it (a person's own return is written ``!back NAME`` first); None:
        not such a line."""
        table = self.table
        game = table.game
        if dm or not table.scripted_bots or game is None or not table.running:
            return None
        seat = next((i for i, s in enumerate(table.seats) if s.name == name), None)
        if seat is None or game.turn != seat:
            return None
        if seat not in table.away and table.seats[seat].standin_for is None:
            return None
        text = text.strip()
        for action in (*game.legal_actions(), *game.legal_calls(seat)):
            if command_for(action, phase=game.phase) == text:
                notes = table.act(seat, action, text, computer=True)
                return self._router.render_notes(table, notes, None)
        return None

    def run_bots(self) -> list[Event]:
        out: list[Event] = []
        while True:
            step = self._router.bot_step(self.channel)
            if step is None:
                return out
            out += step

    @staticmethod
    def parse_input(lineno: int, line: str) -> tuple[str, str, bool]:
        """(name, text, dm) of an input line; :class:`ReplayError` if it is none."""
        if line.startswith('"'):
            name, rest = take_name(lineno, line)
            q = _AFTER_QUOTED.match(rest)
            if q is None:
                raise ReplayError(lineno, f"expected NAME: TEXT, got {line[:60]!r}")
            return name, q["text"], bool(q["dm"])
        m = _LINE.match(line)
        if m is None:
            raise ReplayError(lineno, f"expected NAME: TEXT, got {line[:60]!r}")
        return m["name"].strip(), m["text"], bool(m["dm"])

    def run_lines(self, lines: Iterable[str]) -> None:
        last: list[Event] | None = None
        for lineno, raw in enumerate(lines, 1):
            line = raw.rstrip("\n").strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith(">"):
                expected = line[1:].strip()
                if last is None:
                    raise ReplayError(lineno, "an expectation needs an input line before it")
                texts = [e.text for e in last]
                if not any(expected in t for t in texts):
                    self.failures.append(Failure(lineno, expected, texts))
                continue
            if line.startswith("!"):
                self.directive(lineno, line)
                continue
            name, text, dm = self.parse_input(lineno, line)
            last = self.feed(lineno, name, text, dm=dm)

    def run_text(self, text: str) -> None:
        self.run_lines(text.splitlines())

    def results(self) -> list[dict[str, Any]]:
        return [rec.as_json() for rec in self.table.finished]


class RestoreError(ValueError):
    """A journal record that cannot be applied (the journal and the code disagree)."""


def restore(router: Router, channel: str, journal: list[Record]) -> None:
    """Rebuild the table of ``channel`` from its journal; :class:`RestoreError` names the
    first record that cannot be applied (the table is left as it was before that record).

    People's commands go through the router again, as their user id; moves made for a seat
    (computer players, stand-ins) and directives are applied to the table directly.
    """
    legacy = Replayer(router=router, channel=channel, trusted=True)
    table = router.table(channel)
    # Who sits where at other tables now says nothing about this table's past (a person may
    # have moved from this table to another one): the table is restored on its own.
    others = router.user_table
    router.user_table = {}
    try:
        for i, rec in enumerate(journal, 1):
            _apply_or_raise(router, legacy, table, i, rec)
    finally:
        router.user_table = others


def _apply_or_raise(router: Router, legacy: Replayer, table: Table, i: int, rec: Record) -> None:
    try:
        _apply(router, legacy, table, i, rec)
    except (Refusal, ReplayError, ValueError, IndexError) as exc:
        shown = "!deal (hands not shown)" if _is(rec, "deal") else rec.line()[:80]
        raise RestoreError(f"record {i} ({shown!r}) cannot be applied: {exc}") from exc


def _apply(router: Router, legacy: Replayer, table: Table, i: int, rec: Record) -> None:
    k = rec.kind
    if k == "cmd":
        before = len(table.journal)
        events = router.handle(Input(table.channel, rec.user, rec.name, rec.text, admin=True))
        if len(table.journal) == before and not _recordless_now(table, rec):
            errors = [e.text for e in events if isinstance(e, Private) and e.kind == "error"]
            raise ValueError(errors[0] if errors else "refused")
    elif k == "move":
        if rec.seat >= len(table.seats) or table.game is None:
            raise ValueError("no such seat or no game")
        table.act(rec.seat, rec.action, rec.text, computer=True)
    elif k == "seed":
        table.seed = int(rec.text)
        table.deal_count = 0
        table.journal.append(rec)
    elif k == "deal":
        if list(rec.names) != table.next_players():
            players = table.next_players()
            raise ValueError(f"the deal is for {list(rec.names)}, playing next are {players}")
        kinds = [parse_cards(h) for h in rec.hands]
        table.set_next_deal(hands_from_kinds(kinds))
    elif k in ("dealer", "away", "back"):
        if not 0 <= rec.seat < len(table.seats):
            raise ValueError("no such seat")
        if k == "dealer":
            table.set_next_dealer(rec.seat)
        elif k == "away":
            table.mark_away(rec.seat)
        else:
            table.back(rec.seat)
    elif k == "waiting":
        table.wait(rec.user, rec.name)
    elif k == "heirs":
        table.seat_heirs()
    elif k == "rename":
        if not 0 <= rec.seat < len(table.seats):
            raise ValueError("no such seat")
        table.rename(rec.seat, rec.name)
    elif k == "server":
        router.bind_server(table, rec.text)
    elif k == "state":
        for user in apply_state(table, rec.text):
            if router.user_table.get(user) == table.channel:
                del router.user_table[user]
        table.journal.append(rec)
    elif k in ("note", "feed", "cover"):
        table.journal.append(rec)
    elif k == "line":
        line = rec.text.strip()
        if line.startswith("!"):
            legacy.directive(i, line)
        elif line.startswith("#") or not line:
            if line.startswith("# feed "):
                table.journal.append(Record("feed", text=line[len("# feed ") :]))
        else:
            name, text, dm = legacy.parse_input(i, line)
            before = len(table.journal)
            router.handle(legacy.input_for(name, text, dm))
            if len(table.journal) == before:
                raise ValueError("refused")
    else:
        raise ValueError(f"unknown record kind {k!r}")


def _recordless_now(table: Table, rec: Record) -> bool:
    """Whether ``rec`` (of an older version) is a command that leaves no record now: a
    waiting-list place taken or given up during a game, an option set to its value."""
    words = rec.text.split()
    if not words:
        return False
    if words[0] in ("/join", "/leave") and rec.seat < 0:
        return True
    if words[0] == "/option" and len(words) > 2:
        try:
            return table.options.set(words[1], " ".join(words[2:])) == table.options
        except OptionError:
            return False
    return False


def results_jsonl(results: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results)


def render_transcript(events: list[tuple[int, Event]]) -> str:
    out = []
    for lineno, e in events:
        if isinstance(e, Public):
            out.append(f"{lineno:>5} [channel] {e.text}")
        elif isinstance(e, Private):
            out.append(f"{lineno:>5} [to {e.user}] {e.text}")
    return "\n".join(out)
