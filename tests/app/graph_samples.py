"""Synthetic but realistic graph pairs for the graph picture: a bundled task's ground truth and a
prediction made from it by perturbation (respelled entities, reworded relations, wrong tails,
invented triples), with the verdicts a judge would give. Deterministic for a seed."""

from __future__ import annotations

import random

from vibesearch.tasks.loader import load_tasks

TASKS = ("daily-en-japan-heritage-trip", "pro-en-analysis-history", "pro-zh-ancient-astronomy", "daily-zh-traditional-festivals")


def ground_truth(n: int) -> list[dict]:
    """The first ``n`` ground-truth triples of the bundled tasks, in task order."""
    by_id = {t.id: t for t in load_tasks()}
    out: list[dict] = []
    for task_id in TASKS:
        out += [t.model_dump() | {"task": task_id} for t in by_id[task_id].graph]
    assert len(out) >= n, f"only {len(out)} bundled ground-truth triples"
    return out[:n]


def sample(n_gt: int, n_pred: int, *, covered: float = 0.5, seed: int = 3) -> tuple[list[dict], list[dict], dict]:
    """(ground truth, prediction, verdicts): about ``covered`` of the ground truth is matched by a
    respelled copy; the rest of the prediction is wrong tails and invented triples."""
    rng = random.Random(seed)
    gt = ground_truth(n_gt)
    hits = sorted(rng.sample(range(n_gt), min(n_pred, round(covered * n_gt))))
    pred: list[dict] = []
    verdicts: dict[int, tuple[bool | None, list[int]]] = {i: (False, []) for i in range(n_gt)}
    for i in hits:
        t = gt[i]
        head = t["head"].upper() if rng.random() < 0.3 else t["head"]  # merged with the ground truth's node
        pred.append({"head": head, "relation": "is " + t["relation"], "tail": t["tail"]})
        verdicts[i] = (True, [len(pred) - 1])
    k = 0
    while len(pred) < n_pred:
        at = rng.randrange(n_gt)
        t = gt[at]
        near = [x for x in gt[max(0, at - 6): at + 6] if x["task"] == t["task"]]  # a wrong tail from the same part of the task
        entities = sorted({x["head"] for x in near} | {x["tail"] for x in near})
        if k % 3 == 0:  # an invented entity hanging off a known one
            pred.append({"head": t["head"], "relation": rng.choice(["mentions", "is near", "related to"]), "tail": f"Invented thing {k}"})
        else:  # a wrong tail among known entities
            pred.append({"head": t["head"], "relation": t["relation"], "tail": rng.choice(entities)})
        k += 1
    return [{k: t[k] for k in ("head", "relation", "tail")} for t in gt], pred, verdicts
