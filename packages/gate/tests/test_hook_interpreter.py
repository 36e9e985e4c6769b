"""The Python the hook runs on: writing where it takes code from at start-up asks (issue #28).

A ``.pth`` file or ``sitecustomize.py`` in the hook interpreter's
``site-packages`` runs first in every hook, and its ``pyvenv.cfg`` and
``python`` links choose the interpreter.  Where no boundary holds, the gate
asks for each route there: a write by path, a file tool, and a package
installer pointed at that environment.  The environment is the real one these
tests run on (``sys.prefix``), as it is for a real hook.  Installs into any
other environment, and deleting a project's ``.venv``, stay allowed.
"""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.state import userdirs
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.gate.check import check_command
from agentreflex.gate.reflex import GateReflex
from agentreflex.gate.rules import protected, selfguard

PREFIX = sys.prefix
SITE = site.getsitepackages()[0]
IN_A_VENV = sys.prefix != sys.base_prefix


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home, proj = tmp_path / "home", tmp_path / "home" / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".venv" / "bin").mkdir(parents=True)
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    protected._PROTECTED.clear()
    return {"home": home, "proj": proj}


def _verdict(world: dict[str, Path], command: str) -> tuple[str, list[Any]]:
    proj = str(world["proj"])
    return check_command(command, cwd=proj, home=str(world["home"]), project=proj, budget_s=5.0)


def test_the_interpreter_paths_are_where_this_python_starts_from() -> None:
    paths = userdirs.interpreter_paths()
    assert SITE in paths
    assert os.path.join(PREFIX, "bin", "python3") in paths
    assert (os.path.join(PREFIX, "pyvenv.cfg") in paths) is IN_A_VENV
    assert set(paths) <= set(userdirs.protected_paths("/nowhere"))


WRITES = [
    f"echo 'import os; os.system(\"x\")' > {SITE}/zz_evil.pth",
    f"echo 'import os' >> {SITE}/distutils-precedence.pth",
    f"cp /tmp/evil.py {SITE}/sitecustomize.py",
    f"ln -sf /tmp/evil {PREFIX}/bin/python3",
    f"cp /tmp/evil {PREFIX}/bin/python",
    f"pip install --target {SITE} evil",
    f"pip install -t{SITE} evil",
    f"{PREFIX}/bin/pip install evil",
    f"{PREFIX}/bin/python -m pip install evil",
    f"{PREFIX}/bin/python3 -m pip install --upgrade --force-reinstall evil",
    f"uv pip install --python {PREFIX} evil",
    f"uv pip install -p {PREFIX}/bin/python evil",
    f"uv pip install -p{PREFIX}/bin/python evil",
    f"VIRTUAL_ENV={PREFIX} uv pip install evil",
    f"python3 -m venv --clear {PREFIX}",
]
if IN_A_VENV:
    WRITES.append(f"echo 'include-system-site-packages = true' >> {PREFIX}/pyvenv.cfg")


@pytest.mark.parametrize("command", WRITES)
def test_writing_where_the_hook_interpreter_starts_asks(
    world: dict[str, Path], command: str
) -> None:
    verdict, proposals = _verdict(world, command)
    assert verdict in ("ASK_USER", "BLOCK"), (command, verdict)
    asked = [p for p in proposals if selfguard.RULE in p.rules]
    assert asked, (command, [p.code for p in proposals])
    assert PREFIX in asked[0].message and "the Python its hook runs on" in asked[0].message


ELSEWHERE = [
    "pip install evil",
    "pip install -e .",
    ".venv/bin/pip install -r requirements.txt",
    f"{PREFIX}/bin/pip install -tvendor requests",
    ".venv/bin/python -m pip install requests",
    "python3 -m venv .venv",
    "python3 -m venv --clear .venv",
    "uv pip install --python .venv/bin/python requests",
    "VIRTUAL_ENV=.venv uv pip install requests",
    "rm -rf .venv",
    f"cat {SITE}/distutils-precedence.pth",
    f"ls {PREFIX}/bin",
]


@pytest.mark.parametrize("command", ELSEWHERE)
def test_other_environments_and_reads_stay_allowed(world: dict[str, Path], command: str) -> None:
    verdict, proposals = _verdict(world, command)
    assert verdict in ("ALLOW", "WARN"), (command, proposals)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


def test_a_file_tool_writing_a_pth_file_asks(world: dict[str, Path]) -> None:
    path = f"{SITE}/zz_evil.pth"
    event = pre_tool("Write", {"file_path": path, "content": "import os"}, cwd=str(world["proj"]))
    findings = GateReflex().evaluate(make_context(event))
    asked = [f for f in findings if f.verdict is Verdict.ASK_USER]
    assert asked and asked[0].code == selfguard.RULE and path in asked[0].message


@pytest.mark.parametrize(
    "command",
    [
        "ln -sf /tmp/evil ~/.local/bin/agentreflex",
        "mkdir -p ~/bin && cp /tmp/evil ~/bin/agentreflex",
        "install -m755 /tmp/evil /usr/local/bin/agentreflex",
        "printf '#!/bin/sh\\nexit 0\\n' > ~/.local/bin/agentreflex",
    ],
)
def test_an_agentreflex_command_put_on_the_path_asks(world: dict[str, Path], command: str) -> None:
    """The Claude Code plugin's launcher runs the first ``agentreflex`` on the PATH
    when it has no environment of its own: a script there is the hook."""
    verdict, proposals = _verdict(world, command)
    assert verdict in ("ASK_USER", "BLOCK"), (command, verdict)
    assert any(selfguard.RULE in p.rules for p in proposals), (command, proposals)


@pytest.mark.parametrize(
    "command", ["cp build/tool ~/.local/bin/tool", "ln -sf ../agentreflex-docs docs/agentreflex"]
)
def test_other_commands_on_the_path_stay_allowed(world: dict[str, Path], command: str) -> None:
    _, proposals = _verdict(world, command)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)
