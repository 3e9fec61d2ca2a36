"""Option descriptions: the docstring under a pass option's field, shown by --list-passes."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import get_args

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from xhip.memory import PLANNERS
from xhip.pass_options import pass_options
from xhip.passes import PASS_MODULES, scanned_passes, xhip_passes
from xhip.passes.pool_allocs import PoolAllocsPass
from xhip.pipeline import describe_passes


@dataclass(frozen=True)
class DescribedStandIn(ModulePass):
    """A pass whose options say what they do."""

    name = "test-described"

    width: int = 4
    """How many lanes
    each step uses."""
    label: str = ""
    quiet: bool = False
    """Print nothing."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class RedescribedStandIn(DescribedStandIn):
    """A subclass that describes an inherited option anew."""

    name = "test-redescribed"

    width: int = 8
    """Lanes, doubled."""


def test_descriptions_come_from_field_docstrings():
    described = {o.key: o.description for o in pass_options(DescribedStandIn)}
    assert described == {"width": "How many lanes each step uses.", "label": "", "quiet": "Print nothing."}


def test_a_subclass_field_docstring_wins():
    described = {o.key: o.description for o in pass_options(RedescribedStandIn)}
    assert described == {"width": "Lanes, doubled.", "label": "", "quiet": "Print nothing."}


def test_list_passes_prints_descriptions_under_options():
    text = describe_passes({"test-described": DescribedStandIn})
    assert text.splitlines() == [
        "test-described",
        "    A pass whose options say what they do.",
        "      width: int = 4",
        "          How many lanes each step uses.",
        "      label: str = ''",
        "      quiet: bool = false",
        "          Print nothing.",
    ]


def test_every_xhip_pass_option_is_described():
    undescribed = [f"{p.name}.{o.key}" for p in xhip_passes() for o in pass_options(p) if not o.description]
    assert undescribed == []


def test_planner_choices_are_the_planners():
    hint = next(o.hint for o in pass_options(PoolAllocsPass) if o.key == "planner")
    assert get_args(hint) == ("", "run-time", *PLANNERS)


def test_the_pass_table_names_every_pass_module_and_only_those():
    """PASS_MODULES (what a pipeline imports on demand) says what importing every module
    of xhip.passes finds."""
    assert PASS_MODULES == scanned_passes()


def test_a_pipeline_of_one_pass_imports_that_pass_alone():
    code = (
        "import sys\n"
        "from xhip.pipeline import instantiate, parse_pass_spec\n"
        "instantiate(parse_pass_spec('hip-add-context-arg'))\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('xhip.passes.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["xhip.passes.add_context_arg"]
