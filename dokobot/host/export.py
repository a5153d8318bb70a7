"""Exporting a table's journal as a replay file (without running anything).

Kept apart from :mod:`.replay`, which drives a router: the ``/export`` command uses this,
and the router must not import what imports the router.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from ..engine.types import DECLARE_POVERTY, DECLARE_SOLO, DECLARE_WEDDING
from .journal import Record, quote_name
from .prompts import command_for
from .table import Table


def running_game_start(journal: list[Record]) -> int | None:
    """Index of the first record of the game that was dealt last: its ``deal`` (None if
    no game was started)."""
    starts = [i for i, r in enumerate(journal) if _is(r, "cmd", "/start")]
    if not starts:
        return None
    deals = [i for i, r in enumerate(journal[: starts[-1]]) if _is(r, "deal")]
    return deals[-1] if deals else starts[-1]


def _is(rec: Record, kind: str, text: str = "") -> bool:
    """Whether ``rec`` is of ``kind`` (``cmd``: the command ``text``), also as an old
    replay line."""
    if rec.kind == "line":
        if kind == "cmd":
            return rec.text.endswith(": " + text)
        return rec.text.startswith(f"!{kind} ")
    return rec.kind == kind and (kind != "cmd" or rec.text == text)


def export_lines(channel: str, journal: list[Record], *, running: bool = False) -> list[str]:
    """A journal as a replay file of the finished games (computer players' moves included).

    ``running``: the last game is still being played; it is left out, with a note, so that
    its hands stay hidden. Deal seeds are never exported (every deal is a ``!deal`` line).
    Each person's platform id comes once, as ``!user``, before their first line; a command
    that needed a server admin's rights is preceded by ``!admin``.
    """
    out = [f"# dokobot export of {channel}", "!bots scripted"]
    cut = running_game_start(journal) if running else None
    known: dict[str, str] = {}
    admins: set[str] = set()
    records = journal if cut is None else journal[:cut]
    covers = _covers(records)
    away: set[str] = set()  # the people a stand-in moves for: their next command is a return
    for i, rec in enumerate(records):
        if rec.kind in ("feed", "cover") or _is(rec, "seed"):
            continue
        rec = covers.get(i, rec)
        if rec.kind == "away":
            away.add(rec.name)
        elif rec.kind == "back":
            away.discard(rec.name)
        elif rec.kind == "cmd" and rec.name in away and not rec.user.startswith("bot:"):
            away.discard(rec.name)  # the person acted: back (the stand-in's moves are moves)
            out.append(f"!back {quote_name(rec.name)}")
        if rec.kind == "cmd" and rec.user and known.get(rec.name) != rec.user:
            known[rec.name] = rec.user
            out.append(f"!user {quote_name(rec.name)}={rec.user}")
        if rec.admin and rec.name not in admins:
            admins.add(rec.name)
            out.append(f"!admin {quote_name(rec.name)}")
        out.append(rec.line())
    if cut is not None:
        out.append("# the running game is left out: it is exported once it is over")
    return out


_CARD_VERBS: Final = ("/give", "/play")
"""How a journal writes a card action (a give in a poverty's exchange may be a /play)."""
_DECLARATION_VERBS: Final = frozenset(
    command_for(a).split()[0] for a in (DECLARE_WEDDING, DECLARE_POVERTY, DECLARE_SOLO)
)
"""How a journal writes a declaration (``/solo KIND`` for every solo)."""


def _covers(journal: list[Record]) -> dict[int, Record]:
    """The records to show instead of real ones, by index: the deal record before each
    ``cover`` record (a game that ended unplayed) as a deal with the cover's hands, and the
    actions of that game the cover shows instead of the real ones: per seat its first card
    actions (``SEAT:CARD`` words, a poverty's gives; a cover of an older version names only
    the poor player's cards, its ``seat``) and its declaration (``SEAT@ACTION``)."""
    out: dict[int, Record] = {}
    last_deal: int | None = None
    for i, rec in enumerate(journal):
        if rec.kind == "deal":
            last_deal = i
        elif rec.kind == "cover" and last_deal is not None:
            out[last_deal] = Record("deal", names=rec.names, hands=rec.hands)
            cards: dict[int, list[str]] = {}
            declared: dict[int, str] = {}
            for word in rec.text.split():
                seat, at, action = word.partition("@")
                if at:
                    declared[int(seat)] = command_for(int(action))
                    continue
                seat, _, card = word.rpartition(":")
                cards.setdefault(int(seat) if seat else rec.seat, []).append(card)
            for j in range(last_deal + 1, i):  # a seat's first card actions are its gives
                old = journal[j]
                verb = old.text.split(" ", 1)[0]
                mine = cards.get(old.seat, [])
                if old.kind not in ("cmd", "move"):
                    continue
                if verb in _CARD_VERBS and mine:
                    out[j] = replace(old, text=f"{verb} {mine.pop(0)}", action=-1)
                elif verb in _DECLARATION_VERBS and old.seat in declared:
                    out[j] = replace(old, text=declared.pop(old.seat), action=-1)
            last_deal = None
    return out


def export_table(
    table: Table, journal: list[Record] | None = None, *, running: bool = False
) -> str:
    """The table's history as a replay file (see :func:`export_lines`).

    ``journal``: the whole journal, where the table keeps only its unsaved records.
    """
    records = table.journal if journal is None else journal
    return "\n".join(export_lines(table.channel, records, running=running)) + "\n"
