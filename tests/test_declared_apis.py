"""Siblings use each other only through a declared API (``<package>/api.py``, ``__all__``).

The gate's shell analysis and constraint checks are used by the instructions
reflex; anything else in the gate may change in any release.  These tests
fail when a sibling's source imports a gate module other than
``agentreflex.gate.api``, when ``__all__`` changes without this pin changing
with it (a deliberate API change), or when a declared name no longer
resolves.  Core's own API is pinned by ``test_core_api_use.py``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.gate import api as gate_api

ROOT = Path(__file__).resolve().parents[1]

GATE_API = (
    "DELETE",
    "DESCENDANT",
    "MOVE",
    "REMOTE",
    "UNKNOWN",
    "Cmd",
    "Where",
    "added_lines",
    "check_command",
    "check_manifest_edit",
    "check_paths",
    "command_effects",
    "extract_constraints",
    "shell_analysis",
    "where_for",
)


def imported_modules(source: str, package: str) -> list[tuple[str, int]]:
    """``(module, line)`` of every import of ``package`` or a module inside it."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == package:
                found += [(f"{package}.{a.name}", node.lineno) for a in node.names]
            elif node.module.startswith(package + "."):
                found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith(package)]
    return found


def test_siblings_reach_the_gate_only_through_its_api() -> None:
    files = [
        f
        for f in sorted(ROOT.glob("packages/*/src/agentreflex/**/*.py"))
        if not f.is_relative_to(ROOT / "packages" / "gate")
    ]
    users = []
    undeclared = []
    for path in files:
        for module, line in imported_modules(path.read_text(encoding="utf-8"), "agentreflex.gate"):
            users.append(path)
            if module != "agentreflex.gate.api":
                undeclared.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert users, "the scan found no sibling using the gate (instructions does)"
    assert undeclared == [], "import agentreflex.gate.api instead:\n" + "\n".join(undeclared)


def test_the_scan_sees_a_reach_past_the_api() -> None:
    source = (
        "from agentreflex.gate.rules import constraints\n"
        "from agentreflex.gate import api, files\n"
        "import agentreflex.gate.shell.paths\n"
    )
    assert imported_modules(source, "agentreflex.gate") == [
        ("agentreflex.gate.rules", 1),
        ("agentreflex.gate.api", 2),
        ("agentreflex.gate.files", 2),
        ("agentreflex.gate.shell.paths", 3),
    ]


def test_the_gate_api_is_pinned_and_every_name_resolves() -> None:
    assert tuple(gate_api.__all__) == GATE_API
    for name in gate_api.__all__:
        assert getattr(gate_api, name) is not None, name
    with pytest.raises(AttributeError, match="see __all__"):
        _ = gate_api.walk  # type: ignore[attr-defined]


def test_importing_the_api_loads_nothing_until_a_name_is_used() -> None:
    code = (
        "import sys\n"
        "from agentreflex.gate import api\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentreflex.gate.')))\n"
        "api.extract_constraints('do not modify tests')\n"
        "print('agentreflex.gate.rules.constraints' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["['agentreflex.gate.api']", "True"]
