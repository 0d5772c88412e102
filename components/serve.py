"""``python -m components.serve run app.py …``: Streamlit's own command line (``streamlit run``), plus the
sample builds started as soon as the server runs, before any browser has connected, and no raw page list.

``egx app`` execs this instead of ``python -m streamlit``:

- When the server builds the samples itself (:mod:`components.startup`, ``$EGX_APP_BUILD_SAMPLES=1``): Streamlit
  runs no code of the app until a session's first script run, so a server started ten minutes before a lecture
  would otherwise build nothing until the first student opened it. A watcher thread waits for Streamlit's
  runtime to exist, then starts the builds (once per server: the first page run finds them started).
- The app's pages live in ``pages/`` and ``app.py`` lays them out with ``st.navigation``. Streamlit guesses the
  old "pages directory" mode from that folder until the first ``st.navigation`` call of the process, so the
  first browser after a start saw the folder's raw file list ("bubble anchors", "subgraph", …) for a second or
  two before the real menu: :func:`no_pages_directory_guess` tells it the app uses ``st.navigation``.

Everything else is Streamlit's ``main``, in this process's main thread (its signal handlers need it), so Ctrl-C
and SIGTERM stop the server as ``streamlit run`` does.
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


def no_pages_directory_guess() -> None:
    """Tell Streamlit, before its first session, that ``pages/`` holds ``st.navigation`` pages (what its first
    ``st.navigation`` call would set), so no session ever runs the "pages directory" mode and its raw file list."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


def main() -> None:
    import os

    from core.cli.app import BUILD_SAMPLES_ENV

    no_pages_directory_guess()
    if os.environ.get(BUILD_SAMPLES_ENV) == "1":
        threading.Thread(target=_start_when_running, name="egx-start-builds", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    sys.argv[0] = "streamlit"
    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
