"""Card pictures for the web pages.

:func:`card_html` is the one place that draws a card; it can later return an ``<img>`` of
the Discord card renderer instead of this styled text.

>>> str(card_html(4, "en"))
'<span class="card black" title="♣Q">♣Q</span>'
"""

from __future__ import annotations

from markupsafe import Markup, escape

from ..host.i18n import card_text

RED_SUITS = (2, 3)
"""♥ and ♦ (suit index = kind // 6)."""


def card_html(card: int, lang: str) -> Markup:
    """One card (0-47) as an HTML element."""
    label = card_text(card, lang)
    colour = "red" if (card >> 1) // 6 in RED_SUITS else "black"
    return Markup('<span class="card {}" title="{}">{}</span>').format(
        colour, escape(label), escape(label)
    )
