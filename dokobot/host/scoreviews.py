"""The score list of a table (``/score``) and one game of it in detail (``/score N``)."""

from __future__ import annotations

from collections.abc import Sequence

from .modes import series_length
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .series import GameRecord, Series, game_lines, score_sheet


def score_note(
    finished: list[GameRecord],
    names: list[str],
    series: Series,
    opts: TableOptions,
    lang: str,
    last: int,
    chips: Sequence[str] = (),
) -> Note:
    """The score list: the last ``last`` games, totals, then the ``chips`` lines."""
    sheet = score_sheet(
        finished,
        names,
        series,
        lang,
        last=last,
        length=series_length(opts),
        tournament=opts.tournament,
        seated_first=opts.seats > 4,
    )
    sheet += chips
    return Note(ALL, "score_sheet", {"sheet": "\n".join(sheet)})


def game_note(finished: list[GameRecord], number: int, lang: str) -> Note:
    """One game of the score list in detail."""
    rec = next((r for r in finished if r.number == number), None)
    if rec is None:
        raise Refusal("score_no_such_game", n=number)
    return Note(ALL, "score_game", {"text": "\n".join(game_lines(rec, lang))})
