"""A safe YAML loader that refuses deep nesting and runaway aliases while it composes.

PyYAML's composer builds the node graph recursively and lets an alias point at a node already
built, so nine lines of aliases can stand for a billion nodes: loading is quick, but anything that
then walks the data (printing it, validating it, writing it to the database) never ends. This
loader counts, for every node, how many nodes it stands for once aliases are expanded and how deep
it is, and stops as soon as either passes its limit. An alias to a node that contains it (a
recursive structure) is refused too.

It also keeps YAML to what JSON can say, so a YAML file cannot slip in what a JSON one could not:
a key given twice in one mapping is refused (PyYAML keeps the last one silently; a key merged in
with ``<<`` may still be overridden), and so are the tags that make something other than text,
numbers, lists and mappings: ``!!binary`` (bytes, which a text field would quietly decode),
``!!set``, ``!!omap`` and ``!!pairs``.
"""

from __future__ import annotations

from typing import Any

import yaml


class YamlLimit(Exception):
    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(message)


_REFUSED_TAGS = {
    "tag:yaml.org,2002:binary": "!!binary (bytes) is not accepted; write the value as text",
    "tag:yaml.org,2002:set": "!!set is not accepted; write a list",
    "tag:yaml.org,2002:omap": "!!omap is not accepted; write a mapping",
    "tag:yaml.org,2002:pairs": "!!pairs is not accepted; write a mapping",
}
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _line(node: Any) -> int | None:
    mark = getattr(node, "start_mark", None)
    return mark.line + 1 if mark is not None else None


class BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream: Any, *, max_depth: int, max_nodes: int):
        super().__init__(stream)
        self._max_depth = max_depth
        self._max_nodes = max_nodes
        self._depth = 0
        self._size: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes once expanded, depth)

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: D401 - PyYAML hook
        event = self.peek_event()
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self._size:
                raise YamlLimit(f"the alias *{event.anchor} points into itself (a recursive structure)", line)
            return node
        self._depth += 1
        if self._depth > self._max_depth:
            raise YamlLimit(f"nested more than {self._max_depth} levels deep (setting VIBESEARCH_MAX_INPUT_DEPTH)", line)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            children = []
        sizes = [self._size[id(child)] for child in children]
        nodes = 1 + sum(s[0] for s in sizes)
        depth = 1 + max((s[1] for s in sizes), default=0)
        if nodes > self._max_nodes:
            raise YamlLimit(f"its aliases expand it to more than {self._max_nodes:,} values (an alias bomb?)", line)
        if depth > self._max_depth:
            raise YamlLimit(f"its aliases nest it more than {self._max_depth} levels deep (setting VIBESEARCH_MAX_INPUT_DEPTH)", line)
        self._size[id(node)] = (nodes, depth)
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:  # noqa: D401 - PyYAML hook
        """A mapping whose own keys are each given once (keys merged in with ``<<`` are not its own)."""
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=False)
                try:
                    repeated = key in seen
                except TypeError:  # an unhashable key: PyYAML's own check refuses it below
                    continue
                if repeated:
                    shown = repr(key) if len(repr(key)) <= 60 else repr(key)[:60] + "…"
                    raise YamlLimit(f"the key {shown} appears twice in one mapping", _line(key_node))
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _refuse(loader: BoundedLoader, node: Any) -> Any:
    raise YamlLimit(_REFUSED_TAGS.get(node.tag, f"the tag {node.tag} is not accepted"), _line(node))


for _tag in _REFUSED_TAGS:
    BoundedLoader.add_constructor(_tag, _refuse)
