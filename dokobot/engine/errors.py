"""Exceptions of the engine. All subclass :class:`ValueError`.

Each carries a stable ``reason`` key and ``params`` so that the host can say it in the
player's language; ``str(exc)`` is an English sentence for developers and logs.
"""

from __future__ import annotations

from typing import Any


class RuleError(ValueError):
    """Something the rules do not allow."""

    def __init__(self, reason: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.params: dict[str, Any] = params


class IllegalAction(RuleError):
    """An action that is not legal in the current state (wrong turn, card, deadline...)."""


class NotationError(RuleError):
    """A card name that is unknown or ambiguous."""
