"""κ explained in words when one side used a single class (issue 13): the tab shows these lines."""

from __future__ import annotations

import pytest

from vibesearch.labels.agreement import cohen_kappa, confusion, kappa_explanation


def _both(human: list[int], judge: list[int]) -> tuple[float | None, str | None]:
    h, j = [bool(x) for x in human], [bool(x) for x in judge]
    return cohen_kappa(h, j), kappa_explanation(confusion(h, j), judge="offline judge", human="alice")


def test_judge_said_covered_for_every_triple():
    kappa, why = _both([1, 0, 1, 1], [1, 1, 1, 1])
    assert kappa == pytest.approx(0.0)
    assert why is not None and why.startswith("κ is 0 because offline judge said \"covered\" for all 4 triples")
    assert "percent agreement" in why


def test_annotator_said_not_covered_for_every_triple():
    kappa, why = _both([0, 0, 0], [1, 0, 1])
    assert kappa == pytest.approx(0.0)
    assert why is not None and why.startswith("κ is 0 because alice said \"not covered\" for all 3 triples")


def test_both_sides_the_same_single_class_is_undefined():
    kappa, why = _both([1, 1, 1], [1, 1, 1])
    assert kappa is None
    assert why is not None and why.startswith("κ is undefined: both offline judge and alice said \"covered\" for all 3 triples")


def test_both_sides_single_but_opposite_classes_is_zero():
    kappa, why = _both([1], [0])
    assert kappa == pytest.approx(0.0)
    assert why is not None and "offline judge said \"not covered\" and alice said \"covered\" for the one triple" in why


def test_informative_kappa_and_no_items_need_no_explanation():
    kappa, why = _both([1, 0, 1, 0], [1, 0, 0, 0])
    assert kappa is not None and kappa > 0 and why is None
    kappa, why = _both([1, 0], [0, 1])  # κ is negative, both sides used both classes: nothing to explain
    assert kappa is not None and kappa < 0 and why is None
    assert kappa_explanation(confusion([], [])) is None
    assert kappa_explanation({"tp": 2, "fn": 0, "fp": 0, "tn": 0}) is not None  # defaults name the sides
