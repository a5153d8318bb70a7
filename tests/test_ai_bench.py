"""Duplicate matches and the per-kind report of ``bench/ai.py``, on cheap players."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import random
import re
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from dokobot.ai import arena, make_player
from dokobot.ai.arena import (
    KINDS,
    PAIR_LAYOUTS,
    SINGLE_LAYOUTS,
    DuplicateGame,
    baseline_game,
    by_kind,
    game_kind,
    overall,
    play_duplicate,
    solo_deals,
    wedding_deals,
    worst_solo_lower,
)
from dokobot.ai.base import ComputerPlayer
from dokobot.engine import DEFAULT_RULES, Game, GameType, Observation, Phase
from dokobot.engine.cards import CLUB_QUEENS

LAYOUTS = SINGLE_LAYOUTS + PAIR_LAYOUTS


def _make(level: str, seed: int) -> ComputerPlayer:
    return make_player(level, seed=seed)


BENCH = Path(__file__).resolve().parent.parent / "bench"


def _bench(script: str = "ai") -> ModuleType:
    """``bench/<script>.py`` as a module."""
    path = BENCH / f"{script}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{script}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _baseline(deal: int) -> Game:
    """``normal`` in every seat on ``deal``: the same game in every test (seeded players)."""
    return baseline_game(_make, "normal", deal)


SOLO_DEALS = 4
"""The most solo deals a test asks for (:func:`_solo_deals`)."""


@functools.cache
def _first_solo_deals() -> tuple[int, ...]:
    out = solo_deals(_make, "normal", 0, SOLO_DEALS)
    assert len(out) == SOLO_DEALS
    for d in out:
        assert _baseline(d).game_type is GameType.SOLO
    return tuple(out)


def _solo_deals(n: int) -> list[int]:
    """The first ``n`` deals ``normal`` plays as a solo (:func:`solo_deals` looks from deal
    0 on and stops at the ``n``-th)."""
    assert n <= SOLO_DEALS
    return list(_first_solo_deals()[:n])


Duplicates = Callable[[int], tuple[DuplicateGame, ...]]


@pytest.fixture(scope="module")
def duplicates() -> Duplicates:
    """``easy`` against ``normal`` on a deal in every layout of :data:`LAYOUTS` (against
    :func:`_baseline`), played once for all the tests of this module: the games are the
    same in every test (seeded players; only their CPU times differ). Module scope keeps
    the tests on one xdist worker (``conftest.shared_setups``)."""

    @functools.cache
    def deal(d: int) -> tuple[DuplicateGame, ...]:
        return tuple(
            play_duplicate(_make, "easy", "normal", d, lay, _baseline(d)) for lay in LAYOUTS
        )

    return deal


def test_same_player_on_both_sides_scores_exactly_zero() -> None:
    """A deterministic player against itself: every game equals the baseline, in every
    layout and kind (the seeds of a seat agree between the A game and the baseline)."""
    games = [
        play_duplicate(_make, "normal", "normal", d, lay, _baseline(d))
        for d in range(6)
        for lay in LAYOUTS
    ]
    assert all(g.diff == 0.0 for g in games)
    assert overall(games).mean == 0.0


def test_solo_kinds_follow_the_soloist(duplicates: Duplicates) -> None:
    """In a deal the B players play as a solo, A in the soloist's seat makes it ``solo-A``
    (he plays it or declines it), A among the defenders ``solo-B``."""
    for deal in _solo_deals(3):
        base = _baseline(deal)
        soloist = base.declarer
        for lay, g in zip(LAYOUTS, duplicates(deal), strict=True):
            assert g.kind == ("solo-A" if soloist in lay else "solo-B")
            assert game_kind(base, base, lay) == g.kind


def test_per_kind_report(duplicates: Duplicates) -> None:
    """The kinds split the games; each kind's estimate is the mean over deals of the mean
    difference of its games there, with a 95 % interval from the spread over deals; the
    bench's table lists every kind with its games, and the worst solo bound is the lowest
    lower bound of the solo kinds."""
    deals = list(range(10)) + _solo_deals(4)
    games = [g for d in deals for g in duplicates(d)]
    kinds = by_kind(games)
    assert sum(kinds[k].games for k in KINDS) == len(games)
    assert {g.kind for g in games} >= {"normal-mixed", "solo-A", "solo-B"}
    for k in KINDS:
        mine = [g for g in games if g.kind == k]
        per: dict[int, list[float]] = {}
        for g in mine:
            per.setdefault(g.deal, []).append(g.diff)
        means = [statistics.fmean(v) for v in per.values()]
        e = kinds[k]
        assert e.games == len(mine) and e.deals == len(means)
        if len(means) > 1:
            half = 1.96 * statistics.stdev(means) / math.sqrt(len(means))
            assert math.isclose(e.mean, statistics.fmean(means))
            assert math.isclose(e.low, e.mean - half) and math.isclose(e.high, e.mean + half)
    assert worst_solo_lower(kinds) == min(kinds["solo-A"].low, kinds["solo-B"].low)
    bench = _bench()
    table = bench.kind_table(games)
    assert len(table) == 1 + len(KINDS)
    for k, line in zip(KINDS, table[1:], strict=True):
        assert line.split()[:2] == [k, str(kinds[k].games)]
    # the last line: extra solo deals count in the solo kinds, not in the overall figure
    extra = set(deals[10:])
    line = bench.final_line(games, extra, [0.5, 0.9, 1.0], [0.1, 0.2, 0.3])
    m = re.fullmatch(
        r"strong_vs_normal_ppg: (\S+) ci95: (\S+)\.\.(\S+) worst_kind_lower: (\S+) "
        r"budget_share_p50: (\S+) search_p95_s: (\S+)",
        line,
    )
    assert m is not None, line
    plain = overall([g for g in games if g.deal not in extra])
    assert float(m[1]) == round(plain.mean, 3) != round(overall(games).mean, 3)
    assert (float(m[2]), float(m[3])) == (round(plain.low, 3), round(plain.high, 3))
    assert float(m[4]) == round(worst_solo_lower(kinds), 3)
    assert (float(m[5]), float(m[6])) == (0.9, 0.3)


def test_normal_partners_needs_two_a_players_in_one_party(duplicates: Duplicates) -> None:
    games = [g for d in range(12) for g in duplicates(d)]
    for g in games:
        if g.kind == "normal-partners":
            assert len(g.a_seats) == 2
    assert any(g.kind == "normal-partners" for g in games)
    assert any(g.kind == "normal-mixed" and len(g.a_seats) == 2 for g in games)


def test_bock_rounds_double_both_sides_of_the_same_games() -> None:
    from dokobot.ai.arena import DuplicateGame, with_bock

    def game(deal: int, trigger: bool) -> DuplicateGame:
        return DuplicateGame(deal, (0,), "normal-mixed", 1.0, (), (), (), trigger)

    # deal 1 triggers: 2-5 are bock; deal 3 triggers during the run: 4 more, so 6-9 too
    games = [game(d, d in (1, 3)) for d in range(1, 12)]
    assert [g.diff for g in with_bock(games)] == [1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1]
    rules, bock = _bench().house_rules("poverty,piglets,bock,nines=off")
    assert (rules.poverty, rules.piglets, rules.nines, bock) == (True, True, False, True)
    # the options' own names and checks, German names too; nothing of its own
    assert _bench().house_rules("armut,hochzeitsstich=plain")[0].wedding_trick == "plain"
    with pytest.raises(SystemExit, match="wedding_trick"):
        _bench().house_rules("wedding_trick=second")
    with pytest.raises(SystemExit, match="no_nines"):
        _bench().house_rules("no_nines")
    # --house-rules: every house rule that is off in the plain game, on
    rules, bock = _bench().house_rules(_bench().all_house_rules())
    assert (rules.poverty, rules.throw_in, rules.piglets, rules.nines, bock) == (
        True,
        True,
        True,
        True,
        True,
    )


def test_paired_comparison_of_two_runs_on_the_same_seeds(
    tmp_path: Path, duplicates: Duplicates
) -> None:
    """``--save`` / ``--compare``: a run against itself changes nothing; a change is the per
    deal mean of this run's differences minus the saved ones over the layouts both played,
    counted in the kind of the saved game, with the interval from the spread over deals."""
    from dataclasses import replace

    from dokobot.ai.arena import paired

    games = [g for d in range(4) for g in duplicates(d)]
    bench = _bench()
    path = str(tmp_path / "run.json")
    bench.save_games(path, games)
    saved = bench.load_games(path)
    assert [(g.deal, g.a_seats, g.kind, g.diff) for g in saved] == [
        (g.deal, g.a_seats, g.kind, g.diff) for g in games
    ]
    same = paired(games, saved)
    assert same["all"].mean == same["all"].low == same["all"].high == 0.0
    assert same["all"].games == len(games) and same["all"].deals == 4
    # deal 0 one point better in one layout, deal 1 two points worse in another and of
    # another kind now; deal 3 only partly played
    changed = []
    for g in games:
        if (g.deal, g.a_seats) == (0, (1,)):
            g = replace(g, diff=g.diff + 1.0)
        elif (g.deal, g.a_seats) == (1, (0, 2)):
            g = replace(g, diff=g.diff - 2.0, kind="wedding")
        if g.deal != 3 or g.a_seats == (0,):
            changed.append(g)
    d = paired(changed, saved)
    n = len(LAYOUTS)
    means = [1.0 / n, -2.0 / n, 0.0, 0.0]
    assert d["all"].games == 3 * n + 1 and d["all"].deals == 4
    assert math.isclose(d["all"].mean, statistics.fmean(means))
    half = 1.96 * statistics.stdev(means) / 2.0
    assert math.isclose(d["all"].high - d["all"].mean, half)
    kind = next(g.kind for g in saved if (g.deal, g.a_seats) == (1, (0, 2)))
    assert d[kind].games == sum(
        1
        for g in changed
        if next(b.kind for b in saved if (b.deal, b.a_seats) == (g.deal, g.a_seats)) == kind
    )
    assert d["wedding"].games == sum(
        1 for g in saved if g.kind == "wedding" and (g.deal != 3 or g.a_seats == (0,))
    )
    table = bench.compare_table(changed, saved)
    assert table[1].split()[:3] == ["all", str(3 * n + 1), "4"]


def test_strong_settings_for_a_b_tests() -> None:
    """``--strong name=value``: typed after the parameter's default; an unknown name or a
    missing value is refused; the settings reach the strong player (and only it)."""
    bench = _bench()
    assert bench.strong_params("c=12, worlds=20,greedy=on") == (
        ("c", 12.0),
        ("worlds", 20),
        ("greedy", True),
    )
    for bad in ("colour=1", "c", "c="):
        try:
            bench.strong_params(bad)
        except SystemExit as e:
            assert "--strong" in str(e)
        else:
            raise AssertionError(f"{bad!r} accepted")
    strong = bench._make(0.05, True, (("worlds", 3), ("c", 7.0)), 0, "strong", 1)
    assert (strong.worlds, strong.c, strong.fixed, strong.seed) == (3, 7.0, True, 1)
    normal = bench._make(0.05, True, (("worlds", 3),), 0, "normal", 1)
    assert normal.name != "search"
    # --search-seed: other random choices for the strong player only
    step = bench.SEARCH_SEED_STEP
    assert bench._make(0.05, True, (), 2, "strong", 1).seed == 1 + 2 * step
    assert bench._make(0.05, True, (), 2, "normal", 1).seed == 1


def test_resume_journal_goes_on_where_a_run_stopped(tmp_path: Path, duplicates: Duplicates) -> None:
    """``--resume``: every finished game is on disk at once with all its figures; reopening
    gives them back (a line cut short by a crash is dropped and the file repaired), the wall
    time adds up, and a journal of a run with other options is refused."""
    import pytest

    bench = _bench()
    games = [g for d in range(2) for g in duplicates(d)]
    path = tmp_path / "run.jsonl"
    options: dict[str, object] = {"games": 12, "seed": 0, "budget": 0.45, "strong": ""}
    journal = bench.Journal(str(path), options)
    assert journal.done == {} and journal.wall_before == 0.0
    for i, g in enumerate(games[:7]):
        journal.add("search_vs_heuristic", g, 10.0 + i)
    # the process dies while writing the eighth game: nothing is closed, half a line written
    with path.open("a", encoding="utf-8") as f:
        f.write('{"match": "search_vs_heuristic", "deal": 1, "a_seats": [0, ')
    again = bench.Journal(str(path), options)
    assert set(again.done) == {("search_vs_heuristic", g.deal, g.a_seats) for g in games[:7]}
    for g in games[:7]:
        back = again.done[("search_vs_heuristic", g.deal, g.a_seats)]
        assert (back.kind, back.diff, back.a_choices, back.baseline_bock) == (
            g.kind,
            g.diff,
            g.a_choices,
            g.baseline_bock,
        )
        assert back.a_times == pytest.approx(g.a_times, abs=1e-6)
        assert len(back.b_times) == len(g.b_times)
    assert again.wall_before == 16.0
    again.add("search_vs_heuristic", games[7], 5.0)
    again.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 8  # the options, seven old games, the new one; no broken line
    third = bench.Journal(str(path), options)
    assert len(third.done) == 8 and third.wall_before == 21.0
    third.close()
    with pytest.raises(SystemExit, match="games 12 there, 18 here"):
        bench.Journal(str(path), {**options, "games": 18})


def test_budget_report_per_budget_and_last_line(duplicates: Duplicates) -> None:
    """``--budgets``: per budget strong - normal over deals with its interval, the strong
    seats' CPU per game and seat (all their turns) and per decision with a choice; then the
    paired change between each two budgets; extra solo deals count nowhere; the last line
    holds every budget."""
    from dataclasses import replace

    from dokobot.ai.arena import paired

    bench = _bench()
    low = [g for d in range(3) for g in duplicates(d)]
    # the larger budget: a point better on deal 0, twice the thinking on every turn
    high = [
        replace(
            g,
            diff=g.diff + (1.0 if g.deal == 0 else 0.0),
            a_times=tuple(2 * t + 0.01 for t in g.a_times),
        )
        for g in low
    ]
    extra_deal = play_duplicate(_make, "easy", "normal", 99, (0,))
    lines, last = bench.budget_lines({0.1: [*low, extra_deal], 0.2: high}, {99})
    assert len(lines) == 3
    m = re.fullmatch(
        r"budget 0\.1: (\S+) ci95: (\S+)\.\.(\S+) cpu_s_per_game: (\S+) "
        r"budget 0\.2: (\S+) ci95: (\S+)\.\.(\S+) cpu_s_per_game: (\S+)",
        last,
    )
    assert m is not None, last
    seats = sum(len(g.a_seats) for g in low)
    for i, games in ((1, low), (5, high)):
        e = overall(games)
        assert [float(m[i + k]) for k in range(3)] == [round(x, 2) for x in (e.mean, e.low, e.high)]
        cpu = sum(t for g in games for t in g.a_times) / seats
        assert float(m[i + 3]) == round(cpu, 2)
    assert overall(high).mean > overall(low).mean
    chosen = [t for g in high for t, c in zip(g.a_times, g.a_choices, strict=True) if c]
    assert f"{statistics.fmean(chosen):.3f} s per decision with a choice" in lines[1]
    assert f"{len(LAYOUTS) * 3} games" in lines[0] and "3 deals" in lines[0]
    step = paired(high, low)["all"]
    assert math.isclose(step.mean, 1.0 / 3)
    assert lines[2] == f"budget 0.2 s against 0.1 s, paired: {bench._ci(step)}"


@pytest.mark.long
def test_budgets_run_lifts_the_wall_cap_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``--budgets`` run plays every budget on the same deals and layouts and journals each
    budget's games apart: run again, it plays nothing and prints the same figures. Its
    searches stop on CPU time alone (a niced run on a busy machine waits for a core longer
    than the wall-clock cap of a live table)."""
    from dokobot.ai import budget, search

    bench = _bench()
    monkeypatch.setattr(budget, "WALL_CAP_BASE_S", budget.WALL_CAP_BASE_S)
    assert search.Budget(0.01).wall_stop < math.inf
    bench._lift_wall_cap()
    assert search.Budget(0.01).wall_stop == math.inf

    path = tmp_path / "run.jsonl"
    cmd = [
        sys.executable,
        str(BENCH / "ai.py"),
        *[
            "--budgets",
            "0.1,0.05",
            "--fixed",
            "--games",
            "4",  # one deal in the four single layouts
            "--layouts",
            "single",
            "--procs",
            "1",
            "--resume",
        ],
        str(path),
    ]
    first = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    played: dict[str, set[tuple[int, tuple[int, ...]]]] = {}
    for r in rows:
        played.setdefault(r["match"], set()).add((r["deal"], tuple(r["a_seats"])))
    assert set(played) == {"search_vs_heuristic@0.05", "search_vs_heuristic@0.1"}
    assert played["search_vs_heuristic@0.05"] == played["search_vs_heuristic@0.1"]
    assert len(played["search_vs_heuristic@0.1"]) == 4
    last = first.stdout.strip().splitlines()[-1]
    assert last.startswith("budget 0.05: ") and " budget 0.1: " in last
    # --budget plays no part in a --budgets run, nor in its journal
    again = subprocess.run([*cmd, "--budget", "0.3"], capture_output=True, text=True, check=True)
    assert "8 games from" in again.stderr
    assert again.stdout.strip().splitlines()[-1] == last


def test_sees_all_gives_the_strong_player_the_true_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench/sees_all.py``: while the arena plays, every deal the strong player samples is
    the true one (each seat's cards still in hand), the diagnostic ceiling; and its run ends
    with bench/ai.py's last line."""
    sees_all = _bench("sees_all")
    monkeypatch.setattr(arena, "observe", sees_all._observe_and_remember)
    monkeypatch.setattr(Observation, "sample_hands", sees_all._true_hands)
    seen: list[tuple[Observation, list[int]]] = []

    class Sampler:
        name = "sampler"

        def __init__(self, inner: ComputerPlayer) -> None:
            self.inner = inner

        def decide(self, obs: Observation) -> int:
            if obs.phase is Phase.PLAYING:
                seen.append((obs, obs.sample_hands(random.Random(0))))
            return self.inner.decide(obs)

        def announce(self, obs: Observation) -> int | None:
            return self.inner.announce(obs)

    players = [Sampler(make_player("normal", seed=s)) for s in range(4)]
    rec = arena.play_game(players, seed=5, dealer=1)  # type: ignore[arg-type]
    assert len(seen) == 48
    for obs, hands in seen:
        assert hands == [rec.game.start_hands[s] & ~obs.played_by()[s] for s in range(4)], (
            "not the true hands"
        )
    monkeypatch.undo()
    out = subprocess.run(
        [sys.executable, str(BENCH / "sees_all.py"), "--fixed", "--games", "6", "--budget", "0.01",
         "--only", "search_vs_heuristic", "--procs", "1", "--seed", "7"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert out.stdout.splitlines()[-1].startswith("strong_vs_normal_ppg: ")


def test_calls_bench_prices_a_call_by_the_score_without_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``bench/calls.py``: a party's calls are worth its score as played minus its score with
    no call (the real scoring, special points included, cancel); a party that did not call
    gets what its first call would have added; the last line has the figures."""
    from dokobot.engine import score

    calls = _bench("calls")
    seen = [0, 0]
    for deal in range(1, 40):
        g = arena.play_game([_make("normal", deal * 10 + s) for s in range(4)], seed=deal).game
        worth, missed = calls.call_worths(g)
        for party in range(2):
            seat = next(s for s in range(4) if (g.re_seats >> s & 1) == (party == 0))
            played = score(g).scores[seat]
            old = g.level[party]
            g.level[party] = 0 if old else 1
            other = score(g).scores[seat]
            g.level[party] = old
            if old:
                assert worth[party] == played - other and missed[party] == 0
                seen[party] += 1
            else:
                assert worth[party] is None and missed[party] == other - played
    assert all(seen), "some game of these deals has a Re and some a Kontra call"
    assert calls.main(["--level", "normal", "--games", "3", "--procs", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"games: 3 re_calls: \d\.\d\d re_worth: \S+ kontra_calls: \d\.\d\d kontra_worth: \S+ "
        r"call_points_per_game: [+-]\d+\.\d\d",
        last,
    ), last


def test_bench_examples_hold() -> None:
    """The examples in ``bench/ai.py`` (the match ``--save``/``--compare`` use, the house
    rules of ``--house-rules``) are true of the code."""
    import doctest

    result = doctest.testmod(_bench("ai"))
    assert result.attempted >= 4 and result.failed == 0


def test_wedding_deals_are_the_deals_with_both_club_queens_in_one_hand() -> None:
    """``--wedding-deals`` plays the deals in which a hand holds both ♣Q, in order, and
    only those."""
    found = wedding_deals(0, 12)
    assert found == sorted(found) and len(found) == 12
    for deal in range(found[-1] + 1):
        hands = Game.deal(DEFAULT_RULES, deal % 4, deal).hands
        both = any(h & CLUB_QUEENS == CLUB_QUEENS for h in hands)
        assert both == (deal in found), deal
    assert 12 / (found[-1] + 1) > 0.1  # (about one deal in four)
