"""Two-label agreement measures and their percentile-bootstrap confidence intervals.

The human side is the reference, the judge's decision the prediction ("covered" on the coverage
side, "valid" on the validity side is the positive class):

* agreement: the share of items both sides decided the same way;
* Cohen's kappa: (p_o - p_e) / (1 - p_e); undefined (``None``) when p_e is 1;
* Gwet's AC1: (p_o - p_e) / (1 - p_e) with p_e = 2·π·(1 - π), π the mean of the two sides'
  shares of the positive label (``_human_ceiling.gwet_ac1`` for two raters); p_e is at most 0.5,
  so AC1 is defined whenever there are items, and does not collapse when one label dominates;
* precision of the judge's positive decisions: tp / (tp + fp), undefined without any;
* recall of the people's positive decisions: tp / (tp + fn), undefined without any.

The interval resamples the items with replacement (``RESAMPLES`` times, a fixed seed, so a
report is reproducible), computes each measure on every resample, and takes the 2.5th and
97.5th percentiles of the resamples where the measure is defined. An interval is ``None`` when
no resample defines the measure.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

RESAMPLES = 2000
SEED = 20240601
LEVEL = 0.95
CHUNK_CELLS = 4_000_000
MEASURES = ("agreement", "kappa", "ac1", "precision", "recall")


def _measures(tp: Any, fn: Any, fp: Any, tn: Any) -> dict[str, Any]:
    """Every measure from the four counts (numpy arrays or numbers); NaN where undefined."""
    tp, fn, fp, tn = (np.asarray(x, dtype=float) for x in (tp, fn, fp, tn))
    n = tp + fn + fp + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        po = (tp + tn) / n
        p_human, p_judge = (tp + fn) / n, (tp + fp) / n
        pe = p_human * p_judge + (1 - p_human) * (1 - p_judge)
        kappa = np.where(pe < 1 - 1e-12, (po - pe) / (1 - pe), np.nan)
        pi = (p_human + p_judge) / 2
        ac1 = (po - 2 * pi * (1 - pi)) / (1 - 2 * pi * (1 - pi))
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        recall = np.where(tp + fn > 0, tp / (tp + fn), np.nan)
    return {"agreement": po, "kappa": kappa, "ac1": ac1, "precision": precision, "recall": recall}


def _value(x: Any) -> float | None:
    v = float(x)
    return None if np.isnan(v) else v


def point_measures(human: Sequence[bool], judge: Sequence[bool]) -> dict[str, float | None]:
    """Every measure on the items as they are (``None`` where undefined or no items)."""
    if len(human) != len(judge):
        raise ValueError("the two label lists differ in length")
    if not human:
        return {m: None for m in MEASURES}
    h, j = np.asarray(human, dtype=bool), np.asarray(judge, dtype=bool)
    got = _measures((h & j).sum(), (h & ~j).sum(), (~h & j).sum(), (~h & ~j).sum())
    return {m: _value(got[m]) for m in MEASURES}


def bootstrap_intervals(
    human: Sequence[bool], judge: Sequence[bool], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL
) -> dict[str, list[float] | None]:
    """``{measure: [low, high] or None}``: percentile-bootstrap intervals over resampled items."""
    if len(human) != len(judge):
        raise ValueError("the two label lists differ in length")
    n = len(human)
    if n == 0:
        return {m: None for m in MEASURES}
    h, j = np.asarray(human, dtype=bool), np.asarray(judge, dtype=bool)
    counts: list[list[Any]] = [[], [], [], []]
    for idx in _index_blocks(n, resamples, seed):
        hs, js = h[idx], j[idx]
        for acc, cells in zip(counts, (hs & js, hs & ~js, ~hs & js, ~hs & ~js)):
            acc.append(cells.sum(axis=1))
    got = _measures(*(np.concatenate(acc) for acc in counts))
    out: dict[str, list[float] | None] = {}
    for m in MEASURES:
        out[m] = _percentiles(got[m], level)
    return out


def _index_blocks(n: int, resamples: int, seed: int) -> Iterator[Any]:
    """The resamples' item indices, a block of rows at a time (memory stays bounded on large sets)."""
    rng = np.random.default_rng(seed)
    chunk = max(1, CHUNK_CELLS // n)
    for start in range(0, resamples, chunk):
        yield rng.integers(0, n, size=(min(chunk, resamples - start), n))


def _percentiles(values: Any, level: float) -> list[float] | None:
    """The percentile interval of the defined (not NaN) resampled values; None without any."""
    vals = np.asarray(values, dtype=float)
    vals = vals[~np.isnan(vals)]
    if vals.size == 0:
        return None
    tail = 100 * (1 - level) / 2
    # the percentile's interpolation leaves -1e-17 where the value is 0: show it as 0
    return [0.0 if abs(x) < 1e-12 else float(x) for x in np.percentile(vals, [tail, 100 - tail])]


def resampled_intervals(n: int, statistics: Callable[[Any], Sequence[Any]], *, resamples: int = RESAMPLES, seed: int = SEED,
                        level: float = LEVEL) -> list[list[float] | None]:
    """Percentile-bootstrap intervals of several statistics over the same resamples of ``n``
    items: ``statistics`` gets a block of resampled index rows and returns, per statistic, one
    value per row (NaN where undefined). ``[]`` without items."""
    if n == 0:
        return []
    blocks = [statistics(idx) for idx in _index_blocks(n, resamples, seed)]
    return [_percentiles(np.concatenate([block[k] for block in blocks]), level) for k in range(len(blocks[0]))]


def bootstrap_settings() -> dict[str, Any]:
    """How the intervals are made, for the report (so a reader can reproduce them)."""
    return {"method": "percentile bootstrap, items resampled with replacement", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL}


def bootstrap_mean(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> list[float] | None:
    """A percentile-bootstrap interval of the mean of ``values`` (resampled with replacement, a
    fixed seed): a share when they are 0/1, a paired difference when they are per-item
    differences. None without values."""
    v = np.asarray(values, dtype=float)
    got = resampled_intervals(len(v), lambda idx: [np.take(v, idx).mean(axis=1)], resamples=resamples, seed=seed, level=level)
    return got[0] if got else None


def category_share_intervals(counts: Sequence[int], *, resamples: int = RESAMPLES, seed: int = SEED,
                             level: float = LEVEL) -> list[list[float] | None]:
    """Percentile-bootstrap intervals of each category's share among ``sum(counts)`` items
    resampled with replacement (items of category k: ``counts[k]``). A resample's counts are a
    multinomial draw, which is what resampling the items gives, drawn directly. ``[]`` without items."""
    c = np.asarray(counts, dtype=float)
    n = int(c.sum())
    if n == 0:
        return []
    draws = np.random.default_rng(seed).multinomial(n, c / n, size=resamples) / n
    return [_percentiles(draws[:, k], level) for k in range(len(c))]
