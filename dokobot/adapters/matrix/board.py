"""The board as the text of one Matrix message that the adapter edits in place (``m.replace``):
a :class:`~dokobot.host.board.BoardView` in the table's language, one line per item (the
game and trick, the cards on the table, whose turn, the contract and calls, the parties,
the tricks taken, the last trick). Only what everybody at the table may see: the view
holds nothing else. The words are the catalogues' board words (``discord.board_*``, shared
by the chats that show a board)."""

from __future__ import annotations

from dokobot.host.board import BoardView
from dokobot.host.i18n import card_text, render
from dokobot.host.i18n import text as catalogue_text


def _word(key: str, lang: str, **fields: str) -> str:
    return catalogue_text(lang, "discord." + key).format(**fields)


def _seat(view: BoardView, seat: int | None) -> str:
    return view.seats[seat] if seat is not None and 0 <= seat < len(view.seats) else "?"


def board_text(view: BoardView) -> str:
    """The board's text in the table's language."""
    lang = view.language
    title = _word("board_title", lang, n=str(view.game_number))
    if view.finished:
        title += " · " + _word("board_over", lang)
    elif view.phase == "playing":
        title += " · " + _word("board_trick", lang, n=str(view.trick_number))
    cards = "  ".join(f"{_seat(view, s)} {card_text(c, lang)}" for s, c in view.trick)
    lines = [title, f"{_word('board_table', lang)}: {cards or _word('board_empty', lang)}"]
    if view.turn is not None:
        lines.append(_word("board_waiting", lang, player=_seat(view, view.turn)))
    if view.contract.startswith("solo."):
        said = [render(lang, view.contract)]
    elif view.contract:
        said = [_word("contract_" + view.contract, lang)]
    elif view.phase in ("reservations", "declarations", "exchange"):
        said = [_word("phase_" + view.phase, lang)]
    else:
        said = []
    if view.calls:
        calls = ", ".join(f"{_seat(view, s)} {render(lang, 'call.' + k)}" for s, k in view.calls)
        said.append(f"{_word('board_calls', lang)}: {calls}")
    lines.append(" · ".join(said))
    sides: dict[str, list[str]] = {}
    for seat, party in view.parties:
        sides.setdefault(party, []).append(_seat(view, seat))
    lines.append(
        " · ".join(f"{render(lang, 'party.' + p)}: {', '.join(w)}" for p, w in sides.items())
    )
    if view.phase in ("playing", "finished"):
        won = ", ".join(f"{name} {view.tricks_won[s]}" for s, name in enumerate(view.seats))
        lines.append(f"{_word('board_tricks', lang)}: {won}")
    if view.last_trick and view.last_winner is not None:
        last = " ".join(card_text(c, lang) for _, c in view.last_trick)
        lines.append(f"{_word('board_last', lang)}: {last} → {_seat(view, view.last_winner)}")
    if view.marks:
        marks = ", ".join(render(lang, "mark." + m) for m in view.marks)
        lines.append(f"{_word('board_marks', lang)}: {marks}")
    if view.away:
        away = ", ".join(_seat(view, s) for s in view.away)
        lines.append(f"{_word('board_away', lang)}: {away}")
    return "\n".join(line for line in lines if line)
