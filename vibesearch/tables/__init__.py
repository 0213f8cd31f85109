"""WideSearch-style table tasks: the task model, loaders (ours and WideSearch's layout), answer
table parsing, the cell-by-cell scorer, aggregation over runs and an HTML view of a score."""

from .aggregate import TableAggregate, TaskTableAggregate, aggregate_table_scores
from ._normalise import norm_text, parse_dates, parse_number, url_domains
from .cells import check_cell
from .convert import gold_markdown, request_line, table_task_from_task, table_task_to_task
from .loader import (
    get_table_task,
    is_table_task_path,
    load_table_corpus,
    load_table_tasks,
    load_table_tasks_with_problems,
)
from .models import CellVerdict, RowVerdict, TableColumn, TableScore, TableTask
from .parse import ParsedTable, parse_answer_table
from .render import render_table_html
from .runs import score_table_run, table_run_score, table_score_of, to_run_score
from .score import score_table, score_table_async

__all__ = [
    "CellVerdict",
    "ParsedTable",
    "RowVerdict",
    "TableAggregate",
    "TableColumn",
    "TableScore",
    "TableTask",
    "TaskTableAggregate",
    "aggregate_table_scores",
    "check_cell",
    "get_table_task",
    "gold_markdown",
    "is_table_task_path",
    "load_table_corpus",
    "load_table_tasks",
    "load_table_tasks_with_problems",
    "parse_answer_table",
    "render_table_html",
    "request_line",
    "score_table",
    "score_table_async",
    "score_table_run",
    "table_score_of",
    "table_task_from_task",
    "table_task_to_task",
    "table_run_score",
    "to_run_score",
    "norm_text",
    "parse_dates",
    "parse_number",
    "url_domains",
]
