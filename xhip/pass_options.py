"""Pass options: what a pass accepts (its dataclass fields) and how values are checked and shown.

The pipeline loader, `-p` and `--set` all convert option values here, so a
value is accepted or rejected the same way wherever it is written.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import textwrap
from collections.abc import Iterator
from functools import cache
from types import NoneType, UnionType
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass

from xhip.diagnostics import ECHO_LIMIT, XhipError, shorten


class PassOption(NamedTuple):
    """One option of a pass class."""

    key: str
    """The YAML/CLI spelling (hyphens)."""
    field_name: str
    hint: Any
    default: object
    """The default value, or `dataclasses.MISSING` for a required option."""
    pass_class: type
    """The class whose field this is."""

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    @property
    def description(self) -> str:
        """The docstring written under the field in the pass class, joined to one line.

        Read on demand: it needs the class's source, which only --list-passes shows
        (reading every pass's source cost a quarter of a second per compile)."""
        return option_descriptions(self.pass_class).get(self.field_name, "")


def pass_options(pass_class: type[ModulePass]) -> tuple[PassOption, ...]:
    """The options of a pass: its init dataclass fields, in declaration order."""
    hints = get_type_hints(pass_class)
    options: list[PassOption] = []
    for f in dataclasses.fields(pass_class):
        if not f.init or f.name == "name":
            continue
        default = f.default
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        key = f.name.replace("_", "-")
        options.append(PassOption(key, f.name, hints[f.name], default, pass_class))
    return tuple(options)


# --------------------------------------------------------------------------- descriptions


@cache
def option_descriptions(pass_class: type) -> dict[str, str]:
    """Field name -> the string literal written right under the field, as xDSL documents attributes:

        alignment: int = 256
        '''Byte alignment of every buffer in a pool (a power of two).'''

    Python keeps no such docstring at run time, so the class source is read
    (base classes first, so a subclass may redescribe a field). A class
    without source (defined in a REPL) describes nothing.
    """
    found: dict[str, str] = {}
    for cls in reversed(pass_class.__mro__):
        if cls is object or not dataclasses.is_dataclass(cls):
            continue
        found.update(_field_docstrings(cls))
    return found


def _field_docstrings(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    tree = ast.parse(source)
    body = next((node.body for node in tree.body if isinstance(node, ast.ClassDef)), [])
    found: dict[str, str] = {}
    for statement, following in zip(body, body[1:]):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = " ".join(following.value.value.split())
    return found


# --------------------------------------------------------------------------- values


class OptionMismatch(Exception):
    """A value does not fit a type hint (turned into a located error by the caller)."""


def convert_value(value: object, hint: Any, exact: bool = False) -> object:
    """`value` as an instance of `hint`, or `OptionMismatch`.

    Union alternatives are tried first without conversions, so `int | float`
    keeps an int an int; `exact` disables int->float and scalar->tuple.
    """
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        alternatives = get_args(hint)
        for strict in (True, False) if not exact else (True,):
            for alternative in alternatives:
                try:
                    return convert_value(value, alternative, strict)
                except OptionMismatch:
                    continue
        raise OptionMismatch
    if origin is Literal:
        if any(type(value) is type(choice) and value == choice for choice in get_args(hint)):
            return value
        raise OptionMismatch
    if origin is tuple:
        if isinstance(value, (list, tuple)):
            items = list(value)
        elif exact:
            raise OptionMismatch
        else:
            items = [value]
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(convert_value(item, args[0]) for item in items)
        if len(args) != len(items):
            raise OptionMismatch
        return tuple(convert_value(item, arg) for item, arg in zip(items, args))
    if hint is NoneType and value is None:
        return None
    # `type(...) is` rather than isinstance: a bool is not an int here.
    if hint in (bool, int, str) and type(value) is hint:
        return value
    if hint is float and (type(value) is float or (not exact and type(value) is int)):
        return float(value)
    raise OptionMismatch


def type_name(hint: Any) -> str:
    """A type hint as users read it: `int`, `tuple[int, ...]`, `str | None`, `'a' | 'b'`."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        return " | ".join(type_name(arg) for arg in get_args(hint))
    if origin is Literal:
        return " | ".join(show_value(arg) for arg in get_args(hint))
    if origin is tuple:
        return f"tuple[{', '.join('...' if a is Ellipsis else type_name(a) for a in get_args(hint))}]"
    if hint is NoneType:
        return "None"
    return getattr(hint, "__name__", str(hint))


def show_value(value: object, limit: int = ECHO_LIMIT) -> str:
    """A value in YAML spelling: `true`, `null`, `'tree'`, `[1, 2]`; at most `limit` characters.

    The rendering stops at the limit instead of being cut afterwards: a YAML value
    of nested aliases is small in memory but exponentially long when written out.
    """
    text = ""
    for piece in _pieces(value):
        text += piece
        if len(text) > limit:
            return text[: limit - 3] + "..."
    return text


def _pieces(value: object) -> Iterator[str]:
    if isinstance(value, bool):
        yield "true" if value else "false"
    elif value is None:
        yield "null"
    elif isinstance(value, (list, tuple)):
        yield "["
        for position, item in enumerate(value):
            yield ", " if position else ""
            yield from _pieces(item)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for position, (key, item) in enumerate(value.items()):
            yield ", " if position else ""
            yield from _pieces(key)
            yield ": "
            yield from _pieces(item)
        yield "}"
    else:
        yield shorten(repr(value))


def show_with_type(value: object) -> str:
    if value is None:
        return "null"
    return f"{show_value(value)} ({type(value).__name__})"


def _spec_scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    text = repr(value)
    # The `-p` lexer wants a `.` before an exponent.
    if isinstance(value, float) and "e" in text and "." not in text:
        text = text.replace("e", ".0e")
    return text


def spec_option(key: str, value: object) -> str:
    if value is None:
        return key
    values = value if isinstance(value, tuple) else (value,)
    return f"{key}={','.join(_spec_scalar(v) for v in values)}"


# --------------------------------------------------------------------------- provenance


class OptionSource(NamedTuple):
    """Where one option value of a pass object was written."""

    key: str
    field_name: str
    value: object
    where: str | None
    """`file.yaml:LINE`, `-p`, `--set PASS.OPTION=VALUE`; None for a hand-made pipeline."""


_SOURCES: dict[type[ModulePass], list[tuple[OptionSource, ...]]] = {}
"""Per pass class, the option sources of recently built pass objects (newest last)."""

_SOURCES_KEPT = 64


def remember_option_sources(instance: ModulePass, sources: tuple[OptionSource, ...]) -> None:
    """Record where the options of `instance` were written, for errors its `apply` raises later.

    Recorded by value, not by object: a copy with other fields replaced
    (`dataclasses.replace`) still finds the options it was built with.
    """
    if not sources:
        return
    known = _SOURCES.setdefault(type(instance), [])
    if sources in known:
        known.remove(sources)
    known.append(sources)
    del known[:-_SOURCES_KEPT]


def _sources_of(instance: ModulePass) -> tuple[OptionSource, ...]:
    for sources in reversed(_SOURCES.get(type(instance), [])):
        if all(getattr(instance, s.field_name, dataclasses.MISSING) == s.value for s in sources):
            return sources
    return ()


def _mentions(message: str, *words: str) -> bool:
    """Whether `message` names one of `words` as a whole word (`alignment`, not `alignments`)."""
    return any(re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", message) for word in words)


def locate_option_error(instance: ModulePass, error: XhipError) -> XhipError:
    """`error`, raised by the pass without a location, placed where the option it names was written."""
    if error.location is not None:
        return error
    named = [s for s in _sources_of(instance) if _mentions(error.message, s.key, s.field_name)]
    if not named:
        return error
    return XhipError(error.message, max(named, key=lambda s: len(s.key)).where)
