"""A safe YAML loader that refuses deep nesting and runaway aliases while it composes.

PyYAML's composer builds the node graph recursively and lets an alias point at a node already
built, so nine lines of aliases can stand for a billion nodes: loading is quick, but anything that
then walks the data (printing it, validating it, writing it to the database) never ends. This
loader counts, for every node, how many nodes it stands for once aliases are expanded and how deep
it is, and stops as soon as either passes its limit. An alias to a node that contains it (a
recursive structure) is refused too.
"""

from __future__ import annotations

from typing import Any

import yaml


class YamlLimit(Exception):
    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(message)


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
