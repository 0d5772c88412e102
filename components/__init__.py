"""Streamlit-side helpers shared by the pages: state keys, cached resources, the sidebar, graph
drawings. Together with ``pages/`` and ``app.py`` these are the only modules importing streamlit."""
