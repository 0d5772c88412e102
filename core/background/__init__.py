"""Work that runs beside the one asking for it: the app's job threads (jobs), the worker processes they watch
(workers) and the child processes that end with their owner (procs). On core.errors alone, so every layer may
use it; what runs inside a worker lives in :mod:`core.batch`."""
