"""The app's frame: navigation over every page, the shared sidebar, then the page the URL names.

Kept apart from :mod:`components.navigation` (the page list), which the sidebar also reads, so the two
never import each other.
"""

from __future__ import annotations

import streamlit as st

from components.navigation import HOME, app_pages, page_config, page_of


def run_app(default: str = HOME) -> None:
    """The app: navigation over every page, the shared sidebar, then the page the URL names.

    The sidebar stores what it resolved (workspace, backends) in ``state.ACTIVE`` for exactly the run
    of the page, which is how a page knows that it runs inside this frame
    (:func:`components.sidebar.active`). ``default`` replaces the home page (tests open one page).
    """
    from components import deep_link, jobs_view, prefetch, startup
    from components import state as S
    from components.sidebar import render_sidebar
    from components.ui import error_text, house_style, md_escape
    from core.errors import EgxError

    page_config()
    house_style()  # the title near the top, and the header's height kept clear when a control is scrolled to
    nav = st.navigation(app_pages(default), expanded=True)  # every page listed: no "View more" past 10
    startup.start_sample_builds()  # `egx app`: the server builds the bundled samples itself, once, after it started
    try:
        deep_link.apply()  # a shared link's workspace and question, before the sidebar opens the workspace
        render_sidebar()
        deep_link.publish_backends()  # a reload keeps the sidebar's recorded LLM / models (not the defaults)
        deep_link.refused_note()  # a link's backend that was not applied (llm=bogus, a live LLM) says so
        jobs_view.banner()  # "a benchmark runs: 40 %, about 2 min left" above every page while a job runs
        st.session_state[S.PAGE] = page_of(nav.url_path, default)  # the page's header knows its page by it
        _unknown_page_note(nav.url_path)
        nav.run()
        prefetch.after_page()  # the guided demo's next step: its recorded runs replay while this one is talked over
    except EgxError as exc:  # one net for every page: the project's errors are messages, never tracebacks
        st.error(md_escape(error_text(exc)))
    # Anything else is a bug: client.showErrorDetails = "none" (.streamlit/config.toml, `egx app`) keeps its
    # traceback and the server's paths out of the browser and in the server log.
    finally:
        st.session_state.pop(S.ACTIVE, None)
        st.session_state.pop(S.PAGE, None)


def _unknown_page_note(url_path: str) -> None:
    """Say that the URL names no page, above the page shown instead (the default), like an unknown workspace is said."""
    from components import state as S
    from components.navigation import entries, unknown_page
    from components.ui import md_escape

    # st.context.url is None without a browser (AppTest): nothing to say
    asked = unknown_page(st.context.url, url_path, str(st.get_option("server.baseUrlPath") or ""))
    if asked:
        here = st.session_state.get(S.PAGE, "")
        title = next((t for _, path, t, _ in entries() if path == here), "the first page")
        st.warning(f"There is no page “{md_escape(asked)}” (the link names it), so this is {md_escape(title)}. "
                   "The pages are listed in the sidebar.", icon=":material/link_off:")

