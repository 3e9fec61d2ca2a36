"""MLIR text that does not parse is one located line, whatever fails first.

Before: a first token that does not lex raised from the parser's constructor
(outside the error handling), deep nesting raised RecursionError, and a
negative dim said only "Expected shape type.".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.parsing import parse_module
from xhip.tools.opt import main
from xhip.verify import verify_module


def parse_error(text: str, name: str = "in.mlir") -> str:
    with pytest.raises(XhipError) as info:
        parse_module(make_context(), text, name)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_first_token_that_does_not_lex():
    assert parse_error('"never closed\n') == "in.mlir:1:1: error: End of file reached before closing string literal."


def test_deeply_nested_modules():
    depth = 3000
    text = "builtin.module {" * depth + "}" * depth
    assert parse_error(text).endswith(": error: operations nest too deeply to parse")


@pytest.mark.parametrize("type_text", ["tensor<-3xf32>", "memref<2x-1xf32>"])
def test_negative_static_dim_in_a_type(type_text: str):
    text = f"func.func @f(%a: {type_text}) {{\n  func.return\n}}\n"
    column = text.index("-") + 1
    dim = type_text[type_text.index("-") :].split("x")[0]
    assert parse_error(text) == (
        f"in.mlir:1:{column}: error: static dim {dim} is negative; a dim is a non-negative integer, or ? when dynamic"
    )


def test_xhip_opt_on_stdin_whose_first_token_does_not_lex(capsys, monkeypatch, tmp_path: Path):
    source = tmp_path / "bad.mlir"
    source.write_text("\x01 builtin.module {}\n")
    monkeypatch.setattr("sys.stdin", source.open())
    with pytest.raises(SystemExit) as exit_info:
        main([])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 1
    assert err.startswith("<stdin>:1:1: error: Unexpected character")
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "func.func @f(%a: tensor<99999999999999999999xf32>) {\n  func.return\n}\n",
            "in.mlir:1:1: error: block argument #0 has a static dim outside int64 (99999999999999999999)",
        ),
        (
            'func.func @f() {\n  %0 = "tensor.empty"() : () -> memref<2x?x9223372036854775808xf32>\n  func.return\n}\n',
            "in.mlir:2:3: error: result #0 has a static dim outside int64 (2x?x9223372036854775808)",
        ),
    ],
)
def test_static_dim_beyond_int64_is_a_located_error(text: str, message: str):
    module = parse_module(make_context(), text, "in.mlir")
    with pytest.raises(XhipError) as info:
        verify_module(module)
    assert str(info.value) == message
