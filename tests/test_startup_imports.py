"""What start-up loads: `import xhip` and `xhip-opt --version` stay light.

Each is run in a fresh interpreter that prints the modules it holds at exit. `import
xhip` loads no third-party package at all (the compiler comes with `xhip.compile`);
`xhip-opt --version` parses its arguments with the compiler's option texts, so it may
load xDSL and NumPy, but nothing that only a compile, a run or a report needs: onnx
(and the ml_dtypes it imports, 0.55-0.65 s in its 0.7 release), onnxruntime, jinja2,
matplotlib, the GPU bindings, the runtime, the kernel families or the rewrite rules.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("onnx", "ml_dtypes", "onnxruntime", "jinja2", "matplotlib", "cuda", "hip", "hiprtc", "nvmath", "torch")
"""Third-party packages no start-up path may load."""

COMPILER_ONLY = ("xhip.runtime", "xhip.kernels", "xhip.rewrite_rules", "xhip.importer")
"""xhip packages that only a compile or a run needs."""

PRINT_MODULES = "import sys; print('\\n'.join(sorted(sys.modules)))"


def _loaded(code: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {line for line in result.stdout.splitlines() if line and not line.startswith("xhip-opt ")}


def _offenders(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in names))


def test_import_xhip_loads_no_third_party_package():
    modules = _loaded(f"import sys; before = set(sys.modules); import xhip; print('\\n'.join(sorted(set(sys.modules) - before)))")
    assert "xhip" in modules
    third_party = sorted(m for m in modules if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith("xhip"))
    assert third_party == []
    assert sorted(m for m in modules if m.startswith("xhip.")) == []


@pytest.mark.parametrize("names", [HEAVY, COMPILER_ONLY], ids=["third-party", "compiler"])
def test_xhip_opt_version_loads_nothing_a_compile_needs(names):
    code = (
        "import sys; sys.argv = ['xhip-opt', '--version']\n"
        "from xhip.tools.opt import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        f"{PRINT_MODULES}"
    )
    modules = _loaded(code)
    assert "xhip.tools.opt" in modules
    assert _offenders(modules, names) == []
