"""A stand-in for the app's server in the process tests: one :class:`~core.background.jobs.JobManager` whose job runs in a
worker process, waited on by the main thread.

Like Streamlit's server it stops on Ctrl-C and on SIGTERM (:func:`core.background.procs.terminate_as_interrupt`) and
then exits normally, which is when the jobs still running are cancelled (:mod:`core.background.jobs`); SIGKILL ends it
with no cleanup at all.

``python -m tests.job_owner build INPUT TARGET`` builds a workspace (:func:`core.index.isolated.build_isolated`);
``python -m tests.job_owner quiet`` runs a probe that reports nothing for ten minutes (a worker that only
learned of its server's end when its next progress line met a closed pipe would run that long). It prints
``running`` once the job started, then the job's final state.
"""

from __future__ import annotations

import sys

from core.background.jobs import Job, JobManager
from core.background.procs import terminate_as_interrupt
from core.background.workers import Words, run_worker
from core.index.isolated import BuildSpec, build_isolated


def main(argv: list[str]) -> int:
    what, *args = argv
    if what == "build":
        spec = BuildSpec(inputs=(args[0],), target=args[1], name="owned", embedder="hashing")

        def work(j: Job) -> object:
            return build_isolated(spec, progress=j.progress, cancel=j.cancel_event)
    else:
        def work(j: Job) -> object:
            return run_worker("probe", {"steps": 1, "sleep": 600}, words=Words("The probe", "Nothing was saved."),
                              progress=j.progress, cancel=j.cancel_event)
    jobs = JobManager()
    with terminate_as_interrupt():
        job = jobs.submit(what, what, work, kind=what)
        print("running", flush=True)
        try:
            job.wait()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            return 130
    print(job.status().state, job.status().error, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
