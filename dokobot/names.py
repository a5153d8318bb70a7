"""Display names: labels normalised so that two seats never look alike.

A display name is only a label (identities are platform user ids). It is normalised with
NFKC, loses control, format (zero-width, bidi), surrogate and unassigned characters, has its
white space folded to single spaces and is cut to :data:`NAME_LIMIT` characters. Two names
that are equal after case folding are the same name at a table.

>>> normalize_name("  \uff41\uff4e\uff4e\uff41\u200b\t (dm) "), normalize_name("\u200b")
('anna (dm)', 'player')
>>> normalize_name("Dr: Who"), normalize_name("\u202e\x07")
('Dr: Who', 'player')
>>> name_key("Anna") == name_key("ANNA\u200d")
True
"""

from __future__ import annotations

import unicodedata
from typing import Final

NAME_LIMIT: Final = 32
"""Longest display name kept (longer names are cut)."""

_DROPPED: Final = frozenset(("Cc", "Cf", "Cs", "Cn"))
"""Control, format (zero-width), surrogate and unassigned characters never enter a name."""


def normalize_name(name: str, fallback: str = "player") -> str:
    """A display name as the table shows it (``fallback`` when nothing printable is left).
    Applying it twice changes nothing."""
    out = name
    for _ in range(8):
        prev = out
        out = unicodedata.normalize("NFKC", out)
        out = "".join(
            " " if c.isspace() else c
            for c in out
            if c.isspace() or unicodedata.category(c) not in _DROPPED
        )
        out = " ".join(out.split())[:NAME_LIMIT].strip()
        if out == prev:
            break
    return out or fallback


def name_key(name: str) -> str:
    """The key under which two names count as the same at one table."""
    return normalize_name(name, fallback="").casefold()
