"""Composition through explicit containment in the predicted graph (the offline judge's rule 4).

A ground-truth triple that puts its head inside its tail ("X located in Germany", "X part of
Y") is covered by a *chain* of predicted triples that does the same step by step: "X located in
Frankfurt", "Frankfurt located in Hesse", "Hesse part of Germany". Every step must be a
containment relation from ``_inverse`` (in either direction: "Germany contains Frankfurt" is a
step from Frankfurt to Germany); the first step may also be any relation that matches the
ground-truth one. A "part of" ground truth only follows "part of" steps; a location follows
location and part-of steps. A relation whose value is a place ("born in", "headquartered in")
composes the same way when its first step states that relation. A capital lies inside its
country. Chains are at most three steps long. "Twinned with", "near", "orbits", "member of" and
other relations never make a step.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from ._inverse import containment
from ._joint import is_alias_relation
from ._matching import name_of
from ._relations import relation_matches, relation_of

TripleText = tuple[str, str, str]
MAX_STEPS = 3
# ground-truth relations whose tail is a place: the first step states the relation, the later
# steps only narrow the place down ("headquartered in Cologne", "Cologne located in Germany")
_PLACE_VALUED = frozenset({"birth", "death", "hq", "place", "found"})


def _node(name: str) -> tuple[str, object]:
    n = name_of(name)
    if n.group is not None:
        return ("group", n.group)
    if n.core[0] and n.core[1] == {"g"}:  # "Gyeonggi Province" is the step "Gyeonggi" leads to
        return ("name", n.core[0])
    return ("name", n.norm)


class PredGraph:
    """The predicted triples indexed by head and tail, plus their containment steps."""

    def __init__(self, pred: Sequence[TripleText]):
        self.pred = list(pred)
        self.by_head: dict[str, list[int]] = {}
        self.by_tail: dict[str, list[int]] = {}
        # node -> [(next node, kind, triple index)]
        self.steps: dict[tuple[str, object], list[tuple[tuple[str, object], str, int]]] = {}
        # (triple index, name, other name) for triples that say two names are one entity
        self.aliases: list[tuple[int, str, str]] = []
        for i, (h, r, t) in enumerate(self.pred):
            self.by_head.setdefault(h, []).append(i)
            self.by_tail.setdefault(t, []).append(i)
            if is_alias_relation(r):
                self.aliases.append((i, h, t))
            kind = containment(r)
            if kind is None:
                continue
            inner, outer = (h, t) if not kind.endswith("-rev") else (t, h)
            self.steps.setdefault(_node(inner), []).append((_node(outer), kind.removesuffix("-rev"), i))

    def containment_chain(
        self, relation: str, head_m: dict[str, tuple[str, str]], tail_m: dict[str, tuple[str, str]]
    ) -> tuple[list[int], str] | None:
        """(evidence, rule name) of the shortest chain of two or more steps, or None."""
        gt_kind = containment(relation, as_step=False)
        first_by_containment = gt_kind in ("located", "part")
        if not first_by_containment and not relation_of(relation).concepts & _PLACE_VALUED:
            return None
        # "born in Frankfurt" + "Frankfurt located in Germany" = born in Germany
        kind: str = gt_kind if gt_kind and first_by_containment else "located"
        allowed = {"located", "part"} if kind == "located" else {"part"}
        targets = {_node(name) for name, (level, _) in tail_m.items() if level == "equal"}
        if not targets:
            return None
        queue: deque[tuple[tuple[str, object], list[int], set[str]]] = deque()
        for name, (level, _) in head_m.items():
            if level != "equal":
                continue
            for i in self.by_head.get(name, ()):
                _, r, t = self.pred[i]
                if (first_by_containment and containment(r) in allowed) or relation_matches(relation, r):
                    queue.append((_node(t), [i], {kind}))
            if not first_by_containment:
                continue
            for nxt, step_kind, i in self.steps.get(_node(name), ()):
                if step_kind in allowed:
                    queue.append((nxt, [i], {step_kind}))
        seen: set[tuple[str, object]] = set()
        while queue:
            node, path, kinds = queue.popleft()
            if node in targets and len(path) >= 2:
                return path, ("two-hop location" if "located" in kinds else "part-of chain")
            if node in seen or len(path) >= MAX_STEPS:
                continue
            seen.add(node)
            for nxt, step_kind, i in self.steps.get(node, ()):
                if step_kind in allowed and i not in path:
                    queue.append((nxt, [*path, i], kinds | {step_kind}))
        return None
