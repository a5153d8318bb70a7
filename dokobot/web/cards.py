"""Card pictures for the web pages: the faces of :mod:`dokobot.render`, served as PNG.

:func:`card_html` is the one place that puts a card on a page: an ``<img>`` of the card face
in the page's language, with the card's name as its text for screen readers and search.

>>> str(card_html(4, "en"))
'<img class="card" src="/card/en/4.png" width="54" height="78" alt="♣Q" title="♣Q">'
"""

from __future__ import annotations

from markupsafe import Markup, escape

from .. import languages
from ..host.i18n import card_text
from ..render.cards import HEIGHT, WIDTH

SCALE = 0.375
"""Cards are shown at three eighths of their drawn size (sharp on high-density screens)."""


def card_html(card: int, lang: str) -> Markup:
    """One card (0-47) as an HTML element."""
    label = escape(card_text(card, lang))
    lang = languages.known(lang)
    return Markup(
        '<img class="card" src="/card/{}/{}.png" width="{}" height="{}" alt="{}" title="{}">'
    ).format(lang, card, round(WIDTH * SCALE), round(HEIGHT * SCALE), label, label)
