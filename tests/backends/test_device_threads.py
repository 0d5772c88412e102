"""CPU threads for the model backends: the variables first, else the cores other processes leave free.

The load average, the runnable tasks, the affinity and this process's own load are injected, so nothing
here depends on the machine (``running=99`` leaves the load average in charge).
"""

from __future__ import annotations

import pytest

from core.backends.device import cpu_threads, free_cpus
from core.errors import BackendError


@pytest.fixture
def no_thread_vars(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in ("EGX_THREADS", "EGX_ONNX_THREADS", "EGX_LLM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_an_idle_machine_gives_every_cpu_of_the_mask(no_thread_vars) -> None:
    assert cpu_threads(affinity=2, load=0.2, running=99, machine_cpus=2, own_load=0.0) == 2
    assert cpu_threads(affinity=16, load=0.0, running=99, machine_cpus=16, own_load=0.0) == 16


def test_other_processes_load_takes_its_cores_away(no_thread_vars) -> None:
    # one busy process beside us on 2 cores: one thread (the case that ran 2-3x slower with 2)
    assert cpu_threads(affinity=2, load=1.0, running=99, machine_cpus=2, own_load=0.0) == 1
    assert cpu_threads(affinity=8, load=3.0, running=99, machine_cpus=8, own_load=0.0) == 5
    # rounded to the nearest core: a core busy less than half the time still counts as free
    assert free_cpus(2, 0.4, 2) == 2 and free_cpus(2, 0.6, 2) == 1


def test_never_fewer_than_one_nor_more_than_the_mask(no_thread_vars) -> None:
    assert cpu_threads(affinity=2, load=40.0, running=99, machine_cpus=2, own_load=0.0) == 1
    assert cpu_threads(affinity=1, load=0.0, running=99, machine_cpus=1, own_load=0.0) == 1
    assert free_cpus(4, 0.0, 2) == 4  # a mask wider than a wrong machine count is not shrunk by it
    assert free_cpus(0, 0.0, 0) == 1


def test_the_load_is_shared_over_the_whole_machine(no_thread_vars) -> None:
    """A 4-CPU mask on a 64-CPU machine carries 4/64 of the machine's load."""
    assert cpu_threads(affinity=4, load=32.0, running=99, machine_cpus=64, own_load=0.0) == 2
    assert cpu_threads(affinity=4, load=8.0, running=99, machine_cpus=64, own_load=0.0) == 4


def test_this_process_own_load_is_not_counted_as_others(no_thread_vars) -> None:
    assert cpu_threads(affinity=2, load=1.9, running=99, machine_cpus=2, own_load=1.9) == 2
    assert cpu_threads(affinity=2, load=1.9, running=99, machine_cpus=2, own_load=0.8) == 1
    assert free_cpus(2, 0.5, 2, own_load=3.0) == 2  # own load above the average never adds cores


def test_a_job_that_has_just_ended_does_not_hold_cores_for_a_minute(no_thread_vars) -> None:
    """The 1-minute average lags; the run queue right now (which counts the reader) does not."""
    assert cpu_threads(affinity=2, load=2.5, running=1, machine_cpus=2, own_load=0.0) == 2
    assert cpu_threads(affinity=2, load=2.5, running=2, machine_cpus=2, own_load=0.0) == 1
    # a burst caught in the snapshot does not count beyond what the average says
    assert cpu_threads(affinity=2, load=0.2, running=3, machine_cpus=2, own_load=0.0) == 2


def test_the_variables_come_first_in_their_order(no_thread_vars) -> None:
    busy = {"affinity": 2, "load": 9.0, "running": 9, "machine_cpus": 2, "own_load": 0.0}
    no_thread_vars.setenv("EGX_THREADS", "3")
    assert cpu_threads("EGX_ONNX_THREADS", **busy) == 3
    no_thread_vars.setenv("EGX_ONNX_THREADS", "4")
    assert cpu_threads("EGX_ONNX_THREADS", **busy) == 4
    assert cpu_threads("EGX_LLM_THREADS", **busy) == 3


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_a_bad_variable_names_itself_and_its_value(no_thread_vars, raw: str) -> None:
    no_thread_vars.setenv("EGX_ONNX_THREADS", raw)
    with pytest.raises(BackendError, match=f"EGX_ONNX_THREADS must be a positive integer, got '{raw}'"):
        cpu_threads("EGX_ONNX_THREADS", affinity=2, load=0.0, running=99, machine_cpus=2, own_load=0.0)


def test_reading_the_machine_gives_a_count_within_the_mask(no_thread_vars) -> None:
    import os

    n = cpu_threads()
    assert 1 <= n <= len(os.sched_getaffinity(0))
