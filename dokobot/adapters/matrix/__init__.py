"""Matrix adapter (see :mod:`dokobot.adapters.matrix.adapter`)."""

from .adapter import MatrixAdapter, run_matrix
from .settings import TOKEN_ENV, MatrixSettings

__all__ = ["TOKEN_ENV", "MatrixAdapter", "MatrixSettings", "run_matrix"]
