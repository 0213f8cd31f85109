"""The scorer: a worked example checked by hand, and malformed answers that must not raise."""

from __future__ import annotations

import pytest

from vibesearch.tables import gold_markdown, score_table

from _table_fixtures import planets_task

GOLD_HEADER = "| Planet | Order | Type |\n|---|---|---|\n"


def md(rows: list[tuple[str, ...]], header: str = GOLD_HEADER) -> str:
    return header + "\n".join("| " + " | ".join(r) + " |" for r in rows)


def test_worked_example_by_hand(planets):
    # Gold: 5 rows x 3 columns (Mercury 1, Venus 2, Earth 3, Mars 4, Jupiter 5).
    # Answer: Mars is missing, Saturn is extra, and Earth's Order is wrong (4 instead of 3).
    answer = "Here is the table:\n\n```markdown\n" + md(
        [
            ("Mercury", "1", "terrestrial"),
            ("Venus", "2", "Terrestrial"),  # case does not matter for exact
            ("Earth", "4", "terrestrial"),  # wrong Order
            ("Jupiter", "5th", "gas giant"),  # "5th": the first number is 5
            ("Saturn", "6", "gas giant"),  # not in the gold table
        ]
    ) + "\n```\nHope this helps."
    s = score_table(planets, answer)
    # Rows counted in the answer: 5; gold rows: 5; aligned: Mercury, Venus, Earth, Jupiter.
    # Right rows (every cell right): Mercury, Venus, Jupiter = 3 (Earth has a wrong cell).
    # Row precision = 3/5 = 0.6, row recall = 3/5 = 0.6, Row-F1 = 2*0.6*0.6/1.2 = 0.6.
    assert (s.n_pred_rows, s.n_gold_rows, s.n_right_rows) == (5, 5, 3)
    assert s.row_precision == pytest.approx(0.6)
    assert s.row_recall == pytest.approx(0.6)
    assert s.row_f1 == pytest.approx(0.6)
    # Right cells: Mercury 3 + Venus 3 + Earth 2 (key and Type) + Jupiter 3 = 11.
    # Item precision = 11 / (5 answer rows * 3 columns) = 11/15; recall = 11 / (5 * 3) = 11/15.
    assert s.n_right_cells == 11
    assert s.item_precision == pytest.approx(11 / 15)
    assert s.item_recall == pytest.approx(11 / 15)
    assert s.item_f1 == pytest.approx(11 / 15)  # = 0.7333...
    # SR: not every row/item precision and recall is 1.
    assert s.success is False
    wrong = [c for c in s.cells if not c.right and s.rows[c.row].status == "matched"]
    assert [(c.row_key, c.column, c.predicted, c.gold) for c in wrong] == [("Earth", "Order", "4", "3")]
    statuses = {r.key: r.status for r in s.rows}
    assert statuses == {"Mercury": "matched", "Venus": "matched", "Earth": "matched", "Jupiter": "matched", "Saturn": "extra", "Mars": "missing"}
    assert "1 not in the gold table, 1 gold row(s) missing; 1 wrong cell(s)" in s.reason
    key_cells = [c for c in s.cells if c.column == "Planet" and s.rows[c.row].status == "matched"]
    assert all(c.right and c.rule == "key" for c in key_cells)


def test_worked_example_without_the_extra_row(planets):
    answer = md([("Mercury", "1", "terrestrial"), ("Venus", "2", "terrestrial"), ("Earth", "4", "terrestrial"), ("Jupiter", "5", "gas giant")])
    s = score_table(planets, answer)
    # Row P = 3/4, row R = 3/5, Row-F1 = 2*3/(4+5) = 2/3.
    assert (s.row_precision, s.row_recall) == (pytest.approx(0.75), pytest.approx(0.6))
    assert s.row_f1 == pytest.approx(2 / 3)
    # Right cells 11; item P = 11/12, item R = 11/15, Item-F1 = 2*11/(12+15) = 22/27.
    assert (s.item_precision, s.item_recall) == (pytest.approx(11 / 12), pytest.approx(11 / 15))
    assert s.item_f1 == pytest.approx(22 / 27)


def test_gold_answer_succeeds_and_row_order_does_not_matter(planets):
    s = score_table(planets, gold_markdown(planets))
    assert s.success and s.row_f1 == 1 and s.item_f1 == 1
    lines = gold_markdown(planets).splitlines()
    shuffled = "\n".join(lines[:2] + list(reversed(lines[2:])))
    assert score_table(planets, shuffled).success


def test_headers_are_normalised_and_reordered(planets):
    answer = md([(t, n, p) for p, n, t in [("Mercury", "1", "terrestrial"), ("Venus", "2", "terrestrial"), ("Earth", "3", "terrestrial"), ("Mars", "4", "terrestrial"), ("Jupiter", "5", "gas giant")]],
                header="| **TYPE** | order |  planet |\n|:--|--:|:-:|\n")
    s = score_table(planets, answer)
    assert s.success, s.reason


def test_key_alignment_is_case_and_space_insensitive(planets):
    answer = md([("MERCURY", "1", "terrestrial"), ("venus", "2", "terrestrial"), ("Ear th", "3", "terrestrial"), ("**Mars**", "4", "terrestrial"), ("Jupiter", "5", "gas giant")])
    assert score_table(planets, answer).success


# ---------------------------------------------------------------------- malformed answers
def test_no_table_scores_zero_with_reason(planets):
    for text in ("Mercury is first, then Venus.", "", None, "| only one line |"):
        s = score_table(planets, text)
        assert s.success is False and s.item_f1 == 0 and s.row_f1 == 0
        assert s.reason
        assert not s.parsed
        # every gold row is listed as missing, so a viewer can still show what was expected
        assert [r.status for r in s.rows] == ["missing"] * 5
    assert "empty" in score_table(planets, "  ").reason
    assert "no Markdown table" in score_table(planets, "just text").reason


def test_wrong_headers_score_zero_without_judge(planets):
    answer = md([("Mercury", "1", "rocky")], header="| Planet | Position | Type |\n|---|---|---|\n")
    s = score_table(planets, answer)
    assert s.item_f1 == 0 and not s.success
    assert "missing column(s) ['Order']" in s.reason
    assert "unexpected header(s) ['Position']" in s.reason
    assert "no judge model" in s.reason


def test_extra_column_scores_zero(planets):
    answer = md([("Mercury", "1", "terrestrial", "x")], header="| Planet | Order | Type | Source |\n|---|---|---|---|\n")
    s = score_table(planets, answer)
    assert s.item_f1 == 0 and "unexpected header(s) ['Source']" in s.reason


def test_ragged_rows_are_padded_or_cut_and_scored_partially(planets):
    answer = (
        GOLD_HEADER
        + "| Mercury | 1 |\n"  # one cell short
        + "| Venus | 2 | terrestrial | extra | cells |\n"  # two cells too many
        + "| Earth | 3 | terrestrial |\n| Mars | 4 | terrestrial |\n| Jupiter | 5 | gas giant |"
    )
    s = score_table(planets, answer)
    assert not s.success
    # Mercury's Type is empty -> wrong; every other cell right: 14 of 15
    assert s.n_right_cells == 14
    assert s.item_precision == pytest.approx(14 / 15)
    assert s.row_recall == pytest.approx(4 / 5)
    assert "padded with empty cells" in s.reason
    assert "extra cells were dropped" in s.reason


def test_duplicate_keys_keep_the_first(planets):
    answer = md(
        [("Mercury", "1", "terrestrial"), ("Venus", "2", "terrestrial"), ("Earth", "3", "terrestrial"),
         ("Mars", "4", "terrestrial"), ("Jupiter", "5", "gas giant"), ("mercury", "9", "ice giant")]
    )
    s = score_table(planets, answer)
    # the repeated row is dropped, so it neither lowers precision nor replaces the first one
    assert s.success
    assert s.n_pred_rows == 5
    assert [r.status for r in s.rows].count("duplicate") == 1
    assert "repeats the key 'mercury'; dropped" in s.reason


def test_duplicate_first_row_wrong_is_kept(planets):
    answer = md([("Mercury", "7", "terrestrial"), ("Mercury", "1", "terrestrial")])
    s = score_table(planets, answer)
    merc = [c for c in s.cells if c.column == "Order" and s.rows[c.row].status == "matched"]
    assert [c.predicted for c in merc] == ["7"] and not merc[0].right


def test_empty_cells_and_empty_keys(planets):
    answer = md([("Mercury", "", "terrestrial"), ("", "2", "terrestrial"), ("Earth", "3", ""), ("Mars", "4", "terrestrial"), ("Jupiter", "5", "gas giant"), ("", "", "")])
    s = score_table(planets, answer)
    # counted rows: Mercury, (empty key), Earth, Mars, Jupiter = 5 (the all-empty row is skipped)
    assert s.n_pred_rows == 5
    # right cells: Mercury 2, Earth 2, Mars 3, Jupiter 3 = 10
    assert s.n_right_cells == 10
    assert s.item_precision == pytest.approx(10 / 15)
    assert s.row_precision == pytest.approx(2 / 5)
    assert "empty primary-key cell" in s.reason
    assert "is empty and was skipped" in s.reason


def test_pipe_lines_without_separator_fallback(planets):
    answer = "Planet | Order | Type\nMercury | 1 | terrestrial\nVenus | 2 | terrestrial"
    s = score_table(planets, answer)
    assert s.parsed and s.n_right_cells == 6
    assert "no Markdown separator line" in s.reason


def test_only_the_first_of_two_tables_is_scored(planets):
    first = gold_markdown(planets)
    second = md([("Pluto", "9", "dwarf")])
    s = score_table(planets, first + "\n\nAnd another:\n\n" + second)
    assert s.success
    assert "only the first was scored" in s.reason


def test_escaped_pipes_stay_inside_a_cell():
    tt = planets_task(rows=[{"Planet": "A|B", "Order": 1, "Type": "x"}])
    assert score_table(tt, GOLD_HEADER + "| A\\|B | 1 | x |").success


def test_numbers_and_percent_columns_in_a_table():
    tt = planets_task(
        columns=[{"name": "Planet"}, {"name": "Order", "metric": "number", "tolerance": 0.05}, {"name": "Type", "metric": "number"}],
        rows=[{"Planet": "A", "Order": "1,000", "Type": "25%"}],
    )
    s = score_table(tt, GOLD_HEADER + "| A | 1,040 units | 0.25 |")
    assert s.success, s.reason
    s = score_table(tt, GOLD_HEADER + "| A | 1,060 | 25 |")
    assert [c.right for c in s.cells if c.column != "Planet"] == [False, False]


def test_markdown_links_and_bold_in_key_cells(planets):
    answer = md([("[Mercury](https://en.wikipedia.org/wiki/Mercury_(planet))", "1", "terrestrial"), ("**Venus**", "2", "terrestrial")])
    s = score_table(planets, answer)
    assert s.n_right_rows == 2 and s.row_precision == 1.0


def test_number_key_aligns_by_its_rule():
    tt = planets_task(
        columns=[{"name": "Year", "metric": "number"}, {"name": "Event"}, {"name": "Place"}],
        primary_key=["Year"],
        rows=[{"Year": 1610, "Event": "moons", "Place": "Padua"}, {"Year": 1655, "Event": "Titan", "Place": "The Hague"}],
    )
    answer = "| Year | Event | Place |\n|---|---|---|\n| 1610 AD | moons | Padua |\n| 1,655 | Titan | The Hague |"
    s = score_table(tt, answer)
    assert s.success, s.reason
    assert [r.note for r in s.rows] == ["aligned by the key columns' rules"] * 2


def test_header_only_table_scores_zero(planets):
    s = score_table(planets, GOLD_HEADER)
    assert s.parsed and s.n_pred_rows == 0
    assert (s.row_precision, s.row_recall, s.item_f1, s.success) == (0.0, 0.0, 0.0, False)
    assert "the answer has 0 row(s)" in s.reason


def test_random_garbage_never_raises(planets):
    import random

    rng = random.Random(7)
    pieces = ["|", "||", "---", ":-:", "Planet", "Order", "Type", "Mercury", "1", "\\|", "```", "\n", " ", "**", "Earth", "3,0", "%", "é", "[x](y)"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        s = score_table(planets, text)
        assert 0.0 <= s.item_f1 <= 1.0 and 0.0 <= s.row_f1 <= 1.0
        assert s.reason
