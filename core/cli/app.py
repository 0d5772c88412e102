"""``egx app``: become the Streamlit app's server at once; the server then builds the bundled samples itself.

The port answers within seconds on any machine: the samples (the demo first, then MuSiQue and what each
method keeps in them) are built by the server as background jobs that every page shows
(:mod:`components.startup`), instead of before the server starts — which kept the port closed for 9½ minutes
on a fresh machine. ``--no-prebuild`` builds nothing until a sample is picked; ``--build-first`` builds them
here first with terminal progress bars, as before (a script that wants them ready before the port opens).

The server replaces the ``egx`` process (``exec``) instead of running as its child: Ctrl-C, SIGTERM and a
supervisor's stop reach the server itself, which stops and, on its way out, cancels its background jobs
(:mod:`core.background.jobs`: their worker processes killed, their half-written output removed); nothing of the
prebuild (its models, a worker pool) stays in memory beside it; and no parent is left to be killed while
its child serves on.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from core.background.procs import interruptible
from core.cli.samples import app_embedder, build_samples
from core.cli_support import close_bars
from core.errors import EgxError

if TYPE_CHECKING:
    from core.cli_support import Subparsers

NAME = "app"
#: Set to 1 for the server `egx app` starts: the server builds the bundled samples itself (components/startup.py).
BUILD_SAMPLES_ENV = "EGX_APP_BUILD_SAMPLES"


def add_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    a = subparsers.add_parser(NAME, help="start the Streamlit app")
    a.add_argument("--port", type=_port, default=8501, help="TCP port, 1-65535 (default 8501)")
    a.add_argument("--address", default="127.0.0.1")
    when = a.add_mutually_exclusive_group()
    when.add_argument("--no-prebuild", dest="prebuild", action="store_false",
                      help="build nothing at start; a sample is built when first picked in the app (a background job)")
    when.add_argument("--build-first", action="store_true",
                      help="build the samples here with terminal progress bars before the server starts (the port "
                           "stays closed meanwhile); default: the server starts at once and builds them in the "
                           "background, shown in the app")
    return a


def app_path() -> Path:
    """The Streamlit entry point, ``app.py`` at the checkout's root."""
    return Path(__file__).resolve().parents[2] / "app.py"


@interruptible  # a `kill` during the prebuild cleans up like Ctrl-C
def run(args: argparse.Namespace) -> int:
    os.environ.pop(BUILD_SAMPLES_ENV, None)
    if args.prebuild and not args.build_first:  # the server builds them, after it has started
        os.environ[BUILD_SAMPLES_ENV] = "1"
        print(f"The bundled samples are built for the {app_embedder()} embedder by the server, in the background, "
              "the demo first (the app shows their progress; later starts only check them; --no-prebuild skips "
              "this, --build-first builds them here before the server starts)", file=sys.stderr)
    elif args.build_first:  # build the samples now, with a terminal bar, before the port opens
        print(f"Preparing the bundled samples for the {app_embedder()} embedder before the server starts "
              "(once; later starts only check them)", file=sys.stderr)
        try:
            for line in build_samples():
                print(line, file=sys.stderr)
        except EgxError as exc:
            close_bars(clear=True)
            print(f"egx: warning: the samples could not be prepared ({exc}); the app starts anyway and "
                  "builds them when they are picked.", file=sys.stderr)
    # Streamlit's own command line, plus: the server that builds the samples itself starts them as soon as it runs,
    # before any browser connects; and no first session shows pages/'s raw file list (components/serve.py)
    cmd = [sys.executable, "-m", "components.serve", "run", str(app_path()), "--server.port", str(args.port),
           "--server.address", args.address, "--browser.gatherUsageStats", "false",
           "--server.headless", "true",
           # file watching off: a lecture's server log once filled with tens of thousands of "Inotify queue
           # overflowed" lines from watching .venv/.egx/.cache
           "--server.fileWatcherType", "none",
           # no gc.collect(2) after every script run: each timed redraw of the job banner and panels is one,
           # and while a job ran they held the GIL a third of a second each (benchmarks/README.md)
           "--runner.postScriptGC", "false",
           # tracebacks (with server paths) go to this console, never to the browser
           "--client.showErrorDetails", os.environ.get("EGX_SHOW_ERROR_DETAILS", "none")]
    print(f"Starting Evidence Graph Explorer on http://{args.address}:{args.port}", file=sys.stderr)
    # Offline mode is not forced: the bundled models never touch the hub, and an explicit hub id
    # (st:<id>, cross-encoder:<id>) may download when the network allows (core/backends/hub.py).
    return serve(cmd)


def serve(cmd: list[str]) -> int:
    """Run the server command ``cmd`` in place of this process (POSIX ``exec``: never returns), after ending
    what this process started (the prebuild's worker pool, its resource tracker), which would otherwise live
    on as the server's unknown children. Where there is no ``exec`` (Windows), run it as a child and return
    its exit status."""
    from core.background.procs import kill_tree

    kill_tree(os.getpid(), include_self=False)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(cmd[0], cmd)
    return subprocess.call(cmd, env=dict(os.environ))


def _port(text: str) -> int:
    """``--port``: an integer 1-65535 (argparse reports anything else as a usage error, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number; give an integer 1-65535") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is out of range; give a port 1-65535")
    return port
