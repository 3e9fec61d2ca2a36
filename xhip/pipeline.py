"""Pass pipelines: YAML files, `-p` strings and `--set` overrides, validated.

A pipeline file names its passes in order, each with optional options:

    name: default
    description: shipping ONNX-to-HIP pipeline
    passes:
      - hip-add-context-arg
      - hip-pool-allocs: {lifetime-only: true, alignment: 256}

An experiment extends another file (the path is relative to the experiment)
and edits what it inherits; `name` and `description` are inherited unless given:

    extends: ../default.yaml
    passes: [...]                    # replaces the inherited list
    remove: [cse]
    insert:
      - {pass: dce, after: canonicalize}
      - {pass: {hip-pool-allocs: {planner: grouped}}, before: hip-lower-allocs}
    set:
      hip-pool-allocs.alignment: 512

The edits apply in the order `passes`, `remove`, `insert`, `set`, each to the
list the previous one left: `remove` resolves all its names before removing any,
`insert` applies its entries one after the other. `extends` chains, at most
`MAX_EXTENDS_DEPTH` files deep; a cycle is an error.

A pass reference (in `remove`, `before`, `after` and the PASS part of
`set`/`--set` keys) is a pass name that occurs exactly once in the pipeline,
or `NAME#N` for its N-th occurrence counted from 1 (`canonicalize#2`).

Option keys are the pass dataclass fields with `-` for `_` (`lifetime-only`);
`-p` and `--set` accept both spellings, like xDSL. Values must have the field's
type: bools are not ints, an int is accepted for a float, a list (or a single
value) for a tuple, `null` for an optional field. YAML follows 1.2 here: only
`true`/`false` are booleans (`yes` is a string) and `1e-5` is a float.

`-p` uses xDSL's syntax (`a,b{opt=v list=1,2}`); `--set PASS.OPTION=VALUE`
reads VALUE in the same syntax, and takes one unquoted word that is not in it
(a path such as `/tmp/x/y`) as a string. Every mistake is one `XhipError`
located at the YAML node (`FILE:LINE`) or at the command-line flag, with the
nearest valid spelling for unknown names. Each option value remembers where it
was written, so a value that the pass itself refuses (when it is built or when
it runs) is blamed on that `set:` line or `--set PASS.OPTION=VALUE` flag, not on
the pass's line in the file it was inherited from.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin

import yaml
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ParameterListType, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xhip.diagnostics import ECHO_LIMIT, XhipError, did_you_mean, shorten
from xhip.pass_options import (
    OptionMismatch,
    OptionSource,
    PassOption,
    convert_value,
    pass_options,
    remember_option_sources,
    show_value,
    show_with_type,
    spec_option,
    type_name,
)
from xhip.passes import available_passes
from xhip.yaml_file import YamlFile

PassRegistry = Mapping[str, type[ModulePass]]

PIPELINE_KEYS = ("name", "description", "extends", "passes", "remove", "insert", "set")
INSERT_KEYS = ("pass", "before", "after")


@dataclass(frozen=True)
class PassEntry:
    """One pass of a pipeline, with the options written for it."""

    name: str
    options: dict[str, object] = field(default_factory=dict)
    """Hyphenated option keys -> values already converted to the field types."""
    source: str | None = None
    """Where the pass was written ("file.yaml:LINE", "-p"), for messages."""
    option_sources: dict[str, str] = field(default_factory=dict, compare=False)
    """Option key -> where its value was written ("file.yaml:LINE", "-p", "--set P.O=V"),
    oldest first: a value the pass rejects is blamed there, not on the pass."""

    def __hash__(self) -> int:
        # The generated hash would fail on the options dict; pipelines are cache keys.
        return hash((self.name, tuple(self.options.items()), self.source))

    def with_option(self, key: str, value: object, where: str | None) -> PassEntry:
        """This entry with option `key` set to `value`, written at `where`."""
        sources = {k: v for k, v in self.option_sources.items() if k != key}
        if where is not None:
            sources[key] = where
        return dataclasses.replace(self, options={**self.options, key: value}, option_sources=sources)

    def spec(self) -> str:
        """The entry in `-p` syntax, e.g. `hip-pool-allocs{alignment=512}`."""
        if not self.options:
            return self.name
        return f"{self.name}{{{' '.join(spec_option(k, v) for k, v in self.options.items())}}}"


@dataclass(frozen=True)
class Pipeline:
    """A resolved, validated list of passes."""

    name: str
    description: str
    passes: tuple[PassEntry, ...]
    path: str | None = None

    def spec(self) -> str:
        """The pipeline in `-p` syntax; `parse_pass_spec` reads it back."""
        return ",".join(entry.spec() for entry in self.passes)


# --------------------------------------------------------------------------- checks




def _registry(passes: PassRegistry | None) -> PassRegistry:
    return available_passes() if passes is None else passes


def _pass_class(name: str, where: str | None, passes: PassRegistry) -> type[ModulePass]:
    pass_class = passes.get(name)
    if pass_class is None:
        raise XhipError(f"unknown pass '{shorten(name)}'{did_you_mean(name, passes)}", where)
    return pass_class


def _option(pass_class: type[ModulePass], key: str, where: str | None) -> PassOption:
    """The option `key` of `pass_class`, or a located error with the nearest spelling."""
    options = {o.key: o for o in pass_options(pass_class)}
    option = options.get(key)
    if option is None:
        hint = did_you_mean(key, options)
        if not hint:
            hint = f"; its options are: {', '.join(options)}" if options else "; it takes no options"
        raise XhipError(f"pass '{pass_class.name}' has no option '{shorten(key)}'{hint}", where)
    return option


def _convert_option(pass_class: type[ModulePass], option: PassOption, value: object, where: str | None) -> object:
    """`value` converted to the type of `option`, or a located error."""
    try:
        return convert_value(value, option.hint)
    except OptionMismatch:
        choices = [str(c) for c in _literal_choices(option.hint) if isinstance(c, str)]
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        raise XhipError(
            f"option '{option.key}' of '{pass_class.name}' expects {type_name(option.hint)}, "
            f"got {show_with_type(value)}{hint}",
            where,
        ) from None


def _literal_choices(hint: Any) -> list[object]:
    """The values a `Literal[...]` (possibly inside a union) allows."""
    if get_origin(hint) is Literal:
        return list(get_args(hint))
    if get_origin(hint) in (Union, UnionType):
        return [choice for arg in get_args(hint) for choice in _literal_choices(arg)]
    return []


def _check_option(pass_class: type[ModulePass], key: str, value: object, where: str | None) -> object:
    return _convert_option(pass_class, _option(pass_class, key, where), value, where)


def _check_required(entries: Iterable[PassEntry], passes: PassRegistry) -> None:
    for entry in entries:
        for option in pass_options(_pass_class(entry.name, entry.source, passes)):
            if option.required and option.key not in entry.options:
                raise XhipError(
                    f"pass '{entry.name}' needs option '{option.key}' ({type_name(option.hint)})", entry.source
                )


_REFERENCE = re.compile(r"(?P<name>[^#\s]+)(?:#(?P<index>[0-9]+))?")


def _resolve(entries: Sequence[PassEntry], reference: str, where: str | None, what: str) -> int:
    """The position in `entries` of the pass `reference` (NAME or NAME#N) names."""
    what = f"{what}: " if what else ""  # the flag itself is the location of --set errors
    match = _REFERENCE.fullmatch(reference)
    if match is None or (match["index"] is not None and int(match["index"]) == 0):
        raise XhipError(f"{what}bad pass reference '{shorten(reference)}'; write NAME or NAME#N (N counts from 1)", where)
    name = match["name"]
    positions = [i for i, entry in enumerate(entries) if entry.name == name]
    if not positions:
        present = dict.fromkeys(entry.name for entry in entries)
        raise XhipError(f"{what}pass '{shorten(name)}' is not in the pipeline{did_you_mean(name, present)}", where)
    if match["index"] is None:
        if len(positions) > 1:
            choices = " or ".join(f"'{name}#{n}'" for n in range(1, len(positions) + 1))
            raise XhipError(
                f"{what}pass '{name}' occurs {len(positions)} times in the pipeline; write {choices}", where
            )
        return positions[0]
    index = int(match["index"])
    if index > len(positions):
        raise XhipError(
            f"{what}'{shorten(reference)}' does not exist; the pipeline has {len(positions)} '{name}' pass(es)", where
        )
    return positions[index - 1]


def _set_option(
    entries: list[PassEntry],
    reference: str,
    key: str,
    value: object,
    where: str | None,
    what: str,
    passes: PassRegistry,
    origin: str | None = None,
) -> None:
    """Set option `key` of the referenced pass in `entries` (in place).

    `where` locates errors in the setting itself; `origin` (default: `where`) is
    remembered as the place the value came from.
    """
    position = _resolve(entries, reference, where, what)
    entry = entries[position]
    converted = _check_option(_pass_class(entry.name, where, passes), key, value, where)
    entries[position] = entry.with_option(key, converted, origin or where)


# --------------------------------------------------------------------------- YAML


class _PipelineFile(YamlFile):
    """One YAML pipeline file, its nodes kept so every error names a line."""

    def __init__(self, path: str):
        super().__init__(path, "pipeline")
        root = self.root
        if not isinstance(root, yaml.MappingNode):
            where = self.at(root) if root is not None else f"{path}:1"
            raise XhipError("a pipeline file is a mapping with keys " + ", ".join(PIPELINE_KEYS), where)
        self.root = root
        self.keys = self.mapping(root, "pipeline", PIPELINE_KEYS)

    def pass_entry(self, node: yaml.Node, passes: PassRegistry) -> PassEntry:
        """`NAME` or `{NAME: {option: value, ...}}` (or `{NAME: null}`)."""
        if isinstance(node, yaml.ScalarNode):
            name = self.string(node, "a pass name")
            _pass_class(name, self.at(node), passes)
            return PassEntry(name, {}, self.at(node))
        if not isinstance(node, yaml.MappingNode) or len(node.value) != 1:
            raise XhipError("a pass is written NAME or {NAME: {option: value, ...}}", self.at(node))
        name_node, options_node = node.value[0]
        name = self.string(name_node, "a pass name")
        pass_class = _pass_class(name, self.at(name_node), passes)
        entry = PassEntry(name, {}, self.at(node))
        if not (isinstance(options_node, yaml.ScalarNode) and self.value(options_node) is None):
            for key, (key_node, value_node) in self.mapping(options_node, f"the options of '{name}'").items():
                # An unknown option is reported at its key, a bad value at the value.
                option = _option(pass_class, key, self.at(key_node))
                value = _convert_option(pass_class, option, self.value(value_node), self.at(value_node))
                entry = entry.with_option(key, value, self.at(value_node))
        return entry


class _Extends(NamedTuple):
    """A file on the current `extends` chain (for cycle messages)."""

    real_path: str
    path: str


def _extends_target(doc: _PipelineFile, node: yaml.Node) -> str:
    """The path `extends` names, relative to the cwd like `doc.path`; it must exist."""
    written = doc.string(node, "'extends'")
    target = os.path.normpath(os.path.join(os.path.dirname(doc.path), written))
    if os.path.isfile(target):
        return target
    folder = os.path.dirname(target) or "."
    siblings = [n for n in os.listdir(folder) if n.endswith((".yaml", ".yml"))] if os.path.isdir(folder) else []
    close = difflib.get_close_matches(os.path.basename(target), siblings, n=1)
    hint = ""
    if close:
        written_folder = written.rpartition("/")[0]
        hint = f"; did you mean '{written_folder + '/' if written_folder else ''}{close[0]}'?"
    raise XhipError(f"'extends' target '{shorten(target)}' does not exist{hint}", doc.at(node))


MAX_EXTENDS_DEPTH = 64
"""The most files one `extends` chain may hold (the shipped experiments use two)."""


def _load_file(path: str, passes: PassRegistry) -> Pipeline:
    """The pipeline of the file at `path`: its `extends` chain read file by file (no recursion,
    so a chain too deep or a cycle is one located error), then each file's edits from the base up."""
    chain: list[_Extends] = []
    files: list[_PipelineFile] = []
    current = path
    while True:
        doc = _PipelineFile(current)
        files.append(doc)
        extends = doc.keys.get("extends")
        if extends is None:
            break
        target = _extends_target(doc, extends[1])
        chain.append(_Extends(os.path.realpath(current), current))
        if os.path.realpath(target) in {link.real_path for link in chain}:
            cycle = " -> ".join([*(link.path for link in chain), target])
            raise XhipError(f"'extends' cycle: {shorten(cycle, 4 * ECHO_LIMIT)}", doc.at(extends[1]))
        if len(files) == MAX_EXTENDS_DEPTH:
            raise XhipError(f"'extends' chain is deeper than {MAX_EXTENDS_DEPTH} files (from {shorten(path)})", doc.at(extends[1]))
        current = target
    base: Pipeline | None = None
    for doc in reversed(files):
        base = _apply_file(doc, base, passes)
    assert base is not None
    return base


def _apply_file(doc: _PipelineFile, base: Pipeline | None, passes: PassRegistry) -> Pipeline:
    """The pipeline `doc` describes over `base`, the pipeline it extends (None if it extends none)."""
    keys = {key: value for key, (_, value) in doc.keys.items()}
    if base is None and "passes" not in keys:
        raise XhipError("a pipeline needs 'passes' (or 'extends' to inherit them)", doc.at(doc.root))

    if "name" in keys:
        name = doc.string(keys["name"], "'name'")
    elif base is not None:
        name = base.name
    else:
        raise XhipError("a pipeline needs a 'name'", doc.at(doc.root))
    description = base.description if base is not None else ""
    if "description" in keys:
        description = doc.string(keys["description"], "'description'")

    if "passes" in keys:
        entries = [doc.pass_entry(node, passes) for node in doc.sequence(keys["passes"], "'passes'")]
    else:
        assert base is not None
        entries = list(base.passes)
    if "remove" in keys:
        entries = _remove(doc, keys["remove"], entries)
    if "insert" in keys:
        for node in doc.sequence(keys["insert"], "'insert'"):
            _insert(doc, node, entries, passes)
    if "set" in keys:
        for key, (key_node, value_node) in doc.mapping(keys["set"], "'set'").items():
            reference, _, option = key.partition(".")
            if not reference or not option:
                raise XhipError(f"'set' key '{shorten(key)}' must be PASS.OPTION", doc.at(key_node))
            _set_option(entries, reference, option, doc.value(value_node), doc.at(key_node), "'set'", passes)
    return Pipeline(name, description, tuple(entries), doc.path)


def _remove(doc: _PipelineFile, node: yaml.Node, entries: list[PassEntry]) -> list[PassEntry]:
    # Resolve every name first, so `remove: [canonicalize#1, canonicalize#2]` means both.
    doomed = {
        _resolve(entries, doc.string(item, "a 'remove' entry"), doc.at(item), "'remove'")
        for item in doc.sequence(node, "'remove'")
    }
    return [entry for i, entry in enumerate(entries) if i not in doomed]


def _insert(doc: _PipelineFile, node: yaml.Node, entries: list[PassEntry], passes: PassRegistry) -> None:
    """Apply one `{pass: P, before: REF}` / `{pass: P, after: REF}` (in place)."""
    fields = doc.mapping(node, "'insert' entry", INSERT_KEYS)
    anchors = [key for key in ("before", "after") if key in fields]
    if "pass" not in fields or len(anchors) != 1:
        raise XhipError("an 'insert' entry is {pass: P, before: REF} or {pass: P, after: REF}", doc.at(node))
    new_entry = doc.pass_entry(fields["pass"][1], passes)
    anchor_node = fields[anchors[0]][1]
    anchor = doc.string(anchor_node, f"'{anchors[0]}'")
    position = _resolve(entries, anchor, doc.at(anchor_node), f"'{anchors[0]}'")
    entries.insert(position if anchors[0] == "before" else position + 1, new_entry)


# --------------------------------------------------------------------------- API


def load_pipeline(path: str | os.PathLike[str], passes: PassRegistry | None = None) -> Pipeline:
    """Read a pipeline YAML file, resolve `extends`/`set`/`remove`/`insert`, validate.

    `passes` (name -> pass class) defaults to `xhip.passes.available_passes()`.
    """
    registry = _registry(passes)
    pipeline = _load_file(os.fspath(path), registry)
    _check_required(pipeline.passes, registry)
    return pipeline


def _argspec_reason(err: ArgSpecParseError) -> tuple[str, int | None]:
    """The reason and the 1-based column of one of xDSL's multi-line spec errors."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    position = re.search(r"pass-pipeline:\d+:(\d+)", str(err))
    return (lines[-1] if lines else "syntax error"), (int(position[1]) if position else None)


def _spec_value(values: ParameterListType) -> object:
    """An xDSL option value list as one value: `{x}` is null, `{x=1,2}` a tuple."""
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def parse_pass_spec(spec: str, source: str = "-p", passes: PassRegistry | None = None) -> Pipeline:
    """A pipeline from xDSL's `-p` syntax: `a,b{opt=v list=1,2 flag=true}`."""
    registry = _registry(passes)
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as err:
        reason, column = _argspec_reason(err)
        at = f" at column {column}" if column is not None else ""
        raise XhipError(f"malformed pass pipeline: {reason}{at}", source) from None
    entries: list[PassEntry] = []
    for arg_spec in specs:
        pass_class = _pass_class(arg_spec.name, source, registry)
        entry = PassEntry(arg_spec.name, {}, source)
        for written, values in arg_spec.parameters.items():
            key = written.replace("_", "-")
            entry = entry.with_option(key, _check_option(pass_class, key, _spec_value(values), source), source)
        entries.append(entry)
    _check_required(entries, registry)
    return Pipeline(source, spec, tuple(entries), None)


_PLAIN_STRING = re.compile(r'[^\s{}"=,]+')
"""A `--set` value taken as written when it is not in `-p` syntax: `/tmp/x/y`, `./out`."""


def _parse_override_value(text: str, setting: str, source: str) -> object:
    if not text.strip():
        return None
    prefix = "value{value="
    try:
        specs = list(parse_pipeline(f"{prefix}{text.strip()}}}"))
    except ArgSpecParseError as err:
        if _PLAIN_STRING.fullmatch(text.strip()):
            # Not in `-p` syntax but one unquoted word, like a path: a string (the option's type decides).
            return text.strip()
        reason, column = _argspec_reason(err)
        at = f" at character {column - len(prefix)} of the value" if column is not None else ""
        raise XhipError(f"malformed value in '{shorten(setting)}': {reason}{at}", source) from None
    if len(specs) != 1 or list(specs[0].parameters) != ["value"]:
        raise XhipError(f"malformed value in '{shorten(setting)}' (quote strings with spaces)", source)
    return _spec_value(specs[0].parameters["value"])


def apply_overrides(
    pipeline: Pipeline, settings: Sequence[str], source: str = "--set", passes: PassRegistry | None = None
) -> Pipeline:
    """`pipeline` with each `PASS.OPTION=VALUE` of `settings` applied in order."""
    registry = _registry(passes)
    entries = list(pipeline.passes)
    for setting in settings:
        target, equals, text = setting.partition("=")
        reference, _, option = target.strip().partition(".")
        if not equals or not reference or not option:
            raise XhipError(f"expected PASS.OPTION=VALUE, got '{shorten(setting)}'", source)
        value = _parse_override_value(text, setting, source)
        origin = f"{source} {shorten(setting)}"
        _set_option(entries, reference, option.replace("_", "-"), value, source, "", registry, origin)
    return dataclasses.replace(pipeline, passes=tuple(entries))


def instantiate(pipeline: Pipeline, passes: PassRegistry | None = None) -> list[ModulePass]:
    """The pass objects of `pipeline`, options converted to their field types.

    A value the pass itself rejects (in `__post_init__`, or later in `apply`:
    see `locate_option_error`) is reported where that value was written.
    """
    registry = _registry(passes)
    _check_required(pipeline.passes, registry)
    instances: list[ModulePass] = []
    for entry in pipeline.passes:
        pass_class = _pass_class(entry.name, entry.source, registry)
        sources = _option_sources(pass_class, entry)
        arguments = {s.field_name: s.value for s in sources}
        try:
            instance = pass_class(**arguments)
        except (XhipError, ValueError) as err:
            raise _rejection(pass_class, entry, sources, err) from None
        remember_option_sources(instance, sources)
        instances.append(instance)
    return instances


def _option_sources(pass_class: type[ModulePass], entry: PassEntry) -> tuple[OptionSource, ...]:
    """The entry's options, converted, with where each was written, in the order they were set."""
    order = [*entry.option_sources, *(k for k in entry.options if k not in entry.option_sources)]
    sources: list[OptionSource] = []
    for key in order:
        option = _option(pass_class, key, entry.source)
        value = _convert_option(pass_class, option, entry.options[key], entry.source)
        sources.append(OptionSource(key, option.field_name, value, entry.option_sources.get(key, entry.source)))
    return tuple(sources)


def _rejection(
    pass_class: type[ModulePass], entry: PassEntry, sources: Sequence[OptionSource], err: XhipError | ValueError
) -> XhipError:
    """The pass's refusal of its options, located at the value it refuses.

    The culprit is the first option (in the order they were set) whose value,
    added to those before it, makes the pass refuse; the pass entry itself when
    even its defaults are refused.
    """
    if isinstance(err, XhipError) and err.location is not None:
        return err
    message = err.message if isinstance(err, XhipError) else f"pass '{entry.name}': {shorten(err)}"
    given: dict[str, object] = {}
    for source in sources:
        given[source.field_name] = source.value
        try:
            pass_class(**given)
        except (XhipError, ValueError):
            return XhipError(message, source.where)
    return XhipError(message, entry.source)


def _summary(pass_class: type[ModulePass]) -> str:
    """The first line of the pass's own docstring (not the one dataclass invents)."""
    doc = pass_class.__dict__.get("__doc__") or ""
    if doc.startswith(f"{pass_class.__name__}("):
        doc = ""
    lines = [line.strip() for line in doc.strip().splitlines()]
    return lines[0] if lines and lines[0] else "(no description)"


def describe_passes(passes: PassRegistry | None = None) -> str:
    """Text for `--list-passes`: each pass, its summary, its options with types, defaults and descriptions."""
    registry = _registry(passes)
    lines: list[str] = []
    for name in sorted(registry):
        pass_class = registry[name]
        lines.append(f"{name}")
        lines.append(f"    {_summary(pass_class)}")
        for option in pass_options(pass_class):
            default = "(required)" if option.required else f"= {show_value(option.default)}"
            lines.append(f"      {option.key}: {type_name(option.hint)} {default}")
            if option.description:
                lines.append(f"          {option.description}")
    return "\n".join(lines) + "\n"
