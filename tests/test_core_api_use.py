"""Siblings import from core only what core declares as its API.

Scans every sibling package's source (``packages/*/src``, core excepted) for
``from agentreflex.core... import NAME`` and ``import agentreflex.core...``
and fails on any name ``agentreflex.core.api`` does not list: a sibling that
reaches into core's internals would break on a core release its version
range admits. Fix the import, or extend the API in ``api.py`` deliberately.
"""

from __future__ import annotations

import ast
from pathlib import Path

from agentreflex.core import api

ROOT = Path(__file__).resolve().parents[1]


def core_imports(source: str) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` of every import from agentreflex.core in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "agentreflex.core" or node.module.startswith("agentreflex.core."):
                found += [(node.module, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("agentreflex.core."):
                    module, _, name = alias.name.rpartition(".")
                    found.append((module, name, node.lineno))
    return found


def sibling_sources() -> list[Path]:
    files = sorted(ROOT.glob("packages/*/src/agentreflex/**/*.py"))
    return [f for f in files if not f.is_relative_to(ROOT / "packages" / "core")]


def test_siblings_import_only_the_declared_api() -> None:
    files = sibling_sources()
    assert len(files) > 20  # the scan really found the siblings' sources
    undeclared = [
        f"{path.relative_to(ROOT)}:{line}: from {module} import {name}"
        for path in files
        for module, name, line in core_imports(path.read_text(encoding="utf-8"))
        if not api.allows(module, name)
    ]
    assert undeclared == [], (
        "not in agentreflex.core.api (import something that is, or add it there deliberately):\n"
        + "\n".join(undeclared)
    )


def test_the_scan_sees_an_undeclared_import() -> None:
    source = (
        "from agentreflex.core.hook.runtime import run_hook\nimport agentreflex.core.hook.daemon\n"
    )
    found = core_imports(source)
    assert found == [
        ("agentreflex.core.hook.runtime", "run_hook", 1),
        ("agentreflex.core.hook", "daemon", 2),
    ]
    assert not any(api.allows(m, n) for m, n, _ in found)
