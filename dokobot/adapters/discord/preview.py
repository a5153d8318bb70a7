"""Pictures for the documentation: the lobby, the board in its thread and the "My cards"
panel as a phone shows them (a window 360 px wide, drawn at twice that like a phone's
screenshot, in Discord's dark theme).

Everything shown is real: the lobby embed and buttons of :mod:`.lobby`, the board embed of
:func:`~dokobot.adapters.discord.board.board_embed` with its trick picture, and the hand
picture and buttons of Anna's turn prompt, for a game the real host plays (every player
follows his prompts). The pictures are scaled to the phone's width as Discord scales them.

    python -m dokobot.adapters.discord.preview docs/
"""

from __future__ import annotations

import dataclasses
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import discord
from PIL import Image, ImageDraw, ImageFont

from dokobot.host.board import BoardView, LobbyView
from dokobot.host.events import Private
from dokobot.render import HandPicture, hand_png, trick_png
from dokobot.render.layout import BOARD_WIDTH, PHONE_WIDTH

PHONE = 360
"""The phone's width in CSS pixels."""
GUTTER = 54
"""The avatars' column left of a message; a margin of 12 is on the right."""
assert PHONE == GUTTER + PHONE_WIDTH + 12  # a message's pictures are PHONE_WIDTH wide
PHONE_HEIGHT = 640
"""The height of a small phone's screen in CSS pixels (most are taller)."""
BAR = 56
"""The message bar at the bottom of the screen."""
FOLD = PHONE_HEIGHT - BAR
"""How far down (from the top of the screen, under the channel's 48 pixels high header) a
message that starts at the top of the chat is seen without scrolling."""
SCALE = 2
"""Device pixels per CSS pixel (a phone's screenshot)."""
BACKGROUND = (49, 51, 56, 255)  # Discord's dark theme
HEADER = (43, 45, 49, 255)
EMBED = (43, 45, 49, 255)
TEXT = (219, 222, 225, 255)
MUTED = (148, 155, 164, 255)
BLURPLE = (88, 101, 242, 255)
GREY = (78, 80, 88, 255)
GREEN = (36, 128, 70, 255)
RED = (218, 55, 60, 255)
BUTTONS = {
    discord.ButtonStyle.primary: BLURPLE,
    discord.ButtonStyle.secondary: GREY,
    discord.ButtonStyle.success: GREEN,
    discord.ButtonStyle.danger: RED,
}


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans if the system has it (it has ♣♠♥♦, as Discord's font), else Pillow's."""
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size * SCALE)
    except OSError:
        return ImageFont.load_default(size=size * SCALE)


@dataclass
class _Game:
    """A real game some tricks in, and what the pictures show of it."""

    lobby: LobbyView
    board: BoardView
    news: list[str]
    prompt: Private
    """Anna's first turn prompt on which she may not play every card (her hand, the cards
    she may play, the buttons)."""


def _game() -> _Game:
    """Four people follow their prompts: healthy, then the first card offered; one calls
    his party with the call his prompt offers."""
    from dokobot.adapters.discord.board import SHOWN_ELSEWHERE
    from dokobot.host.board import board_view, lobby_view
    from dokobot.host.events import Input, Public
    from dokobot.host.router import Router

    router = Router(seed=2)
    news: list[str] = []
    offered: dict[str, Private] = {}

    def send(user: str, name: str, text: str) -> None:
        for e in router.handle(Input("c", user, name, text)):
            if isinstance(e, Public) and e.kind not in SHOWN_ELSEWHERE:
                news.append(e.text)
            elif isinstance(e, Private) and e.kind == "turn":
                offered[e.user] = e

    for name in ("Anna", "Ben", "Carl", "Dora"):
        send(name.lower(), name, "/join")
    table = router.tables["c"]
    lobby = lobby_view(table)
    news.clear()  # the board's news begin with the game
    send("anna", "Anna", "/start")
    prompt: Private | None = None
    for moves in range(4 + 4 * 4 + 3):
        view = board_view(table)
        assert view is not None and view.turn is not None
        seat = table.seats[view.turn]
        if view.phase == "reservations":
            send(seat.user, seat.name, "/healthy")
            continue
        turn = offered.pop(seat.user)
        if (
            seat.user == "anna"
            and prompt is None
            and len(turn.playable or turn.hand) < len(turn.hand)
        ):
            prompt = turn
        if moves == 6:
            call = next(c.command for c in turn.choices if c.command in ("/re", "/kontra"))
            send(seat.user, seat.name, call)
            turn = offered.pop(seat.user, turn)
        card = next(c.command for c in turn.choices if c.command.startswith("/play"))
        send(seat.user, seat.name, card)
    board = board_view(table)
    assert board is not None and prompt is not None
    board = dataclasses.replace(board, deadline=1)  # Discord's turn clock is on
    return _Game(lobby, board, news, prompt)


@dataclass(frozen=True)
class _Text:
    line: str
    size: int = 15
    colour: tuple[int, ...] = TEXT


@dataclass(frozen=True)
class _Embed:
    embed: discord.Embed
    picture: bytes | None = None


@dataclass(frozen=True)
class _Picture:
    png: bytes


@dataclass(frozen=True)
class _Buttons:
    view: discord.ui.View


@dataclass
class _Screen:
    """A phone screen drawn top to bottom: a header, then one message's parts."""

    title: str
    parts: list[_Text | _Embed | _Picture | _Buttons] = field(default_factory=list)
    buttons_end: int = 0
    """Where (CSS pixels from the top of the screen) the last row of buttons ends, once
    drawn."""

    def draw(self) -> bytes:
        width = PHONE * SCALE
        img = Image.new("RGBA", (width, 2400 * SCALE), BACKGROUND)
        draw = ImageDraw.Draw(img)
        draw.rectangle([0, 0, width, 48 * SCALE], fill=HEADER)
        draw.text((16 * SCALE, 14 * SCALE), self.title, font=_font(17), fill=TEXT)
        y = 60 * SCALE
        draw.ellipse([12 * SCALE, y, 44 * SCALE, y + 32 * SCALE], fill=BLURPLE)
        draw.text((54 * SCALE, y), "Dokobot", font=_font(15), fill=TEXT)
        draw.text((128 * SCALE, y + 2 * SCALE), "APP", font=_font(11), fill=MUTED)
        y += 22 * SCALE
        left, room = GUTTER * SCALE, PHONE_WIDTH * SCALE
        for part in self.parts:
            if isinstance(part, _Text):
                y = _wrapped(draw, part.line, left, y, room, part.size, part.colour)
            elif isinstance(part, _Embed):
                y = _embed(img, draw, part, left, y, room)
            elif isinstance(part, _Picture):
                y = _picture(img, part.png, left, y + 4 * SCALE, room)
            else:
                y = _buttons(draw, part.view, left, y + 6 * SCALE, room)
                self.buttons_end = (y - 8 * SCALE) // SCALE  # less the room under the row
        img = img.crop((0, 0, width, y + 16 * SCALE))
        out = io.BytesIO()
        img.save(out, format="PNG")
        return out.getvalue()


def _wrapped(
    draw: ImageDraw.ImageDraw, text: str, x: int, y: int, room: int, size: int,
    colour: tuple[int, ...],
) -> int:  # fmt: skip
    """Draw ``text`` wrapped to ``room`` pixels; the y below it."""
    font = _font(size)
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}".strip()
            if line and font.getlength(trial) > room:
                draw.text((x, y), line, font=font, fill=colour)
                y += int(size * 1.35 * SCALE)
                line = word
            else:
                line = trial
        draw.text((x, y), line, font=font, fill=colour)
        y += int(size * 1.35 * SCALE)
    return y


def _plain(value: str) -> str:
    """Discord's markdown as it reads (bold and escapes gone, timestamps shown)."""
    import re

    value = re.sub(r"<t:\d+:R>", "in 58 seconds", value)
    return value.replace("**", "").replace("\\", "")


def _embed(
    img: Image.Image, draw: ImageDraw.ImageDraw, part: _Embed, x: int, y: int, room: int
) -> int:
    """Draw an embed (bar, title, description, fields, its picture); the y below it."""
    embed = part.embed
    top = y + 4 * SCALE
    inner = x + 14 * SCALE
    width = room - (PHONE_WIDTH - BOARD_WIDTH) * SCALE
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    body = ImageDraw.Draw(layer)
    y = top + 10 * SCALE
    y = _wrapped(body, embed.title or "", inner, y, width, 15, TEXT)
    y = _wrapped(body, _plain(embed.description or ""), inner, y + 2 * SCALE, width, 13, TEXT)
    for f in embed.fields:
        y = _wrapped(body, f.name or "", inner, y + 4 * SCALE, width, 13, MUTED)
        y = _wrapped(body, _plain(f.value or ""), inner, y, width, 13, TEXT)
    if embed.image.url and part.picture is not None:
        y = _picture(layer, part.picture, inner, y + 6 * SCALE, width)
    bottom = y + 10 * SCALE
    bar = embed.colour.to_rgb() if embed.colour else (80, 80, 80)
    draw.rounded_rectangle([x, top, x + room, bottom], 4 * SCALE, fill=EMBED)
    draw.rectangle([x, top, x + 4 * SCALE, bottom], fill=(*bar, 255))
    img.alpha_composite(layer)
    return bottom


def _picture(img: Image.Image, png: bytes, x: int, y: int, room: int) -> int:
    """Draw a picture as Discord does: as many CSS pixels wide as it has pixels, scaled down
    to ``room``; the y below it."""
    pic: Image.Image = Image.open(io.BytesIO(png)).convert("RGBA")
    width = min(pic.width * SCALE, room)
    if width != pic.width:
        pic = pic.resize((width, pic.height * width // pic.width), Image.Resampling.LANCZOS)
    img.alpha_composite(pic, (x, y))
    return y + pic.height


def _buttons(draw: ImageDraw.ImageDraw, view: discord.ui.View, x: int, y: int, room: int) -> int:
    """Draw the buttons and menus of ``view`` in their rows; the y below them."""
    font = _font(14)
    rows: dict[int, list[discord.ui.Item[discord.ui.View]]] = {}
    for item in view.children:
        rows.setdefault(item._rendered_row or 0, []).append(item)
    for _, items in sorted(rows.items()):
        cx = x
        for item in items:
            inner = getattr(item, "item", item)
            if isinstance(inner, discord.ui.Select):
                label = f"{inner.placeholder or ''}  ▾"
                draw.rounded_rectangle([x, y, x + room, y + 40 * SCALE], 4 * SCALE, fill=HEADER)
                draw.text((x + 12 * SCALE, y + 11 * SCALE), label, font=font, fill=MUTED)
                cx = x + room
                continue
            label = str(getattr(inner, "label", "") or "")
            w = int(font.getlength(label)) + 24 * SCALE
            if cx + w > x + room:
                cx, y = x, y + 40 * SCALE
            style = getattr(inner, "style", discord.ButtonStyle.secondary)
            colour = BUTTONS.get(style, GREY)
            draw.rounded_rectangle([cx, y, cx + w, y + 34 * SCALE], 4 * SCALE, fill=colour)
            draw.text((cx + 12 * SCALE, y + 8 * SCALE), label, font=font, fill=TEXT)
            cx += w + 8 * SCALE
        y += 42 * SCALE
    return y


def lobby_picture(game: _Game | None = None) -> bytes:
    """The lobby of a table in its thread: three people seated, one seat free."""
    from dokobot.adapters.discord.lobby import lobby_components, lobby_embed

    game = game or _game()
    news = [f"{name} joined ({n}/4)." for n, (name, _) in enumerate(game.lobby.seats, 1)]
    three = dataclasses.replace(game.lobby, seats=game.lobby.seats[:3])  # a seat still free
    screen = _Screen("# Doppelkopf · Anna")
    screen.parts += [
        _Embed(lobby_embed(three, news[:3], "en")),
        _Buttons(lobby_components(1, three, "en")),
    ]
    return screen.draw()


def board_screen(view: BoardView, news: Sequence[str], lang: str = "en") -> _Screen:
    """The board of ``view`` with its latest ``news`` as a phone shows it: the embed, the
    trick picture, "My cards" and (once the player on turn was reminded) the stand-in
    button."""
    from dokobot.adapters.discord.board import board_embed
    from dokobot.adapters.discord.board_messages import NEWS, _idle_name, trick_picture
    from dokobot.adapters.discord.buttons import DokoButton, table_view
    from dokobot.adapters.discord.i18n import text

    picture = view.images and bool(view.trick or view.last_trick)
    embed = board_embed(view, list(news)[-NEWS:], lang, picture=picture)
    buttons = table_view(1, text("my_hand", lang))
    idle = _idle_name(view)
    if idle is not None:
        buttons.add_item(DokoButton(1, "/standin", text("board_standin", lang, player=idle)))
    screen = _Screen("# Doppelkopf · Anna")
    screen.parts += [
        _Embed(embed, trick_png(trick_picture(view)) if picture else None),
        _Buttons(buttons),
    ]
    return screen


def board_picture(game: _Game | None = None) -> bytes:
    """The board in the table's thread, with its trick picture and "My cards"."""
    game = game or _game()
    return board_screen(game.board, game.news).draw()


def hand_picture(game: _Game | None = None) -> bytes:
    """Anna's "My cards" panel on her turn: her hand in two rows (the cards she may not play
    dimmed, their numbers under them), the prompt and its buttons (a call asks first)."""
    from dokobot.adapters.discord.buttons import choices_view

    game = game or _game()
    prompt = game.prompt
    picture = HandPicture(prompt.hand, prompt.groups, prompt.playable, prompt.lang)
    screen = _Screen("# Doppelkopf · Anna")
    screen.parts += [
        _Text("Only you can see this", 12, MUTED),
        _Picture(hand_png(picture)),
        _Text(prompt.text, 14),
    ]
    view = choices_view(1, prompt.choices, (1, 1))
    if view is not None:
        screen.parts.append(_Buttons(view))
    return screen.draw()


def pictures() -> dict[str, bytes]:
    """Every picture of the documentation by its file name."""
    game = _game()
    return {
        "discord-lobby.png": lobby_picture(game),
        "discord-board.png": board_picture(game),
        "discord-hand.png": hand_picture(game),
    }


def main(folder: str = "docs", names: Sequence[str] = ()) -> None:
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for name, png in pictures().items():
        if not names or name in names:
            (path / name).write_bytes(png)


if __name__ == "__main__":  # pragma: no cover
    main(*sys.argv[1:2])
