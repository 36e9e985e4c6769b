"""One list of agentreflex's own files (issue 32, item 4): every protected path is named by it.

The gate looks for ``PROTECTED_NAMES`` in file-writing code and in commands;
``protected_paths`` is what it protects.  Were a host's folder added to one and
not the other, the gate would protect the folder yet let code that builds its
path, or a command naming it, through the cheap checks.  This test ties them.
"""

from __future__ import annotations

from pathlib import Path

from agentreflex.core.state.userdirs import COMMON_PROTECTED_NAMES, PROTECTED_NAMES, protected_paths


def test_every_protected_path_is_named_by_the_one_list(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    names = (*PROTECTED_NAMES, *COMMON_PROTECTED_NAMES)
    unnamed = [p for p in protected_paths(str(project), env) if not any(n in p for n in names)]
    assert unnamed == []


def test_common_names_are_not_looked_for_in_code() -> None:
    """``.pi`` would match ``data.pickle``: it is a path name, never a code fragment."""
    assert not set(COMMON_PROTECTED_NAMES) & set(PROTECTED_NAMES)
    assert not any(n in "open('data.pickle', 'wb')" for n in PROTECTED_NAMES)
