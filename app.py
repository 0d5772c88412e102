"""Evidence Graph Explorer — the Streamlit entry point.

Run with ``egx app`` (or ``streamlit run app.py``). ``st.navigation`` lists every page of ``pages/``
(components/navigation.py: it does not discover the folder); the sidebar (workspace + backends) is
shared by all pages.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # offline-first: never reach for the hub from the app

from components.navigation import run_app

run_app()
