"""Writes the fuzz corpus: malformed files for every file input of the CLI.

    python tests/data/fuzz/make_corpus.py      # rewrites the folders below (deterministic)

Folders (each file is fed to the commands that read that kind of file, see
tests/cli/test_fuzz_inputs.py):

* ``valid/``         one good file of each kind (the controls: they must be accepted)
* ``tasks/``         task files, ours and the official format (JSON, YAML, JSONL)
* ``corpora/``       good task files whose corpus (in ``corpora/corpus/``) has a bad line
* ``trajectories/``  official trajectory files (``vibesearch import``)
* ``extraction/``    final-extraction files (``vibesearch import T --extraction F``)
* ``labels/``        human label files, JSONL and CSV (``vibesearch labels import``)
* ``cases/``         judge calibration cases (``vibesearch labels calibrate``)
* ``tables/``        table tasks, ours and WideSearch's layout (``vibesearch table score``)
* ``answers/``       table answers (``vibesearch table score ... ANSWER``)

Files that cannot live in git (a FIFO, a device, a file over the size limit, damaged databases)
are made by the test in its temporary folder.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RUN_ID = "fuzzrun00001"  # the run the label files name; the test puts it in its database
TABLE_ID = "fuzz-table"

OURS: dict[str, Any] = {
    "id": "fuzz-ours",
    "subset": "daily",
    "language": "en",
    "persona": {
        "background": "Plans a night of watching the sky from a dark field.",
        "initial_query": "What is worth looking at tonight?",
        "behavior": "Short questions.",
        "stages": [
            {"name": "Opening", "trigger": {"kind": "start", "condition": "conversation start"}, "line": "What is worth looking at tonight?", "cues": []},
            {"name": "Moons", "trigger": {"kind": "mentions", "condition": "the assistant names Jupiter"}, "line": "Which of its moons can I see?", "cues": ["Jupiter"]},
        ],
    },
    "graph": [{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}],
}

PERSONA_MD = (
    "# Core Identity\nWatches the sky from a dark field.\n\n# Staged Information Disclosure\n\n"
    "### Stage 1: Opening\n- **Trigger condition**: Conversation begins\n- **Line**: > What is worth looking at tonight?\n"
    "- **When not met**: Not applicable\n\n### Stage 2: Moons\n- **Trigger condition**: After the assistant names Jupiter\n"
    "- **Line**: > Which of its moons can I see?\n- **When not met**: \"Any planets up?\"\n"
)
OFFICIAL: dict[str, Any] = {
    "task_id": "fuzz_official",
    "final_query": "Which moons of Jupiter can I see tonight?",
    "initial_query": "What is worth looking at tonight?",
    "user_persona": PERSONA_MD,
    "language": "en",
    "nodes": [{"node_id": 1, "node_name": "Europa"}, {"node_id": 2, "node_name": "Jupiter"}],
    "triples": [{"head_id": 1, "relation": "moon of", "tail_id": 2}],
}


def trajectory(n_rounds: int = 12) -> dict[str, Any]:
    """A small complete trajectory: user, assistant with a tool call, assistant answer, ..."""
    turns: list[dict[str, Any]] = [{"type": "user", "content": "Which moons of Jupiter can I see?"}]
    for i in range(n_rounds):
        turns.append({"type": "assistant", "content": f"Looking that up ({i}).", "tool_calls": [
            {"id": f"call_{i}", "name": "search", "args": {"query": f"jupiter moons {i}", "topn": 5}, "result": f"result {i}"}]})
        turns.append({"type": "assistant", "content": f"Europa and Io are visible ({i})."})
        turns.append({"type": "user", "content": f"And the next one? ({i})"})
    turns.append({"type": "user", "content": "Now list everything as JSON triples."})
    turns.append({"type": "assistant", "content": '[{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}]'})
    users = sum(t["type"] == "user" for t in turns)
    return {
        "qid": "fuzz_traj", "subset": "daily", "sample_idx": 1, "question": "Which moons of Jupiter can I see?",
        "termination": "answer", "metrics": {"triplet_f1": 0.5},
        "stats": {"user_turns": users, "assistant_turns": len(turns) - users, "tool_calls": n_rounds},
        "turns": turns,
    }


TABLE: dict[str, Any] = {
    "id": TABLE_ID,
    "language": "en",
    "query": "List two Galilean moons with their discoverer.",
    "columns": [{"name": "Moon", "metric": "exact"}, {"name": "Discoverer", "metric": "contains"}],
    "primary_key": ["Moon"],
    "rows": [{"Moon": "Io", "Discoverer": "Galileo"}, {"Moon": "Europa", "Discoverer": "Galileo"}],
}
CASE = {"id": "c1", "gt": {"head": "Io", "relation": "moon of", "tail": "Jupiter"},
        "pred": [{"head": "Io", "relation": "moon of", "tail": "Jupiter"}], "covered": True, "evidence": [0]}
LABEL = {"run_id": RUN_ID, "gt_index": 0, "annotator": "ann", "covered": True, "evidence": [0], "note": ""}

LOL_YAML = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


# ---------------------------------------------------------------------- helpers
def deep_json(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def deep_value(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def set_at(data: Any, path: tuple, value: Any) -> Any:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def drop_at(data: Any, path: tuple) -> Any:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return data


def yaml_dump(data: Any) -> str:
    import yaml

    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def surrogate_json(data: Any, placeholder: str = "SURROGATE") -> str:
    """JSON text whose placeholder string holds a lone surrogate escape."""
    return json.dumps(data, ensure_ascii=False).replace(placeholder, "bad \\ud800 text")


BAD_VALUES: dict[str, Any] = {
    "null": None, "zero": 0, "false": False, "list": [], "object": {}, "empty": "", "float": 1.5,
    "bignum": 10**30, "deep": deep_value(150),
}


class Writer:
    def __init__(self, root: Path):
        self.root = root
        self.count = 0

    def text(self, folder: str, name: str, text: str) -> None:
        self.raw(folder, name, text.encode("utf-8", "surrogatepass"))

    def raw(self, folder: str, name: str, data: bytes) -> None:
        path = self.root / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.count += folder != "valid"

    def json(self, folder: str, name: str, data: Any) -> None:
        self.text(folder, name, json.dumps(data, ensure_ascii=False, indent=1 if folder == "valid" else None))

    def jsonl(self, folder: str, name: str, rows: list[Any]) -> None:
        self.text(folder, name, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


# ---------------------------------------------------------------------- kinds
def common_text_files(w: Writer, folder: str, suffix: str) -> None:
    """Bad bytes and bad syntax that any text file of this kind can have."""
    w.raw(folder, f"latin1{suffix}", "{\"id\": \"caf\u00e9\"}\n".encode("latin-1"))
    w.raw(folder, f"utf16{suffix}", "{\"id\": \"x\"}".encode("utf-16"))
    w.raw(folder, f"random_bytes{suffix}", bytes(random.Random(7).randrange(256) for _ in range(2048)))
    w.raw(folder, f"cut_multibyte{suffix}", "{\"id\": \"中".encode("utf-8")[:-1])
    w.raw(folder, f"empty{suffix}", b"")
    w.raw(folder, f"only_bom{suffix}", b"\xef\xbb\xbf")
    w.text(folder, f"whitespace{suffix}", "  \n\t\n")
    w.text(folder, f"deep_20k{suffix}", deep_json(20_000))
    w.text(folder, f"deep_object_5k{suffix}", '{"a":' * 5000 + "1" + "}" * 5000)
    w.text(folder, f"long_number{suffix}", '{"a": ' + "7" * 5000 + "}")
    w.text(folder, f"truncated{suffix}", '{"a": [1, 2, {"b": "c"')
    w.text(folder, f"nul_bytes{suffix}", '{"a": "x"}\x00\x00')


def task_files(w: Writer) -> None:
    f = "tasks"
    common_text_files(w, f, ".json")
    w.text(f, "deep_100k.json", deep_json(100_000))
    w.raw(f, "latin1.yaml", "id: caf\u00e9\nsubset: daily\n".encode("latin-1"))
    w.raw(f, "utf16.yaml", "id: x\n".encode("utf-16"))
    w.text(f, "deep_20k.yaml", "id: x\nextra: " + "[" * 20_000 + "]" * 20_000 + "\n")
    w.text(f, "deep_block_200.yaml", "id: x\nextra:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(200)) + "  " * 201 + "leaf\n")
    # billion laughs in several places of an otherwise good task
    body = yaml_dump(OURS)
    w.text(f, "lol_in_extra.yaml", LOL_YAML + body + "extra: {bomb: *i}\n")
    w.text(f, "lol_in_subset.yaml", LOL_YAML + body.replace("subset: daily", "subset: *i"))
    w.text(f, "lol_in_background.yaml", LOL_YAML + body.replace("background: Plans a night of watching the sky from a dark field.", "background: *i"))
    w.text(f, "lol_merge_keys.yaml", "a: &a {x1: 1, x2: 2, x3: 3, x4: 4, x5: 5, x6: 6, x7: 7, x8: 8, x9: 9}\n"
           + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(7)) + body)
    w.text(f, "recursive_alias.yaml", "id: &x [*x]\n")
    w.text(f, "undefined_alias.yaml", body + "extra: *nowhere\n")
    w.text(f, "python_tag.yaml", "id: !!python/object/apply:os.system ['true']\n")
    w.text(f, "bad_timestamp.yaml", body + "extra: {when: !!timestamp 2024-13-45}\n")
    w.text(f, "unhashable_key.yaml", "? [a, b]\n: c\n")
    w.text(f, "long_int.yaml", body.replace("fuzz-ours", "1" + "0" * 5000))
    w.text(f, "scalar.yaml", "just a sentence\n")
    w.text(f, "tabs.yaml", "id: x\n\tsubset: daily\n")
    w.text(f, "surrogate_escape.yaml", body.replace("Short questions.", '"bad \\ud800 text"'))
    w.text(f, "bom_then_garbage.yaml", "\ufeff: : :\n")
    # our format: every field replaced by values of the wrong kind
    for path in [("id",), ("subset",), ("language",), ("persona",), ("graph",), ("persona", "stages"),
                 ("persona", "stages", 0, "trigger"), ("graph", 0, "tail")]:
        for label in ("null", "object", "bignum", "deep"):
            if label == "bignum" and path[-1] == "tail":
                continue  # a number as a triple's tail is read as text: not an error
            name = "ours_" + "_".join(str(p) for p in path) + f"_{label}.json"
            w.json(f, name, set_at(OURS, path, BAD_VALUES[label]))
    for path in [("id",), ("persona",), ("graph",), ("persona", "stages", 0, "line")]:
        w.json(f, "ours_without_" + "_".join(str(p) for p in path) + ".json", drop_at(OURS, path))
    w.json(f, "ours_id_20k.json", set_at(OURS, ("id",), "a" * 20_000))
    w.json(f, "ours_id_201.json", set_at(OURS, ("id",), "b" * 201))
    w.json(f, "ours_id_path.json", set_at(OURS, ("id",), "../../etc/passwd"))
    w.text(f, "ours_surrogate_id.json", surrogate_json(set_at(OURS, ("id",), "SURROGATE")))
    w.text(f, "ours_surrogate_key.json", json.dumps(OURS)[:-1] + ', "\\udc00": 1}')
    w.json(f, "ours_extra_deep.json", set_at(OURS, ("extra",), {"x": deep_value(300)}))
    w.json(f, "ours_corpus_missing.json", set_at(OURS, ("corpus",), "no/such/corpus.jsonl"))
    w.json(f, "ours_corpus_is_dir.json", set_at(OURS, ("corpus",), "."))
    w.json(f, "ours_corpus_nul.json", set_at(OURS, ("corpus",), "a\u0000b.jsonl"))
    w.json(f, "ours_corpus_long_name.json", set_at(OURS, ("corpus",), "c" * 5000 + ".jsonl"))
    w.json(f, "list_of_nulls.json", [None] * 50)
    w.json(f, "list_empty.json", [])
    w.json(f, "list_of_lists.json", [[OURS]])
    w.json(f, "number.json", 42)
    w.json(f, "string.json", "a task")
    w.text(f, "nan.json", json.dumps(OURS).replace('"daily"', "NaN"))
    w.text(f, "trailing_garbage.json", json.dumps(OURS) + " }")
    w.json(f, "two_same_ids.json", [OURS, OURS])
    # strict reading (issue item 13): a key given twice, numbers JSON cannot carry, NUL, YAML tags
    text = json.dumps(OURS)
    w.text(f, "repeated_key.json", text.replace('"subset": "daily"', '"subset": "daily", "subset": "pro"'))
    w.text(f, "repeated_key_in_triple.json", text.replace('"tail": "Jupiter"', '"tail": "Jupiter", "tail": "Saturn"'))
    for label, number in (("nan", "NaN"), ("infinity", "-Infinity"), ("1e309", "1e309")):
        w.text(f, f"triple_tail_{label}.json", text.replace('"tail": "Jupiter"', f'"tail": {number}'))
    w.json(f, "nul_in_background.json", set_at(OURS, ("persona", "background"), "a dark\u0000field"))
    w.json(f, "nul_in_triple.json", set_at(OURS, ("graph", 0, "head"), "Eur\u0000opa"))
    w.json(f, "nul_in_key.json", set_at(OURS, ("extra",), {"k\u0000": 1}))
    w.text(f, "repeated_key.yaml", body + "subset: pro\n")
    w.text(f, "repeated_key_nested.yaml", body.replace("  behavior: Short questions.", "  behavior: Short questions.\n  behavior: Long ones."))
    w.text(f, "binary_id.yaml", body.replace("id: fuzz-ours", "id: !!binary ZnV6ei1vdXJz"))  # the bytes of "fuzz-ours"
    w.text(f, "binary_in_extra.yaml", body + "extra: {blob: !!binary AAEC}\n")
    w.text(f, "set_in_extra.yaml", body + "extra: !!set {a, b}\n")
    w.text(f, "omap_in_extra.yaml", body + "extra: !!omap [a: 1, b: 2]\n")
    w.text(f, "triple_tail_nan.yaml", body.replace("tail: Jupiter", "tail: .nan"))
    w.text(f, "triple_tail_inf.yaml", body.replace("tail: Jupiter", "tail: -.inf"))
    w.text(f, "nul_in_line.yaml", body.replace("behavior: Short questions.", 'behavior: "Short\\0 questions."'))
    # the official format
    for path in [("task_id",), ("final_query",), ("user_persona",), ("nodes",), ("triples",), ("language",),
                 ("nodes", 0, "node_id"), ("triples", 0, "head_id")]:
        for label in ("null", "object", "deep", "false"):
            name = "official_" + "_".join(str(p) for p in path) + f"_{label}.json"
            w.json(f, name, set_at(OFFICIAL, path, BAD_VALUES[label]))
    w.json(f, "official_task_id_20k.json", set_at(OFFICIAL, ("task_id",), "t" * 20_000))
    w.json(f, "official_persona_no_stages.json", set_at(OFFICIAL, ("user_persona",), "# Core Identity\nSomeone.\n"))
    w.json(f, "official_persona_huge_heading.json", set_at(OFFICIAL, ("user_persona",), "### Stage 1: " + "x" * 20_000))
    w.text(f, "official_surrogate_persona.json", surrogate_json(set_at(OFFICIAL, ("final_query",), "SURROGATE")))
    w.json(f, "official_subset_deep.json", {**OFFICIAL, "subset": deep_value(120)})
    w.text(f, "official_bad_line.jsonl", json.dumps(OFFICIAL) + "\n{not json\n")
    w.text(f, "official_deep_line.jsonl", json.dumps(OFFICIAL) + "\n" + deep_json(20_000) + "\n")
    w.text(f, "official_surrogate_line.jsonl", json.dumps(OFFICIAL) + "\n" + surrogate_json({**OFFICIAL, "task_id": "SURROGATE"}) + "\n")
    w.raw(f, "official_latin1_line.jsonl", json.dumps(OFFICIAL).encode() + b"\n{\"task_id\": \"caf\xe9\"}\n")
    official = json.dumps(OFFICIAL)
    w.text(f, "official_repeated_key.json", official.replace('"relation": "moon of"', '"relation": "moon of", "relation": "orbits"'))
    w.text(f, "official_repeated_key_line.jsonl", official + "\n" + json.dumps({**OFFICIAL, "task_id": "fuzz_official_2"}).replace(
        '"language": "en"', '"language": "en", "language": "zh"') + "\n")
    w.text(f, "official_head_id_nan.json", official.replace('"head_id": 1', '"head_id": NaN'))
    w.text(f, "official_node_id_infinity.json", official.replace('"node_id": 2', '"node_id": Infinity'))
    w.json(f, "official_nul_in_query.json", set_at(OFFICIAL, ("final_query",), "Which\u0000moons?"))


def corpus_files(w: Writer) -> None:
    """Good tasks whose corpus (``corpus/<name>.jsonl`` beside them) has one bad line."""
    f = "corpora"
    doc = {"url": "https://example.org/europa", "title": "Europa", "text": "Europa is a moon of Jupiter.",
           "facts": [{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}]}
    line = json.dumps(doc)
    for label, bad_line in (("repeated_key", line.replace('"title": "Europa"', '"title": "Europa", "title": "Io"')),
                            ("fact_nan", line.replace('"tail": "Jupiter"', '"tail": NaN')),
                            ("fact_infinity", line.replace('"tail": "Jupiter"', '"tail": -Infinity')),
                            ("fact_1e309", line.replace('"tail": "Jupiter"', '"tail": 1e309')),
                            ("nul_text", json.dumps({**doc, "text": "Europa\u0000"})),
                            ("nul_key", json.dumps({**doc, "te\u0000xt": "x"}))):
        w.text(f, f"corpus/corpus_{label}.jsonl", line + "\n" + bad_line + "\n")
        w.json(f, f"corpus_{label}.json", {**OURS, "corpus": f"corpus/corpus_{label}.jsonl"})


def trajectory_files(w: Writer) -> None:
    f = "trajectories"
    common_text_files(w, f, ".json")
    good = trajectory()
    for label, value in [("superscript", "²"), ("digits_5000", "9" * 5000), ("e30", 10**30), ("minus", -1), ("float", 1.5),
                         ("word", "three"), ("bool", True), ("list", [1]), ("arabic_indic", "٣")]:
        w.json(f, f"sample_idx_{label}.json", {**good, "sample_idx": value})
    w.text(f, "sample_idx_digits_json_5000.json", json.dumps(good).replace('"sample_idx": 1', '"sample_idx": ' + "9" * 5000))
    late = len(good["turns"]) - 3
    w.text(f, "late_surrogate_content.json", surrogate_json(set_at(good, ("turns", late, "content"), "SURROGATE")))
    w.text(f, "late_surrogate_tool_result.json", surrogate_json(set_at(good, ("turns", late - 2, "tool_calls", 0, "result"), "SURROGATE")))
    w.json(f, "late_deep_args_900.json", set_at(good, ("turns", late - 2, "tool_calls", 0, "args"), {"q": deep_value(900)}))
    w.json(f, "late_deep_content_300.json", set_at(good, ("turns", late, "content"), deep_value(300)))
    w.json(f, "late_bad_type.json", set_at(good, ("turns", late, "type"), "system"))
    w.json(f, "late_type_huge.json", set_at(good, ("turns", late, "type"), "s" * 20_000))
    w.json(f, "late_not_object.json", set_at(good, ("turns", late), "hello"))
    w.json(f, "late_tool_calls_object.json", set_at(good, ("turns", late - 2, "tool_calls"), {"name": "search"}))
    w.json(f, "late_tool_call_no_name.json", set_at(good, ("turns", late - 2, "tool_calls", 0), {"args": {}}))
    w.json(f, "late_tool_name_list.json", set_at(good, ("turns", late - 2, "tool_calls", 0, "name"), ["search"]))
    w.json(f, "qid_missing.json", drop_at(good, ("qid",)))
    w.json(f, "qid_object.json", {**good, "qid": {"a": 1}})
    w.json(f, "qid_20k.json", {**good, "qid": "q" * 20_000})
    w.json(f, "turns_string.json", {**good, "turns": "not a list"})
    w.json(f, "top_list.json", [good])
    w.json(f, "extraction_not_trajectory.json", {"qid": "fuzz_traj", "total": 1, "triplets": []})
    w.json(f, "excerpt_bad_literal.json", {"header": {"qid": "x"}, "first_turns_condensed": "[{'type': 'user', 'content': ]"})
    w.json(f, "excerpt_deep_literal.json", {"header": {"qid": "x"}, "first_turns_condensed": "[" * 5000 + "]" * 5000})
    w.json(f, "excerpt_deep_json_string.json", {"header": {"qid": "x"}, "first_turns_condensed": deep_json(3000)})
    w.json(f, "excerpt_header_sample_idx.json", {"header": {"qid": "x", "sample_idx": "²"}, "first_turns_condensed": []})
    # strict reading (item 13)
    text = json.dumps(good)
    w.text(f, "repeated_key.json", text.replace('"termination": "answer"', '"termination": "answer", "termination": "max_rounds"'))
    w.text(f, "repeated_key_in_turn.json", text.replace('"type": "user"', '"type": "user", "type": "assistant"', 1))
    w.text(f, "metrics_nan.json", text.replace('"triplet_f1": 0.5', '"triplet_f1": NaN'))
    w.text(f, "stats_infinity.json", text.replace('"tool_calls": 12', '"tool_calls": Infinity'))
    w.text(f, "tool_args_1e309.json", text.replace('"topn": 5', '"topn": 1e309', 1))
    w.json(f, "late_nul_content.json", set_at(good, ("turns", late, "content"), "Europa\u0000"))
    w.json(f, "excerpt_literal_1e309.json", {"header": {"qid": "x"}, "first_turns_condensed": "[{'type': 'user', 'content': 1e309}]"})


def extraction_files(w: Writer) -> None:
    f = "extraction"
    common_text_files(w, f, ".json")
    good = {"qid": "fuzz_traj", "total": 1, "triplets": [{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}]}
    w.json(f, "triplets_object.json", {**good, "triplets": {"head": "x"}})
    w.json(f, "no_qid.json", drop_at(good, ("qid",)))
    w.json(f, "other_qid.json", {**good, "qid": "another_task"})
    w.json(f, "qid_20k.json", {**good, "qid": "q" * 20_000})
    w.json(f, "triplets_deep.json", {**good, "triplets": [deep_value(400)]})
    w.text(f, "surrogate_triplet.json", surrogate_json(set_at(good, ("triplets", 0, "tail"), "SURROGATE")))
    w.text(f, "repeated_key.json", json.dumps(good).replace('"total": 1', '"total": 1, "total": 2'))
    w.text(f, "triplet_tail_nan.json", json.dumps(good).replace('"tail": "Jupiter"', '"tail": NaN'))
    w.json(f, "nul_triplet.json", set_at(good, ("triplets", 0, "head"), "Eur\u0000opa"))


def label_files(w: Writer) -> None:
    f = "labels"
    common_text_files(w, f, ".jsonl")
    second = {**LABEL, "gt_index": 1}
    for label, value in [("superscript", "²"), ("e30", 10**30), ("minus", -3), ("float", 2.5), ("word", "first"), ("list", [0]),
                         ("bool", True), ("huge_float", 1e300)]:
        w.jsonl(f, f"third_row_gt_index_{label}.jsonl", [LABEL, second, {**LABEL, "gt_index": value, "annotator": "b"}])
    w.text(f, "third_row_gt_index_digits_5000.jsonl", "".join(json.dumps(r) + "\n" for r in (LABEL, second)) + json.dumps(LABEL).replace('"gt_index": 0', '"gt_index": ' + "9" * 5000) + "\n")
    w.jsonl(f, "evidence_e30.jsonl", [LABEL, {**second, "evidence": [10**30]}])
    w.jsonl(f, "evidence_deep_string.jsonl", [LABEL, {**second, "evidence": deep_json(5000)}])
    w.jsonl(f, "evidence_object.jsonl", [{**LABEL, "evidence": {"a": 1}}])
    w.jsonl(f, "evidence_inf.jsonl", [{**LABEL, "evidence": [1e400]}])
    w.jsonl(f, "covered_maybe.jsonl", [LABEL, {**second, "covered": "maybe"}])
    w.jsonl(f, "covered_huge.jsonl", [{**LABEL, "covered": "y" * 20_000}])
    w.jsonl(f, "unknown_run.jsonl", [LABEL, {**second, "run_id": "no-such-run"}])
    w.jsonl(f, "missing_annotator.jsonl", [LABEL, drop_at(second, ("annotator",))])
    w.jsonl(f, "annotator_object.jsonl", [LABEL, {**second, "annotator": {"name": "x"}}])
    w.text(f, "surrogate_annotator.jsonl", json.dumps(LABEL) + "\n" + surrogate_json({**second, "annotator": "SURROGATE"}) + "\n")
    w.jsonl(f, "created_at_bad.jsonl", [LABEL, {**second, "created_at": "2024-99-99"}])
    w.jsonl(f, "row_is_list.jsonl", [LABEL, [1, 2]])
    w.jsonl(f, "deep_row.jsonl", [LABEL, deep_value(200)])
    header = "run_id,gt_index,annotator,covered,evidence,note\n"
    good_row = f"{RUN_ID},0,ann,true,0,\n{RUN_ID},1,ann,false,,\n"
    for label, value in [("superscript", "²"), ("e30", "1" + "0" * 30), ("digits_5000", "9" * 5000), ("word", "one")]:
        w.text(f, f"csv_third_row_gt_index_{label}.csv", header + good_row + f"{RUN_ID},{value},b,true,,\n")
    w.text(f, "csv_evidence_deep.csv", header + good_row + f'{RUN_ID},0,b,true,"{deep_json(3000)}",\n')
    w.text(f, "csv_field_too_large.csv", header + good_row + f'{RUN_ID},0,b,true,,"{"n" * 140_000}"\n')
    w.text(f, "csv_covered_maybe.csv", header + good_row + f"{RUN_ID},0,b,maybe,,\n")
    w.text(f, "csv_unknown_run.csv", header + good_row + "nope,0,b,true,,\n")
    w.text(f, "csv_no_header_columns.csv", "a,b,c\n1,2,3\n")
    w.raw(f, "csv_latin1.csv", (header + good_row).encode() + f"{RUN_ID},0,caf\xe9,true,,\n".encode("latin-1"))
    w.text(f, "csv_unclosed_quote.csv", header + good_row + f'{RUN_ID},0,b,true,,"never closed\n')
    # item 13: strict label rows
    w.text(f, "repeated_key.jsonl", json.dumps(LABEL) + "\n" + json.dumps(second).replace('"covered": true', '"covered": true, "covered": false') + "\n")
    w.text(f, "gt_index_nan.jsonl", json.dumps(LABEL) + "\n" + json.dumps(second).replace('"gt_index": 1', '"gt_index": NaN') + "\n")
    for label, value in (("string_true", "true"), ("string_false", "false"), ("number", 1), ("null", None)):
        w.jsonl(f, f"covered_{label}.jsonl", [LABEL, {**second, "covered": value}])
    w.jsonl(f, "gt_index_string.jsonl", [LABEL, {**second, "gt_index": "1"}])
    w.jsonl(f, "gt_index_past_the_run.jsonl", [LABEL, {**second, "gt_index": 3}])  # the run has 3 ground-truth triples
    w.jsonl(f, "evidence_past_the_run.jsonl", [LABEL, {**second, "evidence": [0, 2]}])  # and 2 predicted ones
    w.jsonl(f, "evidence_string.jsonl", [LABEL, {**second, "evidence": "0"}])
    for label, name in (("blank", "   "), ("empty", ""), ("multi_line", "ann\nbob"), ("carriage_return", "ann\rbob"),
                        ("nul", "an\u0000n"), ("escape", "ann\u001b[31m"), ("zero_width", "an\u200bn"), ("number", 7)):
        w.jsonl(f, f"annotator_{label}.jsonl", [LABEL, {**second, "annotator": name}])
    w.jsonl(f, "note_nul.jsonl", [LABEL, {**second, "note": "fine\u0000not"}])
    w.jsonl(f, "run_id_nul.jsonl", [LABEL, {**second, "run_id": RUN_ID + "\u0000"}])
    w.jsonl(f, "conflicting_rows.jsonl", [LABEL, second, {**LABEL, "covered": False}])
    w.jsonl(f, "conflicting_rows_padded_name.jsonl", [LABEL, second, {**LABEL, "annotator": "  ann ", "covered": False}])
    w.jsonl(f, "conflicting_evidence.jsonl", [LABEL, {**LABEL, "evidence": [1]}])
    w.jsonl(f, "unknown_key.jsonl", [LABEL, {**second, "coverd": True}])
    w.text(f, "csv_extra_cell.csv", header + good_row + f"{RUN_ID},2,ann,true,,,surplus\n")
    w.text(f, "csv_short_row.csv", header + good_row + f"{RUN_ID},2,ann\n")
    w.text(f, "csv_unknown_column.csv", header.strip() + ",mood\n" + f"{RUN_ID},0,ann,true,0,,happy\n")
    w.text(f, "csv_repeated_column.csv", "run_id,gt_index,annotator,covered,covered\n" + f"{RUN_ID},0,ann,true,false\n")
    w.text(f, "csv_no_covered_column.csv", "run_id,gt_index,annotator\n" + f"{RUN_ID},0,ann\n")
    w.text(f, "csv_annotator_blank.csv", header + good_row + f"{RUN_ID},2,  ,true,,\n")
    w.text(f, "csv_annotator_multi_line.csv", header + good_row + f'{RUN_ID},2,"ann\nbob",true,,\n')
    w.text(f, "csv_note_nul.csv", header + good_row + f"{RUN_ID},2,ann,true,,bad\u0000note\n")
    w.text(f, "csv_annotator_nul.csv", header + good_row + f"{RUN_ID},2,an\u0000n,true,,\n")
    w.text(f, "csv_conflicting_rows.csv", header + good_row + f"{RUN_ID},0, ann,false,,\n")
    w.text(f, "csv_gt_index_past_the_run.csv", header + good_row + f"{RUN_ID},7,ann,true,,\n")
    w.text(f, "csv_evidence_past_the_run.csv", header + good_row + f"{RUN_ID},2,ann,true,0 5,\n")


def case_files(w: Writer) -> None:
    f = "cases"
    common_text_files(w, f, ".jsonl")
    w.jsonl(f, "gt_missing.jsonl", [CASE, drop_at({**CASE, "id": "c2"}, ("gt",))])
    w.jsonl(f, "gt_deep.jsonl", [CASE, {**CASE, "id": "c2", "gt": deep_value(300)}])
    w.jsonl(f, "pred_object.jsonl", [{**CASE, "pred": {"head": "x"}}])
    w.jsonl(f, "covered_maybe.jsonl", [{**CASE, "covered": "maybe"}])
    w.jsonl(f, "duplicate_id.jsonl", [CASE, CASE])
    w.jsonl(f, "id_20k_duplicate.jsonl", [{**CASE, "id": "i" * 20_000}, {**CASE, "id": "i" * 20_000}])
    w.text(f, "surrogate_tail.jsonl", surrogate_json(set_at(CASE, ("gt", "tail"), "SURROGATE")) + "\n")
    w.jsonl(f, "row_is_number.jsonl", [7])
    w.text(f, "blank_lines_only.jsonl", "\n\n\n")
    w.text(f, "repeated_key.jsonl", json.dumps(CASE).replace('"covered": true', '"covered": true, "covered": false') + "\n")
    w.text(f, "evidence_infinity.jsonl", json.dumps(CASE).replace('"evidence": [0]', '"evidence": [Infinity]') + "\n")
    w.jsonl(f, "nul_in_tail.jsonl", [set_at(CASE, ("gt", "tail"), "Jup\u0000iter")])


def table_files(w: Writer) -> None:
    f = "tables"
    common_text_files(w, f, ".json")
    body = yaml_dump(TABLE)
    w.text(f, "deep_20k.yaml", "id: x\nrows: " + "[" * 20_000 + "]" * 20_000 + "\n")
    w.text(f, "lol_in_query.yaml", LOL_YAML + body.replace("query: List two Galilean moons with their discoverer.", "query: *i"))
    w.text(f, "lol_in_rows.yaml", LOL_YAML + body.split("rows:")[0] + "rows: *i\n")
    w.raw(f, "latin1.yaml", "id: caf\u00e9\n".encode("latin-1"))
    w.json(f, "id_20k.json", {**TABLE, "id": "t" * 20_000})
    w.json(f, "rows_deep.json", {**TABLE, "rows": [{"Moon": deep_value(200), "Discoverer": "x"}]})
    w.text(f, "rows_surrogate.json", surrogate_json({**TABLE, "rows": [{"Moon": "SURROGATE", "Discoverer": "x"}]}))
    w.json(f, "columns_null.json", {**TABLE, "columns": None})
    w.json(f, "columns_bignum.json", {**TABLE, "columns": [{"name": 10**30, "metric": "exact"}]})
    # gold tables in CSV files beside the task
    no_rows = {k: v for k, v in TABLE.items() if k != "rows"}
    w.raw(f, "gold/latin1.csv", "Moon,Discoverer\nIo,Galil\xe9e\n".encode("latin-1"))
    w.text(f, "gold/field_too_large.csv", "Moon,Discoverer\nIo,\"" + "g" * 140_000 + "\"\n")
    w.text(f, "gold/empty.csv", "")
    w.text(f, "gold/wrong_header.csv", "A,B\n1,2\n")
    w.text(f, "gold/deep_cell.csv", "Moon,Discoverer\n" + deep_json(2000) + ",x\n")
    w.text(f, "gold/nul_cell.csv", "Moon,Discoverer\nIo,Galileo\nEuropa,Gali\u0000leo\n")
    for name in ("latin1", "field_too_large", "empty", "wrong_header", "nul_cell"):
        w.json(f, f"gold_{name}.json", {**no_rows, "gold": f"gold/{name}.csv"})
    w.json(f, "gold_missing.json", {**no_rows, "gold": "gold/nothing_here.csv"})
    w.json(f, "gold_is_folder.json", {**no_rows, "gold": "gold"})
    w.json(f, "gold_and_rows.json", {**TABLE, "gold": "gold/empty.csv"})
    # WideSearch's layout: a widesearch.jsonl with its gold folder
    ws = {"instance_id": "ws_fuzz", "language": "en", "query": "q",
          "evaluation": json.dumps({"unique_columns": ["moon"], "required": ["moon", "discoverer"], "eval_pipeline": {}})}
    w.jsonl(f, "ws_eval_deep.jsonl", [{**ws, "evaluation": deep_json(5000)}])
    w.jsonl(f, "ws_eval_long_number.jsonl", [{**ws, "evaluation": '{"a": ' + "1" * 5000 + "}"}])
    w.jsonl(f, "ws_id_traversal.jsonl", [{**ws, "instance_id": "../../../etc/passwd"}])
    w.jsonl(f, "ws_id_20k.jsonl", [{**ws, "instance_id": "w" * 20_000}])
    w.jsonl(f, "ws_eval_list.jsonl", [{**ws, "evaluation": [1, 2]}])
    table = json.dumps(TABLE)
    w.text(f, "repeated_key.json", table.replace('"query": ', '"query": "first", "query": ', 1))
    w.text(f, "rows_nan.json", table.replace('"Moon": "Io"', '"Moon": NaN'))
    w.json(f, "rows_nul.json", {**TABLE, "rows": [{"Moon": "I\u0000o", "Discoverer": "Galileo"}]})
    w.text(f, "repeated_key.yaml", body + "language: zh\n")
    w.text(f, "binary_id.yaml", body.replace(f"id: {TABLE_ID}", "id: !!binary ZnV6ei10YWJsZQ=="))
    w.text(f, "rows_inf.yaml", body.replace("Moon: Io", "Moon: .inf"))
    w.jsonl(f, "ws_eval_repeated_key.jsonl", [{**ws, "evaluation": ws["evaluation"].replace('"eval_pipeline"', '"required": [], "eval_pipeline"')}])


def answer_files(w: Writer) -> None:
    f = "answers"
    w.raw(f, "latin1.md", "| Moon | Discoverer |\n|---|---|\n| Io | Galil\xe9e |\n".encode("latin-1"))
    w.raw(f, "utf16.md", "| Moon |\n".encode("utf-16"))
    w.raw(f, "random_bytes.md", bytes(random.Random(11).randrange(256) for _ in range(4096)))
    w.raw(f, "cut_multibyte.md", "| 月".encode("utf-8")[:-1])


def valid_files(w: Writer) -> None:
    f = "valid"
    w.json(f, "ours.json", {**OURS, "corpus": "corpus/fuzz-ours.jsonl"})
    w.jsonl(f, "corpus/fuzz-ours.jsonl", [{"url": "https://example.org/europa", "title": "Europa", "text": "Europa is a moon of Jupiter.",
                                           "facts": [{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}]}])
    w.text(f, "ours_bom.json", "\ufeff" + json.dumps({**OURS, "id": "fuzz-ours-bom"}))
    w.text(f, "ours_bom.yaml", "\ufeff" + yaml_dump({**OURS, "id": "fuzz-ours-yaml"}))
    w.json(f, "official.json", OFFICIAL)
    w.json(f, "official_klingon.json", {**OFFICIAL, "task_id": "fuzz_klingon", "language": "klingon"})
    w.json(f, "trajectory.json", trajectory())
    w.json(f, "extraction.json", {"qid": "fuzz_traj", "total": 1, "triplets": [{"head": "Europa", "relation": "moon of", "tail": "Jupiter"}]})
    w.jsonl(f, "labels.jsonl", [LABEL, {**LABEL, "gt_index": 1, "covered": False}])
    w.text(f, "labels.csv", "run_id,gt_index,annotator,covered,evidence,note\n" + f"{RUN_ID},0,ann,true,0,\n{RUN_ID},1,ann,false,,\n")
    w.jsonl(f, "cases.jsonl", [CASE])
    w.json(f, "table.json", TABLE)
    w.text(f, "answer.md", "| Moon | Discoverer |\n|---|---|\n| Io | Galileo |\n| Europa | Galileo |\n")


MAKERS: list[Callable[[Writer], None]] = [valid_files, task_files, corpus_files, trajectory_files, extraction_files, label_files, case_files, table_files, answer_files]


def main() -> None:
    for folder in ("valid", "tasks", "corpora", "trajectories", "extraction", "labels", "cases", "tables", "answers"):
        shutil.rmtree(HERE / folder, ignore_errors=True)
    w = Writer(HERE)
    for make in MAKERS:
        make(w)
    print(f"wrote {w.count} malformed files (and the valid controls) under {HERE}")


if __name__ == "__main__":
    main()
