"""The offline baseline on WideSearch-style table tasks: it answers with one Markdown table
assembled from the visited pages' annotated facts, which the table scorer can read."""

from __future__ import annotations

from agents_testkit import Recorder, agent_of

from vibesearch.agents.baseline import table_answer
from vibesearch.config import BUNDLED_TABLE_TASKS
from vibesearch.tables import load_table_tasks, score_table, table_task_to_task
from vibesearch.tasks.models import CorpusDoc, Triple


def test_table_answer_builds_rows_from_facts_matching_columns():
    docs = [
        CorpusDoc(url="u1", title="Io", text="Io ...", facts=[
            Triple(head="Io", relation="Discoverer", tail="Galileo Galilei"),
            Triple(head="Io", relation="orbits", tail="Jupiter"),  # not a column: ignored
        ]),
        CorpusDoc(url="u2", title="Titan", text="Titan ...", facts=[
            Triple(head="Titan", relation="discoverer", tail="Christiaan Huygens"),
            Triple(head="Titan", relation="Year", tail="1655"),
        ]),
    ]
    text = table_answer(docs, ["Moon", "Discoverer", "Year"], zh=False)
    assert "| Moon | Discoverer | Year |" in text
    assert "| Io | Galileo Galilei |  |" in text
    assert "| Titan | Christiaan Huygens | 1655 |" in text


async def test_baseline_answers_every_bundled_table_task_with_a_scorable_table(store, settings):
    table_tasks = load_table_tasks([BUNDLED_TABLE_TASKS])
    assert len(table_tasks) >= 3
    for tt in table_tasks:
        task = table_task_to_task(tt)
        agent = agent_of("baseline", task, settings)
        rec = Recorder(store, task)
        rec.user(task.persona.initial_query)
        reply = await agent.respond(rec.convo, rec.emit)
        assert reply.final
        score = score_table(tt, reply.text)
        assert score.item_recall > 0.5, (tt.id, score.reason)
        assert score.item_precision == 1.0, (tt.id, score.reason)
