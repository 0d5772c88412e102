"""A page with the jobs banner over a server's own sample build held at 22 % (the build an audit saw at 1440 px):
the browser test measures whether the banner's one line fits. Run by ``streamlit run`` from the repository root
(tests/app/test_jobs_banner_browser.py); not a page of the app. ``EGX_TEST_BANNER_TITLE`` and
``EGX_TEST_BANNER_MESSAGE`` name another held job (the SG-RAG training an audit saw cut at 1440 px)."""

from __future__ import annotations

import os
import threading
import time

import streamlit as st

from components import jobs_view
from components.navigation import TITLE
from components.ui import house_style

TITLE_OF_BUILD = os.environ.get("EGX_TEST_BANNER_TITLE",
                                "Building workspace “MuSiQue (100 questions, 1,890 passages, GPT-3.5 OpenIE KG)”")
MESSAGE = os.environ.get("EGX_TEST_BANNER_MESSAGE", "Embedding nodes: 9,216/16,243")


@st.cache_resource
def _held_build() -> bool:
    """The server's own build (submitted outside a script run, as :mod:`components.startup` does), at 22 %."""
    def work(job) -> None:  # type: ignore[no-untyped-def]
        job.progress("Embedding nodes: 2,048/16,243", 0.0)
        time.sleep(1.0)
        job.progress("Embedding nodes: 5,120/16,243", 0.11)  # a second move: the manager's ETA needs two
        time.sleep(1.5)
        # the longest line an audit saw cut: a stage count with the whole build's share ("22 % overall")
        job.progress(MESSAGE, 0.22)
        time.sleep(300)

    def submit() -> None:
        jobs_view.jobs().submit("workspace:held-build", TITLE_OF_BUILD, work, kind="workspace")

    thread = threading.Thread(target=submit)
    thread.start()
    thread.join()
    return True


st.set_page_config(page_title=TITLE, layout="wide")
house_style()
_held_build()
st.sidebar.header("Workspace")
st.sidebar.selectbox("Workspace", ["MuSiQue (100 questions, 1,890 passages)"])
jobs_view.banner()
st.title("Home")
