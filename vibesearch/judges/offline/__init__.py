"""The offline judge (``OfflineJudge``): deterministic, no model, no key. Its matching rules are the
private modules here, one kind of rule each: text normalisation (``_normalize``, ``_numbers``,
``_names``, ``_aliases``), quantities and bounds (``_units``, ``_bounds``), relations and their
inverses (``_relations``, ``_inverse``, ``_roles``), lists (``_lists``), several predicted triples
read together (``_joint``, ``_compose``) and the entity/triple match itself (``_matching``).

The names other packages use (the normaliser for graph layout and error analysis, the relation
match, the mentions of names in a text or a predicted graph: ``mentions``) are exported here, so nothing outside this folder imports a rule module."""

from ._normalize import CJK, base, norm
from ._relations import relation_matches
from .mentions import PhraseText, PredictionNames, phrase_text, written_forms
from .offline_judge import OfflineJudge, as_text_triple

__all__ = ["CJK", "OfflineJudge", "PhraseText", "PredictionNames", "as_text_triple", "base", "norm", "phrase_text", "relation_matches", "written_forms"]
