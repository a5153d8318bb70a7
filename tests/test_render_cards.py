"""Card pictures drawn by dokobot (dokobot.render): made for phones, read from the layout
data (what is placed and written where), not from pixels only."""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw

from dokobot.engine.cards import card_ascii
from dokobot.host.events import Input, Private
from dokobot.host.prompts import sorted_hand
from dokobot.host.router import Router
from dokobot.render import DECKS, HandPicture, TrickPicture, card_face, hand_png, trick_png
from dokobot.render.cards import (
    BIG_SIGN,
    BLACK,
    CORNER_SIGN,
    DEFAULT_DECK,
    EDGE_WIDTH,
    FELT,
    HEIGHT,
    INDEX_AT,
    INDEX_INK,
    INDEX_SIZE,
    INDEX_WIDTH,
    PAPER,
    RADIUS,
    RED,
    WIDTH,
    font,
    rank_letter,
    sign_box,
)
from dokobot.render.layout import (
    BOARD_ROOM,
    BOARD_WIDTH,
    FRAME,
    GOLD,
    GROUP_GAP,
    PHONE_SIGN,
    PHONE_TEXT,
    PHONE_WIDTH,
    ROW_ROOM,
    STEP,
    Layout,
    hand_layout,
    shown_size,
    text_font,
    trick_layout,
)
from dokobot.render.pictures import EMPTY, face_pieces, paint, shown_face

OLD_CARD = (72, 104)
"""A card's size before pictures were made for phones."""


def card(name: str) -> int:
    return next(c for c in range(48) if card_ascii(c) == name)


def centre(face: Image.Image) -> tuple[int, ...]:
    return tuple(face.getpixel(BIG_SIGN[:2]))


def test_red_hearts_and_diamonds_black_clubs_and_spades_in_the_classic_deck() -> None:
    for c in range(0, 48, 2):
        suit = card_ascii(c)[0]
        colour = centre(card_face(c, "en", "classic"))
        assert colour == (RED if suit in "HD" else BLACK), card_ascii(c)


def test_four_colour_and_german_decks_tell_every_suit_by_its_colour() -> None:
    for deck in ("four", "german"):
        colours = {centre(card_face(card(s + "A"), "en", deck)) for s in "CSHD"}
        assert len(colours) == 4, deck
        assert colours == set(DECKS[deck])
    assert centre(card_face(card("DA"), "en", "classic")) == centre(card_face(card("HA"), "en"))


def test_corner_letters_follow_the_language() -> None:
    assert card_face(card("CQ"), "de").tobytes() != card_face(card("CQ"), "en").tobytes()
    assert card_face(card("C9"), "de").tobytes() == card_face(card("C9"), "en").tobytes()


def test_one_upright_index_and_the_small_sign_keeps_off_the_big_one() -> None:
    # a 9 is never drawn upside down: the bottom right corner holds no letter, only paper
    # (or the big sign), so nothing there can read "6"
    nine = card_face(card("H9"), "en")
    corner = nine.crop((WIDTH - 40, HEIGHT - 22, WIDTH - 10, HEIGHT - 8))
    assert set(corner.get_flattened_data()) == {(252, 252, 248, 255)}
    # the widest letter fits its room, and no box of the corner touches the big sign's
    for c in range(0, 48, 2):
        for lang in ("en", "de"):
            assert font(INDEX_SIZE).getlength(rank_letter(c, lang)) <= INDEX_WIDTH
    small, big = sign_box(*CORNER_SIGN), sign_box(*BIG_SIGN)
    letter_bottom = INDEX_AT[1]
    assert small[3] + 4 <= big[1] or small[2] + 4 <= big[0]  # ♥K: no touching
    assert letter_bottom + 2 <= small[1]
    assert INDEX_AT[0] + INDEX_WIDTH + 4 <= STEP  # the next card of a hand leaves it visible


def turn_prompt() -> Private:
    """The turn prompt of the second player of a real game, after a plain suit was led that
    he holds (so some of his cards are illegal)."""
    for seed in range(1, 50):
        router = Router(seed=seed)
        for name in ("anna", "ben", "carl", "dora"):
            router.handle(Input("c", name, name.title(), "/join"))
        router.handle(Input("c", "anna", "Anna", "/start"))
        game = router.tables["c"].game
        assert game is not None
        for _ in range(4):
            user = router.tables["c"].seats[game.turn].user
            router.handle(Input("c", user, user, "/healthy"))
        lead = game.turn
        plain = [c for c in sorted_hand(game, game.hands[lead]) if card_ascii(c)[0] == "S"]
        plain = [c for c in plain if card_ascii(c)[1:] not in ("J", "Q")]
        if not plain:
            continue
        user = router.tables["c"].seats[lead].user
        events = router.handle(Input("c", user, user, f"/play {card_ascii(plain[0])}"))
        turn = next(e for e in events if isinstance(e, Private) and e.kind == "turn")
        if turn.playable is not None and 0 < len(turn.playable) < 12:
            return turn
    raise AssertionError("no seed gives a hand with illegal cards")


def test_a_12_card_hand_for_phones_two_rows_gaps_numbers_and_dimmed_cards() -> None:
    prompt = turn_prompt()
    hand, groups, legal = prompt.hand, prompt.groups, prompt.playable
    assert legal is not None and len(hand) == len(groups) == 12
    picture = HandPicture(hand, groups, legal, "de")
    layout = hand_layout(picture)
    # drawn at least twice the old size, in two rows
    assert 2 * OLD_CARD[0] <= WIDTH and 2 * OLD_CARD[1] <= HEIGHT
    assert len({p.y for p in layout.cards}) == 2
    png = Image.open(io.BytesIO(hand_png(picture)))
    assert png.size == (layout.width, layout.height)
    # the dimmed cards are exactly the illegal ones
    assert {p.card for p in layout.cards if p.dimmed} == set(hand) - set(legal)
    # numbers under the cards, as /play N takes them, left to right and top to bottom
    assert [lb.text for lb in layout.labels] == [str(n) for n in range(1, 13)]
    assert [p.card for p in sorted(layout.cards, key=lambda p: (p.y, p.x))] == list(hand)
    for placed, label in zip(layout.cards, layout.labels, strict=True):
        assert placed.x < label.x < placed.x + STEP and label.y >= placed.y + HEIGHT
    # a gap wherever trumps end or a plain suit does (within a row), and only there
    pairs = list(zip(layout.cards, layout.cards[1:], strict=False))
    for n, (a, b) in enumerate(pairs):
        if a.y == b.y:
            assert b.x - a.x == (STEP + GROUP_GAP if groups[n] != groups[n + 1] else STEP)
    assert any(groups[n] != groups[n + 1] for n in range(11))
    # not on his turn: nothing dimmed
    assert not any(p.dimmed for p in hand_layout(HandPicture(hand, groups)).cards)


def compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to cut ``n`` cards into ``parts`` groups in order."""
    if parts == 1:
        return [(n,)]
    return [(k, *rest) for k in range(1, n) for rest in compositions(n - k, parts - 1)]


def ink_heights(img: Image.Image, layout: Layout) -> list[tuple[int, int]]:
    """(letter, sign) ink heights in pixels of each card's top left corner in ``img``: the
    rows of the visible corner (left of the next card) that hold anything but paper, in two
    runs (the letter, then the small sign under it)."""
    rgb = img.convert("RGB")
    heights = []
    for placed in layout.cards:
        left, top = placed.x + EDGE_WIDTH + 5, placed.y + EDGE_WIDTH + 5  # off the round edge
        right, bottom = placed.x + STEP - 2, placed.y + HEIGHT // 2
        inked = [
            any(
                sum(abs(a - b) for a, b in zip(rgb.getpixel((x, y)), PAPER[:3], strict=True)) > 90
                for x in range(left, right)
            )
            for y in range(top, bottom)
        ]
        runs: list[int] = []
        for y, ink in enumerate(inked):
            if ink and (y == 0 or not inked[y - 1]):
                runs.append(0)
            if ink:
                runs[-1] += 1
        assert len(runs) >= 2, placed
        heights.append((runs[0], runs[1]))
    return heights


def test_corner_letters_and_signs_read_on_a_phone_294_px_wide() -> None:
    """Measured in the pictures: Discord shows a picture 294 px wide on a phone 360 px wide
    (272 inside the board's embed); a 12-card hand in one row showed letters 10 px high."""
    assert (PHONE_WIDTH, PHONE_TEXT, PHONE_SIGN) == (294, 16, 12)
    prompt = turn_prompt()
    pictures = [HandPicture(prompt.hand, prompt.groups, None, lang) for lang in ("en", "de")]
    jacks_solo = (0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4)  # the most groups: five
    pictures.append(HandPicture(prompt.hand, jacks_solo, None, "it", "german"))
    for picture in pictures:
        layout = hand_layout(picture)
        img = Image.open(io.BytesIO(hand_png(picture)))
        for letter, sign in ink_heights(img, layout):
            assert letter >= INDEX_INK
            assert shown_size(letter, layout.width) >= PHONE_TEXT, (letter, layout.width)
            assert shown_size(sign, layout.width) >= PHONE_SIGN, (sign, layout.width)
    names = ("Anna", "Ben", "Carl", "Dora")
    played = ((1, card("H10")), (2, card("CQ")), (3, card("DA")), (0, card("S9")))
    trick = TrickPicture(names, played, winner=2)
    layout = trick_layout(trick)
    img = Image.open(io.BytesIO(trick_png(trick)))
    for letter, sign in ink_heights(img, layout):
        assert shown_size(letter, layout.width, BOARD_WIDTH) >= PHONE_TEXT
        assert shown_size(sign, layout.width, BOARD_WIDTH) >= PHONE_SIGN
    # the layout keeps to it for every 12-card hand, however its suits are grouped
    for parts in range(1, 6):
        for sizes in compositions(12, parts):
            groups = tuple(g for g, size in enumerate(sizes) for _ in range(size))
            layout = hand_layout(HandPicture(tuple(range(12)), groups))
            assert layout.width <= ROW_ROOM, sizes
            assert shown_size(INDEX_INK, layout.width) >= PHONE_TEXT
    # two rows from 10 cards on, one row for a few
    for n in range(1, 13):
        groups = tuple(sorted(i % 4 for i in range(n)))
        rows = {p.y for p in hand_layout(HandPicture(tuple(range(n)), groups)).cards}
        assert len(rows) == (2 if n >= 10 else len(rows)) and (n > 6 or len(rows) == 1), n


def luminance(colour: tuple[int, ...]) -> float:
    """WCAG 2's relative luminance of an sRGB colour."""
    lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_suit_colour_reads_on_its_card() -> None:
    """WCAG's contrast ratio of at least 3:1 (large text and signs): the German deck's
    gold was 2.6:1, the four-colour deck's orange 2.9:1."""
    assert round(contrast((0, 0, 0), (255, 255, 255)), 1) == 21.0
    assert contrast((206, 150, 0), PAPER) < 3  # the old gold
    for deck, colours in DECKS.items():
        for colour in colours:
            assert contrast(colour, PAPER) >= 3, (deck, colour)
    # the default deck tells ♥ from ♦ (and every suit) by its colour
    assert len(set(DECKS[DEFAULT_DECK])) == 4


def test_no_hand_in_a_repr() -> None:
    prompt = turn_prompt()
    picture = HandPicture(prompt.hand, prompt.groups, prompt.playable, "en")
    for shown in (repr(prompt), repr(picture)):
        assert str(prompt.hand[0]) not in shown.replace("discord", ""), shown
        assert "hand" not in shown and "playable" not in shown and "cards" not in shown


def test_dimmed_cards_are_darker_in_the_picture() -> None:
    hand = (card("CQ"), card("SA"))
    png = Image.open(io.BytesIO(hand_png(HandPicture(hand, (0, 1), (card("CQ"),))))).convert("RGB")
    layout = hand_layout(HandPicture(hand, (0, 1), (card("CQ"),)))
    dark, light = layout.cards[1], layout.cards[0]
    below = (dark.x + WIDTH - 10, dark.y + 10), (light.x + 30, light.y + HEIGHT - 10)
    assert sum(png.getpixel(below[0])[:3]) < sum(png.getpixel(below[1])[:3]) - 200


def test_the_trick_shows_four_names_who_led_and_who_won() -> None:
    names = ("Anna", "Ben", "Carl", "Dora")
    played = ((1, card("H10")), (2, card("CQ")), (3, card("DA")), (0, card("S9")))
    picture = TrickPicture(names, played, winner=2, lang="en")
    layout = trick_layout(picture)
    assert layout.width <= BOARD_ROOM  # cards twice the old size, letters 16 px in an embed
    texts = [lb.text for lb in layout.labels]
    assert texts[:1] == ["Anna"] and all(n in texts for n in names)
    assert "led" in texts and "took it" in texts
    spots = {p.x: p for p in layout.cards}
    ordered = [spots[x] for x in sorted(spots)]
    assert [p.card for p in ordered] == [card("S9"), card("H10"), card("CQ"), card("DA")]
    assert [p.framed for p in ordered] == [False, False, True, False]
    led = next(lb for lb in layout.labels if lb.text == "led")
    assert ordered[1].x < led.x < ordered[1].x + WIDTH  # under Ben's card
    assert shown_size(INDEX_INK, layout.width, BOARD_WIDTH) >= PHONE_TEXT
    german = [lb.text for lb in trick_layout(TrickPicture(names, played[:2], lang="de")).labels]
    assert "kam raus" in german and "sticht" not in german  # no winner before it is taken
    empty = trick_layout(TrickPicture(names, played[:2]))
    assert [p.card for p in empty.cards].count(None) == 2  # places of those still to play
    img = Image.open(io.BytesIO(trick_png(picture)))
    assert img.format == "PNG" and img.size == (layout.width, layout.height)
    assert img.mode == "P"  # a palette picture: a third of the time to encode
    assert img.convert("RGBA").getpixel((2, 2)) == FELT


def test_repeated_renders_are_cached_and_equal_to_fresh_ones() -> None:
    picture = TrickPicture(("a", "b", "c", "d"), ((0, 2), (1, 4)))
    first = trick_png(picture)
    assert trick_png(picture) is first  # cached: the same bytes object
    hand = HandPicture((1, 3, 40), (0, 0, 1), lang="de", deck="four")
    png = hand_png(hand)
    hand_png.cache_clear()
    assert hand_png(hand) == png  # a fresh render draws the same picture
    assert hand_png(HandPicture((1, 3, 40), (0, 0, 1), "de", deck="classic")) != png  # deck


def test_the_docs_pictures_are_drawn_by_one_command_for_a_phone(tmp_path: Path) -> None:
    import re

    from dokobot.adapters.discord.preview import PHONE, SCALE, main

    main(str(tmp_path))
    page = (Path(__file__).resolve().parent.parent / "docs" / "discord.md").read_text("utf-8")
    shown = re.findall(r"\]\((discord-[a-z]+\.png)\)", page)
    assert sorted(shown) == ["discord-board.png", "discord-hand.png", "discord-lobby.png"]
    for name in shown:
        img = Image.open(tmp_path / name)
        assert img.format == "PNG" and img.width == PHONE * SCALE, name
        assert (Path(__file__).resolve().parent.parent / "docs" / name).exists()


def painted_one_by_one(layout: Layout) -> Image.Image:
    """``layout`` painted the plain way: every face pasted whole through its alpha, every
    label drawn by FreeType (what :func:`~dokobot.render.pictures.paint` does from its
    cached pieces)."""
    img = Image.new("RGB", (layout.width, layout.height), FELT[:3])
    draw = ImageDraw.Draw(img, "RGBA")
    for placed in layout.cards:
        x, y = placed.x, placed.y
        if placed.framed:
            box = [x - FRAME, y - FRAME, x + WIDTH - 1 + FRAME, y + HEIGHT - 1 + FRAME]
            draw.rounded_rectangle(box, RADIUS + FRAME, fill=GOLD)
        if placed.card is None:
            box = [x, y, x + WIDTH - 1, y + HEIGHT - 1]
            draw.rounded_rectangle(box, RADIUS, outline=EMPTY, width=3)
            continue
        face = shown_face(placed.card, layout.lang, layout.deck, placed.dimmed)
        img.paste(face, (x, y), face)
    for label in layout.labels:
        font = text_font(label.size)
        draw.text((label.x, label.y), label.text, font=font, fill=label.colour, anchor="mt")
    return img


def test_pictures_painted_from_cached_pieces_are_the_plain_ones_pixel_for_pixel() -> None:
    rng = random.Random(7)
    names = ["Anna", "Zoë", "Łukasz", "名前", "A" * 40, "Jürgen-Maximilian", "ok", "Ben"]
    layouts = []
    for n in range(60):
        deck, lang = rng.choice(sorted(DECKS)), rng.choice(["en", "de", "it", "cs"])
        if n % 2:
            cards = tuple(rng.sample(range(48), rng.randint(1, 12)))
            playable = tuple(c for c in cards if rng.random() < 0.4) if n % 4 == 1 else None
            groups = tuple(c // 12 for c in cards)
            layouts.append(hand_layout(HandPicture(cards, groups, playable, lang, deck)))
        else:
            seats = rng.sample(range(4), rng.randint(0, 4))
            played = tuple((s, rng.randrange(48)) for s in seats)
            winner = seats[0] if len(seats) == 4 else None
            trick = TrickPicture(tuple(rng.sample(names, 4)), played, winner, lang, deck)
            layouts.append(trick_layout(trick))
    assert any(c.dimmed for lay in layouts for c in lay.cards)
    assert any(c.framed for lay in layouts for c in lay.cards)
    for layout in layouts:
        assert paint(layout).tobytes() == painted_one_by_one(layout).tobytes()
    pieces = face_pieces(4, "en", "four", False)
    assert sum(mask is None for _, _, mask in pieces) == 3  # only the corners are masked
