"""The Play tab's own style and page script (kept apart from ``_assets``, which holds the theme,
the shared style and the Label tab's keys). ``ui.launch`` runs every page script in turn."""

PLAY_CSS = """
"""

PLAY_JS = """
() => {}
"""
