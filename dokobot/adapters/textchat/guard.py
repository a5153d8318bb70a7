"""What must not stop a chat: a failed request to its server is logged and swallowed."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator


@contextlib.contextmanager
def swallowed(log: logging.Logger, chat: str, what: str) -> Iterator[None]:
    """Log any exception of ``what`` (``"CHAT: WHAT failed: …"``, a warning) and swallow it:
    nothing stops the chat."""
    try:
        yield
    except Exception as exc:
        log.warning("%s: %s failed: %s", chat, what, exc)
