"""Results: what the reports, the app and the site show of a score (third of the four scoring rooms:
``judges`` < ``scoring`` < ``results`` < ``labels``). Reads stored scores through ``scoring``; never
imports ``labels``, ``app``, ``cli`` or ``session``.

* ``graph``: the graph picture's classification (each triple covered / missed / valid / invalid /
  not judged), its colours and filters; the app's plotly figure and the site's SVG both draw it.
* ``graph_layout``: where each entity of a graph picture goes (shared by the app's plot and the
  site's SVG).
* ``stage_view``: a run's score split by the stage that produced each triple.
"""
