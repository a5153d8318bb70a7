"""The number of trumps without nines (RULES §12.5): 24 in a normal game, not the contract's
"22". Only the ♦9 pair leaves the trumps: ♥10, the four queens, the four jacks, ♦A ♦10 ♦K,
two of each. The engine counts them, and docs/rules.md and docs/variants.md say so."""

from __future__ import annotations

import re
from pathlib import Path

from dokobot.engine import HEALTHY, Game, Phase, Rules, parse_cards
from dokobot.engine.order import TRUMP
from dokobot.engine.types import DECLARE_SOLO, RESERVATION, GameType, Solo

DOCS = Path(__file__).resolve().parent.parent / "docs"
NORMAL_TRUMP_KINDS = parse_cards("H10 CQ SQ HQ DQ CJ SJ HJ DJ DA D10 DK")


def trumps_in_play(g: Game) -> int:
    """The trumps of ``g``'s order among the cards dealt."""
    return (g.scheme.class_mask[TRUMP] & g.rules.deck).bit_count()


def test_a_normal_game_without_nines_has_24_trumps() -> None:
    rules = Rules(nines=False)
    for seed in range(8):
        g = Game.deal(rules, 3, seed)
        for _ in range(4):
            g.play(g.turn, HEALTHY)
        assert g.phase is Phase.PLAYING
        assert g.game_type in (GameType.NORMAL, GameType.SILENT_WEDDING)
        assert trumps_in_play(g) == 24
        trumps = g.scheme.class_mask[TRUMP] & rules.deck
        assert sorted({c >> 1 for c in range(48) if trumps >> c & 1}) == sorted(NORMAL_TRUMP_KINDS)
    # With nines the ♦9 pair makes 26.
    g = Game.deal(Rules(), 3, 0)
    for _ in range(4):
        g.play(g.turn, HEALTHY)
    assert trumps_in_play(g) == 26


def test_solos_without_nines_lose_only_their_nines() -> None:
    expected = {Solo.DIAMONDS: 24, Solo.CLUBS: 24, Solo.HEARTS: 22, Solo.QUEENS: 8}
    for solo, count in expected.items():
        g = Game.deal(Rules(nines=False), 3, 1)
        g.play(g.turn, RESERVATION)
        for _ in range(3):
            g.play(g.turn, HEALTHY)
        g.play(g.turn, DECLARE_SOLO + solo)
        assert g.solo is solo and trumps_in_play(g) == count, solo


def test_the_docs_state_24_trumps_without_nines() -> None:
    for name in ("rules.md", "variants.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        said = re.findall(r"(\d+)\s+trumps\s+in\s+a\s+normal\s+game\s+without\s+nines", text)
        assert said == ["24"], (name, said)
