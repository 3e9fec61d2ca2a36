"""What start-up loads: `import xhip`, and `--version` and `--help` of xhip-opt and xhip-run,
stay light.

Each is run in a fresh interpreter that prints the modules it holds at exit. `import
xhip` loads no third-party package at all (the compiler comes with `xhip.compile`).
The tools parse their command line before the compiler loads (their option texts live
in `xhip.tools.arguments` and `xhip.tolerances`, XhipError in `xhip.errors`), so
`--version` and `--help` load neither NumPy nor xDSL (but for `xdsl.utils.exceptions`,
XhipError's base), nor anything that only a compile, a run or a report needs: onnx (and
the ml_dtypes it imports, 0.55-0.65 s in its 0.7 release), onnxruntime, jinja2,
matplotlib, the GPU bindings, the dialects, the runtime, the kernel families or the
rewrite rules.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("onnx", "ml_dtypes", "onnxruntime", "jinja2", "matplotlib", "cuda", "hip", "hiprtc", "nvmath", "torch", "numpy",
         "xdsl.ir", "xdsl.dialects", "xdsl.irdl", "xdsl.parser")
"""Third-party packages no start-up path may load."""

COMPILER_ONLY = ("xhip.runtime", "xhip.kernels", "xhip.rewrite_rules", "xhip.importer", "xhip.dialects", "xhip.diagnostics")
"""xhip packages that only a compile or a run needs."""

PRINT_MODULES = "import sys; print('\\n'.join(sorted(sys.modules)))"


def _loaded(code: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {line for line in result.stdout.splitlines() if line and not line.startswith("xhip-opt ")}


def _offenders(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in names))


def test_import_xhip_loads_no_third_party_package():
    modules = _loaded("import sys; before = set(sys.modules); import xhip; print('\\n'.join(sorted(set(sys.modules) - before)))")
    assert "xhip" in modules
    third_party = sorted(m for m in modules if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith("xhip"))
    assert third_party == []
    assert sorted(m for m in modules if m.startswith("xhip.")) == []


@pytest.mark.parametrize("names", [HEAVY, COMPILER_ONLY], ids=["third-party", "compiler"])
@pytest.mark.parametrize("tool", ["opt", "run"])
@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_tool_version_and_help_load_nothing_a_compile_needs(names, tool, flag):
    code = (
        f"import sys, io, contextlib; sys.argv = ['xhip-{tool}', '{flag}']\n"
        f"from xhip.tools.{tool} import main\n"
        "try:\n    with contextlib.redirect_stdout(io.StringIO()):\n        main()\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        f"{PRINT_MODULES}"
    )
    modules = _loaded(code)
    assert f"xhip.tools.{tool}" in modules
    assert _offenders(modules, names) == []
