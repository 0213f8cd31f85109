"""Re-extraction (the official ``scripts/re_extract_triples.py``): the stored conversation as the
agent last had it, before its extraction request, then the current triple request; one call with
no tools and 32,768 tokens; the answer stored as the run's newest graph, which scoring grades
unless told otherwise."""

from __future__ import annotations

import json

from _official_session import HARNESS, _build, litellm_reply
from typer.testing import CliRunner

from vibesearch.agents.reextract import reextract
from vibesearch.cli.main import app
from vibesearch.protocol import build_config, load_prompts, own_prompts
from vibesearch.protocol.rules import REEXTRACT_MAX_TOKENS
from vibesearch.scoring import score_run
from vibesearch.session import run_session

OLD = '[{"head": "Uji", "relation": "located in", "tail": "Osaka"}]'
NEW = '[{"head": "Uji", "relation": "located in", "tail": "Kyoto Prefecture"}]'


async def _a_run(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        if req.tools is None:
            return litellm_reply(OLD)
        if len(requests) == 1:
            return litellm_reply("", reasoning="Searching.", tool_calls=[("no_such_tool", {"q": "uji"})])
        return litellm_reply("Uji is in Kyoto Prefecture.")

    fake.register("re-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(task, settings, agent_model="fake/re-agent"), store, settings)
    return result.run_id, requests


async def test_the_request_is_the_agents_context_with_the_current_triple_request(fake, task, store, settings):
    run_id, requests = await _a_run(fake, task, store, settings)
    original = requests[-1]  # the run's own extraction request
    asked = []

    def again(req):
        asked.append(req)
        return litellm_reply(NEW)

    fake.register("kimi-re", again)
    prompts = load_prompts(HARNESS)  # the current request: the stand-in checkout's, not the run's own
    graph = await reextract(store.get_run(run_id).task(), store.events(run_id), prompts, model="fake/kimi-re", settings=settings,
                            protocol="official")
    (req,) = asked
    # what the script's OpenAI client sends when it is given no temperature or top_p
    assert req.tools is None and req.sampling == {"temperature": 0.7, "top_p": 0.95, "max_tokens": REEXTRACT_MAX_TOKENS}
    assert req.body.get("chat_template_kwargs") == {"thinking": True, "reasoning_effort": "max"}  # Kimi (and DeepSeek)
    assert req.messages[0] == {"role": "system", "content": prompts.agent_system_prompt("en")}
    # the dialogue as the agent had it (system prompt aside), then the current request in place of the old one
    assert req.messages[1:-1] == original.messages[1:-1]
    assert req.messages[-1] == {"role": "user", "content": prompts.extraction_prompt("en")}
    assert graph.source == "reextraction" and graph.triples == json.loads(NEW)


async def test_scoring_grades_the_newest_graph_unless_told_otherwise(fake, task, store, settings):
    run_id, _ = await _a_run(fake, task, store, settings)
    fake.register("re-model", lambda req: litellm_reply(NEW))
    graph = await reextract(
        store.get_run(run_id).task(), store.events(run_id), own_prompts(), model="fake/re-model", settings=settings, protocol="official"
    )
    store.add_graph(run_id, graph)
    newest = score_run(store, run_id, judge="offline", settings=settings, protocol="vibesearch")
    own = score_run(store, run_id, judge="offline", settings=settings, protocol="vibesearch", original=True)
    assert newest.details()["graded_graph"]["source"] == "reextraction" and own.details()["graded_graph"]["source"] == "extraction"
    assert newest.graph_id != own.graph_id
    assert newest.n_covered >= own.n_covered  # Kyoto Prefecture is the ground truth's, Osaka is not


def test_the_command_refuses_without_runs(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    result = CliRunner().invoke(app, ["reextract", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1 and "give run ids or --all" in result.output


def test_the_command_samples_as_each_runs_profile_reextracts(fake, task, store, settings, tmp_db):
    """Through the command, over a stored run of each profile: the official run is asked again with
    0.7 / 0.95 / 32,768, ours with the 32,768 tokens only (the provider's own temperature)."""
    import asyncio

    from vibesearch.agents import make_agent
    from vibesearch.users import make_user

    official_id, _ = asyncio.run(_a_run(fake, task, store, settings))
    ours = build_config(settings, task_id=task.id, agent="react", agent_model="fake/re-agent", user="rules", protocol="vibesearch")
    ours_id = asyncio.run(run_session(ours, task, make_agent(ours, task, settings), make_user(ours, task, settings), store, settings)).run_id
    asked = []

    def again(req):
        asked.append(req)
        return litellm_reply(NEW)

    fake.register("cli-re", again)
    for run_id, expected in ((official_id, {"temperature": 0.7, "top_p": 0.95, "max_tokens": REEXTRACT_MAX_TOKENS}),
                             (ours_id, {"max_tokens": REEXTRACT_MAX_TOKENS})):
        out = CliRunner().invoke(app, ["reextract", run_id, "--model", "fake/cli-re", "--json", "--db", str(tmp_db)])
        assert out.exit_code == 0, out.output
        assert json.loads(out.stdout)[0]["triples"] == 1
        assert asked[-1].sampling == expected and asked[-1].tools is None
