"""The spaCy extractor's worker pool ends with its job: on :meth:`SpacyExtractor.close`, when the extractor
is dropped, at once when the extraction is interrupted (Ctrl-C, a ``kill`` turned into an interrupt); and
its workers leave Ctrl-C to the extracting process. (That they end when that process is killed outright is
tested on ``egx index``: ``tests/cli/test_index_endings.py``.)

multiprocessing's resource tracker is a child of the extracting process too, but one per process for its
whole life (it ends when its last user does): here, where the extracting process is the test run itself,
only the pool's workers are counted.
"""

from __future__ import annotations

import gc
import os
import signal
import threading

import pytest

from core.backends.spacy_extractor import SpacyExtractor
from core.background.procs import descendants, describe, wait_gone
from tests.procs_support import GONE_S, START_S, kind, wait_until

pytestmark = pytest.mark.slow

PASSAGE = "Lothair II\nLothair II was a king of Lotharingia. His mother was Ermengarde of Tours."


def _pool() -> list[object]:
    return [p for p in descendants() if kind(p) == "pool"]


def _gone(how: str) -> None:
    left = wait_gone(_pool, GONE_S)
    assert not left, f"after {how}, pool workers still running: {describe(left)}"


def test_close_and_dropping_the_extractor_end_its_workers() -> None:
    two = SpacyExtractor(batch_size=2, n_process=2)
    assert two.extract_detailed([PASSAGE] * 8).notes == ()
    assert len(_pool()) == 2
    two.close()
    _gone("close()")
    two.extract([PASSAGE] * 8)  # the next large call starts them again
    assert len(_pool()) == 2
    del two
    gc.collect()
    _gone("dropping the extractor")


def test_an_interrupted_extraction_kills_the_workers_at_once() -> None:
    two = SpacyExtractor(batch_size=2, n_process=2)
    passages = [PASSAGE] * 4000  # minutes of parsing: only the interrupt ends it in time

    def interrupt_when_busy() -> None:
        wait_until(lambda: len(_pool()) == 2, START_S, "two pool workers")
        os.kill(os.getpid(), signal.SIGINT)  # a real signal: it wakes the main thread's wait for the batches

    threading.Thread(target=interrupt_when_busy, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        two.extract(passages)
    assert two._pool is None
    _gone("an interrupted extraction")
    assert two.extract_detailed([PASSAGE] * 8).notes == ()  # and the extractor still works
    two.close()


def test_workers_leave_ctrl_c_to_the_extracting_process() -> None:
    """A terminal's Ctrl-C reaches every process of its group: the workers ignore it (the extracting process
    stops them itself), so one that gets it keeps working instead of dying mid-batch."""
    two = SpacyExtractor(batch_size=2, n_process=2)
    try:
        want = two.extract_detailed([PASSAGE] * 8)
        workers = _pool()
        for p in workers:
            os.kill(p.pid, signal.SIGINT)
        got = two.extract_detailed([PASSAGE] * 8)
        assert got == want and got.notes == ()  # no "worker processes stopped" fallback note
        assert sorted(p.pid for p in _pool()) == sorted(p.pid for p in workers)
    finally:
        two.close()


def test_cancel_of_an_app_job_stops_an_extraction_in_its_thread_at_once() -> None:
    """A build in the server's own process (``EGX_BUILD_ISOLATED=0``) used to see its Cancel only after the
    batch its pool was parsing; the wait for the pool now reads the job's cancel."""
    from core.background.jobs import JobManager
    from core.errors import Cancelled

    two = SpacyExtractor(batch_size=2, n_process=2)
    job = JobManager().submit("x", "Extract", lambda j: two.extract([PASSAGE] * 4000))
    wait_until(lambda: len(_pool()) == 2, START_S, "two pool workers")
    job.cancel()
    assert job.wait(30) and job.status().state == "cancelled"
    with pytest.raises(Cancelled):
        job.result()
    _gone("the Cancel of the job it ran in")
