"""Pictures for the README: a board and a "My cards" panel as Discord shows them.

The board is the real embed of :func:`dokobot.adapters.discord.board.board_embed` for a game
played by the real host, drawn in Discord's dark theme with the card picture the bot
attaches; the panel is the hand picture of :func:`dokobot.render.hand_png`.

    python -m dokobot.adapters.discord.preview docs/
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from dokobot.host.board import BoardView
from dokobot.render import HandPicture, hand_png, trick_png

BACKGROUND = (49, 51, 56, 255)  # Discord's dark theme
EMBED = (43, 45, 49, 255)
BAR = (46, 125, 50, 255)
TEXT = (219, 222, 225, 255)
MUTED = (181, 186, 193, 255)
WIDTH = 560


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans if the system has it (it has ♣♠♥♦, as Discord's font), else Pillow's."""
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)


def _game() -> tuple[BoardView, HandPicture, list[str]]:
    """A real game, some tricks in: (board view, Anna's hand, the news lines). Each player
    follows his prompts: healthy, then the first card offered; one player calls his party
    with the call his prompt offers."""
    from dokobot.host.board import board_view
    from dokobot.host.events import Choice, Input, Private, Public
    from dokobot.host.prompts import shown_cards
    from dokobot.host.router import Router
    from dokobot.host.table import sorted_hand

    router = Router(seed=2)
    news: list[str] = []
    offered: dict[str, tuple[Choice, ...]] = {}

    def send(user: str, name: str, text: str) -> None:
        for e in router.handle(Input("c", user, name, text)):
            if isinstance(e, Public):
                news.append(e.text)
            elif isinstance(e, Private) and e.kind == "turn":
                offered[e.user] = e.choices

    for name in ("Anna", "Ben", "Carl", "Dora"):
        send(name.lower(), name, "/join")
    send("anna", "Anna", "/start")
    table = router.tables["c"]
    for moves in range(4 + 4 * 4 + 2):
        view = board_view(table)
        assert view is not None and view.turn is not None
        seat = table.seats[view.turn]
        if view.phase == "reservations":
            send(seat.user, seat.name, "/healthy")
            continue
        choices = offered.pop(seat.user)
        if moves == 6:
            call = next(c.command for c in choices if c.command in ("/re", "/kontra"))
            send(seat.user, seat.name, call)
            choices = offered.pop(seat.user, choices)
        send(seat.user, seat.name, choices[0].command)
    view = board_view(table)
    assert view is not None and table.game is not None
    hand = shown_cards(table.game, sorted_hand(table.game, table.game.hands[0]))
    return view, HandPicture(hand.cards, hand.groups, lang="de"), news


def _lines(embed: object) -> list[tuple[str, int, tuple[int, ...]]]:
    """(text, size, colour) of an embed's lines, top to bottom."""
    import discord

    assert isinstance(embed, discord.Embed)
    out: list[tuple[str, int, tuple[int, ...]]] = [(embed.title or "", 17, TEXT)]
    out += [(line, 14, TEXT) for line in (embed.description or "").replace("**", "").split("\n")]
    for f in embed.fields:
        out.append((f.name or "", 14, MUTED))
        out += [(line[:72], 13, TEXT) for line in (f.value or "").replace("\\", "").split("\n")]
    return out


def board_picture() -> bytes:
    """The board as it looks in a Discord channel (dark theme), with its "My cards" button."""
    from dokobot.adapters.discord.board import board_embed
    from dokobot.adapters.discord.board_messages import trick_picture

    view, _, news = _game()
    embed = board_embed(view, news[-5:], "en", picture=True)
    table: Image.Image = Image.open(io.BytesIO(trick_png(trick_picture(view))))
    room = WIDTH - 34 - 30  # Discord scales a picture down to the embed's width
    if table.width > room:
        table = table.resize((room, table.height * room // table.width), Image.Resampling.LANCZOS)
    lines = _lines(embed)
    step = {17: 24, 14: 20, 13: 18}
    top, x = 40, 34
    height = top + 12 + sum(step[size] for _, size, _ in lines) + 10 + table.height + 14
    img = Image.new("RGBA", (WIDTH, height + 52), BACKGROUND)
    draw = ImageDraw.Draw(img)
    draw.text((16, 12), "Dokobot", font=_font(16), fill=TEXT)
    draw.rounded_rectangle([20, top, WIDTH - 16, height], 6, fill=EMBED)
    draw.rectangle([20, top, 23, height], fill=BAR)
    y = top + 12
    for line, size, colour in lines:
        draw.text((x, y), line, font=_font(size), fill=colour)
        y += step[size]
    img.alpha_composite(table, (x, y + 10))
    draw.rounded_rectangle([20, height + 10, 130, height + 42], 4, fill=(88, 101, 242, 255))
    draw.text((36, height + 17), "My cards", font=_font(15), fill=TEXT)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def hand_picture() -> bytes:
    """Anna's "My cards" picture from the same game (German letters)."""
    _, hand, _ = _game()
    return hand_png(hand)


def main(folder: str = "docs") -> None:
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    (path / "discord-board.png").write_bytes(board_picture())
    (path / "discord-hand.png").write_bytes(hand_picture())


if __name__ == "__main__":  # pragma: no cover
    main(*sys.argv[1:2])
