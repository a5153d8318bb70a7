"""The bot's Discord token: from the environment only (it appears nowhere else)."""

from __future__ import annotations

import os
from typing import Final

TOKEN_ENV: Final = "DOKOBOT_DISCORD_TOKEN"


def resolve_token(token: str | None = None) -> str:
    """The bot token: ``token`` if given, else ``$DOKOBOT_DISCORD_TOKEN``."""
    token = token or os.environ.get(TOKEN_ENV, "")
    token = token.strip()
    if not token:
        raise RuntimeError(f"no Discord token: set the environment variable {TOKEN_ENV}")
    return token
