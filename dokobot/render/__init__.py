"""Pictures of cards, drawn by dokobot itself (no third-party card art).

:func:`trick_png` shows the cards on the table, :func:`hand_png` a hand, :func:`card_png` one
card; all return PNG bytes and are cached. Adapters (Discord) and the web page use them.

>>> trick_png((10, 0), "en")[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from dokobot.render.cards import card_face, card_png, hand_png, trick_png

__all__ = ["card_face", "card_png", "hand_png", "trick_png"]
