"""Labelling campaigns: a set of runs, its annotators, the sides they label and an overlap target k.

An *item* is one thing a person decides: on the ``coverage`` side a run's ground-truth triple
(is it covered?), on the ``validity`` side a predicted triple (is it valid?). Labels are the
store's ``labels`` and ``pred_labels`` rows, whoever wrote them (the Label tab, an import).

* **Blind or not** (``blind``, chosen when it is made; blind by default): in a blind campaign an
  annotator sees neither a judge's verdict nor the run's agent, configuration, model or score
  before labelling an item; a campaign that is not blind is a judge review, and the judge's verdict
  is on the card, marked as such. The Label tab applies it (``app.label``, ``app._label_view``).
* **Queue**: an annotator's next item is the first one, in a stable order (the campaign's runs in
  order, then its sides, then the index), that they have not labelled and that has fewer than
  k labels.
* **Progress**: per annotator and overall (an item is done once it has k labels).
* **Disagreements**: items whose labels do not all say the same. A third person, someone who did
  not label the item, resolves one; the resolution (label, who, when, comment) is stored and is
  the item's final human label (``final_label``); without one it is the labels' strict majority,
  and an even split nobody resolved has none (the rule is ``_final_label``'s, used everywhere).
  Resolving an item again replaces its adjudication; the replaced ones stay in the store's
  adjudication history (``ItemLabels.history``, oldest first), which the status and the export show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Sequence

from .._names import PersonNameError, annotator_name
from ..store import AdjudicationRow, CampaignRow, RunNotFound, Store, TaskSnapshotError
from ..store.tables import AdjudicationHistoryRow, Run
from ._final_label import FinalFrom, FinalLabels, Side, decide, final_labels, final_of, strict_majority  # noqa: F401  (the rule, re-exported)
from ..scoring.stored import stored_ground_truth, stored_prediction
from .human_label import item_finals

SIDES: tuple[Side, ...] = ("coverage", "validity")
FILTER_KEYS = ("task", "subset", "language", "agent", "agent_model", "status")
MAX_NAME = 100


class CampaignError(ValueError):
    """A campaign request that cannot be done; the message says why (one line)."""


@dataclass(frozen=True)
class Item:
    run_id: str
    side: Side
    index: int

    def key(self) -> str:
        return f"{self.run_id}/{self.side}/{self.index}"

    def label(self) -> str:
        """How a person reads it: the item numbered from 1, as every view shows it."""
        return f"{self.side} #{self.index + 1} of run {self.run_id}"


@dataclass
class ItemLabels:
    """An item and what each person said about it."""

    item: Item
    labels: dict[str, bool] = field(default_factory=dict)  # annotator -> covered / valid
    adjudication: AdjudicationRow | None = None
    history: list[AdjudicationHistoryRow] = field(default_factory=list)  # the replaced adjudications, oldest first

    @property
    def replaced(self) -> int:
        """How many times the item's adjudication was replaced (0: never, or not adjudicated)."""
        return len(self.history)

    @property
    def disagree(self) -> bool:
        return len(set(self.labels.values())) > 1

    @property
    def final(self) -> bool | None:
        """The item's final label (``_final_label.decide``): adjudication, else strict majority."""
        return self.final_from[0]

    @property
    def final_from(self) -> tuple[bool | None, FinalFrom]:
        """The item's final label and the step of the rule that gave it (``open tie``: none)."""
        d = decide(self.labels.values(), self.adjudication.label if self.adjudication is not None else None)
        return d.label, d.source


# --------------------------------------------------------------------------- making one
def _run_facts(run: Run) -> dict[str, str]:
    subset: str
    language: str
    try:
        task = run.task()
        subset, language = task.subset, task.language
    except TaskSnapshotError:  # an unreadable task matches no subset or language filter
        subset = language = ""
    return {
        "task": run.task_id, "subset": subset, "language": language,
        "agent": run.agent, "agent_model": run.agent_model or "", "status": run.status,
    }


def parse_filters(pairs: Sequence[str]) -> dict[str, str]:
    """``key=value`` strings as a filter; an unknown key or a pair without ``=`` is refused."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise CampaignError(f"--filter {pair!r}: write it as key=value")
        if key not in FILTER_KEYS:
            raise CampaignError(f"--filter {pair!r}: unknown key {key!r} (one of {', '.join(FILTER_KEYS)})")
        out[key] = value
    return out


def _labellable(store: Store, run: Run) -> str | None:
    """Why a run cannot be in a campaign, or None."""
    if run.kind == "table":
        return "is a table run (nothing to label)"
    if run.status == "running":
        return "is still running"
    if store.latest_graph(run.id) is None:
        return "has no extracted graph"
    return None


def create_campaign(
    store: Store,
    name: str,
    *,
    annotators: Sequence[str],
    sides: Sequence[str],
    overlap: int,
    runs: Sequence[str] | None = None,
    filters: dict[str, str] | None = None,
    created_by: str = "",
    blind: bool = True,
) -> CampaignRow:
    """Check and store a campaign; ``CampaignError`` (nothing stored) names the first problem.
    ``blind`` (the default): annotators see no judge's verdict, agent or score before labelling an
    item; ``blind=False``: a judge review, the judge's verdict shown on the card (``blind_words``)."""
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise CampaignError(f"a campaign needs a name of 1 to {MAX_NAME} characters")
    # one line, no control or invisible characters (the name is shown in tables, exports and the
    # app); kept as typed otherwise, as `campaign status NAME` looks it up
    _person(name, "the campaign's name")
    if store.campaign(name) is not None:
        raise CampaignError(f"a campaign named {name!r} already exists")
    if runs is None and filters is None:
        raise CampaignError("name the campaign's runs: a list (--runs) or a filter (--filter key=value)")
    if runs is not None and filters is not None:
        raise CampaignError("give the runs either as a list (--runs) or as a filter (--filter key=value), not both")
    if not annotators:
        raise CampaignError("a campaign needs at least one annotator")
    people = [_person(a, "annotator") for a in annotators]
    if len(set(people)) != len(people):
        raise CampaignError(f"annotator {next(a for a in people if people.count(a) > 1)!r} is named twice")
    chosen: list[Side] = []
    for side in sides:
        match = next((s for s in SIDES if s == side.strip()), None)
        if match is None:
            raise CampaignError(f"unknown side {side!r} (coverage or validity)")
        if match not in chosen:
            chosen.append(match)
    if not chosen:
        raise CampaignError("a campaign labels at least one side (coverage, validity)")
    if not 1 <= overlap <= len(people):
        raise CampaignError(f"overlap {overlap} must be between 1 and the number of annotators ({len(people)})")
    if runs is not None:
        run_ids = list(dict.fromkeys(r.strip() for r in runs if r.strip()))
        if not run_ids:
            raise CampaignError("--runs names no run")
        for rid in run_ids:
            try:
                why = _labellable(store, store.get_run(rid))
            except RunNotFound:
                raise CampaignError(f"run {rid!r}: no such run in this database") from None
            if why:
                raise CampaignError(f"run {rid!r} {why}")
    else:
        wanted = filters or {}
        found = [r for r in store.list_runs() if _labellable(store, r) is None
                 and all(_run_facts(r)[k] == v for k, v in wanted.items())]
        found.sort(key=lambda r: (r.created_at, r.id))
        run_ids = [r.id for r in found]
        if not run_ids:
            shown = " ".join(f"{k}={v}" for k, v in wanted.items()) or "(none)"
            raise CampaignError(f"no finished run with a graph matches the filter {shown}")
    row = CampaignRow(
        name=name, runs_json=json.dumps(run_ids), filter_json=json.dumps(filters or {}, ensure_ascii=False),
        annotators_json=json.dumps(people, ensure_ascii=False), sides_json=json.dumps(chosen), overlap=overlap,
        created_by=created_by, blind=bool(blind),
    )
    return store.add_campaign(row)


def blind_words(campaign: CampaignRow) -> str:
    """How every view names a campaign's blindness."""
    return "blind" if campaign.blind else "not blind (judge review)"


def blind_runs(store: Store) -> set[str]:
    """The runs of every blind campaign: wherever one is labelled (another campaign, one run at a
    time), its labeller sees no verdict before labelling, since the label counts in the blind one too.
    The runs of vote campaigns too (always blind: ``vote_campaigns``)."""
    from .vote_campaigns import campaign_runs

    return {rid for c in store.campaigns() if c.blind for rid in c.run_ids()} | campaign_runs(store)


def get_campaign(store: Store, name: str) -> CampaignRow:
    row = store.campaign(name)
    if row is None:
        known = ", ".join(c.name for c in store.campaigns()[:10])
        raise CampaignError(f"no campaign named {name!r}" + (f" (there are: {known})" if known else " (none made yet)"))
    return row


# --------------------------------------------------------------------------- its items
def item_texts(store: Store, run_id: str) -> dict[Side, list[dict[str, Any]]]:
    """The triples behind a run's items, per side."""
    return {"coverage": stored_ground_truth(store, run_id), "validity": stored_prediction(store, run_id)[0]}


def items(store: Store, campaign: CampaignRow) -> list[Item]:
    """Every item of the campaign, in queue order."""
    out: list[Item] = []
    for rid in campaign.run_ids():
        texts = item_texts(store, rid)
        for side in SIDES:
            if side in campaign.sides():
                out.extend(Item(rid, side, i) for i in range(len(texts[side])))
    return out


def item_labels(store: Store, campaign: CampaignRow) -> list[ItemLabels]:
    """Every item with its labels (any annotator), its adjudication and the adjudications that one
    replaced, in queue order."""
    by_item = {it: ItemLabels(it) for it in items(store, campaign)}
    for rid in campaign.run_ids():
        for lab in store.labels(run_id=rid):
            entry = by_item.get(Item(rid, "coverage", lab.gt_index))
            if entry is not None:
                entry.labels[lab.annotator] = lab.covered
        for plab in store.pred_labels(run_id=rid):
            entry = by_item.get(Item(rid, "validity", plab.pred_index))
            if entry is not None:
                entry.labels[plab.annotator] = plab.valid
    for adj in store.adjudications(campaign.run_ids()):
        side: Side = "coverage" if adj.side == "coverage" else "validity"
        entry = by_item.get(Item(adj.run_id, side, adj.item_index))
        if entry is not None:
            entry.adjudication = adj
    for old in store.adjudication_histories(campaign.run_ids()):  # each item's oldest first
        side = "coverage" if old.side == "coverage" else "validity"
        entry = by_item.get(Item(old.run_id, side, old.item_index))
        if entry is not None:
            entry.history.append(old)
    return list(by_item.values())


def replaced_note(entry: ItemLabels) -> str:
    """One line on an adjudication that was replaced: "replaced 2 times (last by cy)"; "" when it
    never was. The name is the person's text as stored: escape it where it is shown as markup."""
    if not entry.history:
        return ""
    n = len(entry.history)
    return f"replaced {n} time{'s' if n > 1 else ''} (last by {entry.history[-1].replaced_by})"


def _person(value: str, role: str) -> str:
    """A name in its one stored form (``vibesearch._names``); ``CampaignError`` saying why not."""
    try:
        return annotator_name(value or "")
    except PersonNameError as exc:
        raise CampaignError(f"{role}: {exc}") from None


def _annotator(campaign: CampaignRow, annotator: str) -> str:
    try:
        name = annotator_name(annotator or "")
    except PersonNameError:
        name = (annotator or "").strip()
    if name not in campaign.annotators():
        raise CampaignError(f"{name or '(no name)'!r} is not an annotator of campaign {campaign.name!r} ({', '.join(campaign.annotators())})")
    return name


def next_item(store: Store, campaign: CampaignRow, annotator: str, may_read: Callable[[str], bool] | None = None,
              skip: Collection[Item] = ()) -> Item | None:
    """The annotator's next item: not labelled by them, fewer than k labels (and, with
    ``may_read``, of a run id it accepts); None when none is left. Items in ``skip`` (the ones the
    annotator skipped) come only when nothing else is left."""
    name = _annotator(campaign, annotator)
    skipped = None
    for entry in item_labels(store, campaign):
        if may_read is not None and not may_read(entry.item.run_id):
            continue
        if name not in entry.labels and len(entry.labels) < campaign.overlap:
            if entry.item not in skip:
                return entry.item
            skipped = skipped or entry.item
    return skipped


def progress(store: Store, campaign: CampaignRow) -> dict[str, Any]:
    """Overall and per-annotator progress, and the disagreements still open."""
    entries = item_labels(store, campaign)
    k = campaign.overlap
    per: dict[str, dict[str, int]] = {}
    for name in campaign.annotators():
        mine = sum(1 for e in entries if name in e.labels)
        left = sum(1 for e in entries if name not in e.labels and len(e.labels) < k)
        per[name] = {"labelled": mine, "queue": left}
    split = [e for e in entries if e.disagree]
    return {
        "campaign": campaign.name,
        "blind": campaign.blind,
        "runs": len(campaign.run_ids()),
        "sides": campaign.sides(),
        "overlap": k,
        "items": len(entries),
        "items_done": sum(1 for e in entries if len(e.labels) >= k),
        "labels": sum(min(len(e.labels), k) for e in entries),
        "labels_needed": len(entries) * k,
        "annotators": per,
        "disagreements": len(split),
        "disagreements_pending": sum(1 for e in split if e.adjudication is None),
    }


def who_labelled(store: Store, campaign: CampaignRow) -> list[ItemLabels]:
    """The items someone labelled, with who said what."""
    return [e for e in item_labels(store, campaign) if e.labels]


def disagreements(store: Store, campaign: CampaignRow, *, pending_only: bool = False) -> list[ItemLabels]:
    return [e for e in item_labels(store, campaign) if e.disagree and not (pending_only and e.adjudication is not None)]


def adjudicate(store: Store, campaign: CampaignRow, item: Item, adjudicator: str, label: bool, comment: str = "") -> AdjudicationRow:
    """Resolve a disagreement (again: a new resolution replaces the item's adjudication, which the
    store keeps in its history). Refused (``CampaignError``) for an item that is not in the
    campaign or not in dispute, and for an adjudicator who labelled the item."""
    who = _person(adjudicator, "adjudicator")
    entry = next((e for e in item_labels(store, campaign) if e.item == item), None)
    if entry is None:
        raise CampaignError(f"{item.label()} is not in campaign {campaign.name!r}")
    if not entry.disagree:
        raise CampaignError(f"{item.label()} has no disagreement to resolve")
    if who in entry.labels:
        raise CampaignError(f"{who!r} labelled {item.label()}: a disagreement is resolved by a third person")
    return store.put_adjudication(AdjudicationRow(
        run_id=item.run_id, side=item.side, item_index=item.index, label=label, adjudicator=who,
        comment=(comment or "")[:10_000], campaign=campaign.name,
    ))


def final_label(store: Store, item: Item) -> bool | None:
    """The single human label of an item: its adjudication, else the labels' strict majority, else
    None (an open tie, or nobody labelled it); ``human_label.item_finals``, as every export."""
    found = item_finals(store, item.side, [item.run_id]).get((item.run_id, item.index))
    return found.label if found else None
