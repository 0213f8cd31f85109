"""Reading a page for a goal: an LLM summary when a summariser model is configured, otherwise the
passages of the page that best match the goal."""

from __future__ import annotations

from ..config import Settings
from ..run.events import Emit
from ._text import passages, rank_texts

# How much page text the summariser gets in one call (characters).
SUMMARISER_INPUT_CHARS = 60_000

_INSTRUCTIONS = """You read one web page on behalf of a research assistant who is working on a \
task for a user. Pull out of the page everything that helps with the assistant's goal.

Rules:
- Keep concrete details exactly as the page gives them: names, numbers, dates, places, titles, \
quotations, lists.
- Stay with what the page actually says; add nothing from your own knowledge.
- If the page covers only part of the goal, report that part and say what is missing.
- If nothing on the page bears on the goal, reply with one sentence saying so.
- Write compact prose or bullet points in the language of the page; no preamble."""


def relevant_passages(text: str, goal: str, *, k: int = 3, budget: int | None = None) -> list[str]:
    """The ``k`` passages of ``text`` that best match ``goal``, in page order.

    With ``budget`` (characters), passages are added best-first until the budget is used, so a
    large budget returns more than ``k`` passages.
    """
    parts = passages(text)
    if not parts:
        return []
    ranked = rank_texts(goal, parts)
    if not ranked:
        ranked = [(i, 0.0) for i in range(len(parts))]  # nothing matched: the start of the page
    chosen: list[int] = []
    used = 0
    for idx, _ in ranked:
        size = len(parts[idx])
        if budget is None:
            if len(chosen) >= k:
                break
        elif chosen and used + size > budget:
            if len(chosen) >= k:
                break
            continue
        chosen.append(idx)
        used += size
    return [parts[i] for i in sorted(chosen)]


def passages_view(text: str, goal: str, limit: int) -> str:
    """The page itself when it fits in ``limit`` characters, else its best passages for the goal."""
    if len(text) <= limit:
        return text
    chosen = relevant_passages(text, goal, k=3, budget=limit)
    shown = sum(len(p) for p in chosen)
    note = (
        f"[the page has {len(text)} characters; shown: the {len(chosen)} passages "
        f"({shown} characters) that best match the goal, separated by '...']"
    )
    return note + "\n" + "\n...\n".join(chosen)


async def summarise_for_goal(
    text: str,
    goal: str,
    *,
    url: str,
    title: str | None,
    settings: Settings,
    emit: Emit | None = None,
) -> str:
    """A goal-focused summary of a page by ``settings.summariser_model`` (raises ``LLMError``)."""
    from ..llm import complete
    from ..run.config import default_sampling

    assert settings.summariser_model, "summarise_for_goal needs settings.summariser_model"
    page = text
    if len(page) > SUMMARISER_INPUT_CHARS:
        page = passages_view(text, goal, SUMMARISER_INPUT_CHARS)
    messages = [
        {"role": "system", "content": _INSTRUCTIONS},
        {
            "role": "user",
            "content": f"Goal: {goal}\n\nPage: {title or '(untitled)'}\nURL: {url}\n\n--- page text ---\n{page}",
        },
    ]
    # the summariser is the process's, not a part of the run: its model and sampling come from the settings
    result = await complete(messages, model=settings.summariser_model, purpose="summariser", emit=emit, settings=settings,
                            sampling=default_sampling(settings))
    return result.content.strip() or "(the summariser returned nothing)"


async def read_for_goal(
    text: str,
    goal: str,
    *,
    url: str,
    title: str | None,
    settings: Settings,
    limit: int,
    emit: Emit | None = None,
) -> str:
    """What ``visit`` shows of one page: a summary when a summariser is set, else passages.

    A failing summariser falls back to the passages, with a note saying so.
    """
    if settings.summariser_model:
        from ..llm import LLMError

        try:
            summary = await summarise_for_goal(text, goal, url=url, title=title, settings=settings, emit=emit)
            return f"Summary for the goal:\n{summary}"
        except LLMError as exc:
            from ..llm import scrub

            note = f"[the summariser failed ({scrub(str(exc))[:300]}); showing passages instead]\n"
            return note + passages_view(text, goal, limit)
    return passages_view(text, goal, limit)
