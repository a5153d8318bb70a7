"""Pictures of cards, drawn by dokobot itself (no third-party card art).

:func:`trick_png` shows a trick with the players' names, :func:`hand_png` a hand,
:func:`card_png` one card; all return PNG bytes and are cached. What a picture shows is
described by :class:`HandPicture` and :class:`TrickPicture` (with the reader's language and
deck); adapters (Discord) and the web page use them, and draw new pictures in a worker thread
(:func:`drawn`).

>>> trick_png(TrickPicture(("a", "b", "c", "d"), ((0, 10), (1, 0))))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from dokobot.render.cards import DECKS, card_face, card_png
from dokobot.render.layout import HandPicture, TrickPicture
from dokobot.render.pictures import drawn, hand_png, prepare, trick_png

__all__ = [
    "DECKS",
    "HandPicture",
    "TrickPicture",
    "card_face",
    "card_png",
    "drawn",
    "hand_png",
    "prepare",
    "trick_png",
]
