"""Stand-in judge (our own placeholder text) built like the official one: a prompt assembled
inside ``_run_gt_coverage_batch`` from literals, f-string fields and ``str(...)`` pieces."""

import os

NUM_EVAL_BATCHES = 5
_COUNT_RETRIES = 3

with open(os.environ.get("HARNESS_IMPORT_MARKER", "harness-was-imported.txt"), "w") as _f:
    _f.write("eval/evaluator.py was executed\n")
raise RuntimeError("the stand-in harness must be parsed, not imported")


def _run_gt_coverage_batch(grader, batch, batch_offset, pred_ctx, gt_data):
    claims_text = "\n".join(str(c) for c in batch)
    first_idx = batch_offset
    last_idx = batch_offset + len(batch) - 1
    prompt = (
        "STAND-IN JUDGE.\n"
        f"Predictions:\n{pred_ctx}\n\n"
        f"Claims ({len(batch)}, GT-{first_idx}..GT-{last_idx}):\n{claims_text}\n\n"
        'Answer: {"results": [{"index": ' + str(first_idx) + ', "covered": true, "supporting_pred_indices": []}, '
        '{"index": ' + str(first_idx + 1) + ", ...}, ..., {\"index\": " + str(last_idx) + "}]}"
    )
    return prompt
