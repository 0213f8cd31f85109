"""A bundled table task through the normal session (ReAct agent on a scripted fake model, the
``direct`` user, the offline corpus) and then ``scoring.score_run``, which hands it to the
table scorer."""

from __future__ import annotations

import json

from vibesearch.agents import make_agent
from vibesearch.scoring import score_run
from vibesearch.session import run_session
from vibesearch.tables import get_table_task, gold_markdown, table_score_of, table_task_to_task
from vibesearch.users import make_user
from vibesearch.protocol import build_config


async def test_table_task_runs_through_the_session_and_scores(fake, settings, store):
    tt = get_table_task("galilean-moons")
    task = table_task_to_task(tt)
    seen: list[str] = []

    def agent(req):
        if not req.tool_results() and not seen:
            seen.append(req.last_user)
            return fake.Reply(tool_calls=[("search", {"query": "Galilean moons mean diameter orbital period"})])
        seen.append(req.tool_results()[0]["content"] if req.tool_results() else "")
        table = gold_markdown(tt).replace("| 16.689 |", "| 16.7 days |")  # within the 1% tolerance
        return fake.Reply(content="From the sources:\n\n```markdown\n" + table + "\n```")

    model = fake.register("table-agent", agent)
    config = build_config(settings, task_id=task.id, agent="react", agent_model=model, user="direct")
    agent_, user = make_agent(config, task, settings), make_user(config, task, settings)
    result = await run_session(config, task, agent_, user, store, settings)
    assert result.status == "finished", result
    # the request the agent saw names the columns and the one-table format
    assert "Mean diameter (km)" in seen[0] and "Markdown table" in seen[0]
    # the offline corpus answered the search
    assert "Ganymede" in seen[1]
    row = score_run(store, result.run_id)
    assert row.f1 == 1.0 and json.loads(row.details_json)["kind"] == "table"
    assert table_score_of(row).success
