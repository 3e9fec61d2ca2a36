"""lit configuration: `lit tests/filecheck` runs every .mlir/.test file's RUN lines."""

import os
import sys

import lit.formats

config.name = "xhip"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs", "lit.cfg.py", "Output"]

# Use the tools of the interpreter running lit (the project's virtualenv), never
# whatever happens to be first on PATH.
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
# The tools import this checkout's xhip, whichever checkout the venv installed.
config.environment["PYTHONPATH"] = repo_root
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%xhip_root", repo_root))
config.substitutions.append(("%roundtrip", "xhip-opt %s --print-op-generic | xhip-opt"))
for name in ("XHIP_DEBUG",):
    if name in os.environ:
        config.environment[name] = os.environ[name]
