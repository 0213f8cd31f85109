"""``vibesearch run --queue``: what is said once a batch's jobs are written (the checks and the
writing: ``runner.start``; the workers that drive them: ``cli/worker.py``, docs/deploy.md)."""

from __future__ import annotations

import shlex
from typing import Any

from ._common import console, db_shown, print_json


def show_queued(settings: Any, spec: Any, run_ids: list[str], limits: dict[str, int], json_out: bool) -> None:
    """Say how many runs were queued and how to watch the batch."""
    watch = " ".join(shlex.quote(w) for w in ("vibesearch", "batch", "status", spec.batch_id, "--db", db_shown(settings.db)))
    if json_out:
        print_json({"batch_id": spec.batch_id, "runs": run_ids, "provider_limits": limits, "watch": watch})
    else:
        console.print(f"batch {spec.batch_id}: {len(run_ids)} run(s) queued for `vibesearch worker`", highlight=False, soft_wrap=True)
        console.print(f"watch it with: {watch}", highlight=False, soft_wrap=True, markup=False)
