"""The xdist scheduler of tests/conftest.py: what one worker sets up once stays on one
worker (the bench scripts, the wheel, the homeserver)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import long_first, shared_setups, unit_of

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


def test_the_units_with_the_most_long_tests_start_first() -> None:
    shared = {
        "tests/test_b.py": "tests/test_b.py",
        "tests/test_m1.py": "m",
        "tests/test_m2.py": "m",
    }
    tests = [
        ("tests/test_a.py::test_1", False),
        ("tests/test_a.py::test_2", True),
        ("tests/test_b.py::test_1", False),
        ("tests/test_b.py::test_2", True),
        ("tests/test_b.py::test_3", True),
        ("tests/test_c.py::test_1", False),
        ("tests/test_m1.py::test_1", True),
        ("tests/test_d.py::test_1", True),
        ("tests/test_m2.py::test_1", False),
    ]
    assert long_first(tests, shared) == [
        # the module of two long tests, whole and in order
        "tests/test_b.py::test_1",
        "tests/test_b.py::test_2",
        "tests/test_b.py::test_3",
        # one long test each, in the collection's order: a unit of two modules together
        "tests/test_a.py::test_2",
        "tests/test_m1.py::test_1",
        "tests/test_m2.py::test_1",
        "tests/test_d.py::test_1",
        # the others, as collected
        "tests/test_a.py::test_1",
        "tests/test_c.py::test_1",
    ]


def test_the_bench_scripts_and_the_homeserver_start_first(request: pytest.FixtureRequest) -> None:
    """In this session's collection (the order both workers send to the scheduler)."""
    shared = shared_setups(TESTS)
    units = list(dict.fromkeys(unit_of(item.nodeid, shared) for item in request.session.items))
    if {"tests/test_bench_smoke.py", "synapse"} <= set(units):  # (the suite, not one file)
        assert units[:2] == ["tests/test_bench_smoke.py", "synapse"]
