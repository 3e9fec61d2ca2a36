"""Text inputs: MLIR files and stdin, YAML pipelines, `-p` strings and `--set` overrides."""

from __future__ import annotations

from pathlib import Path

from bad_inputs import Case
from bad_inputs.models import RELU_MLIR, relu, relu_mlir_with

DEFAULT_YAML = str(Path(__file__).resolve().parents[2] / "pipelines" / "default.yaml")
CHEAP = ("-p", "hip-add-context-arg")


def bad_mlir(case_id: str, text, stderr: str, extra: tuple[str, ...] = ()) -> Case:
    return Case(case_id, "mlir", ("xhip-opt", "in.mlir", *CHEAP, *extra), {"in.mlir": text}, stderr=stderr)


def good_mlir(case_id: str, text, extra: tuple[str, ...] = ()) -> Case:
    return Case(case_id, "mlir", ("xhip-opt", "in.mlir", *CHEAP, *extra, "-o", "out.mlir"), {"in.mlir": text},
                exit_code=0, produces=("out.mlir",))


AT_IN = r"in\.mlir:\d+:\d+: error: "

MLIR = [
    bad_mlir("mlir-first-token-does-not-lex", "@@@ nonsense\n", r"in\.mlir"),
    bad_mlir("mlir-first-token-backtick", "`\n", r"in\.mlir"),
    bad_mlir("mlir-nul-byte", "\x00\n", r"in\.mlir"),
    bad_mlir("mlir-unterminated-string", 'func.func @f() attributes {a = "open\n', AT_IN),
    bad_mlir("mlir-unknown-op", relu_mlir_with('"foo.bar"() : () -> ()'), AT_IN + r".*foo\.bar"),
    bad_mlir("mlir-undefined-value", relu_mlir_with('%9 = "onnx.Relu"(%missing) : (tensor<?xf32>) -> tensor<?xf32>'), AT_IN + r".*missing"),
    bad_mlir("mlir-value-defined-twice", relu_mlir_with('%0 = "onnx.Neg"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>'), AT_IN),
    bad_mlir("mlir-operand-type-mismatch", relu_mlir_with('%1 = "onnx.Relu"(%arg0) : (tensor<?xi64>) -> tensor<?xi64>'), AT_IN),
    bad_mlir("mlir-wrong-return-type", RELU_MLIR.replace("func.return %0 : tensor<?xf32>", "func.return %0 : tensor<3xf32>"), AT_IN),
    bad_mlir("mlir-negative-dim-in-type", RELU_MLIR.replace("tensor<?xf32>", "tensor<-1xf32>"), AT_IN),
    bad_mlir("mlir-unbalanced-brace", RELU_MLIR.rstrip().rstrip("}"), AT_IN),
    bad_mlir("mlir-extra-brace", RELU_MLIR + "}\n", AT_IN),
    bad_mlir("mlir-3000-nested-modules", "builtin.module {\n" * 3000 + "}\n" * 3000, r"in\.mlir"),
    bad_mlir("mlir-not-utf8", b"\xff\xfe\x00module", r"in\.mlir"),
    bad_mlir("mlir-onnx-op-wrong-arity", relu_mlir_with('%1 = "onnx.Add"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>'), AT_IN),
    bad_mlir("mlir-split-second-chunk-bad", RELU_MLIR + "// -----\n@@@\n", r"in\.mlir", ("--split-input-file",)),
    Case("mlir-split-on-onnx", "mlir", ("xhip-opt", "m.onnx", "--split-input-file"), {"m.onnx": relu()}, stderr=r"split-input-file"),
    Case("mlir-stdin-does-not-lex", "mlir", ("xhip-opt", "-", *CHEAP), stdin=b"@@@\n", stderr=r"<stdin>"),
    Case("mlir-stdin-unknown-op", "mlir", ("xhip-opt", "-", *CHEAP), stdin=b'"foo.bar"() : () -> ()\n', stderr=r"<stdin>:1:\d+: error: "),
    Case("mlir-stdin-valid", "mlir", ("xhip-opt", "-", *CHEAP), stdin=RELU_MLIR.encode(), exit_code=0),
    bad_mlir("mlir-empty-file", "", AT_IN),
    good_mlir("mlir-valid-relu", RELU_MLIR),
    good_mlir("mlir-unregistered-allowed", relu_mlir_with('"foo.bar"() : () -> ()'), ("--allow-unregistered-dialect",)),
    Case("mlir-verify-diagnostics-reports-on-stdout", "mlir",
         ("xhip-opt", "in.mlir", *CHEAP, "--verify-diagnostics"), {"in.mlir": relu_mlir_with('"foo.bar"() : () -> ()')}, exit_code=0),
]


def yaml_case(case_id: str, text, stderr: str, files=None) -> Case:
    files = {"in.mlir": RELU_MLIR, "p.yaml": text, **(files or {})}
    return Case(case_id, "yaml", ("xhip-opt", "in.mlir", "--pipeline", "p.yaml"), files, stderr=stderr)


AT_YAML = r"p\.yaml:\d+"
LAUGHS = "[&a [x, x, x, x, x, x, x, x, x, x], " + ", ".join(
    f"&{n} [{', '.join(['*' + p] * 10)}]" for p, n in zip("abcde", "bcdef")
) + "]"
"""Nested YAML aliases: a flow list whose last element expands to 10**6 scalars."""

YAML = [
    yaml_case("yaml-empty", "", r"p\.yaml"),
    yaml_case("yaml-a-list", "- hip-add-context-arg\n", AT_YAML),
    yaml_case("yaml-a-scalar", "just text\n", r"p\.yaml"),
    yaml_case("yaml-syntax-error", "name: x\npasses: [a, b\n", AT_YAML + r".*malformed"),
    yaml_case("yaml-tab-indent", "name: x\npasses:\n\t- cse\n", AT_YAML),
    yaml_case("yaml-not-utf8", b"name: \xff\xfe\n", r"p\.yaml.*UTF-8"),
    yaml_case("yaml-no-passes", "name: x\n", r"p\.yaml.*passes"),
    yaml_case("yaml-no-name", "passes: [cse]\n", r"p\.yaml.*name"),
    yaml_case("yaml-passes-not-list", "name: x\npasses: cse\n", AT_YAML + r".*list"),
    yaml_case("yaml-unknown-pass", "name: x\npasses: [hip-add-contxt-arg]\n", AT_YAML + r".*hip-add-context-arg"),
    yaml_case("yaml-unknown-key", "name: x\npases: [cse]\n", AT_YAML + r".*passes"),
    yaml_case("yaml-duplicate-key", "name: x\nname: y\npasses: [cse]\n", AT_YAML + r".*duplicate"),
    yaml_case("yaml-unknown-option", "name: x\npasses:\n  - hip-pool-allocs: {alignmnt: 8}\n", AT_YAML + r".*alignment"),
    yaml_case("yaml-option-wrong-type", "name: x\npasses:\n  - hip-pool-allocs: {alignment: eight}\n", AT_YAML + r".*alignment"),
    yaml_case("yaml-bool-for-int", "name: x\npasses:\n  - hip-pool-allocs: {alignment: true}\n", AT_YAML),
    yaml_case("yaml-options-not-mapping", "name: x\npasses:\n  - hip-pool-allocs: [1, 2]\n", AT_YAML),
    yaml_case("yaml-pass-entry-two-keys", "name: x\npasses:\n  - {cse: {}, canonicalize: {}}\n", AT_YAML),
    yaml_case("yaml-extends-missing", "extends: nowhere.yaml\n", AT_YAML + r".*nowhere\.yaml"),
    yaml_case("yaml-extends-itself", "extends: p.yaml\n", AT_YAML + r".*cycle"),
    yaml_case("yaml-extends-cycle", "extends: q.yaml\n", r"\.yaml:\d+.*cycle", files={"q.yaml": "extends: p.yaml\n"}),
    yaml_case("yaml-extends-a-directory", "extends: d\n", r"p\.yaml|d", files={"d/x": "x"}),
    yaml_case("yaml-set-unknown-pass", f"extends: {DEFAULT_YAML}\nset:\n  no-such-pass.x: 1\n", AT_YAML + r".*no-such-pass"),
    yaml_case("yaml-set-not-pass-dot-option", f"extends: {DEFAULT_YAML}\nset:\n  cse: 1\n", AT_YAML + r".*PASS\.OPTION"),
    yaml_case("yaml-set-ambiguous-pass", f"extends: {DEFAULT_YAML}\nset:\n  cse.x: 1\n", AT_YAML + r".*cse"),
    yaml_case("yaml-remove-absent-pass", f"extends: {DEFAULT_YAML}\nremove: [dce]\n", AT_YAML + r".*dce"),
    yaml_case("yaml-insert-no-anchor", f"extends: {DEFAULT_YAML}\ninsert:\n  - {{pass: cse}}\n", AT_YAML + r".*before|after"),
    yaml_case("yaml-insert-both-anchors", f"extends: {DEFAULT_YAML}\ninsert:\n  - {{pass: cse, before: hip-lower-allocs, after: hip-lower-allocs}}\n", AT_YAML),
    yaml_case("yaml-billion-laughs-set-value", f"extends: {DEFAULT_YAML}\nset:\n  hip-pool-allocs.planner: {LAUGHS}\n",
              r"^.{0,600}$"),
    yaml_case("yaml-pass-rejects-set-value", f"extends: {DEFAULT_YAML}\nset:\n  hip-externalize-constants.externalize-min-num-elements: -1\n",
              r"p\.yaml:3"),
    yaml_case("yaml-long-pass-name", "name: x\npasses: [" + "q" * 5000 + "]\n", r"^.{0,600}$"),
    Case("yaml-missing-file", "yaml", ("xhip-opt", "in.mlir", "--pipeline", "absent.yaml"), {"in.mlir": RELU_MLIR}, stderr=r"absent\.yaml"),
    Case("yaml-is-directory", "yaml", ("xhip-opt", "in.mlir", "--pipeline", "pdir"), {"in.mlir": RELU_MLIR, "pdir/x": "x"}, stderr=r"pdir"),
    Case("yaml-valid-minimal", "yaml", ("xhip-opt", "in.mlir", "--pipeline", "p.yaml", "-o", "out.mlir"),
         {"in.mlir": RELU_MLIR, "p.yaml": "name: x\npasses: [hip-add-context-arg]\n"}, exit_code=0, produces=("out.mlir",)),
    Case("yaml-valid-extends-local", "yaml", ("xhip-opt", "in.mlir", "--pipeline", "p.yaml", "-o", "out.mlir"),
         {"in.mlir": RELU_MLIR, "base.yaml": "name: b\npasses: [hip-add-context-arg, cse]\n", "p.yaml": "extends: base.yaml\nremove: [cse]\n"},
         exit_code=0, produces=("out.mlir",)),
]


def flags_case(case_id: str, flags: tuple[str, ...], stderr: str) -> Case:
    return Case(case_id, "set-and-p", ("xhip-opt", "in.mlir", *flags), {"in.mlir": RELU_MLIR}, stderr=stderr)


def flags_ok(case_id: str, flags: tuple[str, ...]) -> Case:
    return Case(case_id, "set-and-p", ("xhip-opt", "in.mlir", *flags, "-o", "out.mlir"), {"in.mlir": RELU_MLIR},
                exit_code=0, produces=("out.mlir",))


DEFAULT = ("--pipeline", DEFAULT_YAML)
SET_AND_P = [
    flags_case("p-unknown-pass", ("-p", "hip-add-contxt-arg"), r"-p.*hip-add-context-arg"),
    flags_case("p-unclosed-brace", ("-p", "hip-pool-allocs{alignment=8"), r"-p.*malformed"),
    flags_case("p-stray-close-brace", ("-p", "cse}"), r"-p"),
    flags_case("p-empty-option-value", ("-p", "hip-pool-allocs{alignment=}"), r"-p"),
    flags_case("p-unknown-option", ("-p", "hip-pool-allocs{alignmnt=8}"), r"-p.*alignment"),
    flags_case("p-option-wrong-type", ("-p", "hip-pool-allocs{alignment=abc}"), r"-p.*alignment"),
    flags_case("p-double-comma", ("-p", "cse,,cse"), r"-p"),
    flags_case("p-bad-choice", ("-p", "hip-lower-host-visibility{strategy=sometimes}"), r"strategy|sometimes"),
    flags_case("p-pass-rejects-value", ("-p", "hip-externalize-constants{externalize-min-num-elements=-1}"), r"-p|externalize-min-num-elements"),
    flags_case("p-and-pipeline-both", ("-p", "cse", *DEFAULT), r"either --pipeline or -p"),
    flags_case("p-long-unknown-pass", ("-p", "z" * 5000), r"^.{0,600}$"),
    flags_case("set-no-equals", (*DEFAULT, "--set", "hip-pool-allocs.alignment"), r"--set.*PASS\.OPTION=VALUE"),
    flags_case("set-no-dot", (*DEFAULT, "--set", "alignment=8"), r"--set.*PASS\.OPTION=VALUE"),
    flags_case("set-unknown-pass", (*DEFAULT, "--set", "hip-pool-alocs.alignment=8"), r"--set.*hip-pool-allocs"),
    flags_case("set-unknown-option", (*DEFAULT, "--set", "hip-pool-allocs.alignmnt=8"), r"--set.*alignment"),
    flags_case("set-wrong-type", (*DEFAULT, "--set", "hip-pool-allocs.alignment=big"), r"--set.*alignment"),
    flags_case("set-ambiguous-pass", (*DEFAULT, "--set", "cse.x=1"), r"--set.*cse"),
    flags_case("set-pass-not-in-p-list", ("-p", "cse", "--set", "hip-pool-allocs.alignment=8"), r"--set.*hip-pool-allocs"),
    flags_case("set-pass-rejects-value", (*DEFAULT, "--set", "hip-externalize-constants.externalize-min-num-elements=-1"),
               r"--set"),
    flags_case("set-long-value", (*DEFAULT, "--set", "hip-pool-allocs.planner=" + "x" * 5000), r"^.{0,600}$"),
    flags_case("print-ir-after-unknown-pass", (*CHEAP, "--print-ir-after", "cse"), r"--print-ir-after.*cse"),
    flags_case("unknown-flag", ("--frobnicate",), r"--frobnicate"),
    flags_case("elide-not-int", (*CHEAP, "--elide-elementsattrs-if-larger", "many"), r"elide"),
    flags_ok("p-empty-string", ("-p", "")),
    flags_ok("p-with-options", ("-p", "hip-add-context-arg,cse,canonicalize")),
    flags_ok("p-underscore-option-spelling", ("-p", "hip-add-context-arg,hip-externalize-constants{externalize_min_num_elements=4}")),
    flags_ok("set-plain-path-string-option", (*CHEAP[:0], "-p", "hip-add-context-arg,hip-externalize-constants",
                                              "--set", "hip-externalize-constants.externalize-output-dir=sub/dir")),
]

CASES = MLIR + YAML + SET_AND_P
