"""Scripted command logs: replay them, check expected outputs, export tables as such logs.

Format (one item a line): ``#`` comments and blank lines are skipped;
``!seed N`` seeds every following deal; ``!deal NAME=CARDS; NAME=CARDS; …`` fixes the next
deal; ``!dealer NAME`` sets the next dealer; ``!admin NAME`` makes NAME a server admin;
``!user NAME=ID`` gives NAME a platform user id; ``!server ID`` names the server whose
chip ledger the table uses; ``!away NAME`` lets a computer player move for NAME until NAME acts again;
``!rename OLD=NEW`` gives the seat of OLD the name NEW (a nick change);
``!bots scripted`` makes computer players
wait for their moves from the file; ``NAME: TEXT`` is a line typed in the channel and
``NAME (dm): TEXT`` a private message to the bot; ``> TEXT`` after an input line expects
that some message answering that input contains TEXT.

>>> rep = Replayer()
>>> rep.run_text("anna: /join\\nben: /join\\n> ben joined")
>>> rep.failures
[]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import NotationError
from ..engine.game import hands_from_kinds
from ..engine.notation import parse_cards
from .events import Event, Input, Private, Public
from .notes import Refusal
from .router import Router
from .table import BotFactory, Table

CHANNEL = "replay"

_TRAILING_COMMENT = re.compile(r"\s#")
_LINE = re.compile(r"^(?P<name>[^:!#>][^:]*?)(?P<dm>\s*\(dm\))?:\s?(?P<text>.*)$")


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
            if not rest.lstrip("-").isdigit():
                raise ReplayError(lineno, "!seed needs a number")
            table.seed = int(rest)
            table.deal_count = 0
            table.journal.append(f"!seed {table.seed}")
        elif word == "deal":
            parts = [p for p in rest.split(";") if p.strip()]
            given: dict[str, list[int]] = {}
            for part in parts:
                name, eq, cards = part.partition("=")
                if not eq:
                    raise ReplayError(lineno, f"expected NAME=CARDS, got {part.strip()!r}")
                try:
                    given[name.strip()] = parse_cards(cards)
                except NotationError as exc:
                    raise ReplayError(lineno, str(exc)) from exc
            names = table.names()
            if sorted(given) != sorted(names) or len(names) != 4:
                raise ReplayError(lineno, f"!deal must name the four seated players {names}")
            kinds = [given[n] for n in names]
            if any(len(k) != 12 for k in kinds):
                raise ReplayError(lineno, "every player needs 12 cards")
            try:
                table.set_next_deal(hands_from_kinds(kinds))
            except ValueError as exc:
                raise ReplayError(lineno, str(exc)) from exc
        elif word == "dealer":
            table.set_next_dealer(self._seat(lineno, rest))
        elif word == "admin":
            self.admins.add(rest)
        elif word == "user":
            name, eq, uid = rest.partition("=")
            if not eq:
                raise ReplayError(lineno, "!user needs NAME=ID")
            self.users[name.strip()] = uid.strip()
            line = f"!user {name.strip()}={uid.strip()}"
            self.table.user_lines.add(line)
            self.table.journal.append(line)
        elif word == "rename":
            old, eq, new = rest.partition("=")
            if not eq:
                raise ReplayError(lineno, "!rename needs OLD=NEW")
            seat = self._seat(lineno, old.strip())
            try:
                table.rename(seat, new.strip())
            except Refusal as exc:
                raise ReplayError(lineno, f"cannot rename {old.strip()!r}") from exc
            if old.strip() in self.users:
                self.users[new.strip()] = self.users[old.strip()]
        elif word == "away":
            table.mark_away(self._seat(lineno, rest))
        elif word == "server":
            self._router.bind_server(table, rest)
        elif word == "bots":
            table.scripted_bots = rest == "scripted"
        else:
            raise ReplayError(lineno, f"unknown directive !{word}")

    def input_for(self, name: str, text: str, dm: bool = False) -> Input:
        """The :class:`Input` of a line ``NAME: TEXT``."""
        uid = self.users.get(name)
        if uid is None:
            bot = next((s.user for s in self.table.seats if s.name == name and s.is_bot), None)
            uid = bot or f"replay:{name}"
        return Input(
            "" if dm else self.channel,
            uid,
            name,
            text,
            dm=dm,
            admin=self.trusted or name in self.admins,
        )

    def feed(self, lineno: int, name: str, text: str, dm: bool = False) -> list[Event]:
        events = self._router.handle(self.input_for(name, text, dm))
        events += self.run_bots()
        for e in events:
            self.transcript.append((lineno, e))
        return events

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


def export_table(table: Table, journal: list[str] | None = None) -> str:
    """The table's history as a replay file (computer players' moves included).

    ``journal``: the whole journal, where the table keeps only its unsaved lines.
    """
    head = [
        f"# dokobot export of {table.channel}",
        "!bots scripted",
    ]
    return "\n".join(head + (table.journal if journal is None else journal)) + "\n"


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
