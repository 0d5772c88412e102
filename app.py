"""Evidence Graph Explorer — the Streamlit entry point.

Run with ``egx app`` (or ``streamlit run app.py``). ``st.navigation`` lists every page of ``pages/``
(components/navigation.py: it does not discover the folder); the sidebar (workspace + backends) is
shared by all pages.
"""

from __future__ import annotations

# Offline-first without forcing HF_HUB_OFFLINE: the bundled models are read from installed packages
# and never touch the hub; only an explicit hub id (st:<id>, cross-encoder:<id>) may download.
from components.frame import run_app

run_app()
