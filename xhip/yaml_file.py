"""A YAML file read as nodes, so every error names where it was written.

Pipeline files (xhip.pipeline) and suite files (xhip.compare.suite) share this
reader: YAML 1.2 scalars (only `true`/`false` are booleans, `yes` is a string,
`1e-5` is a float), SafeLoader's refusal of `!!python/...` tags, and one
`XhipError` line per mistake located at the node (`FILE:LINE`, or
`FILE:LINE:COL` for a reader made `with_column`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

from xhip.diagnostics import XhipError, did_you_mean, shorten


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans and floats (`yes` is a string, `1e-5` a float)."""


def _replace_resolver(tag: str, pattern: str, first: str) -> None:
    resolvers = {
        char: [(t, r) for t, r in entries if t != tag]
        for char, entries in Yaml12Loader.yaml_implicit_resolvers.items()
    }
    Yaml12Loader.yaml_implicit_resolvers = resolvers
    Yaml12Loader.add_implicit_resolver(tag, re.compile(pattern), list(first))


_replace_resolver("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_replace_resolver(
    "tag:yaml.org,2002:float",
    r"""^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[0-9][0-9_]*[eE][-+]?[0-9]+
    |\.(?:inf|Inf|INF))
    |\.(?:nan|NaN|NAN))$""".replace("\n", "").replace(" ", ""),
    "-+0123456789.",
)


class YamlFile:
    """One YAML file's nodes; `kind` ("pipeline", "suite") names it in read errors. `root` is None when empty."""

    def __init__(self, path: str, kind: str, with_column: bool = False):
        self.path = path
        self.with_column = with_column
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as err:
            raise XhipError(f"cannot read {kind}: {err.strerror}", path) from None
        except UnicodeDecodeError:
            raise XhipError(f"cannot read {kind}: not UTF-8 text", path) from None
        self._loader = Yaml12Loader(text)
        try:
            self.root: yaml.Node | None = self._loader.get_single_node()
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            where = self._position(mark.line, mark.column) if mark else path
            raise XhipError(f"malformed YAML: {err.problem or err.context}", where) from None
        except yaml.YAMLError as err:
            raise XhipError(f"malformed YAML: {err}", path) from None

    def _position(self, line: int, column: int) -> str:
        return f"{self.path}:{line + 1}:{column + 1}" if self.with_column else f"{self.path}:{line + 1}"

    def at(self, node: yaml.Node | None) -> str:
        """Where `node` starts (the file's start for None: an empty document)."""
        if node is None:
            return self._position(0, 0)
        return self._position(node.start_mark.line, node.start_mark.column)

    def value(self, node: yaml.Node) -> object:
        try:
            return self._loader.construct_object(node, deep=True)
        except yaml.YAMLError as err:  # e.g. a `!!python/...` tag, which SafeLoader refuses
            problem = getattr(err, "problem", None) or str(err).splitlines()[0]
            raise XhipError(f"malformed YAML: {problem}", self.at(node)) from None

    def string(self, node: yaml.Node, what: str) -> str:
        value = self.value(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str) or not value:
            raise XhipError(f"{what} must be a non-empty string", self.at(node))
        return value

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            raise XhipError(f"{what} must be a list", self.at(node))
        return list(node.value)

    def mapping(
        self, node: yaml.Node | None, what: str, allowed: Sequence[str] | None = None
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """key -> (key node, value node); duplicate keys and keys not in `allowed` are errors."""
        if not isinstance(node, yaml.MappingNode):
            raise XhipError(f"{what} must be a mapping", self.at(node))
        items: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = self.string(key_node, f"a key of {what}")
            if key in items:
                raise XhipError(f"duplicate key '{shorten(key)}' in {what}", self.at(key_node))
            if allowed is not None and key not in allowed:
                hint = did_you_mean(key, allowed) or f"; expected one of: {', '.join(allowed)}"
                raise XhipError(f"unknown {what} key '{shorten(key)}'{hint}", self.at(key_node))
            items[key] = (key_node, value_node)
        return items
