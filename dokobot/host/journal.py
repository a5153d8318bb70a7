"""Journal records: every accepted change of a table as structured data.

A table's journal is a list of :class:`Record` objects; the store keeps each as one JSON
object. People are identified by their stable platform user id (``user``); display names
(``name``) are labels, kept for exports and messages only. A record turns into a line of the
replay format with :meth:`Record.line` (exports), with names quoted where needed
(:func:`quote_name`).

>>> r = Record("cmd", user="42", seat=0, name="Dr: Who", text="/join")
>>> Record.decode(r.encode()) == r, r.line()
(True, '"Dr: Who": /join')
>>> Record("deal", names=("a", "b c"), hands=("CQ", "CA")).line()
'!deal a=CQ; "b c"=CA'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from ..names import normalize_name

__all__ = ["KINDS", "Record", "cmd", "decode_journal", "normalize_name", "quote_name"]

KINDS: Final = (
    "cmd",  # a person's accepted command (``text``), by ``user``; restored through the router
    "move",  # a move the table made for ``seat`` (computer player or stand-in): ``action``
    "seed",  # the deals are drawn from seed ``text`` from now on
    "deal",  # the hands of the next deal, per seat (``names``, ``hands``)
    "cover",  # a game ended unplayed: exports show these hands instead of its real deal
    "dealer",  # the dealer of the next game (``seat``)
    "away",  # the person in ``seat`` timed out: a stand-in moves until they act
    "back",  # the person in ``seat`` acted again while a vote on their seat was open: it ends
    "heirs",  # between games: the waiting people a vote gave a seat to take it
    "waiting",  # ``user`` (``name``) waits for a seat (written when a vote names them)
    "rename",  # the person in ``seat`` goes by ``name`` now (was ``text``; an IRC nick change)
    "server",  # the table's chips are booked on the ledger of server ``text``
    "state",  # seats, owner, options between games (``text``: JSON; see host.fold)
    "note",  # a comment (``text``), e.g. the seating of a duel
    "feed",  # ``dokobot feed``: script line ``text`` is durable
    "line",  # a line of the replay format (journals written before records existed)
)

_PLAIN: Final = re.compile(r"\w+")


def quote_name(name: str) -> str:
    """``name`` as written in a replay line: plain if it is one word, else in double quotes
    with JSON string escapes.

    >>> quote_name("anna"), quote_name("Jörg"), quote_name('max (dm)'), quote_name('a"b')
    ('anna', 'Jörg', '"max (dm)"', '"a\\\\"b"')
    """
    if _PLAIN.fullmatch(name):
        return name
    text = json.dumps(name, ensure_ascii=False)
    if len(text.splitlines()) != 1:  # a line separator JSON leaves as it is (U+2028, FS)
        text = json.dumps(name)
    return text


@dataclass(frozen=True, slots=True)
class Record:
    """One accepted change. Only the fields of its kind are set."""

    kind: str
    user: str = ""
    """Stable user id of who acted (``bot:NAME`` for a computer player's seat)."""
    seat: int = -1
    name: str = ""
    """Display name of ``user`` or ``seat`` at the time (a label)."""
    text: str = ""
    """The command (``/play CQ``), or the argument of a directive."""
    action: int = -1
    """``move``: the engine action."""
    names: tuple[str, ...] = ()
    hands: tuple[str, ...] = ()
    """``deal``: per seat, the seat's name and cards."""
    admin: bool = False
    """``cmd``: the command needed a server admin's rights."""

    def encode(self) -> str:
        """One JSON object: ``k`` (the kind) and the fields that differ from their default."""
        data: dict[str, Any] = {"k": self.kind}
        for name, default in _FIELDS:
            value = getattr(self, name)
            if value != default:
                data[name] = list(value) if value.__class__ is tuple else value
        return _encode(data)

    @classmethod
    def decode(cls, text: str) -> Record:
        """The record of one stored JSON object (``ValueError`` if it is none)."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("k") not in KINDS:
            raise ValueError(f"not a journal record: {text[:80]!r}")
        kw: dict[str, Any] = {}
        for name, _ in _FIELDS:
            if name in data:
                value = data[name]
                kw[name] = tuple(value) if isinstance(value, list) else value
        return cls(data["k"], **kw)

    def line(self) -> str:
        """The record as a line of the replay format."""
        k = self.kind
        if k in ("cmd", "move"):
            return f"{quote_name(self.name)}: {self.text}"
        if k == "deal":
            parts = [f"{quote_name(n)}={h}" for n, h in zip(self.names, self.hands, strict=True)]
            return "!deal " + "; ".join(parts)
        if k in ("dealer", "away", "back"):
            return f"!{k} {quote_name(self.name)}"
        if k == "heirs":
            return "!heirs"
        if k == "waiting":
            return f"!waiting {quote_name(self.name)}={self.user}"
        if k == "rename":
            return f"!rename {quote_name(self.text)}={quote_name(self.name)}"
        if k in ("seed", "server"):
            return f"!{k} {self.text}"
        if k == "state":
            return f"!table {self.text}"
        if k == "note":
            return f"# {self.text}"
        if k == "feed":
            return f"# feed {self.text}"
        return self.text


_FIELDS: Final = tuple((f.name, f.default) for f in fields(Record)[1:])
"""``(name, default)`` of every field after ``kind``, in order."""
_encode: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps`` with these options, without making an encoder per call."""


def decode_journal(lines: Sequence[str], start: int = 0) -> list[Record]:
    """The records of a stored journal whose first line is record ``start``; ``ValueError``
    naming the first line that is no record.

    >>> decode_journal(['{"k":"seed","text":"1"}', '{"k":"zzz"}'])
    Traceback (most recent call last):
    ...
    ValueError: its record 1 is damaged (not a journal record: '{"k":"zzz"}')
    """
    out: list[Record] = []
    for i, line in enumerate(lines, start):
        try:
            out.append(Record.decode(line))
        except ValueError as exc:
            raise ValueError(f"its record {i} is damaged ({exc})") from None
    return out


def cmd(user: str, name: str, seat: int | None, text: str) -> Record:
    return Record("cmd", user=user, seat=-1 if seat is None else seat, name=name, text=text)
