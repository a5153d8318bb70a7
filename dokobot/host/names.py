"""Display names: labels normalised so that two seats never look alike.

A display name is only a label (identities are platform user ids). It is normalised with
NFKC, loses control, format (zero-width, bidi) and unassigned characters, has its white
space folded to single spaces and is cut to :data:`MAX_NAME` characters. Two names that are
equal after case folding are the same name at a table.

>>> display_name("  anna\\u200b ")
'anna'
>>> display_name("\\uff41\\uff4e\\uff4e\\uff41")  # fullwidth letters
'anna'
>>> name_key("Anna") == name_key("ANNA\\u200d")
True
>>> display_name("\\u202e\\x07")
'player'
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME: Final = 32
"""Longest display name kept (longer names are cut)."""

_DROP: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
"""Unicode categories removed from names: control, format, surrogate, private, unassigned."""


def display_name(raw: str, fallback: str = "player") -> str:
    """``raw`` as a clean label (``fallback`` when nothing printable is left)."""
    text = unicodedata.normalize("NFKC", raw)
    kept = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in _DROP)  # fmt: skip
    name = " ".join(kept.split())[:MAX_NAME].strip()
    return name or fallback


def name_key(name: str) -> str:
    """The key under which two names count as the same at one table."""
    return display_name(name, fallback="").casefold()
