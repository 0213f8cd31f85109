"""Labels: the human side of scoring, the top of the four scoring rooms (``judges`` < ``scoring`` <
``results`` < ``labels``).

* ``campaigns``, ``campaign_export``, ``_final_label``, ``human_label``: labelling campaigns, their
  queue, the rule for a final label, every export's human label read from the store by that rule
  (``human_label.item_finals``), and their export.
* ``labels_io``, ``meta_eval_csv``, ``official_export``: label files and the official harness's
  result/meta-evaluation files, in and out.
* ``agreement``, ``_agreement_items``, ``_human_ceiling``: agreement between judges and people.
* ``calibration``, ``judge_trust``, ``fidelity``: how far a judge (or a reproduced run) can be trusted.
* ``votes``, ``votes_io``, ``preference``, ``vote_metric``, ``vote_quality``, ``vote_report``:
  pairwise preference votes between two runs of a task, their files, Bradley–Terry ratings, the
  metric against the votes and the votes' quality (docs/votes.md).
* ``compare``, ``config_compare``: two runs or two configurations side by side. They are shown like
  results, but they set each score beside its judge's measured agreement with the human labels
  (``judge_trust``), so they sit here, above ``results``.
"""

from .._lazy import lazy_exports

# The final-label rule and the human ceiling by name, imported when asked for (``_human_ceiling``
# loads numpy and the bootstrap; importing ``vibesearch.labels`` stays free).
_EXPORTS = {
    **dict.fromkeys(["final_labels", "final_of", "strict_majority"], "._final_label"),
    **dict.fromkeys(["gwet_ac1", "human_ceiling"], "._human_ceiling"),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [*_EXPORTS]
