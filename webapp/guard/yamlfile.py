"""The rails' YAML files, read so that a key written twice or a word read as a boolean is an error instead of a
silent change of meaning.

PyYAML keeps the last of two equal keys in a mapping. In files of word lists, rules and examples edited by
hand all session, a list or a category added again lower down would replace the first one without a word,
and the rail would quietly lose what the first one blocked. So every rails file is read with a loader that
refuses a repeated key and names the file, the key and both lines.

YAML 1.1 also reads the bare words yes, no, on and off as booleans: the language lists' Norwegian and
Spanish "no" and English "on" and "off" were False and True from session 12 to 14 and never matched. A
setting is written true or false in these files, so any other spelling of a boolean is refused: a word
is quoted ("no").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_SETTING_SPELLINGS = frozenset({"true", "false"})


class RailsYamlError(ValueError):
    """A rails YAML file says something its author cannot have meant; the message names the file and line."""

    def __init__(self, message: str, line: int, source: str = "") -> None:
        self.message, self.line, self.source = message, line, source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}line {line}: {message}")

    def in_file(self, source: str) -> RailsYamlError:
        return type(self)(self.message, self.line, source)


class DuplicateKeyError(RailsYamlError):
    """A mapping in a YAML file names the same key twice."""

    def __init__(self, key: object, line: int, first_line: int, source: str = "") -> None:
        self.key, self.first_line = key, first_line
        super().__init__(f"key {key!r} is written twice (first on line {first_line})", line, source)

    def in_file(self, source: str) -> DuplicateKeyError:
        return DuplicateKeyError(self.key, self.line, self.first_line, source)


class BooleanWordError(RailsYamlError):
    """A bare yes, no, on or off: YAML 1.1 reads it as a boolean, the author meant the word."""

    def __init__(self, word: str, line: int, source: str = "") -> None:
        self.word = word
        message = f"{word!r} is read as a boolean: quote it for the word ('{word}'), write true or false for a setting"
        super().__init__(message, line, source)

    def in_file(self, source: str) -> BooleanWordError:
        return BooleanWordError(self.word, self.line, source)


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

    def construct_yaml_bool(self, node: yaml.ScalarNode) -> bool:
        if node.value.lower() not in _SETTING_SPELLINGS:
            raise BooleanWordError(node.value, node.start_mark.line + 1)
        return bool(super().construct_yaml_bool(node))


_UniqueKeyLoader.add_constructor(_BOOL_TAG, _UniqueKeyLoader.construct_yaml_bool)


def load_text(text: str, source: str = "") -> Any:
    """The YAML document in ``text``; ``source`` names it in the error (a key written twice, a bare yes/no/on/off)."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except RailsYamlError as exc:
        raise exc.in_file(source) from None


def load_yaml(path: Path) -> Any:
    """The YAML document in the file at ``path``, refusing a key written twice in any mapping and a boolean spelt
    as a word."""
    return load_text(path.read_text(encoding="utf-8"), str(path))


def word_list(data: Mapping[str, Any], key: str, source: Path) -> list[str]:
    """The list of words under ``key``, refusing an item that is not text (``words_only``)."""
    return words_only(data.get(key) or (), f"{source}: the word list {key!r}")


def words_only(items: Iterable[object], named: str) -> list[str]:
    """The items, each of them text; else an error naming the list (``named``) and the first item that is not
    (YAML reads a bare 1e3 as a number and an empty item as null: the word written there would never match)."""
    listed = list(items)
    wrong = [w for w in listed if not isinstance(w, str)]
    if wrong:
        raise ValueError(f"{named} holds {wrong[0]!r}, not a word: quote it")
    return [str(w) for w in listed]
