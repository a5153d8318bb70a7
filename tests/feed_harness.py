"""`dokobot feed` as a child process, and killing it after a number of acknowledged lines
(the crash tests of test_durability.py and test_feed.py)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def feed(script: Path, store: Path | str, start: int) -> subprocess.Popen[str]:
    """``dokobot feed SCRIPT --store STORE --from START --json``, unbuffered."""
    return subprocess.Popen(
        [sys.executable, "-m", "dokobot.cli", "feed", str(script), "--store", str(store),
         "--from", str(start), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


def kill_after_acks(
    proc: subprocess.Popen[str], target: int, rng: random.Random, max_delay: float
) -> tuple[list[str], int, bool]:
    """Read ``proc``'s output; after ``target`` ACK lines (and a random delay up to
    ``max_delay`` seconds) kill it with SIGKILL. Returns (every line it printed, the highest
    line acknowledged, whether it was killed); a run that ends on its own with an error
    fails the test with its standard error."""
    assert proc.stdout is not None
    lines: list[str] = []
    seen = 0
    killed = False
    for out in proc.stdout:
        lines.append(out)
        if out.startswith("ACK "):
            seen += 1
            if seen >= target:
                time.sleep(rng.uniform(0, max_delay))
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
    proc.wait()
    lines += proc.stdout.readlines()
    proc.stdout.close()
    err = ""
    if proc.stderr is not None:
        err = proc.stderr.read()
        proc.stderr.close()
    # A restart that fails by itself would be run again and again without progress, and the
    # test would only say that the feed never finished: say why at once instead.
    assert killed or proc.returncode == 0, f"feed exited {proc.returncode}: {err[-4000:]}"
    acked = max((int(x.split()[1]) for x in lines if x.startswith("ACK ")), default=0)
    return lines, acked, killed
