"""The rails' YAML files, read so that a key written twice is an error instead of a silent override.

PyYAML keeps the last of two equal keys in a mapping. In files of word lists, rules and examples edited by
hand all session, a list or a category added again lower down would replace the first one without a word,
and the rail would quietly lose what the first one blocked. So every rails file is read with a loader that
refuses a repeated key and names the file, the key and both lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(ValueError):
    """A mapping in a YAML file names the same key twice."""

    def __init__(self, key: object, line: int, first_line: int, source: str = "") -> None:
        self.key, self.line, self.first_line, self.source = key, line, first_line, source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}line {line}: key {key!r} is written twice (first on line {first_line})")

    def in_file(self, source: str) -> DuplicateKeyError:
        return DuplicateKeyError(self.key, self.line, self.first_line, source)


class _UniqueKeyLoader(_Loader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:  # "<<: *defaults" overrides on purpose
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in first_lines:
                    raise DuplicateKeyError(key, line, first_lines[key])
                first_lines[key] = line
            except TypeError:  # an unhashable key: the base loader gives its own error
                break
        return super().construct_mapping(node, deep=deep)


def load_text(text: str, source: str = "") -> Any:
    """The YAML document in ``text``; ``source`` names it in the error when a key is written twice."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except DuplicateKeyError as exc:
        raise exc.in_file(source) from None


def load_yaml(path: Path) -> Any:
    """The YAML document in the file at ``path``, refusing a key written twice in any mapping."""
    return load_text(path.read_text(encoding="utf-8"), str(path))
