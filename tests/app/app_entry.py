"""The entry script AppTest runs: app.py itself, started from this folder.

Why not ``AppTest.from_file("app.py")``: with a ``pages/`` folder next to the entry script,
Streamlit runs each script run in its legacy multipage mode (a page file without app.py) until some
session calls ``st.navigation``, and AppTest resets that switch before every run
(``PagesManager.uses_pages_directory = None`` in ``AppTest._run``, added by
https://github.com/streamlit/streamlit/pull/14217 for https://github.com/streamlit/streamlit/issues/9446). A live server leaves the legacy mode for good at the first ``st.navigation`` call, so
every click there goes through app.py; started from this folder, which has no ``pages/``, every
AppTest run does too. The first run of a fresh server opened on a page URL — the one run that
really is legacy — is covered by the browser test (tests/app/test_browser.py).
"""

from __future__ import annotations

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[2] / "app.py"), run_name="__main__")
