"""Core's declared API (``agentreflex.core.api``) is honest, in the style of httpx's
``tests/test_exported_members.py``: every listed name exists, the lists are
kept sorted (so a change to the API is a readable one-line diff), and the
declaration costs a hook nothing.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from agentreflex.core import api


def test_every_declared_name_exists() -> None:
    missing = []
    for module_name, names in api.NAMES.items():
        module = importlib.import_module(module_name)
        missing += [f"{module_name}.{n}" for n in names if not hasattr(module, n)]
    assert missing == [], "declared in agentreflex.core.api but gone: " + ", ".join(missing)


def test_every_whole_module_exists_and_has_public_names() -> None:
    for module_name in api.WHOLE_MODULES:
        module = importlib.import_module(module_name)
        assert [n for n in vars(module) if not n.startswith("_")], module_name


def test_the_declaration_is_sorted() -> None:
    assert list(api.NAMES) == sorted(api.NAMES)
    assert list(api.WHOLE_MODULES) == sorted(api.WHOLE_MODULES)
    for module_name, names in api.NAMES.items():
        assert list(names) == sorted(names), module_name


def test_allows_reads_the_declaration() -> None:
    assert api.allows("agentreflex.core.events", "Event")
    assert api.allows("agentreflex.core.util", "fastjson")
    assert api.allows("agentreflex.core.systemone.signals", "anything_public")
    assert not api.allows("agentreflex.core.events", "_private")  # not declared
    assert not api.allows("agentreflex.core.hook.runtime", "run_hook")


def test_the_declaration_imports_nothing() -> None:
    """Plain data: importing it (which no hook does) could not slow anything down."""
    tree = ast.parse(Path(api.__file__).read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert imports == []
