"""Pictures (PNG, matplotlib's headless Agg backend): a series' running totals and a
player's rating over time. Callers pass every label already in the reader's language."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def _figure() -> tuple[Figure, Axes]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 3.8), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.grid(True, alpha=0.3)
    return fig, ax


def _games_axis(ax: Axes, label: str) -> None:
    """The x axis counts games: whole numbers only (no tick at 1.25)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(label)


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def totals_chart(
    games: Sequence[int],
    totals: Sequence[Sequence[int]],
    names: Sequence[str],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
) -> bytes:
    """Each seat's running total after each game (``totals[i][seat]`` after ``games[i]``)."""
    fig, ax = _figure()
    xs = [0, *games]
    for seat, name in enumerate(names):
        ys = [0, *(t[seat] for t in totals)]
        ax.step(xs, ys, where="post", label=name, color=_COLOURS[seat % 4], linewidth=2)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_title(title)
    _games_axis(ax, xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best")
    return _png(fig)


def rating_chart(
    history: Sequence[tuple[float, float, float]], *, title: str, xlabel: str, ylabel: str
) -> bytes:
    """Skill (mu) with a band of one uncertainty (sigma) after each rated game."""
    fig, ax = _figure()
    xs = list(range(1, len(history) + 1))
    mu = [h[1] for h in history]
    lo = [h[1] - h[2] for h in history]
    hi = [h[1] + h[2] for h in history]
    ax.fill_between(xs, lo, hi, color=_COLOURS[0], alpha=0.2)
    ax.plot(xs, mu, color=_COLOURS[0], linewidth=2)
    ax.set_title(title)
    _games_axis(ax, xlabel)
    ax.set_ylabel(ylabel)
    return _png(fig)
