"""Every script in ``bench/`` runs with its smallest settings and ends with the last line its
documentation (the script's docstring) promises.

The scripts run at the same time (most of their time is waiting: Discord's rate limits, a
PostgreSQL starting), each checked by its own test. A new script without an entry in
:data:`SMOKE` fails :func:`test_every_bench_script_has_a_smoke_run`.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dokobot.host.writes import KEEP_GAMES

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

SMOKE: dict[str, tuple[str, tuple[str, ...]]] = {
    # script: (its smallest settings, the names of its last line in order)
    "ai": (
        # strength per CPU second (sees_all below runs the single match of the same script)
        "--budgets 0.05,0.1 --games 2 --procs 1 --layouts single --fixed",
        ("budget 0.05", "ci95", "cpu_s_per_game", "budget 0.1", "ci95", "cpu_s_per_game"),
    ),
    "calls": (
        "--level strong --games 2 --budget 0.005 --fixed --procs 1",
        (
            "games",
            "re_calls",
            "re_worth",
            "kontra_calls",
            "kontra_worth",
            "call_points_per_game",
        ),
    ),
    "discord": (
        "--tables 1 --games 1 --speed 40",
        (
            "global_rps_per_table",
            "dm_per_game",
            "tables_at_50rps",
            "lost_prompts",
            "failed_interactions",
            "p99_ack_ms",
            "channel_messages_per_game",
            "stuck_tables",
            "unnoticed_turns",
            "pings_per_turn",
            "cpu_ms_per_press",
        ),
    ),
    "engine": ("--seconds 0.2", ("games/s",)),
    "handoff": (
        "--games 1 --identify-s 0.5",
        ("dm_presses", "ack_p99_ms", "applied_p50_ms", "applied_p99_ms", "down_notice_ms"),
    ),
    "house": (
        "--deals 200 --redeal-deals 40",
        (
            "redeal_pct",
            "always_pct",
            "ratio",
            "play_on_zero_at",
            "se",
            "take_gain_at_rule",
        ),
    ),
    "irc": (
        "--tables 1 --card-s 0 --flood-rate 50",
        ("irc_lines_per_card", "answer_p99_s", "prompt_delay_p99_s", "overtakes"),
    ),
    "host": (
        # one game more than a durable table keeps in memory (a series used to wait for ever)
        f"--tables 10 --commands 200 --series-tables 1 --series-games {KEEP_GAMES + 1}",
        ("commands/s", "p99_ms", "mb_per_1000_tables"),
    ),
    "restore": (
        "--tables 5 --running 2 --games 2",
        ("restore_s", "tables", "games", "rss_mb"),
    ),
    "review": (
        "--deals 1 --budget 0.01 --strong-budget 0.01 --ff-layouts 200",
        (
            "review_s_per_game",
            "mistakes_per_game random",
            "easy",
            "normal",
            "strong",
            "false_flags",
            "z_steps",
            "lost_per_game random",
            "easy",
            "normal",
            "strong",
            "lost_z_steps",
            "same_positions random",
            "easy",
            "normal",
            "strong",
            "same_z_steps",
        ),
    ),
    "review_queue": (
        # (not playing on while the review, at a lower priority, waits for a core)
        "--games 1 --budget 0.05 --max-s 120 --max-games 1",
        (
            "move_p99_ms off",
            "reviewing",
            "moves_reviewing",
            "review_cpu_s_per_person_game",
            "reviews",
        ),
    ),
    "sees_all": (
        "--games 4 --procs 1 --only search_vs_heuristic --layouts single --fixed --budget 0.005",
        ("strong_vs_normal_ppg", "ci95", "worst_kind_lower", "budget_share_p50", "search_p95_s"),
    ),
    "slow": (
        "--games 20 --spectators 2 --exports 5 --moves 5",
        ("move_p99_ms", "move_max_ms", "exports_taken", "busy"),
    ),
    "solo": (
        "--hands 1 --budget 0.005 --decide-budget 0.02",
        ("hands", "declared", "right_pct", "gain", "se", "normal_gain", "zero_at"),
    ),
    "stats": (
        "--games 200 --players 10 --queries 20",
        ("stats_p99_ms", "games"),
    ),
    "store": (
        "--tables 8 --seconds 1 --drivers 2",
        ("pg_actions_per_s", "pg_p99_ms", "sqlite_actions_per_s"),
    ),
    "train_inference": (
        "--games 2 --steps 5 --uniform-samples 2 --budget 0.005",
        (
            "positions",
            "cards",
            "train_s",
            "model_logloss",
            "uniform_logloss",
            "model_top1",
            "uniform_top1",
        ),
    ),
}
TIMEOUT_S = 180
GRACE_S = 15
"""Seconds a script stopped early (Ctrl-C) has to end what it started."""


def scripts() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py"))


def last_line(names: tuple[str, ...]) -> re.Pattern[str]:
    """``name: value name: value …`` with the names in order, nothing else."""
    return re.compile(" ".join(rf"{re.escape(n)}: \S+" for n in names))


def docstring(script: str) -> str:
    return ast.get_docstring(ast.parse((BENCH / f"{script}.py").read_text())) or ""


def test_every_bench_script_has_a_smoke_run() -> None:
    assert scripts() == sorted(SMOKE), (
        "every bench/ script needs an entry in SMOKE (its smallest settings and last line)"
    )


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_last_line_is_documented(script: str) -> None:
    """In the script's docstring (its ``--help``) and in docs/development.md's table."""
    doc = " ".join(docstring(script).split())
    for name in SMOKE[script][1]:
        assert f"{name}: " in doc, f"bench/{script}.py does not document {name!r}"
    rows = [
        line
        for line in (ROOT / "docs" / "development.md").read_text().splitlines()
        if line.startswith(f"| `python bench/{script}.py")
    ]
    assert rows, f"docs/development.md has no row for bench/{script}.py"
    assert f"`{SMOKE[script][1][0]}: " in rows[0] or "as `bench/" in rows[0], rows[0]


def start(command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``command`` in a process group of its own (see :func:`stop`), with Ctrl-C's default:
    a process started in the background by a shell (as CI may start the suite) inherits
    SIGINT ignored, and a script that ignores it never runs its ``finally``."""
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_default,
    )


def _ctrl_c_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(proc: subprocess.Popen[str]) -> None:
    """End a run that has not finished, and what it started: its process group gets Ctrl-C
    (SIGINT: a script's ``finally`` stops its bot processes and its PostgreSQL, which a
    SIGKILL of the script alone would leave running), and SIGKILL after :data:`GRACE_S`."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(GRACE_S)
    with contextlib.suppress(ProcessLookupError):  # the script's children too
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Every smoke run started at once."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = {
        name: start([sys.executable, str(BENCH / f"{name}.py"), *args.split()], env)
        for name, (args, _) in SMOKE.items()
        if (BENCH / f"{name}.py").exists()
    }
    try:
        yield procs
    finally:
        for proc in procs.values():
            stop(proc)


@pytest.mark.parametrize("script", sorted(SMOKE))
@pytest.mark.long
def test_bench_script_ends_with_its_last_line(
    script: str, runs: dict[str, subprocess.Popen[str]]
) -> None:
    proc = runs[script]
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop(proc)
        out, err = proc.communicate()
        pytest.fail(f"bench/{script}.py did not finish in {TIMEOUT_S} s:\n{err[-2000:]}")
    assert proc.returncode == 0, err[-3000:]
    lines = out.strip().splitlines()
    assert lines, f"bench/{script}.py printed nothing:\n{err[-2000:]}"
    assert last_line(SMOKE[script][1]).fullmatch(lines[-1]), lines[-1]


def test_a_run_stopped_early_ends_what_it_started(tmp_path: Path) -> None:
    """A script stopped before it ends (a timeout, or the session stopped) runs its
    ``finally`` (where the scripts stop their bot processes and PostgreSQL), and no process
    it started outlives it (``bench/handoff.py``'s two bot processes once did)."""
    done = tmp_path / "cleaned"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "try:\n"
        "    print(child.pid, flush=True)\n"
        "    time.sleep(120)\n"
        "finally:\n"
        f"    open({str(done)!r}, 'w').close()\n"
    )
    proc = start([sys.executable, "-c", script])
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    stop(proc)
    assert done.exists(), "the script's finally did not run"
    for _ in range(100):  # (the child's parent reaped it; else it is gone soon after)
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        stat = Path(f"/proc/{child}/stat").read_text()
        if stat[stat.rindex(")") + 2] == "Z":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"process {child} outlived the run")
