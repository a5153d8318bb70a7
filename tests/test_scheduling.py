"""The xdist scheduler of tests/conftest.py: what one worker sets up once stays on one
worker (the bench scripts, the wheel, the homeserver)."""

from __future__ import annotations

from pathlib import Path

from conftest import shared_setups

TESTS = Path(__file__).resolve().parent


def test_tests_that_share_a_setup_run_on_one_worker() -> None:
    shared = shared_setups(TESTS)
    # a fixture of module scope: the module is one unit
    assert shared["tests/test_bench_smoke.py"] == "tests/test_bench_smoke.py"
    assert shared["tests/test_packaging.py"] == "tests/test_packaging.py"
    # the homeserver (one per worker): every module that uses it is one unit
    assert shared["tests/test_matrix_e2e.py"] == shared["tests/test_matrix_server.py"]
    assert shared["tests/test_matrix_e2e.py"] == "synapse"
    # the others: each test a unit of its own
    assert "tests/test_absence.py" not in shared
    assert "tests/test_scheduling.py" not in shared
