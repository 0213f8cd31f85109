"""The LLM judge's layout for one graph: ground-truth batches × prediction windows.

Every call shows predicted triples first (a prefix providers cache) and one batch of ground-truth
triples after them. One window normally holds the whole predicted graph, so every call of a graph
starts with the same text. Only when a call would not fit the judge's context budget are the
predictions split into windows; every batch is then asked once per window (batches × windows), so
every ground-truth triple still meets every prediction. Predictions about connected entities
(same normalised head or tail names, transitively) are kept in one window where they fit, so that
most facts a joint cover or a composition needs are seen together; across windows they are not.

Tokens are counted with OpenAI's o200k tokenizer (``llm.tokenizer``; nothing is downloaded);
other models' tokenizers count differently, which ``PROMPT_SHARE`` leaves room for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from ..llm.tokenizer import text_tokens
from .offline import norm
from .verdicts import Verdict

TripleText = tuple[str, str, str]

# the share of the context budget one prompt may fill: the rest is left for the answer (about 50
# output tokens a verdict) and for a judge whose tokenizer counts more than o200k (Claude's counts
# up to a fifth more on English text)
PROMPT_SHARE = 0.75
# a batch's ground-truth triples may take at most this share of a prompt's room; larger batches
# are split further (unless ``judge_batch_size`` fixes the size)
BATCH_SHARE = 0.5


def token_counts(texts: Sequence[str]) -> list[int]:
    """Tokens of each text (a line of a prompt: one more for its line break)."""
    return [text_tokens(t) + 1 for t in texts]


def even_batches(n: int, calls: int) -> list[list[int]]:
    """n indices in ``calls`` contiguous batches whose sizes differ by at most one."""
    if n <= 0:
        return []
    calls = max(1, min(calls, n))
    size, extra = divmod(n, calls)
    out, start = [], 0
    for k in range(calls):
        stop = start + size + (1 if k < extra else 0)
        out.append(list(range(start, stop)))
        start = stop
    return out


@dataclass
class Layout:
    """How one graph is judged: batches of ground-truth indices, windows of prediction indices
    (every batch is asked once per window), and the counted tokens that decided it."""

    batches: list[list[int]]
    windows: list[list[int]]
    budget: int  # the judge's context budget, tokens
    prefix_tokens: list[int]  # per window: instructions + predicted triples, shared by its batches' calls
    max_prompt_tokens: int  # the largest call's prompt, counted
    cacheable: list[bool]  # per window: asked more than once and long enough for a provider to cache

    @property
    def kind(self) -> Literal["full", "windows"]:
        return "full" if len(self.windows) <= 1 else "windows"


def choose_layout(
    gt_tokens: Sequence[int],
    pred_tokens: Sequence[int],
    pred: Sequence[TripleText],
    *,
    overhead_tokens: int,
    budget: int,
    batch_max: int,
    batch_size: int | None,
    min_cached: int,
) -> Layout:
    """Batches of at most ``batch_max`` ground-truth triples (exactly ``batch_size`` when set),
    as few as that allows, made smaller while a batch would take more than ``BATCH_SHARE`` of a
    prompt; then as few prediction windows as fit beside the largest batch (one: the whole graph).

    ``overhead_tokens``: the instructions and headers every call has besides the triples."""
    n = len(gt_tokens)
    limit = int(budget * PROMPT_SHARE)
    room = max(1, limit - overhead_tokens)

    def heaviest(batches: list[list[int]]) -> int:
        return max((sum(gt_tokens[i] for i in b) for b in batches), default=0)

    if batch_size is not None:
        size = max(1, batch_size)
        batches = [list(range(i, min(i + size, n))) for i in range(0, n, size)]
    else:
        calls = -(-n // max(1, batch_max))
        batches = even_batches(n, calls)
        while batches and heaviest(batches) > room * BATCH_SHARE and max(len(b) for b in batches) > 1:
            calls += 1
            batches = even_batches(n, calls)
    pred_room = max(1, room - heaviest(batches))
    everything = list(range(len(pred_tokens)))
    windows = [everything] if sum(pred_tokens) <= pred_room else _windows(pred, pred_tokens, pred_room)
    prefix = [overhead_tokens + sum(pred_tokens[j] for j in w) for w in windows]
    return Layout(
        batches=batches,
        windows=windows,
        budget=budget,
        prefix_tokens=prefix,
        max_prompt_tokens=max(prefix, default=overhead_tokens) + heaviest(batches),
        cacheable=[len(batches) > 1 and p >= min_cached for p in prefix],
    )


def _connected(pred: Sequence[TripleText]) -> list[list[int]]:
    """Prediction indices grouped by the connected components of the graph whose nodes are the
    normalised head and tail names; groups in order of their first prediction."""
    import networkx as nx

    graph = nx.MultiGraph()
    for h, _, t in pred:
        graph.add_edge(norm(h), norm(t))
    component = {name: k for k, names in enumerate(nx.connected_components(graph)) for name in names}
    groups: dict[int, list[int]] = {}
    for j, (h, _, _) in enumerate(pred):
        groups.setdefault(component[norm(h)], []).append(j)
    return list(groups.values())


def _windows(pred: Sequence[TripleText], tokens: Sequence[int], room: int) -> list[list[int]]:
    """Prediction indices in windows of at most ``room`` tokens (a single larger prediction gets
    a window of its own): connected groups whole where they fit, else split by head entity, else
    in order; packed first-fit by decreasing size. Windows in order of their first prediction."""

    def cost(piece: list[int]) -> int:
        return sum(tokens[j] for j in piece)

    pieces: list[list[int]] = []
    for group in _connected(pred):
        if cost(group) <= room:
            pieces.append(group)
            continue
        by_head: dict[str, list[int]] = {}
        for j in group:
            by_head.setdefault(norm(pred[j][0]), []).append(j)
        for same_head in by_head.values():
            if cost(same_head) <= room:
                pieces.append(same_head)
                continue
            chunk: list[int] = []
            for j in same_head:
                if chunk and cost(chunk) + tokens[j] > room:
                    pieces.append(chunk)
                    chunk = []
                chunk.append(j)
            pieces.append(chunk)
    pieces.sort(key=lambda p: (-cost(p), p[0]))
    windows: list[list[int]] = []
    loads: list[int] = []
    for piece in pieces:
        c = cost(piece)
        for k, load in enumerate(loads):
            if load + c <= room:
                windows[k] += piece
                loads[k] += c
                break
        else:
            windows.append(list(piece))
            loads.append(c)
    return sorted((sorted(w) for w in windows), key=lambda w: w[0])


WINDOWS_NOTE = (
    "the predicted graph did not fit one prompt of the {budget:,}-token context budget: it was "
    "shown in {n} windows, every ground-truth batch against each; a fact that needs predictions "
    "from two windows together (a joint cover or a composition) could not be seen"
)


def merge_windows(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """One verdict per ground-truth triple from its verdicts in each prediction window: covered
    when any window covers it (rule and rationale of the first that does, evidence of all that
    do); else unscored when some window gave no verdict; else not covered."""
    by_index: dict[int, list[Verdict]] = {}
    for v in verdicts:
        by_index.setdefault(v.gt_index, []).append(v)
    out = []
    for index in sorted(by_index):
        seen = by_index[index]
        covering = [v for v in seen if v.covered]
        if covering:
            evidence = sorted({e for v in covering for e in v.evidence})
            out.append(covering[0].model_copy(update={"evidence": evidence}))
        else:
            out.append(next((v for v in seen if v.covered is None), seen[0]))
    return out
