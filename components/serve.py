"""``python -m components.serve run app.py …``: Streamlit's own command line (``streamlit run``), plus the
sample builds started as soon as the server runs, before any browser has connected.

``egx app`` execs this instead of ``python -m streamlit`` when the server builds the samples itself
(:mod:`components.startup`): Streamlit runs no code of the app until a session's first script run, so a server
started ten minutes before a lecture would otherwise build nothing until the first student opened it. A
watcher thread waits for Streamlit's runtime to exist, then starts the builds (once per server: the first
page run finds them started). Everything else is Streamlit's ``main``, in this process's main thread (its
signal handlers need it), so Ctrl-C and SIGTERM stop the server as ``streamlit run`` does.
"""

from __future__ import annotations

import sys
import threading
import time

#: Seconds the watcher waits for Streamlit's runtime before leaving the builds to the first page run.
RUNTIME_WAIT_S = 120.0


def _start_when_running() -> None:
    from streamlit.runtime import Runtime

    deadline = time.monotonic() + RUNTIME_WAIT_S
    while not Runtime.exists():
        if time.monotonic() > deadline:
            return  # the first page run starts them (components.frame)
        time.sleep(0.1)
    from components import startup

    startup.start_sample_builds()


def main() -> None:
    threading.Thread(target=_start_when_running, name="egx-start-builds", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    sys.argv[0] = "streamlit"
    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
