"""The environment variables xhip reads: named once (xhip/environment.py), listed by --help."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xhip import environment
from xhip.tools.run import main

PACKAGE = Path(__file__).resolve().parents[1] / "xhip"


def test_xhip_run_help_lists_every_variable_it_reads(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    out, _ = capsys.readouterr()
    assert exit_info.value.code == 0
    section = out[out.index("Environment:") :]
    for name, text in environment.DESCRIPTIONS:
        assert name in section and text in section
    assert max(len(line) for line in section.splitlines()) <= 79


def test_each_variable_is_spelled_once_in_the_package():
    quoted = {name: f'"{name}"' for name, _ in environment.DESCRIPTIONS}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "environment.py":
            continue
        text = path.read_text()
        assert not [name for name, literal in quoted.items() if literal in text], path


def test_setting_restores_what_was_set_and_what_was_unset(monkeypatch):
    monkeypatch.setenv(environment.CUDNN, "1")
    monkeypatch.delenv(environment.DEBUG, raising=False)
    with environment.setting({environment.CUDNN: "0", environment.DEBUG: "1"}):
        assert os.environ[environment.CUDNN] == "0" and os.environ[environment.DEBUG] == "1"
    assert os.environ[environment.CUDNN] == "1" and environment.DEBUG not in os.environ
